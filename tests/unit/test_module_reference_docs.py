"""docs/modules/*.md say what the modules' DOCUMENTATION says."""
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
