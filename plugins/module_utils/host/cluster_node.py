# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a node of a cluster filesystem holds, read in one pass (module clustered_fs_info).

Each read is its own function of the module's run_command, so that a node is read with one
module run: on emulated guests every separate task costs seconds.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import stat

from ansible_collections.multiattach.cloud.plugins.module_utils.change import Reading
from ansible_collections.multiattach.cloud.plugins.module_utils.host import cluster_records
from ansible_collections.multiattach.cloud.plugins.module_utils.host.config_files import file_state
from ansible_collections.multiattach.cloud.plugins.module_utils.host.device_mounts import (
    MOUNTINFO,
    device_mounts,
    mount_at,
    mounts_of_type,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.host.mount_options import (
    refuse_cluster_options,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure

BY_ID = "/dev/disk/by-id"
# Nova gives a virtio-blk disk the volume ID as serial, which the guest cuts to 20
# characters; a virtio-scsi disk keeps all of it.
VOLUME_LINKS = ("virtio-{id20}", "scsi-0QEMU_QEMU_HARDDISK_{id}")
STACK_SERVICES = {"ocfs2": ["o2cb", "ocfs2"], "gfs2": ["corosync", "dlm"]}
# The options naming the shared disk and its filesystem, the same in every module that runs on
# a node of the cluster; all but clustered_fs_mount name the cluster too.
DISK_ONLY_ARGUMENT_SPEC = dict(
    volume_id=dict(type="str"),
    device=dict(type="path"),
    filesystem=dict(type="str", default="ocfs2", choices=["ocfs2", "gfs2"]),
)
DISK_ARGUMENT_SPEC = dict(
    DISK_ONLY_ARGUMENT_SPEC, cluster_name=dict(type="str", default="multiattach")
)
DISK_MODULE_KWARGS = dict(
    required_one_of=[("volume_id", "device")], mutually_exclusive=[("volume_id", "device")]
)
O2CB_ROOT = "/sys/kernel/config/cluster"
O2CB_CONFIGFS = O2CB_ROOT + "/{cluster}/node"
DLM_LOCKSPACES = "/sys/kernel/dlm"
DPKG_STATUS = "/var/lib/dpkg/status"
RC_ROOT = "/etc"
GFS2_JOURNAL = re.compile(r"\bFile +journal[0-9]+$", re.MULTILINE)
SLOT_TOOLS = {"ocfs2": ["tunefs.ocfs2", "-Q", "%N\\n"], "gfs2": ["gfs2_edit", "-p", "jindex"]}


def volume_links(volume_id):
    return [
        os.path.join(BY_ID, pattern.format(id20=volume_id[:20], id=volume_id))
        for pattern in VOLUME_LINKS
    ]


def find_disk(volume_id, device):
    """The disk's path (the by-id link for a volume, else the device) and what is there."""
    candidates = volume_links(volume_id) if volume_id else [device]
    for path in candidates:
        try:
            mode = os.stat(path).st_mode
        except OSError:
            continue
        return dict(path=path, exists=True, is_block_device=stat.S_ISBLK(mode))
    return dict(path=None if volume_id else device, exists=False, is_block_device=False)


def attached_disk(disk, volume_id):
    """The path of DISK (find_disk's), refused unless it is a block device on this server."""
    if not disk["is_block_device"]:
        raise ModuleFailure(
            "%s is no block device on this server: attach the volume to it first "
            "(multiattach.cloud.volume_attachments)" % (disk["path"] or "volume %s" % volume_id),
            disk=disk,
        )
    return disk["path"]


def run_checked(run, argv, what):
    """ARGV's output; a failure names WHAT and ends with what the command said."""
    rc, out, err = run(argv)
    if rc != 0:
        raise ModuleFailure("%s failed (rc %d): %s" % (what, rc, (err or out).strip()[-600:]))
    return out


def probe_signatures(run, disk):
    """blkid's view of the disk now: the node's cached blocks are dropped first, since
    another node may have written the disk since this one last read it."""
    rc, unused, err = run(["blockdev", "--flushbufs", disk])
    if rc != 0:
        raise ModuleFailure("cannot drop the cached blocks of %s: %s" % (disk, err.strip()))
    rc, out, err = run(["blkid", "-p", "-o", "export", disk])
    if rc not in (0, 2):
        raise ModuleFailure("blkid cannot probe %s (rc %d): %s" % (disk, rc, err.strip()))
    return out.splitlines() if rc == 0 else []


def signature_type(signatures):
    for line in signatures:
        if line.startswith("TYPE="):
            return line[len("TYPE=") :]
    return None


def filesystem_slots(run, disk, filesystem):
    """How many nodes can mount the filesystem at once: OCFS2's node slots, GFS2's journals
    (its journal index lists journal0, journal1, ...). None when the tool cannot tell, or is
    not installed yet (a new node: the role installs it, then reads again)."""
    tool = SLOT_TOOLS[filesystem]
    if not shutil.which(tool[0]):
        return None
    rc, out = run(tool + [disk])[:2]
    if rc != 0:
        return None
    if filesystem == "ocfs2":
        return int(out.strip()) if out.strip().isdigit() else None
    return len(GFS2_JOURNAL.findall(out))


def o2cb_nodes(cluster_name):
    """The running o2cb cluster's nodes and numbers (empty when it is offline)."""
    directory = O2CB_CONFIGFS.format(cluster=cluster_name)
    nodes = {}
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return nodes
    for name in names:
        try:
            with open(os.path.join(directory, name, "num")) as number:
                nodes[name] = int(number.read().strip())
        except (OSError, ValueError):
            continue
    return nodes


def dlm_lockspaces(directory=None):
    try:
        return sorted(os.listdir(directory or DLM_LOCKSPACES))
    except OSError:
        return []


def o2cb_heartbeats(root=None):
    """The o2cb heartbeat regions running here, as cluster/region (one per mounted OCFS2 with
    local heartbeat, or a global one): a directory each under the cluster's heartbeat/."""
    regions = []
    for path in sorted(glob.glob(os.path.join(root or O2CB_ROOT, "*", "heartbeat", "*"))):
        if os.path.isdir(path):
            parts = path.split(os.sep)
            regions.append("%s/%s" % (parts[-3], parts[-1]))
    return regions


def cluster_traces(mountinfo=MOUNTINFO, lockspaces=None, o2cb_root=None):
    """What shows that a cluster filesystem is in use here, whatever disk it is on: its mounts,
    DLM lockspaces, o2cb heartbeat regions. A node whose shared disk is not found must show none
    of them before anything of its cluster is touched."""
    return dict(
        mounts=[
            "%s (%s on %s)" % (mount["target"], mount["fstype"], mount["source"])
            for mount in mounts_of_type(("ocfs2", "gfs2"), mountinfo)
        ],
        lockspaces=dlm_lockspaces(lockspaces),
        heartbeats=o2cb_heartbeats(o2cb_root),
    )


def missing_packages(run, packages, status=DPKG_STATUS):
    """PACKAGES that dpkg does not record as installed. Its status file is read here
    (deb-status(5)): dpkg-query reads the same, in a process of a third of a second on an
    emulated guest. Without that file, dpkg-query answers."""
    if not packages:
        return []
    try:
        with open(status) as records:
            text = records.read()
    except OSError:
        # Unknown packages make dpkg-query fail but it still lists the known ones.
        text = run(
            ["dpkg-query", "-W", "-f=Package: ${Package}\\nStatus: ${Status}\\n\\n"]
            + list(packages)
        )[1]
    # dpkg writes each record's Package field first, then its Status.
    installed, package = set(), None
    for line in text.splitlines():
        if line.startswith("Package: "):
            package = line[len("Package: ") :].strip()
        elif line.startswith("Status: ") and line.rstrip().endswith(" install ok installed"):
            installed.add(package)
    return [package for package in packages if package not in installed]


def sysv_enabled(service, rc_root=RC_ROOT):
    """Whether the SysV script SERVICE starts at boot: a start link in rcS.d or rc5.d, as
    systemd-sysv-install's is-enabled asks."""
    return bool(
        glob.glob(os.path.join(rc_root, "rcS.d", "S??" + service))
        or glob.glob(os.path.join(rc_root, "rc5.d", "S??" + service))
    )


def service_states(run, services, rc_root=RC_ROOT):
    """Whether each service runs and starts at boot, from one systemctl show. A native unit's
    UnitFileState is what is-enabled says; for a SysV script (o2cb, ocfs2) show says only
    "generated", and its rc links tell, as systemctl is-enabled would read them (each
    is-enabled a process of a quarter of a second on an emulated guest)."""
    out = run(["systemctl", "show", "--property=Id,ActiveState,UnitFileState"] + list(services))[1]
    shown = {}
    for block in out.strip().split("\n\n"):
        properties = dict(line.split("=", 1) for line in block.splitlines() if "=" in line)
        shown[properties.get("Id", "").rsplit(".service", 1)[0]] = properties
    states = {}
    for service in services:
        properties = shown.get(service, {})
        unit_file = properties.get("UnitFileState", "")
        states[service] = dict(
            active=properties.get("ActiveState") == "active",
            enabled=sysv_enabled(service, rc_root)
            if unit_file == "generated"
            else unit_file == "enabled",
        )
    return states


def mounted_type(mount_point, mountinfo=MOUNTINFO):
    """The type of what is mounted on MOUNT_POINT; "" for nothing."""
    return (mount_at(mount_point, mountinfo) or {}).get("fstype", "")


def mounts_on(line, mount_point):
    """Whether the fstab LINE mounts on MOUNT_POINT (a comment does not)."""
    fields = line.split()
    return len(fields) >= 2 and not fields[0].startswith("#") and fields[1] == mount_point


def fstab_entry(mount_point, fstab="/etc/fstab"):
    """The fstab line that mounts on MOUNT_POINT, its fields joined by one space."""
    try:
        with open(fstab) as lines:
            for line in lines:
                if mounts_on(line, mount_point):
                    return " ".join(line.split())
    except OSError:
        pass
    return None


class ClusterNodeReading(Reading):
    """The clustered_fs_info module: everything the clustered_fs role decides on, read at once."""

    def __init__(
        self,
        run_command,
        *,
        volume_id,
        device,
        filesystem,
        cluster_name,
        mount_point,
        packages,
        gfs2_fencing,
        fencing_cloud,
        read_users,
        files,
        mount_options=None,
    ):
        if mount_options is not None:
            refuse_cluster_options(filesystem, mount_options)
        self.run_command = run_command
        self.volume_id = volume_id
        self.device = device
        self.filesystem = filesystem
        self.cluster_name = cluster_name
        self.mount_point = mount_point
        self.packages = packages
        self.gfs2_fencing = gfs2_fencing
        self.fencing_cloud = fencing_cloud
        self.read_users = read_users
        self.files = files

    def read(self, check_mode):
        disk = find_disk(self.volume_id, self.device)
        signatures = (
            probe_signatures(self.run_command, disk["path"]) if disk["is_block_device"] else []
        )
        found_type = signature_type(signatures)
        recorded, highest_id = cluster_records.recorded_nodes(self.filesystem, self.cluster_name)
        mounts, users = (
            device_mounts(disk["path"], self.read_users) if disk["is_block_device"] else ([], [])
        )
        stack = self.read_stack()
        unread = []
        return dict(
            stack,
            ring_members=cluster_records.ring_members(self.run_command, recorded, unread)
            if self.filesystem == "gfs2" and stack["services"]["corosync"]["active"]
            else [],
            cluster_view_unread=unread,
            node_name=os.uname()[1],
            disk=disk,
            signatures=signatures,
            signature_type=found_type,
            slots=filesystem_slots(self.run_command, disk["path"], found_type)
            if found_type in ("ocfs2", "gfs2")
            else None,
            missing_packages=missing_packages(self.run_command, self.packages),
            recorded_nodes=recorded,
            fenced_as=cluster_records.fenced_as(recorded) if self.filesystem == "gfs2" else {},
            highest_node_id=highest_id,
            mounted_by=cluster_records.mounted_by(
                self.run_command, found_type, disk["path"], signatures, recorded, unread
            )
            if found_type == self.filesystem
            else [],
            device_mounts=mounts,
            device_users=users,
            mount_point_is_dir=os.path.isdir(self.mount_point),
            mounted_type=mounted_type(self.mount_point),
            fstab_entry=fstab_entry(self.mount_point),
            files={path: file_state(path) for path in self.files},
        )

    def read_stack(self):
        """The cluster stack: its services, its members as it runs, fencing and authentication."""
        ocfs2 = self.filesystem == "ocfs2"
        o2cb = o2cb_nodes(self.cluster_name) if ocfs2 else {}
        services = service_states(self.run_command, STACK_SERVICES[self.filesystem])
        lockspaces = [] if ocfs2 else dlm_lockspaces()
        server_uuid, product = cluster_records.server_identity()
        warnings = []
        if not ocfs2 and not self.gfs2_fencing and product == "OpenStack Nova":
            warnings.append(
                "GFS2 runs WITHOUT FENCING on this Nova server: after a network partition both sides may "
                "recover each other's journals and corrupt the shared disk. clustered_fs_gfs2_fencing false "
                "is for labs only; the cloud's compute API is the fence device (roles/clustered_fs/README.md)"
            )
        return dict(
            warnings=warnings,
            services=services,
            o2cb_nodes=o2cb,
            dlm_lockspaces=lockspaces,
            stack_in_use=bool(o2cb)
            if ocfs2
            else bool(lockspaces) and services["corosync"]["active"],
            server_uuid=server_uuid,
            fencing_cloud_present=cluster_records.has_cloud(self.fencing_cloud),
            fencing_cloud_user=cluster_records.cloud_user(self.fencing_cloud),
            former_fencing_clouds=cluster_records.cloud_names(cluster_records.FORMER_FENCING_CLOUDS)
            if self.fencing_cloud
            else None,
            corosync_authkey_sha256=None if ocfs2 else cluster_records.authkey_digest(),
            self_fencing=cluster_records.self_fencing(self.cluster_name) if ocfs2 else {},
        )
