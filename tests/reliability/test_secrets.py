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
    _results, completed = run_playbook([task], verbosity=3,
                                       extra_env={"ANSIBLE_LOG_PATH": str(log)})
    return completed, completed.stdout + completed.stderr + (log.read_text() if log.exists() else "")


def cases():
    auth = admin_auth()
    return {
        "password in auth": ({"auth": auth, "auth_type": "password"}, auth["password"]),
        "password in a cloud dict": ({"cloud": {"auth": auth, "auth_type": "password"}},
                                     auth["password"]),
        "wrong password in auth": ({"auth": dict(auth, password="Wr0ng-s3cret-value"),
                                    "auth_type": "password"}, "Wr0ng-s3cret-value"),
    }


@pytest.mark.parametrize("name", list(cases()))
def test_a_password_never_shows_with_vvv(tmp_path, name):
    connection, secret = cases()[name]
    task = {"name": "read volumes", "multiattach.cloud.volume_info": connection,
            "ignore_errors": True}

    completed, everything = run_verbose(task, tmp_path)

    assert "AnsiballZ_volume_info" in everything  # the module ran
    assert "ESTABLISH LOCAL CONNECTION" in everything  # -vvv really on
    assert secret not in everything, "%s leaked" % name
    assert completed.returncode in (0, 2)


def test_a_token_never_shows_with_vvv(admin_cloud, tmp_path):
    token, project_id = fresh_token(admin_cloud)
    task = {"name": "read volumes", "multiattach.cloud.volume_info": {
        "auth_type": "token", "auth": {"auth_url": CLOUDS["local-admin"]["auth"]["auth_url"],
                                       "token": token, "project_id": project_id}}}

    completed, everything = run_verbose(task, tmp_path)

    assert completed.returncode == 0, everything[-3000:]
    assert token not in everything


def test_the_secret_is_masked_not_dropped(tmp_path):
    """The masked invocation still shows that auth was given, so -vvv stays useful."""
    auth = admin_auth()
    task = {"name": "read volumes", "multiattach.cloud.volume_info": {
        "auth": auth, "auth_type": "password"}}

    _completed, everything = run_verbose(task, tmp_path)

    assert "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER" in everything or "********" in everything
