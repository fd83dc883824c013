# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node leaves the cluster filesystem in one module run: every mount of the shared disk
unmounted, its fstab entries dropped, systemd told, the cluster stack stopped and disabled,
its configuration set aside. Each step runs only once the one before it held: a mount that
stays stops everything after it, and the run fails naming it.

Before any step the node must be the one meant: the Nova server it reads as its own (SMBIOS) is
the server the cloud named, and the shared disk is found by the volume's ID. A disk not found is
never "nothing mounted" while anything of a cluster filesystem is in use here (the volume named
may be another cluster's): the run refuses, and the server ID it confirmed is what the volume
is then detached from."""

from __future__ import annotations

import os
import re
import time

from ansible_collections.multiattach.cloud.plugins.module_utils.change import Change, Plan, Step
from ansible_collections.multiattach.cloud.plugins.module_utils.host.cluster_node import (
    STACK_SERVICES,
    cluster_traces,
    find_disk,
    service_states,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.host.cluster_records import (
    FENCING_CLOUDS,
    FORMER_FENCING_CLOUDS,
    cloud_names,
    recorded_nodes,
    server_identity,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.host.config_files import write_file
from ansible_collections.multiattach.cloud.plugins.module_utils.host.device_mounts import (
    device_mounts,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure

# Set aside as .left when a member leaves. OCFS2's /etc/default/o2cb is o2cb's boot switch: without
# it (O2CB_ENABLED unset) Debian's o2cb script does nothing at boot, and the ocfs2 mounter has no
# fstab entry left; its SysV units stay enabled, since enabling or disabling one runs update-rc.d
# (about 10 s a unit on an emulated guest), and a node that joins again needs them enabled.
# GFS2's dlm.conf, and the ring wait's script and dlm.service drop-in (systemd reads only a
# drop-in's *.conf, so a .left one is inert) go too: nothing of the cluster starts there again.
STACK_FILES = {
    "ocfs2": ["/etc/ocfs2/cluster.conf", "/etc/default/o2cb"],
    "gfs2": [
        "/etc/corosync/corosync.conf",
        "/etc/dlm/dlm.conf",
        "/usr/local/sbin/multiattach-dlm-ring-wait",
        "/usr/local/sbin/multiattach-fence-openstack",
        "/etc/systemd/system/dlm.service.d/multiattach-ring-wait.conf",
    ],
}
# Set aside before systemd reads its units again, so that it forgets them in that same reload.
UNIT_FILES = ("/etc/systemd/system/dlm.service.d/multiattach-ring-wait.conf",)
# The fencing identity's password may power off any server of the project: a node that leaves
# keeps no copy of it (not even set aside). The role writes FENCING_CLOUDS with that one entry.
FSTAB = "/etc/fstab"
# The units stop in this order: the fstab mounter before o2cb, dlm before corosync.
STOP_ORDER = {"ocfs2": ["ocfs2", "o2cb"], "gfs2": ["dlm", "corosync"]}
# systemd rereads fstab and the units in a transient unit of its own, unwaited (reload_systemd).
RELOAD_UNWAITED = [
    "systemd-run",
    "--no-block",
    "--quiet",
    "--collect",
    "systemctl",
    "daemon-reload",
]
# corosync and dlm are native systemd units: disabled in a moment.
DISABLED = {"ocfs2": [], "gfs2": ["dlm", "corosync"]}


def fstab_lines_to_drop(text, mount_point, sources):
    """The lines of fstab TEXT that mount on MOUNT_POINT or mount one of SOURCES."""
    patterns = [re.compile(r"^\S+\s+%s\s" % re.escape(mount_point))] + [
        re.compile(r"^%s\s" % re.escape(source)) for source in sources if source
    ]
    return [line for line in text.splitlines() if any(p.match(line) for p in patterns)]


class ClusterLeaveChange(Change):
    """clustered_fs_leave: no mount of the shared disk here, and (a member) no stack."""

    def __init__(
        self,
        run_command,
        *,
        volume_id,
        device,
        filesystem,
        cluster_name,
        mount_point,
        member,
        fencing_cloud=None,
        server_id=None,
        server_id_confirmed=False,
        attached=None,
        fstab=FSTAB,
        stack_files=None,
        unit_files=UNIT_FILES,
        fencing_clouds=(FENCING_CLOUDS, FORMER_FENCING_CLOUDS),
    ):
        self.run_command = run_command
        self.volume_id = volume_id
        self.device = device
        self.filesystem = filesystem
        self.cluster_name = cluster_name
        self.mount_point = mount_point
        self.member = member
        self.fstab = fstab
        self.stack_files = stack_files or STACK_FILES[filesystem]
        self.unit_files = unit_files
        self.fencing_cloud = fencing_cloud
        self.fencing_clouds = tuple(fencing_clouds)
        self.server_id = (server_id or "").strip().lower() or None
        self.server_id_confirmed = server_id_confirmed
        self.attached = attached
        self.seconds = {}

    def read(self):
        disk = find_disk(self.volume_id, self.device)
        mounts, users = device_mounts(disk["path"]) if disk["is_block_device"] else ([], [])
        try:
            with open(self.fstab) as handle:
                fstab = handle.read()
        except FileNotFoundError:
            fstab = ""
        # A node its stack's configuration names is a member whatever its inventory groups say.
        member = self.member or os.uname()[1] in self.recorded_nodes()
        return dict(
            disk=disk,
            mounts=mounts,
            users=users,
            fstab=fstab,
            member=member,
            services=service_states(self.run_command, STACK_SERVICES[self.filesystem])
            if member
            else {},
            files_kept=[path for path in self.stack_files if os.path.exists(path)],
            fencing_clouds=self.read_fencing_clouds() if member else None,
            server_uuid=server_identity()[0],
            traces=cluster_traces() if not disk["is_block_device"] else None,
        )

    def recorded_nodes(self):
        return recorded_nodes(self.filesystem, self.cluster_name)[0]

    def read_fencing_clouds(self):
        """{path: the cloud entries' names} of the fencing credentials' files that exist (the
        role's, and the one it wrote before); None when no fencing cloud is named."""
        if not self.fencing_cloud:
            return None
        found = {path: cloud_names(path) for path in self.fencing_clouds}
        return {path: names for path, names in found.items() if names is not None}

    def confirmed_server(self, current):
        """The Nova server ID this node is, confirmed on the node; fails before any step when the
        node is another server than the cloud named, or cannot tell and nobody vouched for it."""
        read = current.get("server_uuid")
        if self.server_id is None:
            return read
        if read and read != self.server_id:
            raise ModuleFailure(
                "this host is Nova server %s (its SMBIOS system UUID), not %s, the server the cloud "
                "names for it: the inventory reaches another server than it means (an address "
                "reused after a rebuild, or two servers of one name). Nothing was done. Fix the "
                "host's ansible_host or openstack_server_id, then run again"
                % (read, self.server_id)
            )
        if read is None and not self.server_id_confirmed:
            raise ModuleFailure(
                "this host cannot tell which Nova server it is (its SMBIOS product is not 'OpenStack "
                "Nova'), so it cannot be confirmed to be server %s. Nothing was done. Check on the "
                "host itself which server it is (dmidecode -s system-uuid, or the cloud's console "
                "of that server); if it is that one, run again with -e confirm_server_id=<its "
                "server ID>" % self.server_id
            )
        return self.server_id

    def refuse_a_missing_disk(self, current):
        """A disk not found is no proof that nothing of the cluster is mounted here."""
        disk = current["disk"]
        if disk["is_block_device"]:
            return
        named = disk["path"] or "volume %s" % self.volume_id
        if self.attached:
            raise ModuleFailure(
                "the cloud says %s is attached to this server, but it has no such disk (%s). "
                "Nothing was done. Check that the inventory host is that server and that the "
                "volume is the cluster's (shared_volume_name)" % (named, disk["path"] or "by-id")
            )
        traces = current.get("traces") or {}
        found = [
            "%s: %s" % (what, ", ".join(traces[key]))
            for key, what in (
                ("mounts", "cluster filesystem mounts"),
                ("lockspaces", "DLM lockspaces"),
                ("heartbeats", "o2cb heartbeat regions"),
            )
            if traces.get(key)
        ]
        if found:
            raise ModuleFailure(
                "%s is not on this server, yet a cluster filesystem is in use here (%s): the "
                "volume named is not the one this node holds (two clusters, one "
                "shared_volume_name?). Nothing was done: a leave here would stop the stack under "
                "that filesystem. Name this cluster's volume, then run again"
                % (named, "; ".join(found))
            )

    def plan(self, current):
        server_id = self.confirmed_server(current)
        self.refuse_a_missing_disk(current)
        if current["users"]:
            raise ModuleFailure(
                "%s is mounted here at %s and in use by %s; nothing was unmounted. Stop what "
                "uses it (fuser -vm %s lists it), then run again"
                % (
                    current["disk"]["path"],
                    ", ".join(m["target"] for m in current["mounts"]),
                    ", ".join(current["users"]),
                    current["mounts"][0]["target"],
                )
            )
        targets = [mount["target"] for mount in reversed(current["mounts"])]
        sources = [current["disk"]["path"]] + [m["source"] for m in current["mounts"]]
        dropped = fstab_lines_to_drop(current["fstab"], self.mount_point, sources)
        to_stop = [
            unit
            for unit in STOP_ORDER[self.filesystem]
            if current["services"].get(unit, {}).get("active")
        ]
        to_disable = [
            unit
            for unit in DISABLED[self.filesystem]
            if current["services"].get(unit, {}).get("enabled")
        ]
        set_aside = current["files_kept"] if current["member"] else []
        units_aside = [path for path in set_aside if path in self.unit_files]
        files = current.get("fencing_clouds") or {}
        # Only a file as the role writes it goes; one that also holds other clouds is the
        # operator's, named in a warning rather than edited without a YAML parser.
        credentials = [path for path, names in files.items() if names == [self.fencing_cloud]]
        warnings = [
            "%s holds the fencing identity %s and other clouds (%s), so it was kept: remove "
            "that entry by hand, since its password can power off the cluster's servers"
            % (path, self.fencing_cloud, ", ".join(sorted(set(names) - {self.fencing_cloud})))
            for path, names in files.items()
            if self.fencing_cloud in names and path not in credentials
        ]
        steps = []
        if targets:
            steps.append(
                self.timed(
                    "unmount",
                    "unmount %s" % ", ".join(targets),
                    self.unmount,
                    targets,
                    current["disk"]["path"],
                )
            )
        if dropped:
            steps.append(
                self.timed("fstab", "drop %d fstab lines" % len(dropped), self.drop_lines, dropped)
            )
        reload = bool(dropped or to_disable or units_aside)
        stack_step = bool(to_stop or to_disable)
        if stack_step:
            steps.append(
                self.timed(
                    "stack",
                    "stop %s; disable %s%s%s"
                    % (
                        ", ".join(to_stop) or "none",
                        ", ".join(to_disable) or "none",
                        "; set aside %s" % ", ".join(units_aside) if units_aside else "",
                        "; systemctl daemon-reload started" if reload else "",
                    ),
                    self.stop_stack,
                    to_stop,
                    to_disable,
                    reload,
                    units_aside,
                )
            )
        rest_aside = [p for p in set_aside if not (stack_step and p in units_aside)]
        if rest_aside:
            steps.append(
                self.timed(
                    "set_aside", "set aside " + ", ".join(rest_aside), self.set_aside, rest_aside
                )
            )
        if credentials:
            steps.append(
                self.timed(
                    "credentials",
                    "remove %s (the fencing identity's password)" % ", ".join(credentials),
                    self.remove_all,
                    credentials,
                )
            )
        if reload and not stack_step:
            steps.append(
                self.timed("reload", "systemctl daemon-reload started", self.reload_systemd)
            )
        kept = [line for line in current["fstab"].splitlines() if line not in dropped]
        return Plan(
            {"fstab": current["fstab"]},
            {"fstab": "\n".join(kept) + ("\n" if kept else "")},
            steps,
            result=dict(
                unmounted=targets,
                fstab_dropped=dropped,
                stopped=to_stop,
                disabled=to_disable,
                set_aside=[path + ".left" for path in set_aside],
                removed=credentials,
                member=current["member"],
                held_fencing_credentials=any(
                    self.fencing_cloud in names for names in files.values()
                ),
                server_id=server_id,
                seconds={},
            ),
            warnings=warnings,
            header=self.fstab,
        )

    @staticmethod
    def remove_all(paths):
        for path in paths:
            os.remove(path)

    def timed(self, key, says, work, *args):
        """A step that records its seconds (the result's `seconds`: where a leave's time goes)."""

        def do():
            started = time.monotonic()
            work(*args)
            self.seconds[key] = round(time.monotonic() - started, 2)
            return dict(seconds=dict(self.seconds))

        return Step(says, do)

    def unmount(self, targets, disk):
        for target in targets:
            rc, unused, err = self.run_command(["umount", target])
            if rc != 0:
                raise ModuleFailure(
                    "%s stays mounted (%s); nothing after it was done: the fstab entries, the "
                    "stack and the volume are as they were. Stop what uses it, then run again"
                    % (target, err.strip() or "umount exit %d" % rc)
                )
        left = device_mounts(disk, with_users=False)[0]
        if left:
            raise ModuleFailure(
                "the shared disk is still mounted at %s after the unmount; nothing after it was "
                "done" % ", ".join(m["target"] for m in left)
            )

    def drop_lines(self, dropped):
        with open(self.fstab) as handle:
            lines = handle.read().splitlines(keepends=True)
        kept = [line for line in lines if line.rstrip("\n") not in dropped]
        mode = "%04o" % (os.stat(self.fstab).st_mode & 0o7777)
        write_file(self.fstab, "".join(kept), mode, directory_mode=None)

    def stop_stack(self, to_stop, to_disable, reload, units_aside=()):
        self.set_aside(units_aside)
        if to_disable:
            # For systemd only: their Debian SysV scripts, shadowed by the native units, keep
            # their links (update-rc.d costs about 5 s a unit on an emulated guest).
            self.checked(
                ["env", "SYSTEMCTL_SKIP_SYSV=1", "systemctl", "disable", "--quiet", "--no-reload"]
                + to_disable
            )
        # One transaction: systemd stops the units in the reverse of their start order.
        if to_stop:
            self.checked(["systemctl", "stop"] + to_stop)
        # After the stop: systemd answers nothing while it reloads, so a stop sent after the
        # reload would wait for it.
        if reload:
            self.timed_reload()

    def timed_reload(self):
        started = time.monotonic()
        self.reload_systemd()
        self.seconds["reload"] = round(time.monotonic() - started, 2)

    def reload_systemd(self):
        # Else systemd keeps the old mount units and their dependencies until the next boot.
        # It rereads fstab and the units in a transient unit of its own, which this run does
        # not wait for: the filesystem is unmounted and nothing after the leave uses the node's
        # units, and the reload takes seconds of the node's CPU on an emulated guest (about 3 s
        # of a leave's 10). A host not booted with systemd (a container) has no units to make
        # again.
        if os.path.isdir("/run/systemd/system"):
            self.checked(RELOAD_UNWAITED)

    @staticmethod
    def set_aside(paths):
        # A node that joins again later gets a new record; a stale one would claim its old ID.
        for path in paths:
            os.replace(path, path + ".left")

    def checked(self, argv):
        rc, unused, err = self.run_command(argv)
        if rc != 0:
            raise ModuleFailure(
                "%s failed (exit %d): %s" % (" ".join(argv), rc, err.strip() or "no message")
            )
