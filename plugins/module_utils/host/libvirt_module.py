# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The base of the libvirt modules: the uri option, libvirt-python, libvirt's errors."""

from __future__ import annotations

import functools

from ansible_collections.multiattach.cloud.plugins.module_utils.host import libvirt_host
from ansible_collections.multiattach.cloud.plugins.module_utils.host.libvirt_host import (
    LIBVIRT_IMPORT_ERROR,
    libvirt,
    libvirt_error_text,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.module import (
    CollectionModule,
    require_library,
)

LIBVIRT_ARGUMENT_SPEC = dict(uri=dict(type="str", default="qemu:///system"))


class LibvirtModule(CollectionModule):
    """The job talks to libvirt at the uri option: it gets what opens the connection (read-only
    unless it asks otherwise), so it checks its options before libvirt is asked anything. A
    libvirt error it does not catch ends as `libvirt_failure`, filled with the uri and
    libvirt's own message."""

    libvirt_failure = "libvirt refused: {error}"

    def full_argument_spec(self):
        spec = dict(LIBVIRT_ARGUMENT_SPEC)
        spec.update(self.argument_spec)
        return spec

    def prepare(self):
        require_library("libvirt-python (python3-libvirt)", LIBVIRT_IMPORT_ERROR)

    def context(self):
        return functools.partial(libvirt_host.open_libvirt, **self.connection())

    def connection(self):
        """The connection options (LIBVIRT_ARGUMENT_SPEC) as open_libvirt takes them."""
        return {name: self.params[name] for name in LIBVIRT_ARGUMENT_SPEC}

    def describe(self, error):
        if libvirt is not None and isinstance(error, libvirt.libvirtError):
            return self.libvirt_failure.format(error=libvirt_error_text(error), **self.connection())
        return None
