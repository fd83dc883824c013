# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The base of every module: options, connection, failures, results."""

from __future__ import annotations

import re
import traceback

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.multiattach.cloud.plugins.module_utils.connection import (
    CONNECTION_ARGUMENT_SPEC, MIN_SDK_VERSION, SDK_IMPORT_ERROR, WAIT_ARGUMENT_SPEC,
    ConnectionSettingsError, connect, sdk_version)
from ansible_collections.multiattach.cloud.plugins.module_utils.errors import (
    ModuleFailure, describe_error, is_anticipated)


SECRET_KEY = re.compile(r"(password|secret|token|passcode|key)$", re.IGNORECASE)


def secrets_in(value):
    """The secret-looking strings inside a cloud dict (auth password, token, ...)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str) and item and SECRET_KEY.search(str(key)):
                yield item
            else:
                yield from secrets_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from secrets_in(item)


class _AnsibleModule(AnsibleModule):
    """AnsibleModule that also masks the secrets of a cloud dict.

    cloud is a name or a dict of connection settings, so it cannot be no_log as a
    whole (its name would be masked everywhere); the secrets inside are added to
    the values Ansible masks, before it logs the invocation and in every result.
    """

    def _mask_cloud_secrets(self):
        self.no_log_values.update(secrets_in(self.params.get("cloud")))

    def _log_invocation(self):
        self._mask_cloud_secrets()
        super()._log_invocation()


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
        self.ansible = _AnsibleModule(argument_spec=spec, **self.module_kwargs)
        self.ansible._mask_cloud_secrets()  # pylint: disable=protected-access
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
