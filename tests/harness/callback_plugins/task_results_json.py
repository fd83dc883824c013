# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Test-only stdout callback: every task result of the run as one JSON document."""

from __future__ import annotations

import json
import time

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = r"""
name: task_results_json
type: stdout
short_description: Print every task result as JSON (for this collection's tests)
description:
  - Collects each task's result on each host and prints them as one JSON list at the end.
"""


def task_name(result):
    """The task's own name, as the playbook writes it. ansible-core 2.21 puts the role before
    it ("ns.coll.role : name"), 2.19 does not; the tests match the task's own name."""
    name = str(result.task_name)
    role = getattr(getattr(result, "task", None), "_role", None)
    if role is not None:
        prefix = "%s : " % role.get_name()
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "stdout"
    CALLBACK_NAME = "task_results_json"

    def __init__(self):
        super().__init__()
        self.results = []
        self.task_started = None

    def v2_playbook_on_task_start(self, task, is_conditional):
        self.task_started = time.monotonic()

    def _record(self, result, status):
        entry = dict(self._clean_results_copy(result))
        entry["_task"] = task_name(result)
        entry["_host"] = result.host.get_name() if hasattr(result, "host") else None
        entry["_status"] = status
        entry["failed"] = status == "failed"
        if self.task_started is not None:
            # From the task's start to this result: the module's own time, without
            # ansible-playbook's start-up (what the benchmarks call in-process).
            entry["_seconds"] = time.monotonic() - self.task_started
        self.results.append(entry)

    def _clean_results_copy(self, result):
        return getattr(result, "result", None) or getattr(result, "_result", {})

    def v2_runner_on_ok(self, result):
        self._record(result, "ok")

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result, "failed")

    def v2_runner_on_skipped(self, result):
        self._record(result, "skipped")

    def v2_runner_on_unreachable(self, result):
        self._record(result, "unreachable")

    def v2_playbook_on_stats(self, stats):
        self._display.display(json.dumps(self.results, default=str))
