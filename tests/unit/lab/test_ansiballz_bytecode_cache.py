"""The guest image's bytecode cache for AnsiballZ payloads: kept, read back, never stale."""

import zipfile
import zipimport

import pytest
from guest_image import ansiballz_bytecode_cache as cache

SOURCE = b"def answer():\n    return 42\n"


def payload(directory, name="ansible_command_payload.zip", source=SOURCE):
    path = directory / name
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("ansible/module_utils/basic.py", source)
    return str(path)


def code_of(zip_path):
    return zipimport.zipimporter(zip_path).get_code("ansible/module_utils/basic")


def run(code):
    namespace = {}
    exec(code, namespace)  # noqa: S102 - the code under test is the compiled payload
    return namespace["answer"]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    directory.mkdir()
    monkeypatch.setattr(cache, "CACHE_DIR", str(directory))
    monkeypatch.setattr(zipimport, "_compile_source", cache.compile_source)
    return directory


def refuse_to_compile(pathname, source):
    raise AssertionError("compiled again: %s" % pathname)


def test_a_payload_compiled_once_is_read_back_under_the_new_runs_file_name(
    tmp_path, cache_dir, monkeypatch
):
    (tmp_path / "run1").mkdir()
    first = payload(tmp_path / "run1")
    assert run(code_of(first))() == 42
    assert len(list(cache_dir.iterdir())) == 1

    monkeypatch.setattr(cache, "_compile_source", refuse_to_compile)
    (tmp_path / "run2").mkdir()
    second = payload(tmp_path / "run2")
    code = code_of(second)

    assert run(code)() == 42
    assert code.co_filename.startswith(second)
    assert run(code).__code__.co_filename == code.co_filename


def test_a_changed_source_is_compiled_again(tmp_path, cache_dir):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    code_of(payload(tmp_path / "a"))
    changed = payload(tmp_path / "b", source=SOURCE.replace(b"42", b"43"))

    assert run(code_of(changed))() == 43
    assert len(list(cache_dir.iterdir())) == 2


def test_a_zip_that_is_not_a_payload_is_left_to_zipimport(tmp_path, cache_dir):
    assert run(code_of(payload(tmp_path, name="library.zip")))() == 42
    assert list(cache_dir.iterdir()) == []


def test_a_broken_or_unwritable_cache_falls_back_to_compiling(tmp_path, cache_dir, monkeypatch):
    zip_path = payload(tmp_path)
    code_of(zip_path)
    (kept,) = cache_dir.iterdir()
    kept.write_bytes(b"\x00")
    assert run(code_of(zip_path))() == 42

    monkeypatch.setattr(cache, "CACHE_DIR", str(tmp_path / "missing"))
    assert run(code_of(zip_path))() == 42
    assert not (tmp_path / "missing").exists()
