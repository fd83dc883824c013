# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The base of every module: options, connection, failures, results."""

from __future__ import annotations

import traceback

from ansible.module_utils.basic import missing_required_lib

from ansible_collections.multiattach.cloud.plugins.module_utils.connection import (
    CONNECTION_ARGUMENT_SPEC, MIN_SDK_VERSION, SDK_IMPORT_ERROR, WAIT_ARGUMENT_SPEC,
    ConnectionSettingsError, connect, sdk_version)
from ansible_collections.multiattach.cloud.plugins.module_utils.errors import (
    ModuleFailure, describe_error, is_anticipated)
from ansible_collections.multiattach.cloud.plugins.module_utils.secrets import SecretMaskingModule


class MultiattachModule:
    """A module is a subclass with `argument_spec`, `module_kwargs` and `run()`.

    `run()` finds, compares, acts and waits through `self.conn`, raises
    ModuleFailure for refusals and ends with `self.exit(...)`.
    """

    argument_spec = {}
    module_kwargs = {}
    wait_options = False

    def __init__(self):
        spec = dict(CONNECTION_ARGUMENT_SPEC)
        if self.wait_options:
            spec.update(WAIT_ARGUMENT_SPEC)
        spec.update(self.argument_spec)
        # cloud may be a dict of connection settings with a password inside.
        self.ansible = SecretMaskingModule(argument_spec=spec, masked_options=("cloud",),
                                           **self.module_kwargs)
        self.params = self.ansible.params
        self.check_mode = self.ansible.check_mode
        self.conn = None

    def run(self):
        raise NotImplementedError

    def exit(self, changed=False, diff=None, **result):
        if diff is not None and self.ansible._diff:
            result["diff"] = diff
        self.ansible.exit_json(changed=changed, **result)

    def __call__(self):
        if SDK_IMPORT_ERROR:
            self.ansible.fail_json(msg=missing_required_lib("openstacksdk"),
                                   exception=SDK_IMPORT_ERROR)
        if sdk_version() < MIN_SDK_VERSION:
            self.ansible.fail_json(
                msg="openstacksdk %s is too old: this collection needs >= %s. Upgrade it in the "
                    "Python that runs the module" % (".".join(map(str, sdk_version())),
                                                     ".".join(map(str, MIN_SDK_VERSION))))
        timeout = self.params.get("timeout")
        if timeout is not None and timeout < 1:
            self.ansible.fail_json(
                msg="timeout must be at least 1 (seconds), not %d: give the time the cloud may "
                    "take, for example the default 180" % timeout)
        try:
            self.conn = connect(self.params)
            self.run()
        except ModuleFailure as failure:
            self.ansible.fail_json(msg=failure.msg, **failure.result)
        except ConnectionSettingsError as error:
            self.ansible.fail_json(msg=str(error))
        except Exception as error:  # pylint: disable=broad-except
            # Every other failure still ends as a message, never a bare traceback;
            # for errors nobody anticipated the traceback is kept for -vvv.
            if is_anticipated(error):
                self.ansible.fail_json(msg=describe_error(error))
            self.ansible.fail_json(msg=describe_error(error), exception=traceback.format_exc())
