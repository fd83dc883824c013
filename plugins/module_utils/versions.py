# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Versions as tuples, and as people read them."""

from __future__ import annotations

# A shareable disk (<shareable/> with cache='none' and share-rw) needs this QEMU (and libvirt
# 3.10, which only the host can tell: Nova reports QEMU's version).
MIN_SHAREABLE_QEMU = (2, 10, 0)


def version_tuple(number):
    """libvirt's encoded version (major * 1000000 + minor * 1000 + release), which Nova's
    hypervisor_version repeats, as a tuple."""
    return (number // 1000000, number // 1000 % 1000, number % 1000)


def version_text(version):
    """(3, 10, 0) as 3.10.0; none for no version."""
    return ".".join(str(part) for part in version) if version else "none"
