#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: clustered_fs_mount
short_description: Mount OCFS2 or GFS2 of a shared disk on this node, now and at boot, in one run
version_added: 0.2.0
description:
  - Runs on each server that holds the shared volume, once its cluster stack runs (the
    R(multiattach.cloud.clustered_fs,role) role calls it last) and the filesystem exists.
  - Makes C(/etc/fstab) hold one entry for O(mount_point) (written whole through a rename, in the
    place of the entry it replaces), makes the mount point, and mounts the filesystem unless it is
    mounted there. Then systemd reads fstab again (started, not waited for), which gives the
    mount its order at shutdown (after the network; a GFS2 mount before dlm.service stops).
  - A GFS2 mount first starts dlm.service, which the role's drop-in lets start only in a quorate
    corosync ring dlm_controld has caught up with; when it does not start, nothing is mounted and
    the run fails saying so.
  - Refuses another filesystem or another disk mounted on O(mount_point), and a mount point that
    is no directory. It never makes a filesystem (M(multiattach.cloud.clustered_fs_mkfs) does).
author:
  - multiattach.cloud developers (@multiattach)
seealso:
  - {module: "multiattach.cloud.clustered_fs_leave", description: "unmounts it and drops the entry when a node leaves"}
  - {module: "multiattach.cloud.clustered_fs_mkfs", description: "makes the filesystem first, on one node"}
  - name: systemd.mount
    link: https://www.freedesktop.org/software/systemd/man/latest/systemd.mount.html
    description: How systemd mounts an fstab entry at boot and orders it at shutdown.
extends_documentation_fragment:
  - multiattach.cloud.cluster_node.DISK
options:
  mount_point:
    description: Where the filesystem is mounted.
    type: path
    required: true
  options:
    description:
      - The fstab entry's mount options, comma-separated. C(_netdev) keeps the mount after the
        network at boot and at shutdown.
      - For GFS2 C(x-systemd.requires=dlm.service) is added, so that systemd mounts it at boot only
        once dlm.service has started.
      - Refused before anything is read or written, each named with why - C(lockproto),
        C(locktable), C(hostdata), C(localflocks), C(spectator), C(norecovery) (GFS2);
        C(localflocks), C(coherency=buffered), C(nocluster) (OCFS2); C(remount), C(bind), C(rbind) (both). Each
        turns off the cluster's locking or journal recovery, or mounts something else.
    type: str
    default: _netdev,noatime
attributes:
  check_mode:
    support: full
    details: Reads the node and says what would be written, made and mounted; changes nothing.
  diff_mode:
    support: full
    details: The fstab entries for O(mount_point) and the filesystem mounted there, before and after.
"""

EXAMPLES = r"""
- name: Mount the shared GFS2 on every node, now and at boot
  multiattach.cloud.clustered_fs_mount:
    volume_id: 5bd8c3a0-8e4b-4c2b-9a53-2d7d0e1f6a11
    filesystem: gfs2
    mount_point: /srv/shared
"""

RETURN = r"""
disk:
  description: Where the disk is (C(path), C(exists), C(is_block_device)).
  returned: always
  type: dict
  sample: {"path": "/dev/disk/by-id/virtio-5bd8c3a0-8e4b-4c2b-9", "exists": true, "is_block_device": true}
mount_point:
  description: O(mount_point).
  returned: success
  type: str
  sample: /srv/shared
fstab_entry:
  description: The fstab entry for O(mount_point), fields joined by one space.
  returned: success
  type: str
  sample: /dev/disk/by-id/virtio-5bd8c3a0-8e4b-4c2b-9 /srv/shared gfs2 _netdev,noatime,x-systemd.requires=dlm.service 0 0
"""

from ansible_collections.multiattach.cloud.plugins.module_utils.host.cluster_mount import (
    ClusterMountChange,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.host.cluster_node import (
    DISK_MODULE_KWARGS,
    DISK_ONLY_ARGUMENT_SPEC,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.module import CollectionModule


class ClusteredFsMountModule(CollectionModule):
    argument_spec = dict(
        DISK_ONLY_ARGUMENT_SPEC,
        mount_point=dict(type="path", required=True),
        options=dict(type="str", default="_netdev,noatime"),
    )
    module_kwargs = DISK_MODULE_KWARGS
    job = ClusterMountChange

    def describe(self, error):
        if isinstance(error, OSError):
            return "cannot write %s: %s" % (error.filename or "a file", error.strerror or error)
        return None


def main():
    ClusteredFsMountModule()()


if __name__ == "__main__":
    main()
