"""One rule for what is secret, for every module: secret-looking names and URL passwords."""
import pytest

from ansible_collections.multiattach.cloud.plugins.module_utils.secrets import (
    MASK, is_secret_name, mask_url_passwords, masked_value, secrets_in)


@pytest.mark.parametrize("name", ["password", "admin_password", "application_credential_secret",
                                  "token", "passcode", "memcache_secret_key", "fixed_key",
                                  "client_key", "key", "rbd_keyring_passphrase"])
def test_secret_looking_names(name):
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["volume_backend_name", "username", "auth_url", "region_name",
                                  "enabled_backends", "monkey", "key_manager", "keystone"])
def test_ordinary_names(name):
    assert not is_secret_name(name)


@pytest.mark.parametrize("text,shown", [
    ("rabbit://cinder:S3cr3t@127.0.0.1:5672/", "rabbit://cinder:%s@127.0.0.1:5672/" % MASK),
    ("rabbit://a:p1@h1:5672,b:p2@h2:5672/vh", "rabbit://a:%s@h1:5672,b:%s@h2:5672/vh" % (MASK, MASK)),
    ("mysql+pymysql://cinder:pw@127.0.0.1/cinder?charset=utf8",
     "mysql+pymysql://cinder:%s@127.0.0.1/cinder?charset=utf8" % MASK),
    ("redis://:pw@cache:6379", "redis://:%s@cache:6379" % MASK),
    ("http://127.0.0.1:5000/v3", "http://127.0.0.1:5000/v3"),
    ("user@host", "user@host"),
])
def test_url_passwords_are_masked_and_nothing_else(text, shown):
    assert mask_url_passwords(text) == shown


def test_masked_value_masks_a_secret_name_whole_and_urls_in_part():
    assert masked_value("san_password", "hunter2") == MASK
    assert masked_value("transport_url", "rabbit://u:p@h/") == "rabbit://u:%s@h/" % MASK
    assert masked_value("volume_group", "vg") == "vg"
    assert masked_value("password", None) is None


def test_secrets_in_finds_nested_values_and_url_passwords():
    settings = {"DEFAULT": {"transport_url": "rabbit://u:Rabbit-Pw@h/", "debug": True},
                "keystone_authtoken": {"password": "Ks-Pw", "username": "cinder"},
                "backend": {"san_password": 1234, "hosts": ["ssh://root:Ssh-Pw@san/"]}}
    assert sorted(secrets_in(settings)) == ["1234", "Ks-Pw", "Rabbit-Pw", "Ssh-Pw"]
    assert list(secrets_in({"auth": {"username": "admin", "password": ""}})) == []
