#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_shareable_disk
short_description: Attach a raw disk to a libvirt domain as a shareable disk, or detach it
version_added: 0.1.0
description:
  - Attaches a raw disk file or block device to a libvirt domain the way Nova's
    libvirt driver attaches a multiattach volume, C(<shareable/>) with
    C(cache='none') and format raw, so several domains can open it read-write at
    once (QEMU C(share-rw)). Or detaches it.
  - Works on the running domain (live) and on its persistent definition (config);
    a shut-off domain gets the config change only.
  - Idempotent. A disk with the same source already attached the same way is
    C(changed=false); attached differently (not shareable, another cache mode,
    format, target or bus), the task fails and shows the disk found. Detach it
    (I(state=absent)) and attach it again; the module does not rewrite a disk a
    guest may be using.
  - Only raw can be shared. Any other I(format), and a source file that starts
    with the qcow2 header, is refused before any change.
  - Sharing a disk is safe only with a cluster filesystem (OCFS2, GFS2) or other
    software that coordinates the writers; see the R(multiattach.cloud.clustered_fs,ansible_collections.multiattach.cloud.clustered_fs_role) role.
author:
  - multiattach.cloud developers (@multiattach)
requirements:
  - libvirt-python (C(python3-libvirt) on Debian) on the host that runs libvirtd
options:
  domain:
    description: Name or UUID of the libvirt domain.
    type: str
    required: true
  source:
    description:
      - Path of the raw disk file or block device. For I(state=absent) the disk
        is found by this path.
    type: path
    required: true
  target:
    description:
      - Device name in the guest, for example C(vdb). Needed to attach.
    type: str
  bus:
    description: Disk bus.
    type: str
    choices: [virtio, scsi, sata]
    default: virtio
  format:
    description:
      - Disk format. Only C(raw) is accepted; the option exists so that asking for
        C(qcow2) fails with the reason instead of silently sharing a disk that
        cannot be shared.
    type: str
    default: raw
  state:
    description: C(present) attaches, C(absent) detaches.
    type: str
    choices: [present, absent]
    default: present
  live:
    description: Change the running domain (when it runs).
    type: bool
    default: true
  config:
    description: Change the persistent definition (when the domain is persistent).
    type: bool
    default: true
  timeout:
    description:
      - Seconds to wait for a running guest to release a detached disk (the
        guest's kernel must acknowledge the unplug).
    type: int
    default: 60
  uri:
    description: The libvirt connection URI.
    type: str
    default: qemu:///system
attributes:
  check_mode:
    support: full
    description: Reports what would be attached or detached and changes nothing.
  diff_mode:
    support: full
    description: The disk's XML before and after.
  platform:
    support: full
    platforms: posix
    description: Runs on the libvirt host.
"""

EXAMPLES = r"""
- name: Share one raw disk between two guests
  multiattach.cloud.libvirt_shareable_disk:
    domain: "{{ item }}"
    source: /var/lib/libvirt/images/shared.raw
    target: vdb
  loop: [node-1, node-2]

- name: Detach it from one guest, the other keeps it
  multiattach.cloud.libvirt_shareable_disk:
    domain: node-2
    source: /var/lib/libvirt/images/shared.raw
    state: absent
"""

RETURN = r"""
disk:
  description: The disk as attached after the task (or as found before a detach); null when absent.
  returned: always
  type: dict
  contains:
    source:
      description: Path of the file or block device.
      type: str
      returned: success
    target:
      description: Device name in the guest.
      type: str
      returned: success
    bus:
      description: Disk bus.
      type: str
      returned: success
    format:
      description: Driver format (raw).
      type: str
      returned: success
    cache:
      description: Cache mode (none).
      type: str
      returned: success
    shareable:
      description: Whether the disk is marked shareable.
      type: bool
      returned: success
    readonly:
      description: Whether the disk is read-only.
      type: bool
      returned: success
scopes:
  description:
    - Where the disk was (or would be) attached or detached, C(live) and/or C(config).
    - When a live detach times out, the scopes that were changed all the same
      (C(config)); the task then fails with C(changed=true).
  returned: always
  type: list
  elements: str
"""

import time
from xml.etree import ElementTree

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.multiattach.cloud.plugins.module_utils.libvirt_disks import (
    DiskError, describe, differences, disk_on_target, disk_xml, element_text, find_disk,
    refuse_unshareable_format, source_kind)
from ansible_collections.multiattach.cloud.plugins.module_utils.libvirt_host import (
    LIBVIRT_IMPORT_ERROR, LibvirtUnavailable, libvirt, libvirt_error_text, open_libvirt)

POLL_SECONDS = 0.5


class PartlyChanged(DiskError):
    """A failure after some scopes were changed: the task reports changed for them."""

    def __init__(self, msg, changed, scopes):
        super().__init__(msg)
        self.changed = changed
        self.scopes = scopes


def lookup_domain(conn, name):
    for lookup in (conn.lookupByName, conn.lookupByUUIDString):
        try:
            return lookup(name)
        except libvirt.libvirtError:
            continue
    raise DiskError("libvirt has no domain named %s (domains: %s)"
                    % (name, ", ".join(sorted(d.name() for d in conn.listAllDomains())) or "none"))


def domain_views(domain, params):
    """{scope: domain XML} for the scopes this task may change: live, config."""
    views = {}
    if params["live"] and domain.isActive():
        views["live"] = domain.XMLDesc(0)
    if params["config"] and domain.isPersistent():
        views["config"] = domain.XMLDesc(libvirt.VIR_DOMAIN_XML_INACTIVE)
    if not views:
        raise DiskError("nothing to change on domain %s: it is %s and not %s; set live or config"
                        % (domain.name(), "running" if domain.isActive() else "shut off",
                           "persistent" if not domain.isPersistent() else "asked for"))
    return views


def scope_flags(scopes):
    flags = 0
    if "live" in scopes:
        flags |= libvirt.VIR_DOMAIN_AFFECT_LIVE
    if "config" in scopes:
        flags |= libvirt.VIR_DOMAIN_AFFECT_CONFIG
    return flags


def plan_attach(views, params, wanted_xml):
    """Scopes that lack the disk; fails on a disk attached differently or a busy target."""
    wanted = {"target": params["target"], "bus": params["bus"], "format": "raw",
              "cache": "none", "shareable": True, "readonly": False}
    missing = []
    for scope, xml in views.items():
        found = find_disk(xml, params["source"])
        if found is not None:
            problems = differences(describe(found), wanted)
            if problems:
                raise DiskError(
                    "%s is already attached to the %s domain differently (%s): %s. Detach it with "
                    "state=absent, then attach it again"
                    % (params["source"], scope, "; ".join(problems), element_text(found)))
            continue
        busy = disk_on_target(xml, params["target"])
        if busy is not None:
            raise DiskError("target %s of the %s domain already holds another disk: %s. Choose "
                            "another target" % (params["target"], scope, element_text(busy)))
        missing.append(scope)
    return missing, wanted_xml


def wait_until_released(domain, source, timeout):
    deadline = time.time() + timeout
    while find_disk(domain.XMLDesc(0), source) is not None:
        if time.time() > deadline:
            raise DiskError(
                "the guest of domain %s did not release %s within %d s; a running guest's "
                "kernel must acknowledge the unplug: unmount the filesystem in the guest and "
                "check that it handles hotplug (ACPI)" % (domain.name(), source, timeout))
        time.sleep(POLL_SECONDS)


def check_input(params):
    """Refuse what no domain could take, before libvirt is asked anything."""
    if params["timeout"] < 1:
        raise DiskError("timeout must be at least 1 (seconds), not %d" % params["timeout"])
    if params["state"] == "present":
        if not params["target"]:
            raise DiskError("target is needed to attach a disk, for example target: vdb")
        refuse_unshareable_format(params["source"], params["format"])


def run(module, conn):
    params = module.params
    domain = lookup_domain(conn, params["domain"])
    views = domain_views(domain, params)
    source = params["source"]
    if params["state"] == "present":
        wanted_xml = disk_xml(source, source_kind(source), params["target"], params["bus"])
        before = {scope: element_text(find_disk(xml, source)) for scope, xml in views.items()}
        missing, wanted_xml = plan_attach(views, params, wanted_xml)
        if missing and not module.check_mode:
            domain.attachDeviceFlags(wanted_xml, scope_flags(missing))
        after_views = domain_views(domain, params) if not module.check_mode else views
        attached = next((find_disk(xml, source) for xml in after_views.values()
                         if find_disk(xml, source) is not None), None)
        disk = describe(attached if attached is not None else ElementTree.fromstring(wanted_xml))
        before_text = next((text for text in before.values() if text), "")
        after_text = element_text(attached) if attached is not None else wanted_xml
        return dict(changed=bool(missing), scopes=missing, disk=disk,
                    diff=dict(before=before_text, after=after_text))
    present = {scope: find_disk(xml, source) for scope, xml in views.items()}
    present = {scope: disk for scope, disk in present.items() if disk is not None}
    found = next(iter(present.values()), None)
    if present and not module.check_mode:
        domain.detachDeviceFlags(element_text(found), scope_flags(present))
        if "live" in present:
            try:
                wait_until_released(domain, source, params["timeout"])
            except DiskError as error:
                done = sorted(set(present) - {"live"})
                raise PartlyChanged(
                    "%s%s" % (error, "; the persistent definition no longer has the disk, so "
                                     "it is gone after the next restart of the domain"
                              if done else ""), changed=bool(done), scopes=done) from None
    return dict(changed=bool(present), scopes=sorted(present),
                disk=describe(found) if found is not None else None,
                diff=dict(before=element_text(found), after=""))


def main():
    module = AnsibleModule(
        argument_spec=dict(
            domain=dict(type="str", required=True),
            source=dict(type="path", required=True),
            target=dict(type="str"),
            bus=dict(type="str", choices=["virtio", "scsi", "sata"], default="virtio"),
            format=dict(type="str", default="raw"),
            state=dict(type="str", choices=["present", "absent"], default="present"),
            live=dict(type="bool", default=True),
            config=dict(type="bool", default=True),
            timeout=dict(type="int", default=60),
            uri=dict(type="str", default="qemu:///system"),
        ),
        supports_check_mode=True,
    )
    if LIBVIRT_IMPORT_ERROR:
        module.fail_json(msg=missing_required_lib("libvirt-python (python3-libvirt)"),
                         exception=LIBVIRT_IMPORT_ERROR)
    try:
        check_input(module.params)
        conn = open_libvirt(module.params["uri"], read_only=module.check_mode)
    except (DiskError, LibvirtUnavailable) as error:
        module.fail_json(msg=str(error), changed=False)
    try:
        result = run(module, conn)
    except PartlyChanged as error:
        module.fail_json(msg=str(error), changed=error.changed, scopes=error.scopes)
    except DiskError as error:
        module.fail_json(msg=str(error), changed=False)
    except libvirt.libvirtError as error:
        module.fail_json(msg="libvirt refused: %s" % libvirt_error_text(error),
                         changed=False)
    finally:
        conn.close()
    diff = result.pop("diff")
    if module._diff:
        result["diff"] = diff
    module.exit_json(**result)


if __name__ == "__main__":
    main()
