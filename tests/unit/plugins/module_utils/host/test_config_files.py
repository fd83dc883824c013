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
