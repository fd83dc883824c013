"""The protocol every module follows (module_utils/change.py): steps run in order and never in
check mode, what a step returns replaces the planned result, the diff and warnings are built
once; and no job hides the protocol's own methods under an attribute."""

import ast
import importlib

import pytest
from local_cloud import paths

from ansible_collections.multiattach.cloud.plugins.module_utils.change import (
    Change,
    Plan,
    Reading,
    Step,
    report,
)


class Recorded(Change):
    def __init__(self, plan):
        self.planned = plan

    def read(self):
        return "current"

    def plan(self, current):
        assert current == "current"
        return self.planned


def test_steps_run_in_order_outside_check_mode_and_their_results_replace_the_planned():
    ran = []
    as_read = {"thing": "as read", "warnings": ["w"], "diff_after": {"a": 3}}
    steps = [
        Step("one", lambda: ran.append(1)),
        Step("two", lambda: ran.append(2) or dict(as_read)),
    ]
    plan = Plan({"a": 1}, {"a": 2}, steps, result={"thing": "planned"})
    assert Recorded(plan).run(check_mode=False) == {
        "thing": "as read",
        "changed": True,
        "diff": {"before": {"a": 1}, "after": {"a": 3}},
        "warnings": ["w"],
    }
    assert ran == [1, 2]


def test_check_mode_runs_no_step_and_reports_the_plan():
    ran = []
    plan = Plan(None, {"a": 2}, [Step("one", lambda: ran.append(1))], result={"thing": "planned"})
    assert Recorded(plan).run(check_mode=True) == {
        "thing": "planned",
        "changed": True,
        "diff": {"before": {}, "after": {"a": 2}},
    }
    assert ran == []


def test_no_step_is_no_change_and_a_module_without_a_diff_reports_none():
    assert Recorded(Plan(False, False, result={"x": 1})).run(check_mode=False) == {
        "x": 1,
        "changed": False,
    }
    assert report(False, {}, "", "text", header="/etc/x.conf")["diff"] == {
        "before": "",
        "after": "text",
        "before_header": "/etc/x.conf",
        "after_header": "/etc/x.conf",
    }


def test_a_reading_reports_what_it_read_and_never_a_change():
    class Read(Reading):
        def read(self, check_mode):
            return {"found": check_mode, "warnings": ["careful"]}

    assert Read().run(check_mode=True) == {"found": True, "changed": False, "warnings": ["careful"]}


def jobs():
    """Every job a module names, as (module, class)."""
    found = []
    for path in sorted((paths.ROOT / "plugins" / "modules").glob("*.py")):
        tree = ast.parse(path.read_text())
        job = next(
            node.value.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "job"
        )
        origin = next(
            node.module
            for node in tree.body
            if isinstance(node, ast.ImportFrom) and job in [alias.name for alias in node.names]
        )
        found.append((path.stem, getattr(importlib.import_module(origin), job)))
    return found


@pytest.mark.parametrize("module, job", jobs(), ids=[m for m, _j in jobs()])
def test_no_job_shadows_the_protocols_methods(module, job):
    assert issubclass(job, (Change, Reading)), module
    source = ast.parse(
        importlib.import_module(job.__module__).__loader__.get_source(job.__module__)
    )
    cls = next(
        node
        for node in ast.walk(source)
        if isinstance(node, ast.ClassDef) and node.name == job.__name__
    )
    assigned = {
        target.attr
        for node in ast.walk(cls)
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Attribute) and getattr(target.value, "id", None) == "self"
    }
    assert not assigned & {"read", "plan", "run", "report"}, (module, assigned)
