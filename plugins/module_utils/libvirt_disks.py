# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Shareable disks in libvirt domain XML: build, find, compare.

A disk that several guests write at once must be raw, opened with O_DIRECT
(cache='none', no host page cache between the guests) and marked <shareable/>
so QEMU opens it with share-rw instead of taking an exclusive write lock.
This is the disk Nova's libvirt driver builds for a multiattach volume.
"""

from __future__ import annotations

import os
import stat
from xml.etree import ElementTree

QCOW2_MAGIC = b"QFI\xfb"
SHARED_CACHE = "none"
SHARED_FORMAT = "raw"


class DiskError(ValueError):
    """A disk that cannot be shared, or a conflict; the message names the fix."""


def source_kind(path):
    """'block' for a block device, 'file' for a regular file; DiskError otherwise."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        raise DiskError("disk source %s cannot be read (%s); create the raw file or give an "
                        "existing block device" % (path, error.strerror)) from None
    if stat.S_ISBLK(mode):
        return "block"
    if stat.S_ISREG(mode):
        return "file"
    raise DiskError("disk source %s is neither a regular file nor a block device" % path)


def detect_format(path):
    """'qcow2' when the file starts with the qcow2 magic, else 'raw'."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4)
    except OSError as error:
        raise DiskError("cannot read %s: %s" % (path, error.strerror)) from None
    return "qcow2" if head == QCOW2_MAGIC else SHARED_FORMAT


def refuse_unshareable_format(path, declared_format):
    if declared_format != SHARED_FORMAT:
        raise DiskError("format %s cannot be shared: only raw disks can be attached to several "
                        "guests at once (QEMU's share-rw needs a format without host-side "
                        "metadata); convert with qemu-img convert -O raw" % declared_format)
    found = detect_format(path)
    if found != SHARED_FORMAT:
        raise DiskError("%s is a %s image, not raw: only raw disks can be shared between "
                        "guests; convert it with qemu-img convert -O raw" % (path, found))


def disk_xml(source, kind, target, bus):
    disk = ElementTree.Element("disk", type=kind, device="disk")
    ElementTree.SubElement(disk, "driver", name="qemu", type=SHARED_FORMAT, cache=SHARED_CACHE)
    ElementTree.SubElement(disk, "source", **({"dev": source} if kind == "block" else
                                              {"file": source}))
    ElementTree.SubElement(disk, "target", dev=target, bus=bus)
    ElementTree.SubElement(disk, "shareable")
    return ElementTree.tostring(disk, encoding="unicode")


def disk_source(disk):
    source = disk.find("source")
    if source is None:
        return None
    return source.get("file") or source.get("dev")


def disks_of(domain_xml):
    return ElementTree.fromstring(domain_xml).findall("./devices/disk")


def find_disk(domain_xml, source):
    """The <disk> element whose source is SOURCE (same real path), or None."""
    wanted = os.path.realpath(source)
    for disk in disks_of(domain_xml):
        found = disk_source(disk)
        if found and os.path.realpath(found) == wanted:
            return disk
    return None


def disk_on_target(domain_xml, target):
    for disk in disks_of(domain_xml):
        found = disk.find("target")
        if found is not None and found.get("dev") == target:
            return disk
    return None


def describe(disk):
    """The properties that make a disk shareable, as found in DISK."""
    driver = disk.find("driver")
    target = disk.find("target")
    return {
        "source": disk_source(disk),
        "target": target.get("dev") if target is not None else None,
        "bus": target.get("bus") if target is not None else None,
        "format": driver.get("type") if driver is not None else None,
        "cache": driver.get("cache") if driver is not None else None,
        "shareable": disk.find("shareable") is not None,
        "readonly": disk.find("readonly") is not None,
    }


def differences(found, wanted):
    """Human-readable differences between two describe() results (target/bus only if set)."""
    problems = []
    for key in ("target", "bus", "format", "cache", "shareable", "readonly"):
        if wanted.get(key) is not None and found.get(key) != wanted[key]:
            problems.append("%s is %s, wanted %s" % (key, found.get(key), wanted[key]))
    return problems


def element_text(disk):
    return ElementTree.tostring(disk, encoding="unicode").strip() if disk is not None else ""
