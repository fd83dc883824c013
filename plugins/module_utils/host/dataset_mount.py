# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""An ordinary filesystem on a shared volume, mounted as only a dataset may be (module
dataset_mount): read-only by any number of servers, read-write by one server alone.

An ext4 or XFS written by one server while another holds the disk is corrupted or read stale:
neither filesystem knows of another node. So a read-write mount needs the cloud's word that this
server alone holds the volume (the role reads it with volume_info) and a disk this server may
write; a read-only mount never replays a journal (ext4 noload, XFS norecovery), since replaying
writes the disk that other servers read.
"""

from __future__ import annotations

import os

from ansible_collections.multiattach.cloud.plugins.module_utils.change import Change, Plan, Step
from ansible_collections.multiattach.cloud.plugins.module_utils.host.cluster_node import (
    attached_disk,
    find_disk,
    fstab_entry,
    mounts_on,
    probe_signatures,
    run_checked,
    signature_type,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.host.config_files import write_file
from ansible_collections.multiattach.cloud.plugins.module_utils.host.device_mounts import (
    device_mounts,
    device_number,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.host.mkfs import run_on_terminal
from ansible_collections.multiattach.cloud.plugins.module_utils.host.mount_options import (
    refuse_dataset_options,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure

# The options that keep a read-only mount from writing the disk: no journal replay. An XFS
# version copied from another (dataset_source_volume) keeps its UUID, which XFS refuses to
# mount twice: a reader that holds both versions mounts with nouuid.
NO_REPLAY = {"ext4": ["noload"], "xfs": ["norecovery", "nouuid"]}
MKFS = {"ext4": ["mkfs.ext4", "-q", "-L"], "xfs": ["mkfs.xfs", "-q", "-L"]}
FSTAB = "/etc/fstab"


def mount_options(filesystem, mode, extra):
    """The options the mount gets: ro and no journal replay for a reader."""
    base = ["ro"] + NO_REPLAY[filesystem] if mode == "ro" else ["rw"]
    return ",".join(base + [option for option in extra if option not in base])


def disk_is_read_only(path):
    """Whether the kernel holds the disk read-only (/sys/block/DEV/ro): Nova's <readonly/> for a
    volume with Cinder's read-only flag."""
    number = device_number(path)
    if number is None:
        return False
    try:
        with open("/sys/dev/block/%d:%d/ro" % number) as flag:
            return flag.read().strip() == "1"
    except OSError:
        return False


def fstab_lines(fstab=None):
    try:
        with open(fstab or FSTAB) as handle:
            return handle.read().splitlines()
    except OSError:
        return []


def mounted_mode(mounted):
    """ro or rw for a mount as findmnt read it; None for none."""
    return None if not mounted else ("ro" if "ro" in mounted["options"] else "rw")


def write_fstab(entry, mount_point, fstab=None):
    """FSTAB with the line for MOUNT_POINT replaced by ENTRY (removed for None), written whole
    through a rename so that a crash leaves the old or the new file."""
    fstab = fstab or FSTAB
    lines = [line for line in fstab_lines(fstab) if not mounts_on(line, mount_point)]
    if entry is not None:
        lines.append(entry)
    write_file(fstab, "\n".join(lines) + "\n", "0644", directory_mode=None)


class DatasetMountChange(Change):
    """Mount (or unmount) an ext4 or XFS of a shared volume: ro by many, rw by one alone."""

    def __init__(
        self,
        run_command,
        *,
        volume_id,
        device,
        mount_point,
        filesystem,
        mode,
        holders,
        read_only_flag,
        make_filesystem,
        label,
        persistent,
        options,
        state,
    ):
        if state == "present" and mode == "rw" and holders is None:
            raise ModuleFailure(
                "mode rw needs holders: the number of servers that hold the volume, as the cloud says "
                "(multiattach.cloud.volume_info; the shared_dataset role reads it). An ordinary "
                "filesystem is written by one server alone"
            )
        if make_filesystem and mode != "rw":
            raise ModuleFailure("make_filesystem needs mode rw: a reader never writes the disk")
        if state == "present":
            refuse_dataset_options(mode, options)
        self.run_command = run_command
        self.volume_id = volume_id
        self.device = device
        self.mount_point = mount_point
        self.filesystem = filesystem
        self.mode = mode
        self.holders = holders
        self.read_only_flag = read_only_flag
        self.make_filesystem = make_filesystem
        self.label = label
        self.persistent = persistent
        self.options = options
        self.state = state

    def read(self):
        disk = find_disk(self.volume_id, self.device)
        path = disk["path"] if disk["is_block_device"] else None
        mounted = self.mounted_here()
        fstab = fstab_entry(self.mount_point, FSTAB)
        if path is None:
            return dict(
                disk=disk,
                signature=None,
                signatures=[],
                kernel_read_only=None,
                mounted=mounted,
                fstab=fstab,
                device_mounts=[],
                users=[],
            )
        if self.state == "absent":
            # Every mount of the disk, wherever it is (a bind mount of an old version too), and
            # the processes that hold one: the server is detached once this run let go.
            mounts, users = device_mounts(path)
            return dict(
                disk=disk,
                signature=None,
                signatures=[],
                kernel_read_only=disk_is_read_only(path),
                mounted=mounted,
                fstab=fstab,
                device_mounts=mounts,
                users=users,
            )
        # A mounted disk is not probed again: its filesystem is the one mounted.
        signatures = [] if mounted else probe_signatures(self.run_command, path)
        return dict(
            disk=disk,
            signature=mounted["fstype"] if mounted else signature_type(signatures),
            signatures=signatures,
            kernel_read_only=disk_is_read_only(path),
            mounted=mounted,
            fstab=fstab,
        )

    def mounted_here(self):
        """What is mounted on the mount point: its source device number, type and options."""
        rc, out = self.run_command(
            ["findmnt", "-n", "-o", "MAJ:MIN,FSTYPE,OPTIONS", "--mountpoint", self.mount_point]
        )[:2]
        fields = out.split()
        if rc != 0 or len(fields) < 3:
            return None
        major, minor = fields[0].split(":")
        return dict(number=(int(major), int(minor)), fstype=fields[1], options=fields[2].split(","))

    def plan(self, current):
        if self.state == "absent":
            return self.plan_absent(current)
        disk = current["disk"]
        path, mounted = attached_disk(disk, self.volume_id), current["mounted"]
        if mounted and mounted["number"] != device_number(path):
            raise ModuleFailure(
                "another filesystem is mounted on %s: unmount it, or choose another mount point"
                % self.mount_point,
                disk=disk,
            )
        if self.mode == "rw":
            self.refuse_a_shared_writer(current)
        steps = []
        if current["signature"] is None and not current["signatures"]:
            if not self.make_filesystem:
                raise ModuleFailure(
                    "%s holds no filesystem: a reader has nothing to mount. Publish the dataset "
                    "first (playbooks/publish_dataset.yml)" % path,
                    disk=disk,
                )
            steps.append(Step("make %s on %s" % (self.filesystem, path), lambda: self.make(path)))
        elif current["signature"] != self.filesystem:
            raise ModuleFailure(
                "%s carries %s, not %s, and is never formatted: give filesystem %s, or point the volume "
                "ID at the dataset"
                % (
                    path,
                    current["signature"] or ", ".join(current["signatures"]),
                    self.filesystem,
                    current["signature"] or "as found",
                ),
                disk=disk,
            )
        options = mount_options(self.filesystem, self.mode, self.options)
        entry = (
            "%s %s %s %s 0 0" % (path, self.mount_point, self.filesystem, options + ",nofail")
            if self.persistent
            else None
        )
        if entry != current["fstab"] and (self.persistent or current["fstab"] is not None):
            steps.append(
                Step(
                    "write the fstab entry of %s" % self.mount_point,
                    lambda: write_fstab(entry, self.mount_point),
                )
            )
        if mounted is None:
            steps.append(
                Step(
                    "mount %s on %s (%s)" % (path, self.mount_point, options),
                    lambda: self.mount(path, options),
                )
            )
        elif mounted_mode(mounted) != self.mode:
            steps.append(
                Step(
                    "remount %s %s" % (self.mount_point, self.mode), lambda: self.remount(self.mode)
                )
            )
        before = dict(mounted=mounted_mode(mounted), fstab=current["fstab"])
        after = dict(mounted=self.mode, fstab=entry)
        return Plan(
            before,
            after,
            steps,
            warnings=self.reader_warnings(current),
            result=dict(
                disk=disk,
                mount_point=self.mount_point,
                mode=self.mode,
                options=options,
                kernel_read_only=current["kernel_read_only"],
                fstab_entry=entry,
            ),
        )

    def refuse_a_shared_writer(self, current):
        path = current["disk"]["path"]
        if self.read_only_flag or current["kernel_read_only"]:
            raise ModuleFailure(
                "volume %s is read-only (%s): it is never mounted read-write. Write a new version "
                "(playbooks/publish_dataset.yml), or clear the flag with multiattach.cloud.volume "
                "read_only: false once every server has let it go"
                % (
                    self.volume_id or path,
                    "Cinder's read-only flag"
                    if self.read_only_flag
                    else "the kernel holds %s read-only: Nova gave a <readonly/> disk" % path,
                ),
                disk=current["disk"],
            )
        if self.holders != 1:
            raise ModuleFailure(
                "volume %s is held by %d servers, and an ordinary %s written by one of them is read "
                "stale or corrupted by the others: it is mounted read-write only while one server "
                "alone holds it. Detach the readers first, or mount it read-only (mode ro), or use "
                "a cluster filesystem (the clustered_fs role)"
                % (self.volume_id or path, self.holders, self.filesystem),
                disk=current["disk"],
            )

    def reader_warnings(self, current):
        if self.mode != "ro" or current["kernel_read_only"]:
            return []
        return [
            "%s is writable in this server (the volume has no read-only flag): the mount is read-only "
            "and replays no journal, but nothing stops another program writing the disk. Set the "
            "flag before readers attach (multiattach.cloud.volume read_only: true)"
            % current["disk"]["path"]
        ]

    def targets_to_unmount(self, current):
        """Every mount of the disk, the last mounted first; fails when one is held, or when the
        disk is not here while something is mounted on the mount point (not found is never
        nothing to do)."""
        disk, mounted = current["disk"], current["mounted"]
        if not disk["is_block_device"]:
            if mounted:
                raise ModuleFailure(
                    "%s is not on this server, yet %s is mounted on %s: it is not the volume "
                    "named, so it is left alone and nothing was done. Check volume_id (the "
                    "version this server reads), then run again"
                    % (
                        disk["path"] or "volume %s" % self.volume_id,
                        mounted["fstype"],
                        self.mount_point,
                    ),
                    disk=disk,
                )
            return []
        if current["users"]:
            raise ModuleFailure(
                "%s is mounted at %s and in use by %s; nothing was unmounted. Stop what uses it "
                "(fuser -vm %s lists it), then run again"
                % (
                    disk["path"],
                    ", ".join(m["target"] for m in current["device_mounts"]),
                    ", ".join(current["users"]),
                    current["device_mounts"][0]["target"],
                ),
                disk=disk,
            )
        targets = [m["target"] for m in reversed(current["device_mounts"])]
        if (
            mounted
            and mounted["number"] == device_number(disk["path"])
            and self.mount_point not in targets
        ):
            targets.append(self.mount_point)
        return targets

    def plan_absent(self, current):
        targets = self.targets_to_unmount(current)
        steps = []
        if targets:
            steps.append(
                Step("unmount %s" % ", ".join(targets), lambda: self.unmount_all(targets, current))
            )
        if current["fstab"] is not None:
            steps.append(
                Step(
                    "remove the fstab entry of %s" % self.mount_point,
                    lambda: write_fstab(None, self.mount_point),
                )
            )
        return Plan(
            dict(mounted=mounted_mode(current["mounted"]), fstab=current["fstab"]),
            dict(mounted=None, fstab=None),
            steps,
            result=dict(
                disk=current["disk"],
                mount_point=self.mount_point,
                mode=None,
                options=None,
                kernel_read_only=current["kernel_read_only"],
                fstab_entry=None,
            ),
        )

    def make(self, path):
        # Read again right before: another server may have written the disk since.
        signatures = probe_signatures(self.run_command, path)
        if signatures:
            raise ModuleFailure(
                "%s carries %s now and is never formatted" % (path, ", ".join(signatures))
            )
        rc, output, answers = run_on_terminal(MKFS[self.filesystem] + [self.label, path])
        made = signature_type(probe_signatures(self.run_command, path))
        if rc != 0 or made != self.filesystem:
            raise ModuleFailure(
                "mkfs.%s on %s failed (rc %d; answered %s): %s"
                % (
                    self.filesystem,
                    path,
                    rc,
                    ", ".join(answers) or "no question",
                    output.strip()[-600:],
                )
            )

    def mount(self, path, options):
        if not os.path.isdir(self.mount_point):
            os.makedirs(self.mount_point, 0o755)
        run_checked(
            self.run_command,
            ["mount", "-t", self.filesystem, "-o", options, path, self.mount_point],
            "mount %s" % self.mount_point,
        )

    def remount(self, mode):
        run_checked(
            self.run_command,
            ["mount", "-o", "remount,%s" % mode, self.mount_point],
            "remount %s" % self.mount_point,
        )

    def unmount(self, target=None):
        target = target or self.mount_point
        # A writer's data reach the disk before it lets go (umount syncs; this says so first).
        run_checked(self.run_command, ["sync", "-f", target], "sync %s" % target)
        run_checked(
            self.run_command,
            ["umount", target],
            "unmount %s (a process may hold it: fuser -vm %s)" % (target, target),
        )

    def unmount_all(self, targets, current):
        for target in targets:
            self.unmount(target)
        left = device_mounts(current["disk"]["path"], with_users=False)[0]
        if left:
            raise ModuleFailure(
                "%s is still mounted at %s after the unmount: the server must not be detached"
                % (current["disk"]["path"], ", ".join(m["target"] for m in left))
            )
