"""One rule for what is secret, for every module: secret-looking names and URL passwords."""

import pytest
from harness.secret_forms import url_forms
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ansible_collections.multiattach.cloud.plugins.module_utils.secrets import (
    MASK,
    is_secret_name,
    mask_url_passwords,
    masked_value,
    secrets_in,
    url_passwords,
)


@pytest.mark.parametrize(
    "name",
    [
        "password",
        "admin_password",
        "application_credential_secret",
        "token",
        "passcode",
        "memcache_secret_key",
        "fixed_key",
        "client_key",
        "key",
        "rbd_keyring_passphrase",
    ],
)
def test_secret_looking_names(name):
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "volume_backend_name",
        "username",
        "auth_url",
        "region_name",
        "enabled_backends",
        "monkey",
        "key_manager",
        "keystone",
        "bypass_cache",
        "passthrough",
        "ssl_key_file",
    ],
)
def test_ordinary_names(name):
    assert not is_secret_name(name)


@pytest.mark.parametrize(
    "text,shown",
    [
        ("rabbit://cinder:S3cr3t@127.0.0.1:5672/", "rabbit://cinder:%s@127.0.0.1:5672/" % MASK),
        (
            "rabbit://a:p1@h1:5672,b:p2@h2:5672/vh",
            "rabbit://a:%s@h1:5672,b:%s@h2:5672/vh" % (MASK, MASK),
        ),
        (
            "mysql+pymysql://cinder:pw@127.0.0.1/cinder?charset=utf8",
            "mysql+pymysql://cinder:%s@127.0.0.1/cinder?charset=utf8" % MASK,
        ),
        ("redis://:pw@cache:6379", "redis://:%s@cache:6379" % MASK),
        ("http://127.0.0.1:5000/v3", "http://127.0.0.1:5000/v3"),
        ("user@host", "user@host"),
    ],
)
def test_url_passwords_are_masked_and_nothing_else(text, shown):
    assert mask_url_passwords(text) == shown


def test_masked_value_masks_a_secret_name_whole_and_urls_in_part():
    assert masked_value("san_password", "hunter2") == MASK
    assert masked_value("transport_url", "rabbit://u:p@h/") == "rabbit://u:%s@h/" % MASK
    assert masked_value("volume_group", "vg") == "vg"
    assert masked_value("password", None) is None


def test_secrets_in_finds_nested_values_and_url_passwords():
    settings = {
        "DEFAULT": {"transport_url": "rabbit://u:Rabbit-Pw@h/", "debug": True},
        "keystone_authtoken": {"password": "Ks-Pw", "username": "cinder"},
        "backend": {"san_password": 1234, "hosts": ["ssh://root:Ssh-Pw@san/"]},
    }
    assert sorted(secrets_in(settings)) == ["1234", "Ks-Pw", "Rabbit-Pw", "Ssh-Pw"]
    assert list(secrets_in({"auth": {"username": "admin", "password": ""}})) == []


@pytest.mark.parametrize(
    "name",
    [
        "hmac_keys",
        "kek",
        "backend_kek",
        "apikey",
        "api_key",
        "san_apikey",
        "auth_credential",
        "san_passwrd",
        "db_pwd",
    ],
)
def test_names_the_issue_found_unmasked_are_secret(name):
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "text,shown",
    [
        # passwords holding "/", "@", "," or a space
        ("rabbit://u:a/b@h:5672/", "rabbit://u:%s@h:5672/" % MASK),
        ("rabbit://u:p@ss@h:5672/", "rabbit://u:%s@h:5672/" % MASK),
        ("mysql+pymysql://u:a,b@h/db", "mysql+pymysql://u:%s@h/db" % MASK),
        ("mysql+pymysql://u:pa ss@h/db", "mysql+pymysql://u:%s@h/db" % MASK),
        # query parameters whose name says secret; the others stay
        ("https://h/v1?password=pw&user=me", "https://h/v1?password=%s&user=me" % MASK),
        (
            "etcd3+http://h:2379?ssl_key_password=pw",
            "etcd3+http://h:2379?ssl_key_password=%s" % MASK,
        ),
        ("https://h/?a=1&token=t k&b=2", "https://h/?a=1&token=%s&b=2" % MASK),
        ("https://h/?region=one", "https://h/?region=one"),
        # an IPv6 host, and two URLs on one line
        ("rabbit://u:pw@[::1]:5672/", "rabbit://u:%s@[::1]:5672/" % MASK),
        ("rabbit://u:x1://y@h/", "rabbit://u:%s@h/" % MASK),
        (
            "a rabbit://u:p1@h1/ b mysql://v:p2@h2/db",
            "a rabbit://u:%s@h1/ b mysql://v:%s@h2/db" % (MASK, MASK),
        ),
    ],
)
def test_url_passwords_of_any_form_are_masked(text, shown):
    assert mask_url_passwords(text) == shown


def test_a_password_that_reads_as_two_hosts_is_secret_whole_and_in_parts():
    found = url_passwords("rabbit://u:a@b,c:d@h:5672/")
    assert "a@b,c:d" in found and "a" in found and "d" in found


# printable characters, with the ones URLs are made of drawn often
PRINTABLE_PASSWORDS = (
    st.lists(
        st.one_of(
            st.characters(min_codepoint=0x20, max_codepoint=0x7E),
            st.sampled_from(["://", "@", ":", "/", ",", " ", "?", "&", "#", "=", "@h:1,", "x://"]),
        ),
        min_size=6,
        max_size=24,
    )
    .map("".join)
    .filter(lambda p: p.strip() == p and p not in MASK)
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    password=PRINTABLE_PASSWORDS,
    scheme=st.sampled_from(["rabbit", "mysql+pymysql", "https", "redis"]),
    path=st.sampled_from(["", "/", "/cinder?charset=utf8", ":5672/vhost"]),
)
def test_a_printable_password_in_a_urls_credentials_never_shows(password, scheme, path):
    url = "%s://cinder:%s@db.example%s" % (scheme, password, path)
    assume(password not in url.replace(password, "", 1))
    assert password not in mask_url_passwords(url)
    assert password in secrets_in({"transport_url": url})


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    password=PRINTABLE_PASSWORDS,
    name=st.sampled_from(["password", "ssl_key_password", "token", "apikey"]),
)
def test_a_printable_password_in_a_secret_query_parameter_never_shows(password, name):
    assume("&" not in password and "#" not in password and ";" not in password)
    url = "https://h.example/v1?user=me&%s=%s" % (name, password)
    assert password not in mask_url_passwords(url)
    assert password in secrets_in({"endpoint": url})


# Issue 50: URL forms oslo.config and oslo.messaging accept that were printed in clear: later
# hosts without credentials, an IPv6 host with a zone, percent-encoded names.
@pytest.mark.parametrize(
    "text,shown",
    [
        ("rabbit://u:PW@h1,h2/", "rabbit://u:%s@h1,h2/" % MASK),
        # No host (a local socket): issue 50's review.
        ("rabbit://openstack:PW@/", "rabbit://openstack:%s@/" % MASK),
        (
            "mysql+pymysql://nova:PW@/nova?unix_socket=/run/mysqld/mysqld.sock",
            "mysql+pymysql://nova:%s@/nova?unix_socket=/run/mysqld/mysqld.sock" % MASK,
        ),
        ("rabbit://u:PW@h1:5672,h2:5672/vh", "rabbit://u:%s@h1:5672,h2:5672/vh" % MASK),
        ("kazoo://u:PW@zk1:2181,zk2:2181", "kazoo://u:%s@zk1:2181,zk2:2181" % MASK),
        ("kazoo://u:PW@zk1:2181,zk2:2181/path", "kazoo://u:%s@zk1:2181,zk2:2181/path" % MASK),
        (
            "rabbit://a:p1@h1,b:p2@h2,h3:5672/",
            "rabbit://a:%s@h1,b:%s@h2,h3:5672/" % (MASK, MASK),
        ),
        ("rabbit://u:PW@[fe80::1%eth0]:5672/", "rabbit://u:%s@[fe80::1%%eth0]:5672/" % MASK),
        ("rabbit://u:PW@[fe80::1%25eth0]:5672/", "rabbit://u:%s@[fe80::1%%25eth0]:5672/" % MASK),
        ("rabbit://u:PW@[::1],[::2]:5672/", "rabbit://u:%s@[::1],[::2]:5672/" % MASK),
        ("mysql://ci%40nder:PW@db/x", "mysql://ci%%40nder:%s@db/x" % MASK),
        (
            "mysql://ci%40nder:P%40W@h%2Dx.example/x",
            "mysql://ci%%40nder:%s@h%%2Dx.example/x" % MASK,
        ),
        ("amqp://u:PW@rabbit~1.example/", "amqp://u:%s@rabbit~1.example/" % MASK),
    ],
)
def test_url_passwords_of_every_oslo_form_are_masked(text, shown):
    assert mask_url_passwords(text) == shown
    # what was masked is also what Ansible is given to mask everywhere
    before, after = shown.split(MASK, 1)[0], shown.rsplit(MASK, 1)[-1]
    masked_first = text[len(before) :].split("@", 1)[0]
    assert masked_first in url_passwords(text)
    assert text.endswith(after)


# oslo.cache's backend_argument: "name:value" pairs, a secret-looking name's value secret.
@pytest.mark.parametrize(
    "value,shown,secret",
    [
        ("password:X1y2", "password:%s" % MASK, "X1y2"),
        ("password: X1y2", "password: %s" % MASK, "X1y2"),
        ("sentinel_password:a:b", "sentinel_password:%s" % MASK, "a:b"),
        ("url:redis://u:RPW@h:6379", "url:redis://u:%s@h:6379" % MASK, "RPW"),
        ("db:0", "db:0", None),
        ("distributed_lock:true", "distributed_lock:true", None),
    ],
)
def test_a_backend_argument_pair_with_a_secret_name_is_masked(value, shown, secret):
    assert masked_value("backend_argument", value) == shown
    found = list(secrets_in({"backend_argument": value}))
    assert (secret in found) if secret else found == []
    assert list(secrets_in({"backend_argument": [value, "db:1"]})) == found


@settings(max_examples=500, deadline=None, derandomize=True)
@given(password=PRINTABLE_PASSWORDS, form=url_forms())
def test_a_printable_password_in_any_oslo_url_form_never_shows(password, form):
    """As Ansible shows a module's arguments (the raw URL) and its result (the masked value):
    each with every value secrets_in hands Ansible replaced."""
    url = form.replace("{pw}", password)
    assume(url.count(password) == form.count("{pw}"))
    secrets = sorted(secrets_in({"backend_url": url}), key=len, reverse=True)
    for text in (url, masked_value("backend_url", url)):
        for secret in secrets:
            text = text.replace(secret, MASK)
        assert password not in text
