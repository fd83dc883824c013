"""config_files on this machine's filesystem: one write for each file that differs, nothing for
the rest; a mode alone is changed in place; check mode writes nothing; the read filter agrees."""

import os

import pytest

from ansible_collections.multiattach.cloud.plugins.filter.files_to_write import files_to_write
from ansible_collections.multiattach.cloud.plugins.module_utils.host.config_files import (
    ConfigFilesChange,
    file_state,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure


def entry(path, content, mode="0644", **more):
    return dict(dict(path=str(path), content=content, mode=mode, directory_mode=None), **more)


def test_only_the_files_that_differ_are_written_and_reported(tmp_path):
    same, other, new = tmp_path / "same", tmp_path / "other", tmp_path / "sub" / "new"
    same.write_text("kept\n")
    same.chmod(0o644)
    other.write_text("old\n")
    files = [
        entry(same, "kept\n"),
        entry(other, "new\n", "0600"),
        entry(new, "made\n", directory_mode="0700"),
    ]
    before = same.stat().st_mtime_ns

    checked = ConfigFilesChange(None, files=files).run(check_mode=True)
    assert checked["written"] == [str(other), str(new)] and not new.exists()
    assert checked["diff"][0]["before"] == "old\n" and checked["diff"][0]["after"] == "new\n"

    done = ConfigFilesChange(None, files=files).run(check_mode=False)
    assert done["changed"] and done["written"] == [str(other), str(new)]
    assert other.read_text() == "new\n" and oct(other.stat().st_mode & 0o777) == "0o600"
    assert new.read_text() == "made\n" and oct(new.parent.stat().st_mode & 0o777) == "0o700"
    assert same.stat().st_mtime_ns == before
    assert ConfigFilesChange(None, files=files).run(check_mode=False)["changed"] is False
    assert os.listdir(tmp_path / "sub") == ["new"], "no temporary file is left"


def test_a_mode_alone_is_changed_without_a_write(tmp_path):
    path = tmp_path / "conf"
    path.write_text("same\n")
    path.chmod(0o644)
    done = ConfigFilesChange(None, files=[entry(path, "same\n", "0640")]).run(check_mode=False)
    assert done["written"] == [str(path)] and oct(path.stat().st_mode & 0o777) == "0o640"
    assert done["diff"][0]["before"] == "mode 0644\n"


@pytest.mark.parametrize(
    "files,expected",
    [
        ([entry("relative/conf", "x")], "absolute paths, not relative/conf"),
        ([entry("/tmp/a", "x"), entry("/tmp/a", "y")], "lists /tmp/a more than once"),
        ([entry("/tmp/a", "x", "rw-r--r--")], "not an octal mode"),
    ],
)
def test_a_wrong_list_is_refused_before_any_write(files, expected):
    with pytest.raises(ModuleFailure, match=expected):
        ConfigFilesChange(None, files=files)


def test_a_missing_directory_without_a_mode_is_named(tmp_path):
    with pytest.raises(ModuleFailure, match="directory of .* does not exist"):
        ConfigFilesChange(None, files=[entry(tmp_path / "no" / "conf", "x")]).run(False)


def test_the_filter_keeps_exactly_the_files_the_module_would_write(tmp_path):
    same, other = tmp_path / "same", tmp_path / "other"
    same.write_text("kept\n")
    same.chmod(0o644)
    other.write_text("old\n")
    other.chmod(0o644)
    files = [entry(same, "kept\n"), entry(other, "new\n"), entry(tmp_path / "none", "x")]
    read = {f["path"]: file_state(f["path"]) for f in files}
    assert [f["path"] for f in files_to_write(files, read)] == [
        str(other),
        str(tmp_path / "none"),
    ]
    assert files_to_write([entry(same, "kept\n", 644)], read) == []


class Recorder:
    """A run_command that records what it ran, and sees what the file held at that moment."""

    def __init__(self, watched, rc=0):
        self.watched, self.rc, self.ran = watched, rc, []

    def __call__(self, argv):
        self.ran.append((argv, self.watched.read_text()))
        return self.rc, "", "" if self.rc == 0 else "cannot reload: not running"


def test_the_command_runs_once_after_the_writes_and_only_when_something_was_written(tmp_path):
    conf, other = tmp_path / "corosync.conf", tmp_path / "dlm.conf"
    conf.write_text("old\n")
    files = [entry(conf, "new\n"), entry(other, "made\n")]
    command = ["corosync-cfgtool", "-R"]

    checked_with = Recorder(conf)
    checked = ConfigFilesChange(checked_with, files=files, run_after_write=command).run(True)
    assert checked["ran"] == command and checked_with.ran == [], "check mode runs nothing"

    recorder = Recorder(conf)
    done = ConfigFilesChange(recorder, files=files, run_after_write=command).run(False)
    assert done["ran"] == command
    assert recorder.ran == [(command, "new\n")], "once, after the file holds its new content"

    again = Recorder(conf)
    kept = ConfigFilesChange(again, files=files, run_after_write=command).run(False)
    assert kept["changed"] is False and kept["ran"] is None and again.ran == []


def test_a_failed_command_names_the_files_written_and_what_to_run(tmp_path):
    conf = tmp_path / "corosync.conf"
    recorder = Recorder(conf, rc=1)
    with pytest.raises(ModuleFailure) as failure:
        ConfigFilesChange(
            recorder, files=[entry(conf, "new\n")], run_after_write=["corosync-cfgtool", "-R"]
        ).run(False)
    assert str(failure.value).startswith(
        "%s were written, then corosync-cfgtool -R failed (exit 1): cannot reload: not running. "
        "Run it by hand" % conf
    )
    assert conf.read_text() == "new\n"


def test_a_secret_file_is_written_with_the_others_and_its_content_is_never_reported(tmp_path):
    conf, clouds = tmp_path / "corosync.conf", tmp_path / "openstack" / "clouds.yaml"
    conf.write_text("old\n")
    conf.chmod(0o644)
    secret = "password: Sekr1tPassw0rd\n"
    change = dict(
        files=[entry(conf, "new\n")],
        secret_files=[entry(clouds, secret, "0600", directory_mode="0700")],
    )

    checked = ConfigFilesChange(None, **change).run(check_mode=True)
    assert checked["written"] == [str(conf), str(clouds)] and not clouds.exists()
    assert checked["diff"][0]["after"] == "new\n", "an ordinary file's diff stays"

    done = ConfigFilesChange(None, **change).run(check_mode=False)
    assert done["written"] == [str(conf), str(clouds)]
    assert clouds.read_text() == secret and oct(clouds.stat().st_mode & 0o777) == "0o600"
    assert "Sekr1t" not in repr(checked) + repr(done)
    assert done["diff"][1] == {
        "before_header": str(clouds),
        "after_header": str(clouds),
        "before": "",
        "after": "(new secret content, not shown)\n",
    }

    renewed = {**change, "secret_files": [entry(clouds, "password: N3wSekr1t\n", "0600")]}
    again = ConfigFilesChange(None, **renewed).run(check_mode=False)
    assert again["written"] == [str(clouds)], "only the secret differs: only it is written"
    assert "Sekr1t" not in repr(again) and again["diff"][0]["before"].startswith("(secret")
    assert ConfigFilesChange(None, **renewed).run(check_mode=False)["changed"] is False


def test_a_path_in_both_lists_is_refused(tmp_path):
    with pytest.raises(ModuleFailure, match="more than once"):
        ConfigFilesChange(
            None, files=[entry(tmp_path / "a", "x")], secret_files=[entry(tmp_path / "a", "y")]
        )


def test_a_file_written_since_the_read_is_never_overwritten_and_nothing_is_written(tmp_path):
    """Two runs planned from the same records (b613a3e gave two joining nodes one node ID):
    the second run's write, planned from the old file, is refused whole."""
    record, other = tmp_path / "corosync.conf", tmp_path / "dlm.conf"
    record.write_text("nodes: a\n")
    read = {path: file_state(path) for path in (str(record), str(other))}
    planned = files_to_write([entry(record, "nodes: a b\n"), entry(other, "x\n")], read)
    assert [f["read_sha256"] for f in planned] == [read[str(record)]["sha256"], "absent"]

    record.write_text("nodes: a c\n")  # the other run's write, after this run's read
    with pytest.raises(
        ModuleFailure, match=r"corosync.conf changed since this run read it.*nothing was written"
    ):
        ConfigFilesChange(None, files=planned).run(check_mode=False)
    assert record.read_text() == "nodes: a c\n" and not other.exists()

    read = {path: file_state(path) for path in (str(record), str(other))}
    again = files_to_write([entry(record, "nodes: a b c\n"), entry(other, "x\n")], read)
    assert ConfigFilesChange(None, files=again).run(check_mode=False)["changed"]
    assert record.read_text() == "nodes: a b c\n"
