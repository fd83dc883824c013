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
    (O(state=absent)) and attach it again; the module does not rewrite a disk a
    guest may be using.
  - Only raw can be shared. Any other O(format), and a source file that starts
    with the qcow2 header, is refused before any change.
  - Sharing a disk is safe only with a cluster filesystem (OCFS2, GFS2) or other
    software that coordinates the writers; see the R(multiattach.cloud.clustered_fs,ansible_collections.multiattach.cloud.clustered_fs_role) role.
author:
  - multiattach.cloud developers (@multiattach)
seealso:
  - {module: "multiattach.cloud.libvirt_host_info", description: "whether the host can share disks"}
  - {name: "libvirt domain XML", link: "https://libvirt.org/formatdomain.html#hard-drives-floppy-disks-cdroms", description: "disks, shareable and cache"}
extends_documentation_fragment:
  - multiattach.cloud.libvirt
options:
  domain:
    description: Name or UUID of the libvirt domain.
    type: str
    required: true
  source:
    description:
      - Path of the raw disk file or block device. For O(state=absent) the disk
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
      - Disk format. Only V(raw) is accepted; the option exists so that asking for
        V(qcow2) fails with the reason instead of silently sharing a disk that
        cannot be shared.
    type: str
    default: raw
  state:
    description: V(present) attaches, V(absent) detaches.
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
attributes:
  check_mode:
    support: full
    details: Reports what would be attached or detached and changes nothing.
  diff_mode:
    support: full
    details: The disk's XML before and after.
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
  sample:
    source: /var/lib/shared/data.raw
    target: vdb
    bus: virtio
    format: raw
    cache: none
    shareable: true
    readonly: false
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
    - Where the disk was (or would be) attached or detached, O(live) and/or O(config).
    - When a live detach times out, the scopes that were changed all the same
      (O(config)); the task then fails with C(changed=true).
  returned: always
  type: list
  elements: str
  sample: [live, config]
"""

from ansible_collections.multiattach.cloud.plugins.module_utils.host.libvirt_disks import (
    ShareableDiskChange,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.host.libvirt_module import (
    LibvirtModule,
)


class LibvirtShareableDiskModule(LibvirtModule):
    argument_spec = dict(
        domain=dict(type="str", required=True),
        source=dict(type="path", required=True),
        target=dict(type="str"),
        bus=dict(type="str", choices=["virtio", "scsi", "sata"], default="virtio"),
        format=dict(type="str", default="raw"),
        state=dict(type="str", choices=["present", "absent"], default="present"),
        live=dict(type="bool", default=True),
        config=dict(type="bool", default=True),
        timeout=dict(type="int", default=60),
    )
    job = ShareableDiskChange


def main():
    LibvirtShareableDiskModule()()


if __name__ == "__main__":
    main()
