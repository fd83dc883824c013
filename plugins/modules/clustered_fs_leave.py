#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: clustered_fs_leave
short_description: Take this node out of the cluster filesystem - unmount, drop fstab, stop the stack
version_added: 0.2.0
description:
  - Runs on the node that leaves (the R(multiattach.cloud.clustered_fs,role) role's C(leave.yml),
    which the C(remove_node) playbook runs). In this order, each step only once the one before it
    held - every mount of the shared disk is unmounted (found by the device's number, wherever it is
    mounted, the last mounted first); the C(/etc/fstab) lines that mount O(mount_point) or the disk
    are dropped; with O(member), the cluster stack is stopped (C(ocfs2)
    then C(o2cb), or C(dlm) then C(corosync)), GFS2's units are disabled, and the stack's
    configuration is set aside as C(.left), so that a node that joins again later gets a new node
    ID (GFS2 - C(corosync.conf), C(dlm.conf), and the ring wait's script and C(dlm.service)
    drop-in; the drop-in before systemd reads the units again), and the fencing credentials are
    removed (O(fencing_cloud)). For OCFS2 that includes C(/etc/default/o2cb), o2cb's boot switch - without it Debian's o2cb
    script starts nothing at boot - while its SysV units stay enabled (enabling or disabling one
    runs C(update-rc.d), about 10 s a unit on an emulated guest, and a node that joins again needs
    them enabled). GFS2's corosync and dlm are disabled for systemd only (C(SYSTEMCTL_SKIP_SYSV));
    Debian's SysV scripts for them, which their native units shadow, keep their links.
    systemd is then told to read fstab and the units again, once (after the stack stopped, or after
    the unmount on a node that is no member), in a transient unit (C(systemd-run --no-block)) that
    the run does not wait for - it costs seconds of an emulated guest's CPU, and nothing after the
    leave uses the node's units.
  - Reads the node itself (its mounts of the disk, the processes that hold them, its stack), so no
    read task is needed before it, and it refuses in check mode as it would for real.
  - Refuses, before any step, while processes hold the filesystem, naming them. A mount that stays
    after C(umount) fails the run naming it, with nothing after it done (fstab, stack and the
    volume as they were). Only after this module succeeded may the volume be detached.
  - Refuses, before any step and in check mode too, a node that is not the server meant - with
    O(server_id), the Nova server the node reads as its own (its SMBIOS system UUID) must be that
    server, and a node that cannot tell must be vouched for (O(server_id_confirmed)).
  - A disk not found is never read as "nothing mounted" - the run refuses when O(attached) says
    the cloud has the volume on this server, and whenever a cluster filesystem mount, a DLM
    lockspace or an o2cb heartbeat region is in use here (the volume named may be another
    cluster's). RV(server_id) is the server the detach that follows may act on.
  - One module run for the whole leave.
author:
  - multiattach.cloud developers (@multiattach)
seealso:
  - {module: "multiattach.cloud.clustered_fs_info", description: "the node's whole state, as the role's converge reads it"}
  - {name: "umount(8)", link: "https://man7.org/linux/man-pages/man8/umount.8.html", description: "what unmounting needs"}
extends_documentation_fragment:
  - multiattach.cloud.cluster_node
options:
  mount_point:
    description: Where the role mounts the filesystem; its fstab line goes, whatever device it names.
    type: path
    required: true
  member:
    description:
      - Whether the inventory counts this node in the cluster's group. A node whose host name the
        stack's configuration records (C(corosync.conf), C(cluster.conf) of O(cluster_name)) is a
        member whatever this says. A node that is no member only has its mounts and fstab lines of
        the disk taken away; its cluster stack, if any, serves something else.
    type: bool
    default: true
  fencing_cloud:
    description:
      - The name of the GFS2 fencing identity's entry in the role's
        C(/etc/multiattach/fencing/.config/openstack/clouds.yaml) (or in
        C(/etc/openstack/clouds.yaml), where the role wrote it before). With O(member), such a file
        is removed when this entry is all it holds, as the
        R(multiattach.cloud.clustered_fs,role) role writes it - its password can power off the
        cluster's servers, so a node that leaves keeps no copy, not even set aside. A file that
        also holds other clouds is kept and the run warns, naming the entry to remove by hand.
    type: str
  server_id:
    description:
      - The ID of the Nova server the cloud names for this host. The node's own SMBIOS system UUID
        (which Nova's libvirt driver sets to the server's ID) must be the same, or nothing is done.
    type: str
  server_id_confirmed:
    description:
      - The operator vouches that this host is server O(server_id), for a host that cannot tell
        which server it is (no C(OpenStack Nova) SMBIOS product). Never overrides a UUID that the
        node does read.
    type: bool
    default: false
  attached:
    description:
      - Whether the cloud says the volume is attached to this server. When true, a disk not found
        by O(volume_id) refuses the run.
    type: bool
attributes:
  check_mode:
    support: full
    details: Reads the node and reports what would be unmounted, dropped, stopped and set aside; refuses as it would; changes nothing.
  diff_mode:
    support: full
    details: Shows C(/etc/fstab) before and after.
"""

EXAMPLES = r"""
- name: Leave the cluster filesystem
  multiattach.cloud.clustered_fs_leave:
    volume_id: 5bd8c3a0-8e4b-4c2b-9a53-2d7d0e1f6a11
    filesystem: ocfs2
    mount_point: /srv/shared
"""

RETURN = r"""
unmounted:
  description: The mount points unmounted (or that would be), in that order.
  returned: always
  type: list
  elements: str
  sample: [/mnt/elsewhere, /srv/shared]
fstab_dropped:
  description: The fstab lines dropped.
  returned: always
  type: list
  elements: str
  sample: ["/dev/disk/by-id/virtio-5bd8c3a0-8e4b-4c2b-9 /srv/shared ocfs2 _netdev,noatime 0 0"]
stopped:
  description: The stack's units stopped, in that order.
  returned: always
  type: list
  elements: str
  sample: [ocfs2, o2cb]
disabled:
  description: The stack's units disabled (GFS2's C(dlm) and C(corosync)).
  returned: always
  type: list
  elements: str
  sample: [dlm, corosync]
set_aside:
  description: Where the stack's configuration files now are; empty when none was set aside.
  returned: always
  type: list
  elements: str
  sample: [/etc/ocfs2/cluster.conf.left, /etc/default/o2cb.left]
removed:
  description: The fencing credentials' file, removed (or that would be); empty when none was.
  returned: always
  type: list
  elements: str
  sample: [/etc/multiattach/fencing/.config/openstack/clouds.yaml]
member:
  description: Whether this node was taken as a member (O(member), or named by its stack's configuration).
  returned: always
  type: bool
  sample: true
held_fencing_credentials:
  description:
    - Whether one of this member's fencing credentials' files held the O(fencing_cloud) entry when read (the
      C(remove_node) playbook then gives the others a new fencing password); also in check mode.
  returned: always
  type: bool
  sample: true
server_id:
  description:
    - The Nova server this node is, as confirmed - read on the node, or O(server_id) when the
      operator vouched for it; null when neither. The volume is detached from this server only.
  returned: always
  type: str
  sample: 7b2f0f53-3a4e-4c8e-9d0b-6a61f3c1a2de
seconds:
  description:
    - How long each step took (C(unmount), C(fstab), C(stack), C(set_aside), C(credentials); C(reload)
      is the time to start systemd's reload, not the reload); empty in check mode.
  returned: always
  type: dict
  sample: {"unmount": 4.1, "fstab": 0.1, "stack": 6.2, "set_aside": 0.0, "reload": 2.5}
"""

from ansible_collections.multiattach.cloud.plugins.module_utils.host.cluster_leave import (
    ClusterLeaveChange,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.host.cluster_node import (
    DISK_ARGUMENT_SPEC,
    DISK_MODULE_KWARGS,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.module import CollectionModule


class ClusteredFsLeaveModule(CollectionModule):
    argument_spec = dict(
        DISK_ARGUMENT_SPEC,
        mount_point=dict(type="path", required=True),
        member=dict(type="bool", default=True),
        fencing_cloud=dict(type="str"),
        server_id=dict(type="str"),
        server_id_confirmed=dict(type="bool", default=False),
        attached=dict(type="bool"),
    )
    module_kwargs = DISK_MODULE_KWARGS
    job = ClusterLeaveChange

    def describe(self, error):
        if isinstance(error, OSError):
            return "cannot change %s: %s" % (error.filename or "a file", error.strerror or error)
        return None


def main():
    ClusteredFsLeaveModule()()


if __name__ == "__main__":
    main()
