# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Attach and detach one volume to many servers: find, plan, act, wait.

Nova attaches a volume that is already attached only at compute API 2.60 or
later. Cinder takes one attach or detach of a volume at a time and refuses a
concurrent one with HTTP 400 while the volume is attaching or detaching (see converge
for how the calls follow each other). Nova refuses a detach with HTTP 409 while the
server's compute service is down (also in the minute after a restart, until it reports
again). Those refusals, and only those, are retried until the timeout.
"""

from __future__ import annotations

import time

from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.sdk import ksa_exceptions, sdk_exceptions
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.errors import describe_error
from ansible_collections.multiattach.cloud.plugins.module_utils.compare import diff
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.servers import ServerIndex
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volumes import ATTACHMENTS_MICROVERSION, attach_modes
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volumes import attached_server_ids
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volumes import attachment_records, describe_volume, find_one_volume, wait_for_volume
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volumes import placement_warnings


MULTIATTACH_MICROVERSION = "2.60"
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
ATTACHMENT_ARGUMENT_SPEC = dict(abandoned_after=dict(type="int", default=ABANDONED_AFTER))
# Nova's HTTP 400 when it already has a block device mapping of the volume on the server.
ALREADY_ATTACHED = "already attached"
# Texts of Nova's HTTP 400 while Cinder works on another attach or detach of the volume.
TRANSIENT_REFUSALS = (
    "status must be available or in-use or downloading to reserve",
    "Volume status must be 'in-use' and attach_status must be 'attached' to detach",
    "is attaching", "is detaching", "status is attaching", "status is detaching",
)
# Nova's HTTP 409 text when the compute service of the server is down (it hides the host).
COMPUTE_SERVICE_DOWN = "Service is unavailable at this time"
# Statuses in which Cinder takes the next attach or detach of the volume.
SETTLED = ("available", "in-use")
# Cinder's pace: on the local cloud an attach or detach is done 0.1-0.3 s after Nova took
# it; the worker learns each volume's pace from its calls, starting from this.
FIRST_READ_SECONDS = 0.15
FOLLOW_UP_SECONDS = (0.05, 0.05, 0.05, 0.1, 0.2)
MOST_PACE_SECONDS = 10.0
RETRY_FIRST_SECONDS, RETRY_MOST_SECONDS = 0.1, 2.0
REPAIR_CHECK_SECONDS = 10.0


def check_abandoned_after(seconds):
    """Refuse a wait so short that a transition a service still works on would be undone."""
    if seconds < ABANDONED_AFTER_MIN:
        raise ModuleFailure(
            "abandoned_after must be at least %d (seconds), not %d: it must outlast what "
            "Nova's compute service may take over an attach or detach (the default %d s "
            "outlasts libvirt's detach retries and an RPC timeout)"
            % (ABANDONED_AFTER_MIN, seconds, ABANDONED_AFTER))


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
        return (". The volume has shown %s unchanged for %d s of this run; a transition is "
                "undone once this run has seen it unchanged for abandoned_after (%d s, longer "
                "than Nova's own retries): run with a timeout above that to have it undone"
                % (self.seen[0], self.clock() - self.seen[2], self.abandoned_after))


def plan(attached_ids, wanted_ids, exclusive):
    """(servers to attach, servers to detach), each sorted, for the wanted set."""
    attached, wanted = set(attached_ids), set(wanted_ids)
    to_attach = sorted(wanted - attached)
    to_detach = sorted(attached - wanted) if exclusive else []
    return to_attach, to_detach


def check_sharing_allowed(volume, holders, server_names):
    """Refuse, before any call, a second server on a volume that is not multiattach.

    HOLDERS: the servers that hold the volume once the plan is carried out
    (detaches run first, so no more servers than that hold it at any time).
    """
    if volume.is_multiattach or len(holders) <= 1:
        return
    raise ModuleFailure(
        "volume %r is not multiattach (type %r), so only one server may hold it; it would be "
        "held by %s. Create the volume with a multiattach volume type "
        "(multiattach.cloud.volume_type) or attach it to one server only"
        % (volume.name or volume.id, volume.volume_type,
           ", ".join(sorted(server_names.get(s, s) for s in holders))))


STATUS_ADVICE = {
    "error": "it failed in Cinder (see cinder-volume's log); delete it, or have an admin reset "
             "its status (openstack volume set --state available) if the backend holds it intact",
    "maintenance": "Cinder or an admin is working on it (a migration or a retype); run again "
                   "once it has left maintenance",
}
ERROR_STATUS_ADVICE = ("an operation on it failed in Cinder (see cinder-volume's log); an admin "
                       "checks the backend, then resets its status (openstack volume set --state "
                       "in-use or available)")


def refused_status(volume):
    """Why Cinder takes no attach or detach of VOLUME in its status, or None."""
    status = volume.status or ""
    if status in STATUS_ADVICE:
        return STATUS_ADVICE[status]
    if status.startswith("error_"):
        return ERROR_STATUS_ADVICE
    return None


def check_status_allows_change(volume, attach, detach):
    """Refuse, before any call, an attach or detach of a volume in error or maintenance:
    Cinder would refuse each call, and waiting would only run out the timeout."""
    advice = refused_status(volume)
    if advice and (attach or detach):
        raise ModuleFailure(
            "volume %r is in status %s, in which Cinder takes no attach or detach (wanted: %s): %s"
            % (volume.name or volume.id, volume.status,
               ", ".join(["attach to %d server(s)" % len(attach)] * bool(attach)
                         + ["detach from %d server(s)" % len(detach)] * bool(detach)), advice))


def _error_text(error):
    return "%s %s" % (getattr(error, "details", "") or "", error)


def _compute_service_down(error):
    return getattr(error, "status_code", None) == 409 and COMPUTE_SERVICE_DOWN in _error_text(error)


def _is_transient(error):
    return _compute_service_down(error) or (
        getattr(error, "status_code", None) in (400, 409)
        and any(marker in _error_text(error) for marker in TRANSIENT_REFUSALS))


class AttachmentWorker:
    """Makes attach and detach calls of one volume at Cinder's pace.

    Cinder takes one attach or detach of a volume at a time. After a call that is to be
    settled the worker reads the volume until its status says Cinder takes the next one
    (the call's work is then done or rolled back); the first read comes at the volume's
    pace, learned from the calls, so such a call costs about one read and a half. The
    result of all the calls is waited for once, at the end.
    """

    def __init__(self, conn, volume_id, timeout, abandoned_after=ABANDONED_AFTER):
        self.conn = conn
        self.volume_id = volume_id
        self.deadline = time.time() + timeout
        self.timeout = timeout
        self.watch = TransitionWatch(abandoned_after)
        self.repairs = []  # what _repair_abandoned undid, for the module's warnings
        self.last_seen = None  # the volume as read after the last call, None before a read
        # (server ID, action) of every call Nova took, held already or had nothing to do for
        self.asked = []
        self.read = (None, 0)  # the last read of the volume and how many calls came before it
        self.pace = FIRST_READ_SECONDS

    def _call(self, method, path, **kwargs):
        # A call that hangs (nova-api waiting on RabbitMQ or nova-compute) must not
        # outlive the module's timeout: requests gets what is left of it.
        remaining = max(self.deadline - time.time(), 1.0)
        try:
            response = getattr(self.conn.compute, method)(
                path, microversion=MULTIATTACH_MICROVERSION, timeout=remaining, **kwargs)
        except ksa_exceptions.ConnectTimeout as error:
            raise ModuleFailure(
                "the compute API gave no answer to %s %s within the timeout (%d s): check "
                "nova-api, nova-compute, cinder-volume and RabbitMQ, then run again; the call may "
                "still be carried out, the next run will see it (%s)"
                % (method.upper(), path, self.timeout, error)) from None
        sdk_exceptions.raise_from_response(response)
        return response

    def _with_retries(self, action, server_id, call, repair=True):
        """CALL, retried while Nova refuses it for a while (the previous detach still under
        way, another client's call, a compute service briefly down). A refusal that lasts
        may come from a transition nobody works on any more: that is checked once it has
        lasted REPAIR_CHECK_SECONDS, and as often after, not on every retry."""
        delay = RETRY_FIRST_SECONDS
        next_check = time.time() + REPAIR_CHECK_SECONDS
        while True:
            try:
                return call()
            except sdk_exceptions.HttpException as error:
                if not _is_transient(error):
                    raise
                if time.time() + delay > self.deadline:
                    if _compute_service_down(error):
                        raise ModuleFailure(
                            "Nova refused to %s server %s for the whole timeout (%d s): it "
                            "counts the compute service of the server as down (HTTP 409: %s). "
                            "Start nova-compute on the server's host and check it is up "
                            "(openstack compute service list). If it is up and the host's "
                            "compute service was once deleted, Nova may be reading the deleted "
                            "service row: `nova-manage db archive_deleted_rows` removes it. "
                            "Then run again"
                            % (action, server_id, self.timeout, COMPUTE_SERVICE_DOWN)) from None
                    raise ModuleFailure(
                        "Cinder refused to %s server %s for the whole timeout (%d s): another "
                        "attach or detach of the volume did not end (%s). Check cinder-volume "
                        "and nova-compute, then run again%s"
                        % (action, server_id, self.timeout, " ".join(_error_text(error).split()),
                           self.watch.note())) from None
                if repair and time.time() >= next_check:
                    next_check = time.time() + REPAIR_CHECK_SECONDS
                    if self._repair_abandoned():
                        continue
                time.sleep(delay)
                delay = min(delay * 2, RETRY_MOST_SECONDS)

    def _volume_action(self, body):
        response = self.conn.block_storage.post("/volumes/%s/action" % self.volume_id, json=body)
        sdk_exceptions.raise_from_response(response)

    def _repair_abandoned(self):
        """Undo a transition of the volume that a dead compute service left; False if none.

        Nova's API begins an attach (Cinder attachment and volume `reserved`) or a detach
        (volume `detaching`) and leaves the rest to the server's compute service, which rolls
        back what fails. When that service dies in between, nothing finishes or rolls back
        the transition, and Cinder refuses every further attach and detach of the volume.
        Once the volume has not changed for longer than any RPC timeout, nothing is under
        way: the transition is undone as Nova undoes it, and the wanted call is made anew.
        """
        volume = self.conn.block_storage.get_volume(self.volume_id)
        if not self.watch.abandoned(volume):
            return False
        if volume.status == "detaching":
            self._volume_action({"os-roll_detaching": {}})
            self.repairs.append(
                "volume %s was left 'detaching' by a detach whose compute service died (no "
                "change for %d s); it was rolled back to in-use (Cinder's roll_detaching, as Nova "
                "does for a failed detach) and the detach asked for again"
                % (volume.name or volume.id, self.watch.abandoned_after))
            return True
        stuck = [record for record in attachment_records(self.conn, {self.volume_id}, True)
                 if record.get("status") in ABANDONED_ATTACH_STATES
                 and not self._shelved_offloaded(record.get("instance"))]
        for record in stuck:
            self._undo_abandoned_attach(volume, record)
        return bool(stuck)

    def _shelved_offloaded(self, server_id):
        # Nova leaves the attachment of a shelved-offloaded server `reserved` until unshelve.
        response = self.conn.compute.get("/servers/%s" % server_id)
        return response.status_code == 200 and \
            response.json()["server"].get("status") == "SHELVED_OFFLOADED"

    def _undo_abandoned_attach(self, volume, record):
        """Nova's own detach takes away the server's block device mapping and, through the
        compute service, Cinder's record. It needs the volume in-use and attached, which an
        admin's reset-status gives back; Cinder then sets the status the remaining
        attachments call for."""
        server_id = record.get("instance")
        try:
            self._volume_action({"os-reset_status": {"status": "in-use",
                                                     "attach_status": "attached"}})
        except sdk_exceptions.ForbiddenException:
            raise ModuleFailure(
                "volume %s has an attach to server %s that its compute service abandoned "
                "(attachment %s %s, no change for %d s); Cinder refuses every attach and detach "
                "of the volume until it is undone, and undoing it needs admin credentials: "
                "run this task with them, or have an admin run `openstack volume set --state "
                "in-use --attached %s` and then `openstack server remove volume %s %s`"
                % (volume.name or volume.id, server_id, record.get("id"), record.get("status"),
                   self.watch.abandoned_after, volume.id, server_id, volume.id)) from None
        try:
            self._ask_nova_to_detach(server_id, repair=False)
        except sdk_exceptions.NotFoundException:
            # Nova holds no mapping for it (its API rolled back half): Cinder's record is all.
            response = self.conn.block_storage.delete("/attachments/%s" % record["id"],
                                                      microversion=ATTACHMENTS_MICROVERSION)
            sdk_exceptions.raise_from_response(response)
        self.wait_for(lambda v: v.status in SETTLED,
                      "the abandoned attach of server %s to be undone" % server_id)
        self.repairs.append(
            "the attach of volume %s to server %s was abandoned by its compute service "
            "(attachment %s %s, no change for %d s); it was undone as Nova undoes a failed "
            "attach (reset-status to in-use, then Nova's detach)"
            % (volume.name or volume.id, server_id, record.get("id"), record.get("status"),
               self.watch.abandoned_after))

    def _ask_nova_to_attach(self, server_id, device):
        """True once Nova took the attach; also when it holds one already (an earlier,
        interrupted call that Cinder does not show yet): that one is waited for."""
        body = {"volumeId": self.volume_id}
        if device:
            body["device"] = device
        try:
            self._with_retries("attach", server_id, lambda: self._call(
                "post", "/servers/%s/os-volume_attachments" % server_id,
                json={"volumeAttachment": body}))
        except sdk_exceptions.BadRequestException as error:
            if ALREADY_ATTACHED not in _error_text(error):
                raise
            return False
        return True

    def _ask_nova_to_detach(self, server_id, repair=True):
        """Nova's detach of this server's attachment; NotFoundException when it holds none."""
        self._with_retries("detach", server_id, lambda: self._call(
            "delete", "/servers/%s/os-volume_attachments/%s" % (server_id, self.volume_id)),
            repair=repair)

    def make(self, server_id, action, device=None, settle=True):
        """Have Nova attach (ACTION "attached") or detach ("detached") SERVER_ID; with
        SETTLE, return once Cinder takes the next call."""
        while True:
            if action == "attached":
                self._ask_nova_to_attach(server_id, device)
            else:
                try:
                    self._ask_nova_to_detach(server_id)
                except sdk_exceptions.NotFoundException:
                    self._took(server_id, action)
                    return  # gone already: what we wanted
            self._took(server_id, action)
            if not settle or not self._settle_or_repair(server_id, action):
                return

    def _took(self, server_id, action):
        if (server_id, action) not in self.asked:
            self.asked.append((server_id, action))
        self.last_seen = None  # no read since the call: the last one is stale

    def _settle_or_repair(self, server_id, action):
        """Read the volume until Cinder takes the next call; True if an abandoned
        transition was undone on the way, so the call is to be made again."""
        called = time.time()
        reads = []  # seconds from the call's answer to each read

        def settled(volume):
            reads.append(time.time() - called)
            return volume.status in SETTLED or self.watch.abandoned(volume)

        volume = self.wait_for(settled, "Cinder to finish the %s of server %s"
                               % (action[:-2], server_id),
                               delays=(self.pace,) + FOLLOW_UP_SECONDS)
        # Done by the first read: read a little sooner next time; else later, at least as
        # late as the last read that found it not done. Most first reads then find it done.
        pace = self.pace * 0.9 if len(reads) == 1 else max(self.pace * 1.25, reads[-2])
        self.pace = min(max(pace, FOLLOW_UP_SECONDS[0]), MOST_PACE_SECONDS)
        if volume.status in SETTLED:
            return False
        return self._repair_abandoned()

    def wait_until_shown(self, calls, device=None):
        """Wait until the volume shows every call of CALLS ((server ID, action)) done.

        A transition left by a dead compute service is undone on the way; a call that an
        undone transition rolled back (the volume settled without it) is made again."""
        what = "the volume to show %s" % ", ".join("%s %s" % (a, s) for s, a in calls)

        def shown_or_to_mend(v):
            return _shows(v, calls) or self.watch.abandoned(v) or (
                bool(self.repairs) and v.status in SETTLED)

        while True:
            volume = self.last_seen
            if volume is None or not _shows(volume, calls):
                volume = self.wait_for(shown_or_to_mend, what,
                                       delays=(self.pace,) + FOLLOW_UP_SECONDS)
            if _shows(volume, calls):
                return
            if time.time() > self.deadline:
                raise ModuleFailure("timed out after %d s waiting for %s (volume status %s)%s"
                                    % (self.timeout, what, volume.status, self.watch.note()))
            if self.watch.abandoned(volume):
                self._repair_abandoned()
                continue
            done = _done(volume, calls)
            for server_id, action in calls:
                if (server_id, action) not in done:
                    self.make(server_id, action, device)

    def shown(self):
        """(calls the last read shows done, calls Nova took that it does not show yet)."""
        volume, before = self.read
        done = _done(volume, self.asked[:before]) if volume is not None else []
        return done, [call for call in self.asked if call not in done]

    def wait_for(self, condition, what, delays=()):
        try:
            self.last_seen = wait_for_volume(self.conn, self.volume_id, condition, self.deadline,
                                             what, self.timeout, delays)
        except ModuleFailure as failure:
            failure.msg += self.watch.note()
            raise
        self.read = (self.last_seen, len(self.asked))
        return self.last_seen


def _done(volume, calls):
    """The calls of CALLS ((server ID, action)) whose result the volume shows."""
    holders = set(attached_server_ids(volume))
    return [(s, a) for s, a in calls if (s in holders) == (a == "attached")]


def _shows(volume, calls):
    """The volume is settled and shows every call of CALLS done."""
    return volume.status in SETTLED and len(_done(volume, calls)) == len(calls)


def _listed(calls):
    return [{"server_id": s, "action": a} for s, a in calls]


def converge(conn, volume, to_attach, to_detach, timeout, wait=True, device=None,
             abandoned_after=ABANDONED_AFTER):
    """Detach, then attach, one call after another at Cinder's pace; with WAIT, until the
    volume shows them all. Returns ([(server ID, action)], the volume as the last read
    showed it or None, the repairs made).

    A failure is reported with what the volume showed done and what Nova took but it
    did not show yet, so a re-run knows where it stands.
    """
    worker = AttachmentWorker(conn, volume.id, timeout, abandoned_after)
    calls = [(s, "detached") for s in to_detach] + [(s, "attached") for s in to_attach]
    # A detach is sent at once after the last one: Nova's API does its part of it while
    # Cinder ends the last one, and a refusal because Cinder has not ended it yet costs one
    # refused update. A refused attach costs a call to the server's compute service and a
    # block device mapping made and deleted: an attach is sent once the volume's status
    # says Cinder takes it.
    followers = [action for _server, action in calls[1:]] + [None]
    try:
        for (server_id, action), following in zip(calls, followers):
            worker.make(server_id, action, device, settle=following == "attached")
        if wait:
            worker.wait_until_shown(calls, device)
        return calls, worker.last_seen, worker.repairs
    except ModuleFailure as failure:
        done, pending = worker.shown()
        failure.result.setdefault("done", _listed(done))
        failure.result.setdefault("asked", _listed(pending))
        raise
    except sdk_exceptions.SDKException as error:
        done, pending = worker.shown()
        raise ModuleFailure(
            "%s failed after %s%s: %s" % (
                "attach or detach of volume %s" % (volume.name or volume.id),
                ", ".join("%s %s" % (a, s) for s, a in done) or "no change shown",
                "; Nova took, not shown yet: %s" % ", ".join(
                    "%s %s" % (a[:-2], s) for s, a in pending) if pending else "",
                describe_error(error)),
            done=_listed(done), asked=_listed(pending)) from error


class AttachmentChange:
    """One volume's attachments: find, plan, check, carry out, describe.

    Finding costs one volume lookup and one server listing, whatever the number
    of servers, so a run with nothing to do makes a constant number of reads.
    """

    def __init__(self, conn, volume_name_or_id):
        self.conn = conn
        self.volume = find_one_volume(conn, volume_name_or_id)
        if self.volume is None:
            raise ModuleFailure("volume %r does not exist: check the name or ID"
                                % volume_name_or_id)
        self.index = ServerIndex(conn)
        self.attached = attached_server_ids(self.volume)
        self.to_attach, self.to_detach, self.final = [], [], list(self.attached)
        self.wanted = []
        self.warnings = []

    @property
    def changed(self):
        return bool(self.to_attach or self.to_detach)

    def plan(self, wanted_ids, exclusive):
        self.to_attach, self.to_detach = plan(self.attached, wanted_ids, exclusive)
        self.final = sorted((set(self.attached) - set(self.to_detach)) | set(self.to_attach))
        check_sharing_allowed(self.volume, self.final, self.index.names)
        check_status_allows_change(self.volume, self.to_attach, self.to_detach)

    def carry_out(self, check_mode, timeout, wait, device=None, abandoned_after=ABANDONED_AFTER):
        check_abandoned_after(abandoned_after)
        if self.changed and not check_mode:
            _done, last_seen, repairs = converge(self.conn, self.volume, self.to_attach,
                                                 self.to_detach, timeout, wait, device,
                                                 abandoned_after)
            self.volume = last_seen or self.conn.block_storage.get_volume(self.volume.id)
            self.warnings.extend(repairs)

    def plan_server(self, server, state):
        """Plan one server's attach (present) or detach (absent); returns its ID."""
        server_id = self.index.resolve([server])[server]
        if state == "present":
            self.plan(self.attached + [server_id], exclusive=False)
        else:
            self.plan([s for s in self.attached if s != server_id], exclusive=True)
        return server_id

    def plan_servers(self, servers, exclusive):
        """Plan the volume's holders to be SERVERS (names or IDs), only them if EXCLUSIVE."""
        self.wanted = sorted(set(self.index.resolve(servers).values()))
        self.plan(self.wanted, exclusive)

    def result(self, server_id=None):
        """The module's result: for one server (server_volume) or for the planned set
        (volume_attachments); the volume as volume_info describes it."""
        volume = self.described_volume()
        result = dict(changed=self.changed, diff=self.diff(), volume=volume)
        warnings = self.warnings + placement_warnings([volume])
        if refused_status(self.volume):
            warnings.append("volume %s is in status %s: %s" % (
                self.volume.name or self.volume.id, self.volume.status, refused_status(self.volume)))
        if warnings:
            result["warnings"] = warnings
        if server_id is not None:
            result["attachment"] = next(
                (a for a in volume["attachments"] if a["server_id"] == server_id), None)
            return result
        names = self.index.names
        actions = dict([(s, "unchanged") for s in self.wanted if s in self.attached]
                       + [(s, "attached") for s in self.to_attach]
                       + [(s, "detached") for s in self.to_detach])
        result.update(
            servers=[{"server_id": s, "server_name": names.get(s), "action": a}
                     for s, a in sorted(actions.items())],
            attached=self.to_attach, detached=self.to_detach)
        return result

    def described_volume(self):
        """The volume as volume_info describes it, attach modes read from Cinder (one
        listing, only when the volume has attachments)."""
        modes = attach_modes(self.conn, {self.volume.id}) if self.volume.attachments else {}
        return describe_volume(self.volume, self.index.names, modes)

    def diff(self):
        names = self.index.names
        return diff({"servers": sorted(names.get(s, s) for s in self.attached)},
                    {"servers": sorted(names.get(s, s) for s in self.final)})
