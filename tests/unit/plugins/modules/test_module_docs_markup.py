"""The modules' docs in the ecosystem's current markup: options as O(), values as V(), return
values as RV(), modules as M() (antsibull-docs checks every reference); every returned dict
has a sample; every module says what else to read (seealso: a related module and the
upstream documentation)."""

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from local_cloud import paths

MODULES = sorted((paths.ROOT / "plugins" / "modules").glob("*.py"))


def docs(path):
    tree = ast.parse(path.read_text())
    return {
        node.targets[0].id: yaml.safe_load(node.value.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id in ("DOCUMENTATION", "RETURN")
    }


def returned(entries, prefix=""):
    for name, entry in (entries or {}).items():
        yield prefix + name, entry
        yield from returned(entry.get("contains"), prefix + name + ".")


@pytest.mark.parametrize("path", MODULES, ids=[p.stem for p in MODULES])
def test_a_module_uses_semantic_markup_samples_and_seealso(path):
    found = docs(path)
    text = path.read_text()
    assert "I(" not in text, "I() is the old markup of an option: O() (or RV() for a return value)"
    no_sample = [
        name
        for name, entry in returned(found["RETURN"])
        if (entry.get("type") == "dict" or entry.get("elements") == "dict")
        and "sample" not in entry
    ]
    assert no_sample == [], "returned dicts without a sample: %s" % no_sample
    seealso = found["DOCUMENTATION"].get("seealso") or []
    assert any("module" in entry for entry in seealso), "seealso names no related module"
    assert any("link" in entry for entry in seealso), "seealso links no upstream documentation"


def test_antsibull_docs_finds_every_reference_of_the_docs():
    bin_dir = Path(sys.executable).parent
    completed = subprocess.run(
        [
            str(bin_dir / "antsibull-docs"),
            "lint-collection-docs",
            "--plugin-docs",
            str(paths.ROOT / ".collections" / "ansible_collections" / "multiattach" / "cloud"),
        ],
        env=dict(
            os.environ,
            PATH="%s:%s" % (bin_dir, os.environ["PATH"]),
            ANSIBLE_COLLECTIONS_PATH=str(paths.ROOT / ".collections"),
        ),
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
