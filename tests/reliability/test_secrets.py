"""Passwords and tokens given to the modules never show, not even with -vvv, nor in Ansible's log."""

import pytest
import yaml
from harness.ansible_runner import run_playbook
from local_cloud import paths

CLOUDS = yaml.safe_load(paths.clouds_yaml().read_text())["clouds"]


def admin_auth():
    return dict(CLOUDS["local-admin"]["auth"])


def fresh_token(conn):
    return conn.session.get_token(), conn.session.get_project_id()


def run_verbose(task, tmp_path):
    log = tmp_path / "ansible.log"
    _results, completed = run_playbook(
        [task], verbosity=3, extra_env={"ANSIBLE_LOG_PATH": str(log)}
    )
    return completed, completed.stdout + completed.stderr + (
        log.read_text() if log.exists() else ""
    )


def cases():
    auth = admin_auth()
    return {
        "password in auth": ({"auth": auth, "auth_type": "password"}, auth["password"]),
        "password in a cloud dict": (
            {"cloud": {"auth": auth, "auth_type": "password"}},
            auth["password"],
        ),
        "wrong password in auth": (
            {"auth": dict(auth, password="Wr0ng-s3cret-value"), "auth_type": "password"},
            "Wr0ng-s3cret-value",
        ),
    }


@pytest.mark.parametrize("name", list(cases()))
def test_a_password_never_shows_with_vvv(tmp_path, name):
    connection, secret = cases()[name]
    task = {
        "name": "read volumes",
        "multiattach.cloud.volume_info": connection,
        "ignore_errors": True,
    }

    completed, everything = run_verbose(task, tmp_path)

    assert "AnsiballZ_volume_info" in everything  # the module ran
    assert "ESTABLISH LOCAL CONNECTION" in everything  # -vvv really on
    assert secret not in everything, "%s leaked" % name
    assert completed.returncode in (0, 2)


def test_a_token_never_shows_with_vvv(admin_cloud, tmp_path):
    token, project_id = fresh_token(admin_cloud)
    task = {
        "name": "read volumes",
        "multiattach.cloud.volume_info": {
            "auth_type": "token",
            "auth": {
                "auth_url": CLOUDS["local-admin"]["auth"]["auth_url"],
                "token": token,
                "project_id": project_id,
            },
        },
    }

    completed, everything = run_verbose(task, tmp_path)

    assert completed.returncode == 0, everything[-3000:]
    assert token not in everything


def test_the_secret_is_masked_not_dropped(tmp_path):
    """The masked invocation still shows that auth was given, so -vvv stays useful."""
    auth = admin_auth()
    task = {
        "name": "read volumes",
        "multiattach.cloud.volume_info": {"auth": auth, "auth_type": "password"},
    }

    _completed, everything = run_verbose(task, tmp_path)

    assert "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER" in everything or "********" in everything


@pytest.mark.parametrize(
    "module, args, secrets",
    [
        # a misspelt option: Ansible's own argument check fails and prints the raw invocation
        (
            "multiattach.cloud.volume_info",
            {
                "cloud": {
                    "auth": {
                        "auth_url": "http://127.0.0.1:5000/v3",
                        "username": "u",
                        "password": "Cl0ud-Pw/,@ x",
                    }
                },
                "nmae": "data",
            },
            ["Cl0ud-Pw/,@ x"],
        ),
        # a wrong type, URL passwords of the forms masking used to miss, a secret under a misspelt name
        (
            "multiattach.cloud.ini_settings",
            {
                "path": "/nonexistent/cinder.conf",
                "mode": ["0640"],
                "settings": {
                    "DEFAULT": {
                        "transport_url": "rabbit://u:Rabbit@Pw,1@h1:5672/",
                        "endpoint": "https://h/v1?user=me&password=Query-Pw 2",
                    },
                    "keymgr": {"hmac_keys": "Hmac-Keys-Pw"},
                },
                "san_passwrd": "Misspelt-Pw",
            },
            ["Rabbit@Pw,1", "Query-Pw 2", "Hmac-Keys-Pw", "Misspelt-Pw"],
        ),
    ],
)
def test_a_failed_argument_check_shows_no_secret_with_vvv(tmp_path, module, args, secrets):
    task = {"name": "bad arguments", module: args, "ignore_errors": True}

    completed, everything = run_verbose(task, tmp_path)

    assert "ESTABLISH LOCAL CONNECTION" in everything  # -vvv really on
    # the fault struck: Ansible's own check refused the arguments
    assert "Unsupported parameters" in everything or "is of type" in everything, everything[-2000:]
    assert "module_args" in everything  # the invocation was printed, masked
    for secret in secrets:
        assert secret not in everything, "%s leaked" % secret
    assert completed.returncode in (0, 2)


@pytest.mark.parametrize("verbosity", [1, 3])
def test_a_backends_credentials_never_show_in_the_roles_loops(tmp_path, verbosity):
    """cinder_multiattach loops over its backends: a loop item shows in the result whatever
    the label says, so the loops give the backend's name only."""
    backends = {
        "san": {
            "volume_driver": "cinder.volume.drivers.lvm.LVMVolumeDriver",
            "volume_backend_name": "san",
            "san_password": "San-Backend-Pw",
            "rbd_secret_uuid": "Rbd-Secret-Uuid",
        }
    }
    task = {
        "name": "validate the role's input",
        "ansible.builtin.include_role": {
            "name": "multiattach.cloud.cinder_multiattach",
            "tasks_from": "validate.yml",
        },
        "vars": {"cinder_multiattach_backends": backends},
    }
    log = tmp_path / "ansible.log"
    # the operator's callback, which prints each loop item's result from -v on
    _results, completed = run_playbook(
        [task],
        verbosity=verbosity,
        extra_env={
            "ANSIBLE_LOG_PATH": str(log),
            "ANSIBLE_STDOUT_CALLBACK": "default",
            "ANSIBLE_CALLBACK_RESULT_FORMAT": "yaml",
        },
    )
    everything = completed.stdout + completed.stderr + (log.read_text() if log.exists() else "")

    assert completed.returncode == 0, everything[-3000:]
    assert (
        "(item=san)" in everything and "cinder_multiattach_backend: san" in everything
    )  # item results shown
    assert "San-Backend-Pw" not in everything and "Rbd-Secret-Uuid" not in everything
