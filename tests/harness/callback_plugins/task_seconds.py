# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Test-only notification callback: each task's wall time on each host, for the VM scenario's
per-task figures (tools/task_seconds_report.py reads them)."""

from __future__ import annotations

import json
import os
import time

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = r"""
name: task_seconds
type: notification
short_description: Append each task's seconds per host as JSON lines (this collection's tests)
description:
  - With E(TASK_SECONDS_FILE) set, appends one JSON line per play start and per task result
    (task, host, action, status, seconds since the task started, and the module's own step
    seconds where it returns them); nothing otherwise. Nested
    ansible-playbook runs append to the same file.
"""


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "notification"
    CALLBACK_NAME = "task_seconds"
    CALLBACK_NEEDS_ENABLED = False

    def __init__(self):
        super().__init__()
        self.path = os.environ.get("TASK_SECONDS_FILE")
        self.started = time.time()

    def emit(self, record):
        if self.path:
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(dict(record, t=round(time.time(), 3))) + "\n")

    def v2_playbook_on_play_start(self, play):
        self.emit({"play": play.get_name(), "pid": os.getpid()})

    def v2_playbook_on_task_start(self, task, is_conditional):
        self.started = time.time()

    def v2_playbook_on_handler_task_start(self, task):
        self.started = time.time()

    def done(self, result, status):
        record = {
            "task": result._task.get_name(),
            "action": result._task.action,
            "host": result._host.get_name(),
            "status": status,
            "seconds": round(time.time() - self.started, 2),
            "pid": os.getpid(),
        }
        # A module that times its own steps (clustered_fs_leave) says where its run went.
        steps = result._result.get("seconds")
        if isinstance(steps, dict):
            record["steps"] = steps
        self.emit(record)

    def v2_runner_on_ok(self, result):
        self.done(result, "changed" if result._result.get("changed") else "ok")

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self.done(result, "failed")

    def v2_runner_on_skipped(self, result):
        self.done(result, "skipped")

    def v2_runner_on_unreachable(self, result):
        self.done(result, "unreachable")
