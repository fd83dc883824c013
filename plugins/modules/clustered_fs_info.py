#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: clustered_fs_info
short_description: Read a cluster filesystem node's shared disk, cluster stack and mount in one pass
version_added: 0.1.0
description:
  - Runs on a server that holds the shared volume and reads, in one module run, all that the
    R(multiattach.cloud.clustered_fs,role) role decides on. Where the shared disk is (by the
    Cinder volume's ID under C(/dev/disk/by-id), or a device path), which filesystem or other
    signature it carries (C(blkid -p) after dropping this node's cached blocks, since other
    nodes write the disk), the OCFS2 node slots or GFS2 journals, the running cluster stack (o2cb nodes in
    configfs, or corosync and the DLM lockspaces), the stack's services, the packages missing,
    and what is mounted on the mount point and written for it in C(/etc/fstab).
  - One run instead of one task per probe, since on emulated guests each task costs seconds.
  - Reads only; it never formats, mounts or starts anything.
author:
  - multiattach.cloud developers (@multiattach)
seealso:
  - {module: "multiattach.cloud.clustered_fs_mkfs", description: "make the filesystem the node reads"}
  - {name: "The kernel's OCFS2 documentation", link: "https://docs.kernel.org/filesystems/ocfs2.html", description: "its reference"}
  - {name: "The kernel's GFS2 documentation", link: "https://docs.kernel.org/filesystems/gfs2.html", description: "its reference"}
extends_documentation_fragment:
  - multiattach.cloud.cluster_node
options:
  mount_point:
    description: Where the filesystem is (to be) mounted.
    type: path
    required: true
  packages:
    description: Packages whose absence to report (dpkg).
    type: list
    elements: str
    default: []
  gfs2_fencing:
    description:
      - Whether the GFS2 cluster fences its nodes. False on a Nova server returns a warning (without
        fencing, both sides of a network partition may recover each other's journals).
    type: bool
    default: true
  fencing_cloud:
    description:
      - The name of the fencing identity's entry in the role's own
        C(/etc/multiattach/fencing/.config/openstack/clouds.yaml), for RV(fencing_cloud_present)
        and RV(former_fencing_clouds).
    type: str
  read_users:
    description:
      - Whether to find the processes that hold the shared disk's filesystem (RV(device_users)), a
        scan of C(/proc) that the leave steps need and a converge does not.
    type: bool
    default: false
  files:
    description:
      - Files whose sha256 and mode to return in RV(files) (the stack's configuration files), so
        that the role writes only those that differ, with M(multiattach.cloud.config_files).
    type: list
    elements: path
    default: []
  mount_options:
    description:
      - The mount options the node will be given, checked here so that a converge refuses them
        before anything is written - C(lockproto), C(locktable), C(hostdata), C(localflocks),
        C(spectator) and C(norecovery) for GFS2, C(localflocks), C(coherency=buffered) and C(nocluster) for OCFS2,
        C(remount), C(bind) and C(rbind) for both, each undoes what keeps the shared disk safe. The
        same check runs in M(multiattach.cloud.clustered_fs_mount).
    type: str
attributes:
  check_mode:
    support: full
    details: Reads only; runs the same in check mode.
  diff_mode:
    support: none
    details: Nothing is changed.
"""

EXAMPLES = r"""
- name: Read this node's view of the shared volume
  multiattach.cloud.clustered_fs_info:
    volume_id: 5bd8c3a0-8e4b-4c2b-9a53-2d7d0e1f6a11
    filesystem: ocfs2
    mount_point: /srv/shared
    packages: [ocfs2-tools]
  register: node

- name: Say where the volume is
  ansible.builtin.debug:
    msg: "{{ node.disk.path }} holds {{ node.signature_type or 'nothing' }}"
"""

RETURN = r"""
node_name:
  description: The node's name as the cluster stack knows it (C(uname -n)).
  returned: always
  type: str
disk:
  description: Where the shared disk is.
  returned: always
  type: dict
  sample: {"path": "/dev/disk/by-id/virtio-5bd8c3a0-8e4b-4c2b-9", "exists": true, "is_block_device": true}
  contains:
    path:
      description: The by-id link found for O(volume_id), or O(device); null when the volume is not here.
      type: str
      returned: always
    exists:
      description: Whether the path exists.
      type: bool
      returned: always
    is_block_device:
      description: Whether it is a block device.
      type: bool
      returned: always
signatures:
  description: C(blkid -p -o export) lines of the disk; empty when it carries none.
  returned: always
  type: list
  elements: str
signature_type:
  description: The C(TYPE) among RV(signatures) (V(ocfs2), V(gfs2), C(ext4), ...); null when none.
  returned: always
  type: str
slots:
  description:
    - How many nodes can mount the filesystem at once, made at mkfs time - OCFS2's node slots
      (C(tunefs.ocfs2 -Q)), GFS2's journals (C(gfs2_edit -p jindex)); null unless the disk
      holds OCFS2 or GFS2 and the tool answers.
  returned: always
  type: int
missing_packages:
  description: Those of O(packages) that are not installed.
  returned: always
  type: list
  elements: str
services:
  description: The cluster stack's services (o2cb, ocfs2 or corosync, dlm), each with C(active) and C(enabled).
  returned: always
  type: dict
  sample: {"o2cb": {"active": true, "enabled": true}, "ocfs2": {"active": true, "enabled": true}}
o2cb_nodes:
  description: The running o2cb cluster's node names and numbers (configfs); empty when offline or GFS2.
  returned: always
  type: dict
  sample: {"db-1": 1, "db-2": 2}
dlm_lockspaces:
  description: The DLM lockspaces this node has joined (one per mounted GFS2); empty for OCFS2.
  returned: always
  type: list
  elements: str
stack_in_use:
  description:
    - True when the cluster stack is live on this node (o2cb cluster online; or corosync running
      with a lockspace joined). Its configuration is then changed in place, never by a restart.
  returned: always
  type: bool
recorded_nodes:
  description:
    - The cluster's nodes as this node's stack configuration records them (C(/etc/corosync/corosync.conf)
      for GFS2, C(/etc/ocfs2/cluster.conf) for OCFS2), each with its C(id) (corosync C(nodeid), o2cb
      C(number)) and C(address). The role keeps these IDs for the life of the cluster; empty on a new node.
  returned: always
  type: dict
  sample: {"node-1": {"id": 1, "address": "192.168.124.11"}, "node-2": {"id": 2, "address": "192.168.124.12"}}
cluster_view_unread:
  description:
    - What kept this node from reading for sure who the cluster counts - a tool that failed
      (C(dlm_tool ls), C(mounted.ocfs2 -f), C(corosync-cmapctl)), GFS2's lockspace members read as
      an error, or a lockspace change for a failed node still waiting on its fence or recovery.
      A plan that would drop a node refuses while any member says something here.
  returned: always
  type: list
  elements: str
fenced_as:
  description:
    - GFS2 - the Nova server each node's fence device acts on, from C(/etc/dlm/dlm.conf)'s
      C(connect) lines (C(plug=)), named by RV(recorded_nodes) where it records their ID, else
      C(nodeid N). remove_node checks that a lost member is the server it detaches. Empty for OCFS2.
  returned: always
  type: dict
  sample: {"node-1": "5e0c5a52-3b8e-4a43-9d0c-0b1f0c6f9e11"}
mounted_by:
  description:
    - The nodes that hold the shared filesystem mounted, as the cluster knows it - OCFS2's slot map
      (C(mounted.ocfs2 -f)), or the members of the GFS2 filesystem's DLM lockspace (C(dlm_tool ls),
      seen only from a node that has it mounted). A node that crashed stays listed until its
      journal is recovered. Named by RV(recorded_nodes) where the tool gives a number.
  returned: always
  type: list
  elements: str
highest_node_id:
  description:
    - The highest node ID ever given in this cluster, as the role records it in the stack's
      configuration file (a new node gets a higher one); null when not recorded.
  returned: always
  type: int
ring_members:
  description:
    - GFS2 - the nodes the running corosync ring has joined (C(corosync-cmapctl -b runtime.members)),
      named by RV(recorded_nodes) where it records their ID, else C(nodeid N). A node dropped from the
      configuration must not be among them. Empty for OCFS2 and while corosync is stopped.
  returned: always
  type: list
  elements: str
  sample: [node-1, node-2]
server_uuid:
  description:
    - The Nova server this node is (the SMBIOS system UUID, which Nova's libvirt driver sets to the
      server's ID when the product is C(OpenStack Nova)); null on anything else. GFS2's fence device
      names the server by it.
  returned: always
  type: str
fencing_cloud_present:
  description: Whether C(/etc/multiattach/fencing/.config/openstack/clouds.yaml) has the entry O(fencing_cloud).
  returned: always
  type: bool
fencing_cloud_user:
  description:
    - The Keystone user the entry O(fencing_cloud) of
      C(/etc/multiattach/fencing/.config/openstack/clouds.yaml) names (the role's two fencing users
      take turns); null when there is no such entry. Never its password.
  returned: always
  type: str
former_fencing_clouds:
  description:
    - The names of the clouds in C(/etc/openstack/clouds.yaml), where the role wrote the fencing
      entry before it had a file of its own; null when there is no such file or no O(fencing_cloud)
      is named. The role removes that file when O(fencing_cloud) is all it holds.
  returned: always
  type: list
  elements: str
device_mounts:
  description:
    - Every mount of the shared disk on this node, wherever it is mounted (found by the device's
      number in C(/proc/self/mountinfo), not by O(mount_point)), each with C(target), C(fstype) and C(source).
  returned: always
  type: list
  elements: dict
  sample: [{"target": "/srv/shared", "fstype": "ocfs2", "source": "/dev/vdb"}]
device_users:
  description:
    - The processes that hold the shared disk's filesystem on this node (working directory, root,
      open file or mapping on it), as C(PID (command)); empty when it is not mounted or
      O(read_users) is false.
  returned: always
  type: list
  elements: str
corosync_authkey_sha256:
  description: The sha256 of C(/etc/corosync/authkey) (never the key); null when absent or for OCFS2.
  returned: always
  type: str
self_fencing:
  description:
    - OCFS2 only - what decides how this node fences itself, as it runs now - C(kernel_panic) and
      C(kernel_panic_on_oops) (C(/proc/sys/kernel)), and the running o2cb cluster's
      C(idle_timeout_ms), C(keepalive_delay_ms), C(reconnect_delay_ms), C(fence_method) and
      heartbeat C(dead_threshold) (null while the cluster is offline).
  returned: always
  type: dict
  sample:
    kernel_panic: 30
    kernel_panic_on_oops: 1
    dead_threshold: 31
    idle_timeout_ms: 30000
    keepalive_delay_ms: 2000
    reconnect_delay_ms: 2000
    fence_method: reset
mount_point_is_dir:
  description: Whether the mount point exists as a directory.
  returned: always
  type: bool
mounted_type:
  description: The filesystem type mounted on the mount point; empty when nothing is.
  returned: always
  type: str
fstab_entry:
  description: The C(/etc/fstab) line for the mount point, fields joined by one space; null when none.
  returned: always
  type: str
files:
  description:
    - For each path of O(files), its C(sha256) and C(mode) (octal, as V('0644')); null for a
      path that is no file.
  returned: always
  type: dict
  sample: {"/etc/default/o2cb": {"sha256": "5f3c...", "mode": "0644"}, "/etc/ocfs2/cluster.conf": null}
"""

from ansible_collections.multiattach.cloud.plugins.module_utils.host.cluster_node import (
    DISK_ARGUMENT_SPEC,
    DISK_MODULE_KWARGS,
    ClusterNodeReading,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.module import CollectionModule


class ClusteredFsInfoModule(CollectionModule):
    argument_spec = dict(
        DISK_ARGUMENT_SPEC,
        mount_point=dict(type="path", required=True),
        packages=dict(type="list", elements="str", default=[]),
        gfs2_fencing=dict(type="bool", default=True),
        fencing_cloud=dict(type="str"),
        read_users=dict(type="bool", default=False),
        files=dict(type="list", elements="path", default=[]),
        mount_options=dict(type="str"),
    )
    module_kwargs = DISK_MODULE_KWARGS
    job = ClusterNodeReading


def main():
    ClusteredFsInfoModule()()


if __name__ == "__main__":
    main()
