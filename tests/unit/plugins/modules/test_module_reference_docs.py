"""docs/modules/ is what antsibull-docs makes of the current code (`make docs`), CHANGELOG.md
what antsibull-changelog makes of changelogs/ (`make changelog`), and the
docs link modules as modules and roles as roles."""

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from ansible import release as ansible_release
from local_cloud import paths

ROOT = paths.ROOT
BIN = Path(sys.executable).parent


def generated_reference(destination):
    env = dict(
        os.environ,
        PATH="%s:%s" % (BIN, os.environ["PATH"]),
        ANSIBLE_COLLECTIONS_PATH=str(ROOT / ".collections"),
    )
    subprocess.run(
        [
            str(BIN / "antsibull-docs"),
            "collection",
            "--use-current",
            "--squash-hierarchy",
            "--fail-on-error",
            "--output-format",
            "simplified-rst",
            "--dest-dir",
            str(destination),
            "multiattach.cloud",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return {p.name: p.read_text() for p in destination.iterdir()}


def test_the_reference_is_generated_from_the_current_code():
    # antsibull-docs copies ansible-core's own doc fragments (ini_settings extends `files`), and
    # their text changes between releases: the committed pages are those of requirements/dev.txt.
    pinned = re.search(
        r"^ansible-core==(\S+)$", (ROOT / "requirements" / "dev.txt").read_text(), re.MULTILINE
    ).group(1)
    if ansible_release.__version__ != pinned:
        pytest.skip(
            "docs/modules/ is generated with ansible-core %s (requirements/dev.txt); this is %s, "
            "whose own doc fragments read differently: `make unit` checks it"
            % (pinned, ansible_release.__version__)
        )
    with tempfile.TemporaryDirectory(prefix="multiattach-docs-") as temp:
        wanted = generated_reference(Path(temp))
    committed = {p.name: p.read_text() for p in (ROOT / "docs" / "modules").iterdir()}
    stale = sorted(
        name for name in set(wanted) | set(committed) if wanted.get(name) != committed.get(name)
    )
    assert stale == [], "docs/modules/ is out of date: %s. Run `make docs` and commit it" % stale


def test_every_module_filter_and_role_has_a_reference_page():
    modules = {p.stem + "_module.rst" for p in (ROOT / "plugins" / "modules").glob("*.py")}
    filters = {p.stem + "_filter.rst" for p in (ROOT / "plugins" / "filter").glob("*.py")}
    roles = {p.name + "_role.rst" for p in (ROOT / "roles").iterdir() if (p / "meta").is_dir()}
    pages = {p.name for p in (ROOT / "docs" / "modules").glob("*.rst")}
    assert modules | filters | roles | {"index.rst"} == pages


def test_roles_are_referenced_as_roles_and_modules_as_modules():
    """M() links a module; a role needs R() (ansible-doc would link a module that does not exist)."""
    roles = {p.name for p in (ROOT / "roles").iterdir() if p.is_dir()}
    modules = {p.stem for p in (ROOT / "plugins" / "modules").glob("*.py")}
    wrong = []
    for path in (ROOT / "plugins").rglob("*.py"):
        text = path.read_text()
        for name in re.findall(r"M\(multiattach\.cloud\.(\w+)\)", text):
            if name not in modules:
                wrong.append(
                    "%s: M(multiattach.cloud.%s)%s"
                    % (path.name, name, " is a role: use R()" if name in roles else "")
                )
    assert wrong == []


def test_the_changelog_is_generated_from_changelogs(tmp_path):
    """CHANGELOG.md is antsibull-changelog's rendering of changelogs/changelog.yaml."""
    output = tmp_path / "CHANGELOG.md"
    subprocess.run(
        [
            str(BIN / "antsibull-changelog"),
            "generate",
            "--output",
            str(output),
            "--output-format",
            "md",
        ],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        check=True,
    )
    assert output.read_text() == (ROOT / "CHANGELOG.md").read_text(), (
        "CHANGELOG.md is out of date: run `make changelog` and commit it"
    )
