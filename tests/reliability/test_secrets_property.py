"""Random printable passwords through the real modules and roles, as an operator runs them.

Each example is one password drawn from the printable characters (the characters that end a
URL's credentials or a query value drawn often). It goes into an INI file's URLs, query
strings, secret-named options with `=` and `:`, commented-out lines and a file already on disk;
into a `cloud` dict Keystone refuses; into arguments Ansible's own check refuses (a misspelt
option, a wrong type); into cinder_multiattach's backend credentials; and into
fencing_identity. The passwords reach the tasks as an operator's do, from a vars file (as
from a vault): ansible-core itself shows a failed task's neighbouring playbook lines, so a
password written into a task is the playbook author's to hide. The playbook runs with -vvv
--diff, then again with --check: every byte of stdout, stderr, Ansible's log and every result
the callbacks receive is searched for the password, raw and in every escaped form a printer
could give it.
"""

import json
import tempfile
import urllib.parse
from pathlib import Path

import yaml
from harness.ansible_runner import run_ansible_playbook
from harness.secret_forms import url_forms
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from local_cloud import paths

from ansible_collections.multiattach.cloud.plugins.module_utils.secrets import secrets_in

CALLBACKS = str(paths.ROOT / "tests" / "harness" / "callback_plugins")
CHUNKS = [
    "://",
    "@",
    ":",
    "/",
    ",",
    " ",
    "?",
    "&",
    "#",
    "=",
    ";",
    "'",
    '"',
    "\\",
    "%",
    "@h:1,",
    "x://",
]


def passwords(excluded=""):
    """Printable passwords, the characters that end a URL's credentials or a query value drawn
    often; none holds EXCLUDED. Jinja's markers are left out: Ansible templates a playbook's
    strings, and a password written there holding "{{" must be marked !unsafe by its author,
    whatever module gets it."""
    return (
        st.lists(
            st.one_of(
                st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters=excluded),
                st.sampled_from([c for c in CHUNKS if not set(c) & set(excluded)]),
            ),
            min_size=10,
            max_size=28,
        )
        .map("".join)
        .filter(
            lambda p: (
                p.strip() == p
                and len(set(p)) >= 5
                and "*" * 8 not in p
                and not any(marker in p for marker in ("{{", "{%", "{#"))
            )
        )
    )


def printed_forms(password):
    """The password as any printer of this run could show it: raw, JSON- and Python-escaped,
    YAML-quoted, percent-encoded."""
    return {
        password,
        json.dumps(password)[1:-1],
        repr(password)[1:-1],
        password.replace("'", "''"),
        urllib.parse.quote(password, safe=""),
        urllib.parse.quote_plus(password),
    }


PASSWORD, QUERY_PASSWORD = "{{ prop_password }}", "{{ prop_query_password }}"


def playbook(password, query_password, url_form, work):
    """The playbook file: the passwords in a vars file of their own, the tasks naming them."""
    (work / "secrets.yml").write_text(
        yaml.safe_dump({"prop_password": password, "prop_query_password": query_password})
    )
    play = [
        {
            "name": "secrets, property-based",
            "hosts": "localhost",
            "connection": "local",
            "gather_facts": False,
            "vars_files": [str(work / "secrets.yml")],
            "tasks": tasks(PASSWORD, QUERY_PASSWORD, url_form, work),
        }
    ]
    path = work / "playbook.yml"
    path.write_text(yaml.safe_dump(play))
    return str(path)


def tasks(password, query_password, url_form, work):
    ini = str(work / "service.conf")
    cinder_conf = str(work / "cinder.conf")
    keystone = yaml.safe_load(paths.clouds_yaml().read_text())["clouds"]["local-admin"]["auth"]
    cloud = {"auth": dict(keystone, password=password), "auth_type": "password"}
    url_password = "rabbit://openstack:%s@127.0.0.1:5672,openstack:%s@127.0.0.2:5672/" % (
        password,
        password,
    )
    ignore = {"ignore_errors": True}
    return [
        dict(
            ignore,
            name="ini_settings: URLs, query strings, secret names, a file holding them",
            **{
                "multiattach.cloud.ini_settings": {
                    "path": ini,
                    "settings": {
                        "DEFAULT": {
                            "transport_url": url_password,
                            "admin_password": password,
                            "endpoint": "https://h.example/v1?user=me&ssl_key_password=%s"
                            % query_password,
                        },
                        "keymgr": {"hmac_keys": password, "kek": password, "apikey": password},
                        "coordination": {"backend_url": url_form.replace("{pw}", password)},
                        "cache": {"backend_argument": "password:%s" % password},
                        "database": {
                            "connection": "mysql+pymysql://cinder:%s@127.0.0.1/cinder" % password
                        },
                    },
                }
            },
        ),
        dict(
            ignore,
            name="volume_info: a cloud dict whose password Keystone refuses",
            **{"multiattach.cloud.volume_info": {"cloud": cloud}},
        ),
        dict(
            ignore,
            name="volume_info: a misspelt option beside a cloud dict",
            **{"multiattach.cloud.volume_info": {"cloud": cloud, "nmae": "data"}},
        ),
        dict(
            ignore,
            name="ini_settings: a wrong type beside URL passwords",
            **{
                "multiattach.cloud.ini_settings": {
                    "path": ini,
                    "create": "maybe",
                    "settings": {"DEFAULT": {"transport_url": url_password}},
                }
            },
        ),
        dict(
            ignore,
            name="ini_settings: a secret under a misspelt option",
            **{
                "multiattach.cloud.ini_settings": {
                    "path": ini,
                    "san_passwrd": password,
                    "settings": {},
                }
            },
        ),
        dict(
            ignore,
            name="cinder_multiattach: a backend's credentials",
            **{"ansible.builtin.include_role": {"name": "multiattach.cloud.cinder_multiattach"}},
            vars={
                "cinder_multiattach_config_file": cinder_conf,
                "cinder_multiattach_policy_file": str(work / "policy.yaml"),
                "cinder_multiattach_restart_mechanism": "command",
                "cinder_multiattach_restart_command": "true",
                "cinder_multiattach_backends": {
                    "san-1": {
                        "volume_driver": "cinder.volume.drivers.lvm.LVMVolumeDriver",
                        "volume_backend_name": "san-1",
                        "san_password": password,
                        "rbd_secret_uuid": password,
                        "api_token": password,
                    }
                },
            },
        ),
        dict(
            ignore,
            name="fencing_identity: the fencing user's password",
            check_mode=True,
            **{
                "multiattach.cloud.fencing_identity": {
                    "cloud": "local-admin",
                    "name": "prop-fence-user",
                    "password": password,
                    "project": "demo",
                }
            },
        ),
    ]


def masked_parts(password, query_password, url_form):
    """Every value the modules hand Ansible to mask for these passwords (URL readings included)."""
    url = "rabbit://openstack:%s@127.0.0.1:5672,openstack:%s@127.0.0.2:5672/" % (password, password)
    return set(
        secrets_in(
            {
                "transport_url": url,
                "password": password,
                "endpoint": "https://h.example/v1?ssl_key_password=%s" % query_password,
                "backend_url": url_form.replace("{pw}", password),
                "backend_argument": "password:%s" % password,
            }
        )
    )


def existing_files(password, work):
    (work / "service.conf").write_text(
        "[DEFAULT]\n# admin_password = %s\n;transport_url = rabbit://u:%s@old/\n"
        "old_password: %s\nadmin_password = old\n[keymgr]\nhmac_keys: %s\n"
        % (password, password, password, password)
    )
    (work / "cinder.conf").write_text(
        "[DEFAULT]\n# san_password = %s\n[san-1]\nsan_password: %s\n" % (password, password)
    )


def run_and_read_everything(playbook, work, check):
    log, results = work / "ansible.log", work / "results.jsonl"
    for leftover in (log, results):
        leftover.unlink(missing_ok=True)
    _none, completed = run_ansible_playbook(
        [playbook],
        check=check,
        diff=True,
        verbosity=3,
        extra_env={
            "ANSIBLE_LOG_PATH": str(log),
            "ANSIBLE_STDOUT_CALLBACK": "default",
            "ANSIBLE_CALLBACK_RESULT_FORMAT": "yaml",
            "ANSIBLE_CALLBACKS_ENABLED": "results_to_file",
            "ANSIBLE_CALLBACK_PLUGINS": CALLBACKS,
            "MULTIATTACH_RESULTS_FILE": str(results),
        },
    )
    files = [path.read_text() for path in (log, results) if path.exists()]
    return completed, completed.stdout + completed.stderr + "".join(files), results.read_text()


@settings(
    max_examples=6,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# A query value ends at & # ; by the URL's grammar: no password holds them unencoded there.
@given(password=passwords(), query_password=passwords(excluded="&#;"), url_form=url_forms())
def test_no_printable_password_shows_anywhere_at_vvv_diff_and_check(
    tmp_path, password, query_password, url_form
):
    work = Path(tempfile.mkdtemp(dir=tmp_path))
    path = playbook(password, query_password, url_form, work)
    for check in (False, True):
        existing_files(password, work)
        completed, everything, results = run_and_read_everything(path, work, check)

        # The paths struck: every task ran, Ansible's own check refused three of them before
        # the module's code, Keystone refused the cloud dict, -vvv was on. A password whose
        # URL reads as several hosts is masked in parts too, and a part may be as short as a
        # letter that Ansible then masks everywhere: a sentence holding one is not looked for.
        events = {}
        for line in results.splitlines():
            event = json.loads(line)
            events.setdefault(event["task"], []).append(event)
        for task in (
            "volume_info: a misspelt option beside a cloud dict",
            "ini_settings: a wrong type beside URL passwords",
            "ini_settings: a secret under a misspelt option",
        ):
            [refused] = [e for e in events[task] if e["event"] == "failed"]
            assert "changes" not in refused["data"] and "volumes" not in refused["data"], refused
        assert (
            "nmae"
            in events["volume_info: a misspelt option beside a cloud dict"][0]["data"][
                "invocation"
            ]["module_args"]
        )
        assert "fencing_identity: the fencing user's password" in events
        shown = [
            text
            for text in (
                "ESTABLISH LOCAL CONNECTION",
                "authentication failed",
                "Unsupported parameters",
                "is of type",
            )
            if not any(part in text for part in masked_parts(password, query_password, url_form))
        ]
        for text in shown:
            assert text in everything, text
        assert completed.returncode == 0, everything[-3000:]
        for form in printed_forms(password) | printed_forms(query_password):
            assert form not in everything, "a password leaked as %r (check=%s)" % (form, check)
