"""Run modules of this collection through ansible-playbook, as users do."""
import json
import os
import subprocess
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
# The venv whose ansible-playbook and Python run the modules; `make integration-oldest-sdk`
# points it at a venv with the oldest openstacksdk the collection declares.
MODULE_VENV = Path(os.environ.get("MULTIATTACH_MODULE_VENV", str(ROOT / ".venv")))


def run_playbook(tasks, check=False, diff=False, extra_env=None, verbosity=0,
                 venv=MODULE_VENV):
    """Run TASKS (a list of task dicts) on localhost; return (results, completed process).

    VENV: the virtual environment whose ansible-playbook (and Python) runs them.

    results: one dict per task in order, the module's result plus `_task` (its name).
    """
    play = [{"name": "integration test", "hosts": "localhost", "connection": "local",
             "gather_facts": False, "tasks": tasks}]
    env = dict(os.environ)
    env.update({
        "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
        "ANSIBLE_STDOUT_CALLBACK": "task_results_json",
        "ANSIBLE_CALLBACK_PLUGINS": str(Path(__file__).resolve().parent / "callback_plugins"),
        "ANSIBLE_LOCALHOST_WARNING": "false",
        "ANSIBLE_INVENTORY_UNPARSED_WARNING": "false",
        "OS_CLIENT_CONFIG_FILE": str(ROOT / ".local-cloud" / "clouds.yaml"),
    })
    env.update(extra_env or {})
    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as handle:
        yaml.safe_dump(play, handle)
        playbook = handle.name
    command = [str(venv / "bin" / "ansible-playbook"), playbook]
    if check:
        command.append("--check")
    if diff:
        command.append("--diff")
    if verbosity:
        command.append("-" + "v" * verbosity)
    try:
        completed = subprocess.run(command, env=env, capture_output=True, text=True,
                                   timeout=900, check=False, cwd=str(ROOT))
    finally:
        os.unlink(playbook)
    if verbosity:
        return None, completed
    try:
        results = json.loads(completed.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise AssertionError("ansible-playbook printed no results:\n%s\n%s"
                             % (completed.stdout, completed.stderr)) from None
    return results, completed


def run_module(module, args, **options):
    """Run one module task; return its result."""
    results = run_playbook([{"name": module, module: args, "ignore_errors": True}], **options)[0]
    return results[0]
