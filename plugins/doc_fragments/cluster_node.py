# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fragments of the modules that run on a node of the cluster filesystem: the options that
name the shared disk and the filesystem, the platform, and (all but a mount) the cluster's name;
each module adds its check and diff support."""

from __future__ import annotations

from ansible_collections.multiattach.cloud.plugins.doc_fragments.attributes import (
    ModuleDocFragment as Attributes,
)
from ansible_collections.multiattach.cloud.plugins.doc_fragments.attributes import joined


class ModuleDocFragment:
    DISK_OPTIONS = r"""
options:
  volume_id:
    description:
      - The Cinder volume's ID; the disk is found as C(/dev/disk/by-id/virtio-<first 20
        characters>) (virtio-blk) or C(/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_<ID>)
        (virtio-scsi). Exactly one of O(volume_id) and O(device).
    type: str
  device:
    description:
      - The disk's path in this server, for a disk Cinder did not give.
    type: path
  filesystem:
    description: The cluster filesystem - OCFS2 (the o2cb stack) or GFS2 (corosync and dlm).
    type: str
    choices: [ocfs2, gfs2]
    default: ocfs2
attributes:
  platform:
    platforms: debian
    details: Runs in the servers that share the disk (dpkg, systemd, util-linux, the filesystem's tools).
"""
    CLUSTER_NAME = r"""
options:
  cluster_name:
    description: The cluster's name (the o2cb cluster, or the first part of GFS2's lock table).
    type: str
    default: multiattach
"""


# multiattach.cloud.cluster_node: the disk and the cluster's name; .DISK: the disk alone (a mount).
ModuleDocFragment.DISK = joined(Attributes.DOCUMENTATION, ModuleDocFragment.DISK_OPTIONS)
ModuleDocFragment.DOCUMENTATION = joined(
    Attributes.DOCUMENTATION, ModuleDocFragment.DISK_OPTIONS, ModuleDocFragment.CLUSTER_NAME
)
