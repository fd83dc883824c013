#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: dataset_mount
short_description: Mount an ordinary filesystem of a shared volume read-only by many servers, read-write by one alone
version_added: 0.1.0
description:
  - Runs on a server that holds a multiattach volume carrying an ordinary filesystem (ext4, XFS)
    written once and read by many (a dataset). The
    R(multiattach.cloud.shared_dataset,role) role and C(playbooks/publish_dataset.yml) use it.
  - O(mode=ro) mounts C(ro) with the option that never replays a journal (ext4 C(noload), XFS
    C(norecovery)), since a replay writes the disk the other servers read; XFS also C(nouuid), since
    a version copied from another keeps its UUID, which XFS would refuse to mount beside the
    original. A disk the kernel does not
    hold read-only (the volume has no read-only flag) is mounted with a warning.
  - O(mode=rw) is refused unless O(holders) is 1 (the cloud's count of the servers that hold the
    volume), and refused for a volume with Cinder's read-only flag (O(read_only_flag)) or a disk
    the kernel holds read-only (Nova's C(<readonly/>)). An ext4 or XFS knows of no other node;
    written by one server while others hold the disk, it is read stale or corrupted.
  - Never formats a disk that carries any signature; O(make_filesystem) makes the filesystem only
    on a blank disk, with the signature read again right before mkfs.
  - O(state=absent) syncs and unmounts, and removes the fstab entry.
author:
  - multiattach.cloud developers (@multiattach)
seealso:
  - {module: "multiattach.cloud.volume", description: "the volume's read-only flag (O(multiattach.cloud.volume#module:read_only))"}
  - {module: "multiattach.cloud.volume_info", description: "how many servers hold the volume"}
  - {name: "ext4 mount options", link: "https://docs.kernel.org/admin-guide/ext4.html", description: "noload"}
  - {name: "XFS mount options", link: "https://docs.kernel.org/admin-guide/xfs.html", description: "norecovery"}
extends_documentation_fragment:
  - multiattach.cloud.attributes
options:
  volume_id:
    description:
      - The Cinder volume's ID; the disk is found under C(/dev/disk/by-id) by the serial Nova gives it.
      - Give this or O(device).
    type: str
  device:
    description: The disk's path, for a disk Cinder did not give.
    type: path
  mount_point:
    description: Where the filesystem is mounted.
    type: path
    required: true
  filesystem:
    description: The ordinary filesystem on the disk.
    type: str
    choices: [ext4, xfs]
    default: ext4
  mode:
    description: V(ro) for a reader, V(rw) for the one writer.
    type: str
    choices: [ro, rw]
    default: ro
  holders:
    description:
      - How many servers hold the volume, as the cloud says (RV(multiattach.cloud.volume_info#module:volumes[].attachments)).
        Needed for O(mode=rw), which is refused unless it is 1.
    type: int
  read_only_flag:
    description: Whether the volume carries Cinder's read-only flag (RV(multiattach.cloud.volume_info#module:volumes[].read_only)).
    type: bool
    default: false
  make_filesystem:
    description: Make O(filesystem) when the disk is blank (never over any signature). Only with O(mode=rw).
    type: bool
    default: false
  label:
    description: The label of a filesystem made here.
    type: str
    default: dataset
  persistent:
    description:
      - Write an C(/etc/fstab) entry (with C(nofail)) so that the mount comes back at boot. A writer's
        mount is usually not.
    type: bool
    default: true
  options:
    description:
      - More mount options (C(ro) and the no-replay option are always set for V(ro)).
      - Refused before anything is read - C(rw) for a reader (O(mode=ro)), and C(remount), C(bind),
        C(rbind) for both modes, each named with why.
    type: list
    elements: str
    default: []
  state:
    description:
      - V(present) mounts, V(absent) lets go of the volume - EVERY mount of its disk on this server
        is unmounted (found by the device's number wherever it is, a bind mount too, the last
        mounted first) and the fstab entry removed.
      - V(absent) refuses, before any step and in check mode too, while a process holds any mount
        of the disk (naming it), and when the disk is not on this server but something is mounted
        on O(mount_point) (not the volume named; it is left alone).
    type: str
    choices: [present, absent]
    default: present
notes:
  - Readers' C(ro) mounts of a volume still written by a server see stale or torn data. Write a
    new volume and move the readers to it (C(playbooks/publish_dataset.yml)).
attributes:
  platform:
    platforms: posix
    details: Runs in the servers that hold the volume (util-linux's findmnt, mount and blkid; mkfs.ext4 or mkfs.xfs).
  check_mode:
    support: full
    details: Reads the disk and the mount, refuses as it would, changes nothing.
  diff_mode:
    support: full
    details: Shows the mount's mode and the fstab entry before and after.
"""

EXAMPLES = r"""
- name: Mount version 3 of the dataset read-only
  multiattach.cloud.dataset_mount:
    volume_id: 5bd8c3a0-8e4b-4c2b-9a53-2d7d0e1f6a11
    mount_point: /srv/datasets/reference/v3
    mode: ro

- name: The writer, alone on a new volume, makes ext4 on it and mounts it read-write
  multiattach.cloud.dataset_mount:
    volume_id: 0f4c1e9a-6b2d-4f7e-8a3c-1d2e3f4a5b6c
    mount_point: /mnt/dataset-publish
    mode: rw
    holders: 1
    make_filesystem: true
    persistent: false
"""

RETURN = r"""
disk:
  description: Where the disk is (C(path), C(exists), C(is_block_device)).
  returned: always
  type: dict
  sample: {"path": "/dev/disk/by-id/virtio-5bd8c3a0-8e4b-4c2b-9", "exists": true, "is_block_device": true}
mount_point:
  description: The mount point.
  returned: always
  type: str
mode:
  description: V(ro) or V(rw); null once unmounted.
  returned: always
  type: str
options:
  description: The mount options; null once unmounted.
  returned: always
  type: str
  sample: ro,noload
kernel_read_only:
  description: Whether the kernel holds the disk read-only (Nova's C(<readonly/>)); null without a disk.
  returned: always
  type: bool
fstab_entry:
  description: The fstab line for the mount point afterwards; null for none.
  returned: always
  type: str
  sample: /dev/disk/by-id/virtio-5bd8c3a0-8e4b-4c2b-9 /srv/datasets/reference/v3 ext4 ro,noload,nofail 0 0
"""

from ansible_collections.multiattach.cloud.plugins.module_utils.host.cluster_node import (
    DISK_MODULE_KWARGS,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.host.dataset_mount import (
    DatasetMountChange,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.module import CollectionModule


class DatasetMountModule(CollectionModule):
    argument_spec = dict(
        volume_id=dict(type="str"),
        device=dict(type="path"),
        mount_point=dict(type="path", required=True),
        filesystem=dict(type="str", default="ext4", choices=["ext4", "xfs"]),
        mode=dict(type="str", default="ro", choices=["ro", "rw"]),
        holders=dict(type="int"),
        read_only_flag=dict(type="bool", default=False),
        make_filesystem=dict(type="bool", default=False),
        label=dict(type="str", default="dataset"),
        persistent=dict(type="bool", default=True),
        options=dict(type="list", elements="str", default=[]),
        state=dict(type="str", default="present", choices=["present", "absent"]),
    )
    module_kwargs = DISK_MODULE_KWARGS
    job = DatasetMountChange


def main():
    DatasetMountModule()()


if __name__ == "__main__":
    main()
