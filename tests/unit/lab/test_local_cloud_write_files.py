"""The local cloud's one-process file writer (tools/local_cloud/write_files.py)."""

import json
import stat
import subprocess
import sys

from local_cloud import paths

WRITE_FILES = [str(paths.LAB), "--python", sys.executable, "write_files"]


def write(spec):
    completed = subprocess.run(
        WRITE_FILES, input=json.dumps(spec), capture_output=True, text=True, timeout=60, check=False
    )
    return completed.returncode, (
        json.loads(completed.stdout) if completed.returncode == 0 else completed.stderr
    )


def mode(path):
    return stat.S_IMODE(path.stat().st_mode)


def test_writes_what_differs_and_nothing_on_a_second_run(tmp_path):
    source = tmp_path / "shipped.ini"
    source.write_text("[pipeline]\n")
    (tmp_path / "old.sync-status").write_text("1\n")
    spec = {
        "directories": [str(tmp_path / "state" / "data" / "nova" / "locks")],
        "files": [[str(tmp_path / "state" / "a.conf"), "secret = s3cret\n"]],
        "copies": [[str(source), str(tmp_path / "state" / "api-paste.ini")]],
        "keep": [[str(tmp_path / "state" / "policy.yaml"), "{}\n"]],
        "remove": [str(tmp_path / "old.sync-status")],
    }

    first_code, first = write(spec)
    second_code, second = write(spec)

    assert first_code == 0 and len(first["changed"]) == 5
    assert second_code == 0 and second["changed"] == []
    for directory in ("state", "state/data", "state/data/nova", "state/data/nova/locks"):
        assert mode(tmp_path / directory) == 0o700, directory
    assert (tmp_path / "state" / "a.conf").read_text() == "secret = s3cret\n"
    assert mode(tmp_path / "state" / "a.conf") == 0o600
    assert (tmp_path / "state" / "api-paste.ini").read_text() == "[pipeline]\n"
    assert not (tmp_path / "old.sync-status").exists()


def test_a_changed_file_is_rewritten_and_a_kept_one_is_not(tmp_path):
    conf, policy = tmp_path / "a.conf", tmp_path / "policy.yaml"
    conf.write_text("old\n")
    policy.write_text("# the operator's rules\n")

    code, result = write({"files": [[str(conf), "new\n"]], "keep": [[str(policy), "{}\n"]]})

    assert code == 0 and result["changed"] == [str(conf)]
    assert conf.read_text() == "new\n" and policy.read_text() == "# the operator's rules\n"


def test_an_unwritable_path_fails_naming_it_without_the_content(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")

    code, stderr = write({"files": [[str(blocker / "a.conf"), "password = hunter2\n"]]})

    assert code == 1
    assert "cannot write %s" % (blocker / "a.conf") in stderr
    assert "hunter2" not in stderr
