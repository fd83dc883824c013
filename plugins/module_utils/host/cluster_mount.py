# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node mounts the cluster filesystem in one module run (module clustered_fs_mount): the
fstab entry that mounts it at boot, the mount point, the mount now, then systemd told.

One run where a line edit and a shell mount were two: on an emulated guest each module run
costs seconds, and this one keeps check mode and a diff of the entry.
"""

from __future__ import annotations

import os

from ansible_collections.multiattach.cloud.plugins.module_utils.change import Change, Plan, Step
from ansible_collections.multiattach.cloud.plugins.module_utils.host.cluster_leave import (
    RELOAD_UNWAITED,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.host.cluster_node import (
    attached_disk,
    find_disk,
    mounts_on,
    run_checked,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.host.config_files import write_file
from ansible_collections.multiattach.cloud.plugins.module_utils.host.device_mounts import (
    MOUNTINFO,
    device_number,
    mount_at,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.host.mount_options import (
    refuse_cluster_options,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure

FSTAB = "/etc/fstab"
# At boot OCFS2 is mounted by the ocfs2 service, after o2cb. A GFS2 mount needs dlm_controld
# ready (dlm.service notifies it), which _netdev alone does not wait for.
BOOT_ORDER = {"ocfs2": "", "gfs2": ",x-systemd.requires=dlm.service"}
SYSTEMD_BOOTED = "/run/systemd/system"
DLM_NOT_STARTED = (
    "dlm.service did not start on this node, so GFS2 is not mounted: dlm_controld must run in a "
    "quorate corosync ring it has caught up with first (dlm.service waits for one as long as the "
    "clustered_fs role's clustered_fs_gfs2_ring_wait_seconds says). Check that this node's corosync "
    "reaches the other members (corosync-cfgtool -s; journalctl -u corosync -u dlm), then run the "
    "role again"
)


def cluster_fstab_entry(disk, mount_point, filesystem, options):
    """The fstab line that mounts the cluster filesystem at boot, fields joined by one space (as
    clustered_fs_info reads an entry)."""
    return "%s %s %s %s%s 0 0" % (disk, mount_point, filesystem, options, BOOT_ORDER[filesystem])


def with_entry(text, entry, mount_point):
    """fstab TEXT with ENTRY where the first line that mounts on MOUNT_POINT was (at the end
    when there was none), and no other line mounting there."""
    lines, placed = [], False
    for line in text.splitlines():
        if not mounts_on(line, mount_point):
            lines.append(line)
        elif not placed:
            lines.append(entry)
            placed = True
    if not placed:
        lines.append(entry)
    return "\n".join(lines) + "\n"


class ClusterMountChange(Change):
    """clustered_fs_mount: the filesystem mounted here now and at boot."""

    def __init__(
        self,
        run_command,
        *,
        volume_id,
        device,
        filesystem,
        mount_point,
        options,
        fstab=FSTAB,
        systemd_booted=SYSTEMD_BOOTED,
        mountinfo=MOUNTINFO,
    ):
        if not options or any(char.isspace() for char in options):
            raise ModuleFailure(
                "options %r is no fstab options field: give them comma-separated, without spaces "
                "(such as _netdev,noatime)" % options
            )
        refuse_cluster_options(filesystem, options)
        self.run_command = run_command
        self.volume_id = volume_id
        self.device = device
        self.filesystem = filesystem
        self.mount_point = mount_point
        self.options = options
        self.fstab = fstab
        self.systemd_booted = systemd_booted
        self.mountinfo = mountinfo

    def read(self):
        # Read at this run's start, after the stack's start: starting the ocfs2 service mounts
        # the OCFS2 entries of fstab, and a second mount would fail with EBUSY.
        try:
            with open(self.fstab) as handle:
                fstab = handle.read()
        except FileNotFoundError:
            fstab = ""
        entries = [
            " ".join(line.split())
            for line in fstab.splitlines()
            if mounts_on(line, self.mount_point)
        ]
        return dict(
            disk=find_disk(self.volume_id, self.device),
            fstab=fstab,
            entries=entries,
            mounted=mount_at(self.mount_point, self.mountinfo),
            mount_point_exists=os.path.lexists(self.mount_point),
            mount_point_is_dir=os.path.isdir(self.mount_point),
        )

    def plan(self, current):
        disk = current["disk"]
        path, mounted = attached_disk(disk, self.volume_id), current["mounted"]
        if mounted and (
            mounted["fstype"] != self.filesystem or mounted["number"] != device_number(path)
        ):
            raise ModuleFailure(
                "%s is already mounted on %s, not the shared disk %s: unmount it, or choose another "
                "mount point (clustered_fs_mount_point)"
                % (mounted["fstype"], self.mount_point, path),
                disk=disk,
            )
        if current["mount_point_exists"] and not current["mount_point_is_dir"]:
            raise ModuleFailure(
                "%s exists and is no directory: move it away, or choose another mount point "
                "(clustered_fs_mount_point)" % self.mount_point,
                disk=disk,
            )
        entry = cluster_fstab_entry(path, self.mount_point, self.filesystem, self.options)
        entry_differs = current["entries"] != [entry]
        steps = []
        if entry_differs:
            text = with_entry(current["fstab"], entry, self.mount_point)
            steps.append(
                Step(
                    "write the fstab entry of %s" % self.mount_point, lambda: self.write_fstab(text)
                )
            )
        if not current["mount_point_exists"]:
            steps.append(Step("make the mount point %s" % self.mount_point, self.make_mount_point))
        if mounted is None:
            if self.filesystem == "gfs2":
                steps.append(Step("start dlm.service", self.start_dlm))
            steps.append(
                Step("mount %s on %s" % (path, self.mount_point), lambda: self.mount(path))
            )
        # systemd makes the mount's unit, with its order at shutdown (after the network, before
        # dlm stops), only when it reads fstab again; a mount made before that read is given
        # the unit by it. Without it the first shutdown stops dlm_controld under the mounted
        # GFS2 ("shutdown ignored, active lockspaces", then a 90 s hang). Read after every mount made here too: the entry may have been written
        # by a run whose mount then failed. Unwaited: while systemd reloads it answers nothing,
        # and nothing here needs it.
        if (entry_differs or mounted is None) and os.path.isdir(self.systemd_booted):
            steps.append(Step("start systemd's reading of fstab", self.reload_systemd))
        return Plan(
            dict(fstab=current["entries"], mounted=mounted["fstype"] if mounted else None),
            dict(fstab=[entry], mounted=self.filesystem),
            steps,
            result=dict(disk=disk, mount_point=self.mount_point, fstab_entry=entry),
        )

    def write_fstab(self, text):
        write_file(self.fstab, text, "0644", directory_mode=None)

    def make_mount_point(self):
        os.makedirs(self.mount_point, 0o755, exist_ok=True)

    def start_dlm(self):
        rc, out, err = self.run_command(["systemctl", "start", "dlm"])
        if rc != 0:
            raise ModuleFailure("%s: %s" % (DLM_NOT_STARTED, (err or out).strip()[-600:]))

    def mount(self, path):
        # Drop cached blocks first: the first node may just have made the filesystem.
        run_checked(
            self.run_command,
            ["blockdev", "--flushbufs", path],
            "dropping the cached blocks of %s" % path,
        )
        run_checked(self.run_command, ["mount", self.mount_point], "mount %s" % self.mount_point)

    def reload_systemd(self):
        run_checked(self.run_command, RELOAD_UNWAITED, "starting systemctl daemon-reload")
