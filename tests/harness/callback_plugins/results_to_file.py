# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Test-only aggregate callback: every event's data, as callbacks receive it, into one file."""

from __future__ import annotations

import json
import os

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = r"""
name: results_to_file
type: aggregate
short_description: Write every result callbacks receive to a file (for this collection's tests)
description:
  - Appends each runner event's task name, host and whole result, and each diff, as JSON lines
    to the file named by MULTIATTACH_RESULTS_FILE.
requirements:
  - enabled in callbacks_enabled
"""


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "results_to_file"
    CALLBACK_NEEDS_ENABLED = True

    def _write(self, event, result, data=None):
        with open(os.environ["MULTIATTACH_RESULTS_FILE"], "a", encoding="utf-8") as handle:
            handle.write(
                json.dumps(
                    {
                        "event": event,
                        "task": result.task_name,
                        "host": result.host.get_name(),
                        "data": data if data is not None else result._result,
                    },
                    default=str,
                )
                + "\n"
            )

    def v2_runner_on_ok(self, result):
        self._write("ok", result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._write("failed", result)

    def v2_runner_on_skipped(self, result):
        self._write("skipped", result)

    def v2_runner_item_on_ok(self, result):
        self._write("item_ok", result)

    def v2_runner_item_on_failed(self, result):
        self._write("item_failed", result)

    def v2_on_file_diff(self, result):
        self._write("diff", result, result._result.get("diff"))
