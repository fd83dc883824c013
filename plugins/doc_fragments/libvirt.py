# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fragment of the libvirt modules: the libvirt connection option, the library, the
platform; each module adds its check and diff support."""

from __future__ import annotations

from ansible_collections.multiattach.cloud.plugins.doc_fragments.attributes import (
    ModuleDocFragment as Attributes,
)
from ansible_collections.multiattach.cloud.plugins.doc_fragments.attributes import joined


class ModuleDocFragment:
    LIBVIRT = r"""
options:
  uri:
    description:
      - The libvirt connection URI.
    type: str
    default: qemu:///system
requirements:
  - libvirt-python (C(python3-libvirt) on Debian) on the host that runs libvirtd
attributes:
  platform:
    platforms: posix
    details: Runs on the libvirt host, where it talks to libvirtd.
"""


ModuleDocFragment.DOCUMENTATION = joined(Attributes.DOCUMENTATION, ModuleDocFragment.LIBVIRT)
