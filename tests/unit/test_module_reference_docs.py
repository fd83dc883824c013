"""docs/modules/*.md say what the modules' DOCUMENTATION says."""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_module_reference_is_generated_from_the_current_code():
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "render_module_docs.py"),
                             "--check"], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + "\nRun `make docs` and commit docs/modules/."


def test_every_module_has_a_reference_page():
    modules = {p.stem for p in (ROOT / "plugins" / "modules").glob("*.py")}
    pages = {p.stem for p in (ROOT / "docs" / "modules").glob("*.md")}
    assert modules == pages


def test_roles_are_referenced_as_roles_and_modules_as_modules():
    """M() links a module; a role needs R() (ansible-doc would link a module that does not exist)."""
    roles = {p.name for p in (ROOT / "roles").iterdir() if p.is_dir()}
    modules = {p.stem for p in (ROOT / "plugins" / "modules").glob("*.py")}
    wrong = []
    for path in (ROOT / "plugins").rglob("*.py"):
        text = path.read_text()
        for name in re.findall(r"M\(multiattach\.cloud\.(\w+)\)", text):
            if name not in modules:
                wrong.append("%s: M(multiattach.cloud.%s)%s" % (
                    path.name, name, " is a role: use R()" if name in roles else ""))
    assert wrong == []
