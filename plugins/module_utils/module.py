# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The base of every module of the collection: options, one entry, one failure path.

A module is a subclass with `argument_spec`, `module_kwargs` (AnsibleModule's other
arguments; every module supports check mode) and `job`: the Change or Reading
(module_utils/change.py) that does its work, built with what `context()` gives (a
connection, run_command) and the module's own options as keyword arguments, then run. Its
result is a dict with `changed`, `diff` (shown only with --diff) and `warnings` (given to
Ansible's warn()). Every failure ends as a message: ModuleFailure with its own words, an
error the subclass's `describe()` knows in one sentence, anything else with its traceback
kept for -vvv.
"""

from __future__ import annotations

import traceback

from ansible.module_utils.basic import missing_required_lib

from ansible_collections.multiattach.cloud.plugins.module_utils.secrets import SecretMaskingModule


class ModuleFailure(Exception):
    """A refusal or failure that the module reports with fail_json; RESULT goes with it."""

    def __init__(self, msg, **result):
        super().__init__(msg)
        self.msg = msg
        self.result = result


def require_library(name, import_error):
    """Fail naming the package when its import failed (IMPORT_ERROR is the traceback)."""
    if import_error:
        raise ModuleFailure(missing_required_lib(name), exception=import_error)


class CollectionModule:
    argument_spec = {}
    module_kwargs = {}
    # Options whose secret-looking values and URL passwords are masked everywhere.
    masked_options = ()
    # The Change or Reading class that does the module's work.
    job = None

    def __init__(self):
        self.ansible = SecretMaskingModule(
            argument_spec=self.full_argument_spec(),
            masked_options=self.masked_options,
            supports_check_mode=True,
            **self.module_kwargs,
        )
        self.params = self.ansible.params
        self.check_mode = self.ansible.check_mode

    def full_argument_spec(self):
        return dict(self.argument_spec)

    def prepare(self):
        """Checks and set-up before run(): libraries, options, connections."""

    def describe(self, error):  # pylint: disable=unused-argument
        """One sentence for an error that needs no traceback; None for any other."""
        return

    def context(self):
        """What the job works through, its first argument: the module's run_command here (a
        module on the host); an OpenStack or libvirt module gives its connection."""
        return self.ansible.run_command

    def options(self):
        """The job's keyword arguments: the module's own options."""
        return {name: self.params[name] for name in self.argument_spec}

    def run(self):
        return self.job(self.context(), **self.options()).run(self.check_mode)

    def __call__(self):
        try:
            self.prepare()
            result = self.run()
        except ModuleFailure as failure:
            self.ansible.fail_json(msg=failure.msg, **failure.result)
        except Exception as error:  # pylint: disable=broad-except  # noqa: BLE001
            described = self.describe(error)
            if described is not None:
                self.ansible.fail_json(msg=described)
            self.ansible.fail_json(
                msg="%s: %s" % (type(error).__name__, error), exception=traceback.format_exc()
            )
        diff = result.pop("diff", None)
        if diff is not None and self.ansible._diff:
            result["diff"] = diff
        # exit_json's own warnings= is deprecated (ansible-core 2.19): each goes through warn().
        for warning in result.pop("warnings", None) or []:
            self.ansible.warn(warning)
        self.ansible.exit_json(**result)
