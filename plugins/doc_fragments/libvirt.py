# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The libvirt connection option of the libvirt modules."""

from __future__ import annotations


class ModuleDocFragment:
    DOCUMENTATION = r"""
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
