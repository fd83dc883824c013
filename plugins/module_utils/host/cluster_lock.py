# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One change at a time per cluster: a lease on one member, held for a whole playbook run.

A membership change, mkfs and a credential rotation each decide from what the members record
(node IDs, the fencing password); two runs that read the same records would decide alike (two
joining nodes given one node ID). The run that changes a cluster first takes its lease: a small
file on the cluster's first member, written under flock(2) so that two runs never both take it.
The lease names its holder (who ran what, from where, since when) and lasts a bounded time, so
a run killed before it let go blocks the next only until the lease ends; a run that finds the
lease held waits for it, then fails naming the holder and what to do.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time

from ansible_collections.multiattach.cloud.plugins.module_utils.change import Change, Plan, Step
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure

LOCK_DIRECTORY = "/var/lib/multiattach"
POLL_SECONDS = 2


def lease_path(directory, cluster_name):
    return os.path.join(directory, "%s.lease" % cluster_name)


def read_lease(path):
    """The lease in PATH ({owner, since, until}); None when there is none or it is empty."""
    try:
        with open(path) as handle:
            text = handle.read().strip()
    except FileNotFoundError:
        return None
    if not text:
        return None
    try:
        lease = json.loads(text)
    except ValueError:
        # A lease cut short by a crash mid-write holds nothing.
        return None
    return lease if isinstance(lease, dict) and "owner" in lease else None


def held_by_another(lease, owner, now):
    return bool(lease) and lease["owner"] != owner and lease.get("until", 0) > now


def describe(lease):
    return "%s (since %s, until %s)" % (
        lease["owner"],
        time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(lease.get("since", 0))),
        time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(lease.get("until", 0))),
    )


class ClusterLockChange(Change):
    """cluster_lock: this run holds the cluster's lease (state held), or no longer (released)."""

    def __init__(
        self,
        run_command,
        *,
        cluster_name,
        owner,
        state,
        wait_seconds,
        lease_seconds,
        directory=LOCK_DIRECTORY,
        clock=time.time,
        sleep=time.sleep,
    ):
        if not owner or not owner.strip():
            raise ModuleFailure("owner must name this run (who, from where, which playbook)")
        if wait_seconds < 0 or lease_seconds < 1:
            raise ModuleFailure(
                "wait_seconds must be 0 or more and lease_seconds 1 or more; got %s and %s"
                % (wait_seconds, lease_seconds)
            )
        self.run_command = run_command
        self.cluster_name = cluster_name
        self.owner = owner.strip()
        self.state = state
        self.wait_seconds = wait_seconds
        self.lease_seconds = lease_seconds
        self.directory = directory
        self.path = lease_path(directory, cluster_name)
        self.clock = clock
        self.sleep = sleep

    def read(self):
        return read_lease(self.path)

    def plan(self, current):
        now = self.clock()
        ours = bool(current) and current["owner"] == self.owner
        result = dict(path=self.path, holder=current["owner"] if current else None)
        if self.state == "released":
            # Let go of ours; and say so when it is no longer ours.
            steps = [Step("let go of %s" % self.path, self.release)] if ours or current else []
            return Plan(False, False, steps, result=dict(result, held=False))
        warnings = []
        if held_by_another(current, self.owner, now):
            warnings.append(
                "the cluster's lease %s is held by %s: a real run waits up to %d s for it"
                % (self.path, describe(current), self.wait_seconds)
            )
        # Taken (or renewed) every time: a lease is bookkeeping, not the node's configuration.
        step = Step("take %s for %d s" % (self.path, self.lease_seconds), self.take)
        return Plan(
            False, False, [step], result=dict(result, held=True, waited=0), warnings=warnings
        )

    @contextlib.contextmanager
    def locked(self):
        """The lease file opened and flock'ed: every reader-writer of the lease goes through it."""
        os.makedirs(self.directory, mode=0o700, exist_ok=True)
        with open(self.path, "a+") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            yield handle

    def take(self):
        started = self.clock()
        while True:
            with self.locked() as handle:
                now = self.clock()
                lease = read_lease(self.path)
                if not held_by_another(lease, self.owner, now):
                    since = lease["since"] if lease and lease["owner"] == self.owner else now
                    mine = dict(owner=self.owner, since=since, until=now + self.lease_seconds)
                    handle.seek(0)
                    handle.truncate()
                    handle.write(json.dumps(mine, sort_keys=True))
                    handle.flush()
                    os.fsync(handle.fileno())
                    return dict(holder=self.owner, waited=round(now - started))
            if now - started >= self.wait_seconds:
                raise ModuleFailure(
                    "cluster %s is being changed by another run: its lease %s on this node is "
                    "held by %s, and this run waited %d s for it. Nothing was changed. Run again "
                    "once that run has ended; if it was killed, its lease ends by itself at the "
                    "time named, or remove %s once you are sure no run is changing the cluster"
                    % (
                        self.cluster_name,
                        self.path,
                        describe(lease),
                        round(now - started),
                        self.path,
                    ),
                    holder=lease["owner"],
                )
            self.sleep(POLL_SECONDS)

    def release(self):
        with self.locked() as handle:
            lease = read_lease(self.path)
            if lease and lease["owner"] == self.owner:
                handle.seek(0)
                handle.truncate()
                handle.flush()
                os.fsync(handle.fileno())
                return dict(holder=None)
        # Never ours at the end: it ended while this run worked, and another took it.
        return dict(
            holder=lease["owner"] if lease else None,
            warnings=[
                "the cluster's lease %s ended while this run worked (after %d s) and %s: this "
                "run's changes were not the only ones; read the cluster again (a converge) "
                "before the next change"
                % (
                    self.path,
                    self.lease_seconds,
                    "is held by " + describe(lease) if lease else "nobody holds it",
                )
            ],
        )
