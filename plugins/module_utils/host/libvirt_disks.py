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
import time
from xml.etree import ElementTree

from ansible_collections.multiattach.cloud.plugins.module_utils.change import Change, Plan, Step
from ansible_collections.multiattach.cloud.plugins.module_utils.host.libvirt_host import libvirt
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure

QCOW2_MAGIC = b"QFI\xfb"
SHARED_CACHE = "none"
SHARED_FORMAT = "raw"


class DiskError(ModuleFailure):
    """A disk that cannot be shared, or a conflict; the message names the fix."""

    def __init__(self, msg, **result):
        result.setdefault("changed", False)
        super().__init__(msg, **result)


def source_kind(path):
    """'block' for a block device, 'file' for a regular file; DiskError otherwise."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        raise DiskError(
            "disk source %s cannot be read (%s); create the raw file or give an "
            "existing block device" % (path, error.strerror)
        ) from None
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
        raise DiskError(
            "format %s cannot be shared: only raw disks can be attached to several "
            "guests at once (QEMU's share-rw needs a format without host-side "
            "metadata); convert with qemu-img convert -O raw" % declared_format
        )
    found = detect_format(path)
    if found != SHARED_FORMAT:
        raise DiskError(
            "%s is a %s image, not raw: only raw disks can be shared between "
            "guests; convert it with qemu-img convert -O raw" % (path, found)
        )


def disk_xml(source, kind, target, bus):
    disk = ElementTree.Element("disk", type=kind, device="disk")
    ElementTree.SubElement(disk, "driver", name="qemu", type=SHARED_FORMAT, cache=SHARED_CACHE)
    ElementTree.SubElement(
        disk, "source", **({"dev": source} if kind == "block" else {"file": source})
    )
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


# How often a live detach is checked for the guest's release of the disk.
RELEASE_POLL_SECONDS = 0.5


class PartlyChanged(DiskError):
    """A failure after some scopes were changed: the task reports changed for them."""

    def __init__(self, msg, changed, scopes):
        super().__init__(msg, changed=changed, scopes=scopes)


def lookup_domain(conn, name):
    for lookup in (conn.lookupByName, conn.lookupByUUIDString):
        try:
            return lookup(name)
        except libvirt.libvirtError:
            continue
    raise DiskError(
        "libvirt has no domain named %s (domains: %s)"
        % (name, ", ".join(sorted(d.name() for d in conn.listAllDomains())) or "none")
    )


def domain_views(domain, live, config):
    """{scope: domain XML} for the scopes this task may change: live, config."""
    views = {}
    if live and domain.isActive():
        views["live"] = domain.XMLDesc(0)
    if config and domain.isPersistent():
        views["config"] = domain.XMLDesc(libvirt.VIR_DOMAIN_XML_INACTIVE)
    if not views:
        raise DiskError(
            "nothing to change on domain %s: it is %s and not %s; set live or config"
            % (
                domain.name(),
                "running" if domain.isActive() else "shut off",
                "persistent" if not domain.isPersistent() else "asked for",
            )
        )
    return views


def scope_flags(scopes):
    flags = 0
    if "live" in scopes:
        flags |= libvirt.VIR_DOMAIN_AFFECT_LIVE
    if "config" in scopes:
        flags |= libvirt.VIR_DOMAIN_AFFECT_CONFIG
    return flags


def plan_attach(views, source, target, bus):
    """Scopes that lack the disk; fails on a disk attached differently or a busy target."""
    wanted = {
        "target": target,
        "bus": bus,
        "format": "raw",
        "cache": "none",
        "shareable": True,
        "readonly": False,
    }
    missing = []
    for scope, xml in views.items():
        found = find_disk(xml, source)
        if found is not None:
            problems = differences(describe(found), wanted)
            if problems:
                raise DiskError(
                    "%s is already attached to the %s domain differently (%s): %s. Detach it with "
                    "state=absent, then attach it again"
                    % (source, scope, "; ".join(problems), element_text(found))
                )
            continue
        busy = disk_on_target(xml, target)
        if busy is not None:
            raise DiskError(
                "target %s of the %s domain already holds another disk: %s. Choose "
                "another target" % (target, scope, element_text(busy))
            )
        missing.append(scope)
    return missing


def wait_until_released(domain, source, timeout):
    deadline = time.time() + timeout
    while find_disk(domain.XMLDesc(0), source) is not None:
        if time.time() > deadline:
            raise DiskError(
                "the guest of domain %s did not release %s within %d s; a running guest's "
                "kernel must acknowledge the unplug: unmount the filesystem in the guest and "
                "check that it handles hotplug (ACPI)" % (domain.name(), source, timeout)
            )
        time.sleep(RELEASE_POLL_SECONDS)


class ShareableDiskChange(Change):
    """The libvirt_shareable_disk module: attach (state=present) or detach the shareable disk
    in the scopes asked for, the disk's XML before and after as the diff."""

    def __init__(
        self, open_libvirt, *, domain, source, target, bus, format, state, live, config, timeout
    ):  # pylint: disable=redefined-builtin
        # What no domain could take is refused before libvirt is asked anything.
        if timeout < 1:
            raise DiskError("timeout must be at least 1 (seconds), not %d" % timeout)
        if state == "present":
            if not target:
                raise DiskError("target is needed to attach a disk, for example target: vdb")
            refuse_unshareable_format(source, format)
        self.open_libvirt = open_libvirt
        self.domain_name = domain
        self.source = source
        self.target = target
        self.bus = bus
        self.state = state
        self.live = live
        self.config = config
        self.timeout = timeout
        self.conn = None

    def run(self, check_mode):
        # Check mode only reads: its connection is read-only.
        self.conn = self.open_libvirt(read_only=check_mode)
        try:
            return super().run(check_mode)
        finally:
            self.conn.close()

    def read(self):
        domain = lookup_domain(self.conn, self.domain_name)
        return domain, domain_views(domain, self.live, self.config)

    def plan(self, current):
        domain, views = current
        if self.state == "present":
            return self.plan_attach(domain, views)
        present = {scope: find_disk(xml, self.source) for scope, xml in views.items()}
        present = {scope: disk for scope, disk in present.items() if disk is not None}
        found = next(iter(present.values()), None)
        steps = (
            [
                Step(
                    "detach %s from %s" % (self.source, ", ".join(sorted(present))),
                    lambda: self.detach(domain, found, present),
                )
            ]
            if present
            else []
        )
        return Plan(
            element_text(found),
            "",
            steps,
            result=dict(
                scopes=sorted(present), disk=describe(found) if found is not None else None
            ),
        )

    def plan_attach(self, domain, views):
        wanted_xml = disk_xml(self.source, source_kind(self.source), self.target, self.bus)
        before = {scope: element_text(find_disk(xml, self.source)) for scope, xml in views.items()}
        missing = plan_attach(views, self.source, self.target, self.bus)
        steps = (
            [
                Step(
                    "attach %s to %s" % (self.source, ", ".join(missing)),
                    lambda: self.attach(domain, wanted_xml, missing),
                )
            ]
            if missing
            else []
        )
        disk, after = self.attached(views, wanted_xml)
        return Plan(
            next((text for text in before.values() if text), ""),
            after,
            steps,
            result=dict(scopes=missing, disk=disk),
        )

    def attached(self, views, wanted_xml):
        """(the disk as described, its XML) in VIEWS, or as it would be attached."""
        found = (find_disk(xml, self.source) for xml in views.values())
        attached = next((disk for disk in found if disk is not None), None)
        return (
            describe(attached if attached is not None else ElementTree.fromstring(wanted_xml)),
            element_text(attached) if attached is not None else wanted_xml,
        )

    def attach(self, domain, wanted_xml, missing):
        domain.attachDeviceFlags(wanted_xml, scope_flags(missing))
        disk, text = self.attached(domain_views(domain, self.live, self.config), wanted_xml)
        return dict(disk=disk, diff_after=text)

    def detach(self, domain, found, present):
        domain.detachDeviceFlags(element_text(found), scope_flags(present))
        if "live" in present:
            try:
                wait_until_released(domain, self.source, self.timeout)
            except DiskError as error:
                done = sorted(set(present) - {"live"})
                raise PartlyChanged(
                    "%s%s"
                    % (
                        error,
                        "; the persistent definition no longer has the disk, so "
                        "it is gone after the next restart of the domain"
                        if done
                        else "",
                    ),
                    changed=bool(done),
                    scopes=done,
                ) from None
