#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: clustered_fs_mkfs
short_description: Make OCFS2 or GFS2 on a shared disk that carries no signature, and never over one
version_added: 0.1.0
description:
  - Runs on ONE server that holds the shared volume (the R(multiattach.cloud.clustered_fs,role) role
    picks the first node) and makes the cluster filesystem on it.
  - Reads the disk's signature again right before mkfs (C(blkid -p) after dropping this node's
    cached blocks, since other nodes write the disk). A disk that already holds O(filesystem) is
    left as it is (no change); any other signature (another filesystem, a partition table, a RAID
    member) fails and names it; so does a disk mounted on this node.
  - mkfs keeps its own safety check - no force flag (no C(mkfs.gfs2 -O), no C(mkfs.ocfs2 -F)). Its
    question is answered yes only when mkfs itself reports no content on the disk.
author:
  - multiattach.cloud developers (@multiattach)
seealso:
  - {module: "multiattach.cloud.clustered_fs_info", description: "read the disk's signature and slots first"}
  - {name: "The kernel's OCFS2 documentation", link: "https://docs.kernel.org/filesystems/ocfs2.html", description: "its reference"}
  - {name: "The kernel's GFS2 documentation", link: "https://docs.kernel.org/filesystems/gfs2.html", description: "its reference"}
extends_documentation_fragment:
  - multiattach.cloud.cluster_node
options:
  slots:
    description: OCFS2 node slots or GFS2 journals - how many nodes can mount it at once.
    type: int
    required: true
  label:
    description: The filesystem's label (OCFS2) or lock table's second part (GFS2).
    type: str
    default: shared
attributes:
  check_mode:
    support: full
    details: Reads the disk and reports whether mkfs would run (and refuses as it would); writes nothing.
  diff_mode:
    support: none
    details: A filesystem has no text diff; RV(command) says what runs.
"""

EXAMPLES = r"""
- name: Make GFS2 on the shared volume, unless it holds one already
  multiattach.cloud.clustered_fs_mkfs:
    volume_id: 5bd8c3a0-8e4b-4c2b-9a53-2d7d0e1f6a11
    filesystem: gfs2
    slots: 4
    cluster_name: db
    label: shared
"""

RETURN = r"""
disk:
  description: Where the disk is (C(path), C(exists), C(is_block_device)).
  returned: always
  type: dict
  sample: {"path": "/dev/disk/by-id/virtio-5bd8c3a0-8e4b-4c2b-9", "exists": true, "is_block_device": true}
signature_type:
  description: The filesystem on the disk afterwards; null in check mode when mkfs would run.
  returned: always
  type: str
  sample: gfs2
command:
  description: The mkfs command run (or that would run in check mode); empty when the disk held the filesystem.
  returned: always
  type: list
  elements: str
  sample: ["mkfs.gfs2", "-p", "lock_dlm", "-t", "db:shared", "-j", "4", "/dev/disk/by-id/virtio-5bd8c3a0-8e4b-4c2b-9"]
mkfs_output:
  description: What mkfs printed.
  returned: always
  type: list
  elements: str
"""

from ansible_collections.multiattach.cloud.plugins.module_utils.host.cluster_node import (
    DISK_ARGUMENT_SPEC,
    DISK_MODULE_KWARGS,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.host.mkfs import MkfsChange
from ansible_collections.multiattach.cloud.plugins.module_utils.module import CollectionModule


class ClusteredFsMkfsModule(CollectionModule):
    argument_spec = dict(
        DISK_ARGUMENT_SPEC,
        slots=dict(type="int", required=True),
        label=dict(type="str", default="shared"),
    )
    module_kwargs = DISK_MODULE_KWARGS
    job = MkfsChange


def main():
    ClusteredFsMkfsModule()()


if __name__ == "__main__":
    main()
