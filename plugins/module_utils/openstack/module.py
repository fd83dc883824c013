# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The base of the OpenStack modules: connection options, openstacksdk, the cloud's errors."""

from __future__ import annotations

from ansible_collections.multiattach.cloud.plugins.module_utils.module import CollectionModule, ModuleFailure, require_library
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.connection import CONNECTION_ARGUMENT_SPEC, WAIT_ARGUMENT_SPEC
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.connection import ConnectionSettingsError, connect
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.errors import describe_error, is_anticipated
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.sdk import MIN_SDK_VERSION, SDK_IMPORT_ERROR, sdk_version
from ansible_collections.multiattach.cloud.plugins.module_utils.versions import version_text


class OpenStackModule(CollectionModule):
    """`run()` finds, compares, acts and waits through `self.conn` (an openstacksdk
    connection made from the options of openstack.cloud). A module that brings one
    resource to its options names its ResourceChange in `resource_change` instead."""

    # cloud may be a dict of connection settings with a password inside.
    masked_options = ("cloud",)
    wait_options = False
    resource_change = None

    def __init__(self):
        super().__init__()
        self.conn = None

    def full_argument_spec(self):
        spec = dict(CONNECTION_ARGUMENT_SPEC)
        if self.wait_options:
            spec.update(WAIT_ARGUMENT_SPEC)
        spec.update(self.argument_spec)
        return spec

    def prepare(self):
        require_library("openstacksdk", SDK_IMPORT_ERROR)
        installed = sdk_version()
        if installed < MIN_SDK_VERSION:
            raise ModuleFailure(
                "openstacksdk %s is too old: this collection needs >= %s. Upgrade it in the "
                "Python that runs the module" % (version_text(installed),
                                                 version_text(MIN_SDK_VERSION)))
        timeout = self.params.get("timeout")
        if timeout is not None and timeout < 1:
            raise ModuleFailure(
                "timeout must be at least 1 (seconds), not %d: give the time the cloud may "
                "take, for example the default 180" % timeout)
        self.conn = connect(self.params)

    def describe(self, error):
        if isinstance(error, ConnectionSettingsError):
            return str(error)
        # The cloud's and the SDK's own errors: their message says it all.
        return describe_error(error) if is_anticipated(error) else None

    def run(self):
        return self.resource_change(self.conn, self.params, self.check_mode).result()


class ResourceChange:
    """One resource toward a module's options; `result()` finds, compares, acts (not in
    check mode), waits, and returns the module's result."""

    def __init__(self, conn, params, check_mode):
        self.conn = conn
        self.params = params
        self.check_mode = check_mode

    def result(self):
        raise NotImplementedError
