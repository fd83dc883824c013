# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one protocol every module of the collection follows: read, plan, apply, report.

A module that changes something names a Change: `read()` finds the current state, `plan()`
turns it into a Plan (the state before and after, the steps between, the module's own result
keys as they will be), and `run(check_mode)` applies the steps (never in check mode: the one
place that decides it) and reports (changed, diff and warnings built here only). A module that
only reads names a Reading: `read()` returns its result keys, `run()` reports them.

Changes and readings take the module's options as keyword arguments, so an option that is
misspelt, missing or unknown fails where the object is built. This file imports neither
openstacksdk nor anything of the host: the planning it drives is tested with fakes.
"""

from __future__ import annotations


class Step:
    """One change a plan makes: what it says (for the reader of the code and the tests) and
    the call that makes it. A call that returns a dict gives result keys as they are once it
    has run (the resource read again, what a command printed); they replace the planned
    ones, but `warnings` in it join the plan's and `diff_after` replaces the plan's AFTER (the
    state as the service wrote it back). Whatever else it returns (an SDK call's resource) is
    not the module's result."""

    __slots__ = ("do", "says")

    def __init__(self, says, do):
        self.says = says
        self.do = do

    def __repr__(self):
        return "Step(%r)" % self.says


class Plan:
    """What a change will do: BEFORE and AFTER (the diff; None for a resource that is absent,
    False for a module without a diff; a file's diff names it in HEADER), the STEPS between
    them, the module's RESULT keys as they will be, and WARNINGS for the operator."""

    def __init__(self, before=None, after=None, steps=(), result=None, warnings=(), header=None):
        self.before = before
        self.after = after
        self.steps = list(steps)
        self.result = dict(result or {})
        self.warnings = list(warnings)
        self.header = header

    @property
    def changed(self):
        return bool(self.steps)

    def says(self):
        return [step.says for step in self.steps]


def report(changed, result, before=False, after=False, warnings=(), header=None):
    """A module's result: its own keys, `changed`, the diff (`before`/`after`, absent state as
    {}; a file's named by HEADER) unless the module has none (False), and the warnings
    Ansible shows."""
    reported = dict(result, changed=changed)
    if before is not False or after is not False:
        reported["diff"] = {
            "before": {} if before is None else before,
            "after": {} if after is None else after,
        }
        if header is not None:
            reported["diff"].update(before_header=header, after_header=header)
    if warnings:
        reported["warnings"] = list(warnings)
    return reported


class Change:
    """Subclasses read and plan; applying and reporting happen here, once."""

    def read(self):
        """The current state, as plan() takes it."""
        raise NotImplementedError

    def plan(self, current):
        """A Plan from the current state; raises ModuleFailure for what must not be done."""
        raise NotImplementedError

    def run(self, check_mode):
        return self.apply(self.plan(self.read()), check_mode)

    def apply(self, plan, check_mode):
        """Carry out PLAN (not in check mode) and report: for a caller that planned first."""
        result = dict(plan.result)
        if not check_mode:
            for step in plan.steps:
                outcome = step.do()
                if isinstance(outcome, dict):
                    outcome = dict(outcome)
                    plan.warnings.extend(outcome.pop("warnings", ()))
                    plan.after = outcome.pop("diff_after", plan.after)
                    result.update(outcome)
        return self.report(plan, result)

    def report(self, plan, result):
        """The module's result once the plan was applied (or, in check mode, as it would be)."""
        return report(plan.changed, result, plan.before, plan.after, plan.warnings, plan.header)


class Reading:
    """An info module's job: read and report, nothing to apply. `read(check_mode)` returns
    the result keys; its warnings go under `warnings`."""

    def read(self, check_mode):
        raise NotImplementedError

    def run(self, check_mode):
        result = dict(self.read(check_mode))
        warnings = result.pop("warnings", ())
        return report(False, result, warnings=warnings)
