"""Run modules of this collection through ansible-playbook, as users do."""

import json
import os
import subprocess
import tempfile
from pathlib import Path

import yaml
from local_cloud import paths

ROOT = paths.ROOT
# The venv whose ansible-playbook and Python run the modules; `make integration-oldest-sdk`
# points it at a venv with the oldest openstacksdk the collection declares.
MODULE_VENV = Path(os.environ.get("MULTIATTACH_MODULE_VENV", str(ROOT / ".venv")))


LOCAL_INVENTORY = paths.INVENTORY
# This machine as an inventory host: the controller's own Python, no SSH.
LOCALHOST_VARS = {
    "ansible_connection": "local",
    "ansible_python_interpreter": "{{ ansible_playbook_python }}",
}
# openstack.cloud (the newest release, taken out of the `ansible` package by the
# Makefile) beside this collection, for the tests and benchmarks that compare.
OPENSTACK_CLOUD_COLLECTIONS = "%s:%s" % (ROOT / ".cache" / "openstack-cloud", ROOT / ".collections")


def ansible_env(extra_env=None):
    env = dict(os.environ)
    env.update(
        {
            "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
            "ANSIBLE_STDOUT_CALLBACK": "task_results_json",
            "ANSIBLE_CALLBACK_PLUGINS": str(Path(__file__).resolve().parent / "callback_plugins"),
            "ANSIBLE_LOCALHOST_WARNING": "false",
            "ANSIBLE_INVENTORY_UNPARSED_WARNING": "false",
            "OS_CLIENT_CONFIG_FILE": str(paths.clouds_yaml()),
        }
    )
    env.update(extra_env or {})
    return env


def run_ansible_playbook(
    arguments, check=False, diff=False, extra_env=None, verbosity=0, venv=MODULE_VENV
):
    command = [str(venv / "bin" / "ansible-playbook"), *arguments]
    if check:
        command.append("--check")
    if diff:
        command.append("--diff")
    if verbosity:
        command.append("-" + "v" * verbosity)
    completed = subprocess.run(
        command,
        env=ansible_env(extra_env),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        cwd=str(ROOT),
    )
    if verbosity:
        return None, completed
    try:
        results = json.loads(completed.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise AssertionError(
            "ansible-playbook printed no results:\n%s\n%s" % (completed.stdout, completed.stderr)
        ) from None
    return results, completed


def write_playbook(tasks):
    """A playbook file of TASKS on localhost; the caller removes it."""
    play = [
        {
            "name": "integration test",
            "hosts": "localhost",
            "connection": "local",
            "gather_facts": False,
            "tasks": tasks,
        }
    ]
    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as handle:
        yaml.safe_dump(play, handle)
    return handle.name


class RunningPlaybook:
    """ansible-playbook of TASKS started in the background, in a process group of its
    own (so that the controller and the module it runs can be killed together)."""

    def __init__(self, tasks, venv=MODULE_VENV):
        self.playbook = write_playbook(tasks)
        self.process = subprocess.Popen(
            [str(venv / "bin" / "ansible-playbook"), self.playbook],
            env=ansible_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=str(ROOT),
            start_new_session=True,
        )

    def running(self):
        return self.process.poll() is None

    def kill(self):
        """SIGKILL to ansible-playbook and every process it started."""
        os.killpg(self.process.pid, 9)
        self.process.communicate()
        os.unlink(self.playbook)

    def finish(self, timeout=900):
        """(results, stdout + stderr) once it has ended."""
        try:
            stdout, stderr = self.process.communicate(timeout=timeout)
        finally:
            os.unlink(self.playbook)
        try:
            results = json.loads(stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            raise AssertionError(
                "ansible-playbook printed no results:\n%s\n%s" % (stdout, stderr)
            ) from None
        return results, stdout + stderr


def run_playbook(tasks, **options):
    """Run TASKS (a list of task dicts) on localhost; return (results, completed process).

    options: check, diff, extra_env, verbosity, venv (whose ansible-playbook and
    Python run them).

    results: one dict per task in order, the module's result plus `_task` (its name).
    """
    playbook = write_playbook(tasks)
    try:
        return run_ansible_playbook([playbook], **options)
    finally:
        os.unlink(playbook)


class PlaybookRun:
    """The results of one ansible-playbook run of a playbook file."""

    def __init__(self, results, completed):
        self.results = results
        self.completed = completed

    @property
    def failures(self):
        return [r for r in self.results if r["_status"] == "failed" and not r.get("ignore_errors")]

    @property
    def failure_message(self):
        """The failures' messages, those of failed loop items included."""
        messages = []
        for failure in self.failures:
            messages.append(str(failure.get("msg")))
            messages.extend(
                str(item.get("msg"))
                for item in failure.get("results", [])
                if isinstance(item, dict) and item.get("failed")
            )
        return " | ".join(messages)

    @property
    def changed_tasks(self):
        return [r["_task"] for r in self.results if r.get("changed")]

    def result(self, task_name):
        matching = [r for r in self.results if r["_task"] == task_name]
        assert matching, "no task named %r ran; tasks: %s" % (
            task_name,
            [r["_task"] for r in self.results],
        )
        return matching[-1]


def run_playbook_file(playbook, inventory=LOCAL_INVENTORY, extra_vars=None, tags=None, **options):
    """Run PLAYBOOK (a path) with INVENTORY and EXTRA_VARS; return a PlaybookRun."""
    arguments = ["-i", str(inventory), str(playbook)]
    if extra_vars:
        arguments += ["-e", json.dumps(extra_vars)]
    if tags:
        arguments += ["--tags", ",".join(tags)]
    return PlaybookRun(*run_ansible_playbook(arguments, **options))


def run_module(module, args, **options):
    """Run one module task; return its result."""
    results = run_playbook([{"name": module, module: args, "ignore_errors": True}], **options)[0]
    return results[0]
