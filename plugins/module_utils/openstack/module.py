# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The base of the OpenStack modules: connection options, openstacksdk, the cloud's errors."""

from __future__ import annotations

from ansible_collections.multiattach.cloud.plugins.module_utils.module import (
    CollectionModule,
    ModuleFailure,
    require_library,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.connection import (
    CONNECTION_ARGUMENT_SPEC,
    WAIT_ARGUMENT_SPEC,
    ConnectionSettingsError,
    connect,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.errors import (
    describe_error,
    is_anticipated,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.sdk import (
    MIN_SDK_VERSION,
    SDK_IMPORT_ERROR,
    sdk_version,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.versions import version_text


class OpenStackModule(CollectionModule):
    """The job works through an openstacksdk connection made from the options of
    openstack.cloud; with `wait_options`, it also takes wait and timeout."""

    # cloud may be a dict of connection settings with a password inside.
    masked_options = ("cloud",)
    wait_options = False

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
                "Python that runs the module"
                % (version_text(installed), version_text(MIN_SDK_VERSION))
            )
        check_timeout(self.options().get("timeout"))
        self.conn = connect({name: self.params[name] for name in CONNECTION_ARGUMENT_SPEC})

    def describe(self, error):
        if isinstance(error, ConnectionSettingsError):
            return str(error)
        # The cloud's and the SDK's own errors: their message says it all.
        return describe_error(error) if is_anticipated(error) else None

    def context(self):
        return self.conn

    def options(self):
        options = super().options()
        if self.wait_options:
            options.update((name, self.params[name]) for name in WAIT_ARGUMENT_SPEC)
        return options


def check_timeout(timeout):
    if timeout is not None and timeout < 1:
        raise ModuleFailure(
            "timeout must be at least 1 (seconds), not %d: give the time the cloud may "
            "take, for example the default 180" % timeout
        )
