"""multiattach.cloud.config_files through ansible-playbook on this machine: the files written
once, then the command run after them; nothing run where nothing was written or in check mode."""

from harness.ansible_runner import run_module, run_playbook

MODULE = "multiattach.cloud.config_files"


def test_writes_then_runs_the_command_once_and_a_rerun_runs_nothing(tmp_path):
    conf, seen = tmp_path / "corosync.conf", tmp_path / "seen-by-the-command"
    conf.write_text("old\n")
    args = {
        "files": [{"path": str(conf), "content": "new\n", "mode": "0640"}],
        # The command copies the file as it finds it: it ran after the write, and only then.
        "run_after_write": ["cp", str(conf), str(seen)],
    }

    checked = run_module(MODULE, args, check=True, diff=True)
    assert checked["changed"] is True and checked["ran"] == args["run_after_write"]
    assert conf.read_text() == "old\n" and not seen.exists()

    first = run_module(MODULE, args)
    assert first["changed"] is True and first["written"] == [str(conf)]
    assert seen.read_text() == "new\n" and oct(conf.stat().st_mode & 0o777) == "0o640"

    seen.unlink()
    second = run_module(MODULE, args)
    assert second["changed"] is False and second["ran"] is None and not seen.exists()


def test_a_failing_command_fails_the_run_naming_it_and_the_file_stays_written(tmp_path):
    conf = tmp_path / "corosync.conf"
    args = {
        "files": [{"path": str(conf), "content": "new\n", "mode": "0644"}],
        "run_after_write": ["false"],
    }

    failed = run_module(MODULE, args)

    assert failed.get("failed") is True
    assert failed["msg"].startswith("%s were written, then false failed (exit 1)" % conf)
    assert "Traceback" not in str(failed) and conf.read_text() == "new\n"


def test_a_secret_file_is_written_beside_the_others_and_never_shown(tmp_path):
    conf, clouds = tmp_path / "corosync.conf", tmp_path / "openstack" / "clouds.yaml"
    conf.write_text("old\n")
    secret = "clouds:\n  fencing:\n    auth:\n      password: Fenc1ng-Secr3t-Pw\n"
    args = {
        "files": [{"path": str(conf), "content": "nodelist-new\n", "mode": "0644"}],
        "secret_files": [
            {"path": str(clouds), "content": secret, "mode": "0600", "directory_mode": "0700"}
        ],
    }
    log = tmp_path / "ansible.log"
    task = {"name": "write", MODULE: args}

    checked = run_module(MODULE, args, check=True, diff=True)
    assert checked["changed"] is True and not clouds.exists()
    # What an operator reads: the default callback, -vvv, --diff.
    _none, verbose = run_playbook(
        [task],
        diff=True,
        verbosity=3,
        extra_env={"ANSIBLE_LOG_PATH": str(log), "ANSIBLE_STDOUT_CALLBACK": "default"},
    )
    again = run_module(MODULE, args, diff=True)
    # A secret in a directory that is missing, with no mode to make it: the failure names the
    # path, not the content.
    missing = dict(args, secret_files=[dict(args["secret_files"][0], directory_mode=None)])
    missing["secret_files"][0]["path"] = str(tmp_path / "none" / "clouds.yaml")
    failed = run_module(MODULE, missing)

    assert "ESTABLISH LOCAL CONNECTION" in verbose.stdout  # -vvv was on
    assert "+nodelist-new" in verbose.stdout, "the ordinary file's diff is shown"
    assert "(new secret content, not shown)" in verbose.stdout
    assert clouds.read_text() == secret and oct(clouds.stat().st_mode & 0o777) == "0o600"
    assert again["changed"] is False
    assert failed.get("failed") is True and "none/clouds.yaml" in failed["msg"]
    shown = str(checked) + str(again) + str(failed) + verbose.stdout + verbose.stderr
    assert "Fenc1ng-Secr3t-Pw" not in shown + log.read_text()
