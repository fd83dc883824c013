"""The ansible-core matrix's newest leg: which Python runs it, and a machine without one says
so instead of passing silently (tools/newest-python.sh, tools/skipped-leg.sh)."""

import os
import subprocess

from local_cloud import paths

TOOLS = paths.ROOT / "tools"


def fake_python(path):
    """An executable at PATH that answers the script's probe as a Python would."""
    path.parent.mkdir(parents=True)
    path.write_text('#!/bin/sh\necho "%s"\n' % path)
    path.chmod(0o755)
    return path


def find(environment):
    return subprocess.run(
        [str(TOOLS / "newest-python.sh")],
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_pyenv_python_is_found_the_newest_first(tmp_path):
    root = tmp_path / "pyenv"
    fake_python(root / "versions" / "3.12.1" / "bin" / "python3.12")
    newest = fake_python(root / "versions" / "3.13.0" / "bin" / "python3.13")

    found = find({"PATH": "/usr/bin:/bin", "PYENV_ROOT": str(root), "HOME": str(tmp_path)})

    assert found.returncode == 0 and found.stdout.strip() == str(newest)


def test_a_machine_without_one_gets_no_path_and_a_reason(tmp_path):
    found = find({"PATH": "/usr/bin:/bin", "PYENV_ROOT": str(tmp_path), "HOME": str(tmp_path)})

    # /usr/bin may hold a python3.12 or 3.13 on some machine: then it is found, as it should be.
    if found.returncode == 0:
        assert os.path.basename(found.stdout.strip()).startswith("python3.1")
    else:
        assert found.stdout == "" and "no Python 3.13 or 3.12" in found.stderr


def test_a_skipped_leg_is_said_loudly_and_recorded(tmp_path):
    record = tmp_path / "skipped-legs.txt"
    said = subprocess.run(
        [str(TOOLS / "skipped-leg.sh"), "unit-newest", "no Python 3.12 or 3.13"],
        env=dict(os.environ, SKIPPED_LEGS_FILE=str(record)),
        capture_output=True,
        text=True,
        check=True,
    )

    assert "SKIPPED make unit-newest: no Python 3.12 or 3.13" in said.stderr
    assert "!" * 72 in said.stderr
    assert record.read_text() == "SKIPPED make unit-newest: no Python 3.12 or 3.13\n"
