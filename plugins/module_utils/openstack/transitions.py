# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Attaches and detaches a dead compute service abandoned: when one counts as abandoned, and
how it is undone.

Nova's API begins an attach (Cinder attachment and volume `reserved`) or a detach (volume
`detaching`) and leaves the rest to the server's compute service, which rolls back what fails.
When that service dies in between, nothing finishes or rolls back the transition, and Cinder
refuses every further attach and detach of the volume.
"""

from __future__ import annotations

import time

from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.microversions import (
    BLOCK_STORAGE_ATTACHMENTS,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.sdk import sdk_exceptions
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volumes import (
    attachment_records,
)

# A volume that this run has seen in a transition (reserved, attaching, detaching), unchanged,
# for this long was left by an attach or detach whose compute service died. Longer than
# Nova's own retries of a detach (libvirt: device_detach_attempts 8 x device_detach_timeout
# 20 s) and an RPC timeout (60 s) after them. Counted on this run's own clock from its own
# reads, never against Cinder's timestamps: the controller's clock need not agree with
# the cloud's.
ABANDONED_AFTER = 300
ABANDONED_AFTER_MIN = 10
ABANDONED_ATTACH_STATES = ("reserved", "attaching")
TRANSITIONS = ("detaching",) + ABANDONED_ATTACH_STATES
# Statuses in which Cinder takes the next attach or detach of the volume.
SETTLED = ("available", "in-use")


def check_abandoned_after(seconds):
    """Refuse a wait so short that a transition a service still works on would be undone."""
    if seconds < ABANDONED_AFTER_MIN:
        raise ModuleFailure(
            "abandoned_after must be at least %d (seconds), not %d: it must outlast what "
            "Nova's compute service may take over an attach or detach (the default %d s "
            "outlasts libvirt's detach retries and an RPC timeout)"
            % (ABANDONED_AFTER_MIN, seconds, ABANDONED_AFTER)
        )


class TransitionWatch:
    """How long this run has seen the volume in one transition, unchanged (the same status
    and updated_at), by its own monotonic clock; Cinder's timestamps are only compared with
    each other."""

    def __init__(self, abandoned_after, clock=time.monotonic):
        self.abandoned_after = abandoned_after
        self.clock = clock
        self.seen = None  # (status, updated_at, when this run first read them)

    def unchanged_for(self, volume):
        """Seconds this run has read VOLUME in its current transition; 0 when it is in none."""
        if volume.status not in TRANSITIONS:
            self.seen = None
            return 0
        now = self.clock()
        if self.seen is None or self.seen[:2] != (volume.status, volume.updated_at):
            self.seen = (volume.status, volume.updated_at, now)
        return now - self.seen[2]

    def abandoned(self, volume):
        """No service works on the volume's transition any more: it has outlasted them all."""
        return volume.status in TRANSITIONS and self.unchanged_for(volume) >= self.abandoned_after

    def note(self):
        """What a timeout message adds while the volume sits in a transition."""
        if self.seen is None:
            return ""
        return (
            ". The volume has shown %s unchanged for %d s of this run; a transition is "
            "undone once this run has seen it unchanged for abandoned_after (%d s, longer "
            "than Nova's own retries): run with a timeout above that to have it undone"
            % (self.seen[0], self.clock() - self.seen[2], self.abandoned_after)
        )


def repair_abandoned(worker):
    """Undo a transition of WORKER's volume that a dead compute service left; False if none.

    Once this run has seen the volume unchanged for longer than any service takes, nothing is
    under way: the transition is undone as Nova undoes it, and the wanted call is made anew.
    WORKER (attachment_worker.AttachmentWorker) gives the connection, the watch, Nova's detach
    and the wait; what was undone goes into its `repairs`.
    """
    conn = worker.conn
    volume = conn.block_storage.get_volume(worker.volume_id)
    if not worker.watch.abandoned(volume):
        return False
    if volume.status == "detaching":
        _volume_action(conn, volume.id, {"os-roll_detaching": {}})
        worker.repairs.append(
            "volume %s was left 'detaching' by a detach whose compute service died (no "
            "change for %d s); it was rolled back to in-use (Cinder's roll_detaching, as Nova "
            "does for a failed detach) and the detach asked for again"
            % (volume.name or volume.id, worker.watch.abandoned_after)
        )
        return True
    stuck = [
        record
        for record in attachment_records(conn, {volume.id}, True)
        if record.get("status") in ABANDONED_ATTACH_STATES
        and not _shelved_offloaded(conn, record.get("instance"))
    ]
    for record in stuck:
        _undo_abandoned_attach(worker, volume, record)
    return bool(stuck)


def _volume_action(conn, volume_id, body):
    response = conn.block_storage.post("/volumes/%s/action" % volume_id, json=body)
    sdk_exceptions.raise_from_response(response)


def _shelved_offloaded(conn, server_id):
    # Nova leaves the attachment of a shelved-offloaded server `reserved` until unshelve.
    response = conn.compute.get("/servers/%s" % server_id)
    return (
        response.status_code == 200
        and response.json()["server"].get("status") == "SHELVED_OFFLOADED"
    )


def _undo_abandoned_attach(worker, volume, record):
    """Nova's own detach takes away the server's block device mapping and, through the
    compute service, Cinder's record. It needs the volume in-use and attached, which an
    admin's reset-status gives back; Cinder then sets the status the remaining attachments
    call for."""
    conn, server_id, after = worker.conn, record.get("instance"), worker.watch.abandoned_after
    try:
        _volume_action(
            conn, volume.id, {"os-reset_status": {"status": "in-use", "attach_status": "attached"}}
        )
    except sdk_exceptions.ForbiddenException:
        raise ModuleFailure(
            "volume %s has an attach to server %s that its compute service abandoned "
            "(attachment %s %s, no change for %d s); Cinder refuses every attach and detach "
            "of the volume until it is undone, and undoing it needs admin credentials: "
            "run this task with them, or have an admin run `openstack volume set --state "
            "in-use --attached %s` and then `openstack server remove volume %s %s`"
            % (
                volume.name or volume.id,
                server_id,
                record.get("id"),
                record.get("status"),
                after,
                volume.id,
                server_id,
                volume.id,
            )
        ) from None
    try:
        worker.ask_nova_to_detach(server_id, repair=False)
    except sdk_exceptions.NotFoundException:
        # Nova holds no mapping for it (its API rolled back half): Cinder's record is all.
        response = conn.block_storage.delete(
            "/attachments/%s" % record["id"], microversion=BLOCK_STORAGE_ATTACHMENTS
        )
        sdk_exceptions.raise_from_response(response)
    worker.wait_for(
        lambda v: v.status in SETTLED, "the abandoned attach of server %s to be undone" % server_id
    )
    worker.repairs.append(
        "the attach of volume %s to server %s was abandoned by its compute service "
        "(attachment %s %s, no change for %d s); it was undone as Nova undoes a failed "
        "attach (reset-status to in-use, then Nova's detach)"
        % (volume.name or volume.id, server_id, record.get("id"), record.get("status"), after)
    )
