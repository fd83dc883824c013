# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Make a cluster filesystem on the shared disk, never over anything (module clustered_fs_mkfs).

The disk's signature is read again right before mkfs (after dropping this node's cached
blocks: another node may have written it since the role first read it), and mkfs keeps its
own check: no force flag. mkfs.gfs2 always asks before it writes and says first when it finds
content; mkfs.ocfs2 asks when it finds an OCFS2. Both ask on a terminal only (on a pipe the
question is never flushed), so mkfs runs on a pseudo-terminal and its question is answered
"y" only when mkfs itself found nothing on the disk, else "n".
"""

from __future__ import annotations

import os
import select
import subprocess
import time

from ansible_collections.multiattach.cloud.plugins.module_utils.change import Change, Plan, Step
from ansible_collections.multiattach.cloud.plugins.module_utils.host.cluster_node import (
    find_disk,
    probe_signatures,
    signature_type,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.host.device_mounts import (
    device_mounts,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure

PROMPTS = ("[y/n]", "(y/N):", "(y/n)")
# What mkfs says before its question when the disk holds something.
FOUND_CONTENT = ("appears to contain", "existing", "overwriting")
MKFS_SECONDS = 600


def mkfs_command(filesystem, disk, slots, label, cluster_name):
    if filesystem == "ocfs2":
        return [
            "mkfs.ocfs2",
            "-N",
            str(slots),
            "-L",
            label,
            "--cluster-stack=o2cb",
            "--cluster-name=" + cluster_name,
            disk,
        ]
    return [
        "mkfs.gfs2",
        "-p",
        "lock_dlm",
        "-t",
        "%s:%s" % (cluster_name, label),
        "-j",
        str(slots),
        disk,
    ]


def answer(output):
    """mkfs's question answered: yes only when what it printed says it found nothing."""
    return b"n\n" if any(word in output.lower() for word in FOUND_CONTENT) else b"y\n"


def run_on_terminal(argv, seconds=MKFS_SECONDS):
    """Run ARGV on a pseudo-terminal, answer each question it asks; (rc, output, answers)."""
    leader, follower = os.openpty()
    try:
        # Not run_command: mkfs asks its questions only on a terminal, and each answer depends
        # on what it printed just before.
        process = subprocess.Popen(  # pylint: disable=ansible-bad-function
            argv,
            stdin=follower,
            stdout=follower,
            stderr=follower,
            close_fds=True,
            start_new_session=True,
        )
    finally:
        os.close(follower)
    output, answers, asked_at = "", [], 0
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            ready = select.select([leader], [], [], 1)[0]
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            output += chunk.decode("utf-8", "replace").replace("\r\n", "\n")
            if output.rstrip().endswith(PROMPTS) and len(output) > asked_at:
                reply = answer(output[asked_at:])
                answers.append(reply.decode().strip())
                os.write(leader, reply)
                asked_at = len(output) + 1
        else:
            process.kill()
            raise ModuleFailure("%s did not finish in %d s: %s" % (argv[0], seconds, output[-400:]))
    finally:
        os.close(leader)
    return process.wait(), output, answers


class MkfsChange(Change):
    """The clustered_fs_mkfs module: OCFS2 or GFS2 on a disk with no signature at all, the
    signature read again right before, mkfs's own check kept."""

    def __init__(self, run_command, *, volume_id, device, filesystem, cluster_name, slots, label):
        self.run_command = run_command
        self.volume_id = volume_id
        self.device = device
        self.filesystem = filesystem
        self.cluster_name = cluster_name
        self.slots = slots
        self.label = label

    def read(self):
        disk = find_disk(self.volume_id, self.device)
        if not disk["is_block_device"]:
            raise ModuleFailure(
                "%s is no block device on this node: attach the shared volume first"
                % (disk["path"] or "volume %s" % self.volume_id),
                disk=disk,
            )
        return disk, probe_signatures(self.run_command, disk["path"])

    def plan(self, current):
        disk, signatures = current
        path, found = disk["path"], signature_type(signatures)
        if found == self.filesystem:
            return Plan(
                False,
                False,
                result=dict(disk=disk, signature_type=found, command=[], mkfs_output=[]),
            )
        if signatures:
            raise ModuleFailure(
                "%s carries %s and is never formatted: this module makes a filesystem only on a disk "
                "with no signature at all. Point it at the shared volume, or wipe the disk yourself "
                "(wipefs) if its content is really not needed" % (path, ", ".join(signatures)),
                disk=disk,
                signatures=signatures,
            )
        mounts = device_mounts(path)[0]
        if mounts:
            raise ModuleFailure(
                "%s is mounted on this node (%s): it is not formatted"
                % (path, ", ".join(mount["target"] for mount in mounts)),
                disk=disk,
            )
        command = mkfs_command(self.filesystem, path, self.slots, self.label, self.cluster_name)
        return Plan(
            False,
            False,
            [Step("make %s on %s" % (self.filesystem, path), lambda: self.make(disk, command))],
            result=dict(disk=disk, signature_type=None, command=command, mkfs_output=[]),
        )

    def make(self, disk, command):
        path = disk["path"]
        rc, output, answers = run_on_terminal(command)
        if rc != 0:
            raise ModuleFailure(
                "%s failed (rc %d; answered %s): %s"
                % (command[0], rc, ", ".join(answers) or "no question", output.strip()[-600:]),
                disk=disk,
                command=command,
                mkfs_output=output.splitlines(),
            )
        made = signature_type(probe_signatures(self.run_command, path))
        if made != self.filesystem:
            raise ModuleFailure(
                "%s ended but %s now carries %s, not %s"
                % (command[0], path, made or "nothing", self.filesystem),
                disk=disk,
            )
        return dict(signature_type=made, mkfs_output=output.splitlines())
