"""multiattach.cloud.config_files through ansible-playbook on this machine: the files written
once, then the command run after them; nothing run where nothing was written or in check mode."""

from harness.ansible_runner import run_module

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
