# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The attach and detach calls of one volume, made at Cinder's pace.

Nova attaches a volume that is already attached only at compute API 2.60 or later. Cinder
takes one attach or detach of a volume at a time and refuses a concurrent one with HTTP 400
while the volume is attaching or detaching (see converge for how the calls follow each
other). Nova refuses a detach with HTTP 409 while the server's compute service is down (also
in the minute after a restart, until it reports again). Those refusals, and only those, are
retried until the timeout.
"""

from __future__ import annotations

import concurrent.futures
import enum
import threading
import time

from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.errors import (
    describe_error,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.microversions import (
    COMPUTE_MULTIATTACH,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.sdk import (
    ksa_exceptions,
    sdk_exceptions,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.transitions import (
    ABANDONED_AFTER,
    SETTLED,
    TransitionWatch,
    repair_abandoned,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volumes import (
    attached_server_ids,
    wait_for_volume,
)


class Action(str, enum.Enum):
    """What a call does to a server's hold on the volume; its value is the result's word."""

    ATTACH = "attached"
    DETACH = "detached"

    @property
    def verb(self):
        return {Action.ATTACH: "attach", Action.DETACH: "detach"}[self]

    # The word, wherever it is printed (Python before 3.12 prints a mixed-in enum's name).
    def __str__(self):
        return self.value

    def __format__(self, spec):
        return format(self.value, spec)


# Nova's HTTP 400 when it already has a block device mapping of the volume on the server.
ALREADY_ATTACHED = "already attached"
# Texts of Nova's HTTP 400 while Cinder works on another attach or detach of the volume.
TRANSIENT_REFUSALS = (
    "status must be available or in-use or downloading to reserve",
    "Volume status must be 'in-use' and attach_status must be 'attached' to detach",
    "is attaching",
    "is detaching",
    "status is attaching",
    "status is detaching",
)
# Nova's HTTP 409 text when the compute service of the server is down (it hides the host).
COMPUTE_SERVICE_DOWN = "Service is unavailable at this time"
# Cinder's pace: on the local cloud an attach or detach is done 0.1-0.3 s after Nova took
# it; the worker learns each volume's pace from its calls, starting from this.
FIRST_READ_SECONDS = 0.15
FOLLOW_UP_SECONDS = (0.05, 0.05, 0.05, 0.1, 0.2)
MOST_PACE_SECONDS = 10.0
RETRY_FIRST_SECONDS, RETRY_MOST_SECONDS = 0.1, 2.0
REPAIR_CHECK_SECONDS = 10.0
# Detaches sent at once: at most this many in flight, each retried at most this long after
# a refusal, so a detach is asked for again soon after Cinder ends the last one without
# more than about 20 calls a second reaching Nova.
DETACH_THREADS, DETACH_RETRY_MOST_SECONDS = 8, 0.4


def _error_text(error):
    return "%s %s" % (getattr(error, "details", "") or "", error)


def _compute_service_down(error):
    return getattr(error, "status_code", None) == 409 and COMPUTE_SERVICE_DOWN in _error_text(error)


def _is_transient(error):
    return _compute_service_down(error) or (
        getattr(error, "status_code", None) in (400, 409)
        and any(marker in _error_text(error) for marker in TRANSIENT_REFUSALS)
    )


class Pace:
    """When to read the volume after a call: learned from the calls made so far. Done by the
    first read: read a little sooner next time; else later, at least as late as the last read
    that found it not done. Most first reads then find it done."""

    def __init__(self):
        self.seconds = FIRST_READ_SECONDS

    def delays(self):
        return (self.seconds,) + FOLLOW_UP_SECONDS

    def learn(self, reads):
        """READS: seconds from the call's answer to each read until it was done."""
        pace = self.seconds * 0.9 if len(reads) == 1 else max(self.seconds * 1.25, reads[-2])
        self.seconds = min(max(pace, FOLLOW_UP_SECONDS[0]), MOST_PACE_SECONDS)


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
        self.pace = Pace()
        self.repairs = []  # what repair_abandoned undid, for the module's warnings
        # detach_at_once's threads share the records below and repair one at a time
        self.records_lock = threading.Lock()
        self.repair_lock = threading.Lock()
        # (server ID, action) of every call Nova took, held already or had nothing to do for
        self.asked = []
        # the last read of the volume (None before one, or after a call) and how many calls
        # came before it
        self.read = (None, 0)

    @property
    def last_seen(self):
        return self.read[0]

    def _call(self, method, path, **kwargs):
        # A call that hangs (nova-api waiting on RabbitMQ or nova-compute) must not
        # outlive the module's timeout: requests gets what is left of it.
        remaining = max(self.deadline - time.time(), 1.0)
        try:
            response = getattr(self.conn.compute, method)(
                path, microversion=COMPUTE_MULTIATTACH, timeout=remaining, **kwargs
            )
        except ksa_exceptions.ConnectTimeout as error:
            raise ModuleFailure(
                "the compute API gave no answer to %s %s within the timeout (%d s): check "
                "nova-api, nova-compute, cinder-volume and RabbitMQ, then run again; the call may "
                "still be carried out, the next run will see it (%s)"
                % (method.upper(), path, self.timeout, error)
            ) from None
        sdk_exceptions.raise_from_response(response)
        return response

    def _with_retries(self, action, server_id, call, repair=True, most=RETRY_MOST_SECONDS):
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
                    raise self._refused_too_long(action, server_id, error) from None
                if repair and time.time() >= next_check:
                    next_check = time.time() + REPAIR_CHECK_SECONDS
                    if self._repair_abandoned():
                        continue
                time.sleep(delay)
                delay = min(delay * 2, most)

    def _refused_too_long(self, action, server_id, error):
        if _compute_service_down(error):
            return ModuleFailure(
                "Nova refused to %s server %s for the whole timeout (%d s): it "
                "counts the compute service of the server as down (HTTP 409: %s). "
                "Start nova-compute on the server's host and check it is up "
                "(openstack compute service list). If it is up and the host's "
                "compute service was once deleted, Nova may be reading the deleted "
                "service row: `nova-manage db archive_deleted_rows` removes it. "
                "Then run again" % (action, server_id, self.timeout, COMPUTE_SERVICE_DOWN)
            )
        return ModuleFailure(
            "Cinder refused to %s server %s for the whole timeout (%d s): another "
            "attach or detach of the volume did not end (%s). Check cinder-volume "
            "and nova-compute, then run again%s"
            % (
                action,
                server_id,
                self.timeout,
                " ".join(_error_text(error).split()),
                self.watch.note(),
            )
        )

    def _repair_abandoned(self):
        with self.repair_lock:
            return repair_abandoned(self)

    def _ask_nova_to_attach(self, server_id, device):
        """True once Nova took the attach; also when it holds one already (an earlier,
        interrupted call that Cinder does not show yet): that one is waited for."""
        body = {"volumeId": self.volume_id}
        if device:
            body["device"] = device
        try:
            self._with_retries(
                Action.ATTACH.verb,
                server_id,
                lambda: self._call(
                    "post",
                    "/servers/%s/os-volume_attachments" % server_id,
                    json={"volumeAttachment": body},
                ),
            )
        except sdk_exceptions.BadRequestException as error:
            if ALREADY_ATTACHED not in _error_text(error):
                raise
            return False
        return True

    def ask_nova_to_detach(self, server_id, repair=True, most=RETRY_MOST_SECONDS):
        """Nova's detach of this server's attachment; NotFoundException when it holds none."""
        self._with_retries(
            Action.DETACH.verb,
            server_id,
            lambda: self._call(
                "delete", "/servers/%s/os-volume_attachments/%s" % (server_id, self.volume_id)
            ),
            repair=repair,
            most=most,
        )

    def detach_at_once(self, server_ids):
        """Ask Nova for every detach of SERVER_IDS at once, a few threads each retrying Nova's
        refusals while Cinder works on another: whichever retry comes first after Cinder
        ends a detach gets the next, with no read in between (the fastest client measured,
        docs/benchmarks.md, "Detach all"). Returns once Nova took them all."""

        def detach(server_id):
            try:
                self.ask_nova_to_detach(server_id, most=DETACH_RETRY_MOST_SECONDS)
            except sdk_exceptions.NotFoundException:
                pass  # gone already: what we wanted
            self._took(server_id, Action.DETACH)

        threads = min(len(server_ids), DETACH_THREADS)
        with concurrent.futures.ThreadPoolExecutor(max_workers=threads) as pool:
            asked = [pool.submit(detach, server_id) for server_id in server_ids]
        for each in asked:
            each.result()  # the first failure, in the order of the servers

    def make(self, server_id, action, device=None, settle=True):
        """Have Nova make ACTION (an Action) for SERVER_ID; with SETTLE, return once Cinder
        takes the next call."""
        action = Action(action)
        while True:
            if action is Action.ATTACH:
                self._ask_nova_to_attach(server_id, device)
            else:
                try:
                    self.ask_nova_to_detach(server_id)
                except sdk_exceptions.NotFoundException:
                    self._took(server_id, action)
                    return  # gone already: what we wanted
            self._took(server_id, action)
            if not settle or not self._settle_or_repair(server_id, action):
                return

    def _took(self, server_id, action):
        with self.records_lock:
            if (server_id, action) not in self.asked:
                self.asked.append((server_id, action))
            self.read = (None, self.read[1])  # no read since the call: the last one is stale

    def settle(self, server_id, action):
        """Read the volume until Cinder takes the next call (after detach_at_once); a call
        that an undone transition rolled back is made again by wait_until_shown."""
        self._settle_or_repair(server_id, action)

    def _settle_or_repair(self, server_id, action):
        """Read the volume until Cinder takes the next call; True if an abandoned
        transition was undone on the way, so the call is to be made again."""
        called = time.time()
        reads = []  # seconds from the call's answer to each read

        def settled(volume):
            reads.append(time.time() - called)
            return volume.status in SETTLED or self.watch.abandoned(volume)

        volume = self.wait_for(
            settled,
            "Cinder to finish the %s of server %s" % (action.verb, server_id),
            delays=self.pace.delays(),
        )
        self.pace.learn(reads)
        if volume.status in SETTLED:
            return False
        return self._repair_abandoned()

    def wait_until_shown(self, calls, device=None):
        """Wait until the volume shows every call of CALLS ((server ID, action)) done.

        A transition left by a dead compute service is undone on the way; a call that an
        undone transition rolled back (the volume settled without it) is made again."""
        what = "the volume to show %s" % ", ".join("%s %s" % (a, s) for s, a in calls)

        def shown_or_to_mend(v):
            return (
                _shows(v, calls)
                or self.watch.abandoned(v)
                or (bool(self.repairs) and v.status in SETTLED)
            )

        while True:
            volume = self.last_seen
            if volume is None or not _shows(volume, calls):
                volume = self.wait_for(shown_or_to_mend, what, delays=self.pace.delays())
            if _shows(volume, calls):
                return
            if time.time() > self.deadline:
                raise ModuleFailure(
                    "timed out after %d s waiting for %s (volume status %s)%s"
                    % (self.timeout, what, volume.status, self.watch.note())
                )
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
            volume = wait_for_volume(
                self.conn, self.volume_id, condition, self.deadline, what, self.timeout, delays
            )
        except ModuleFailure as failure:
            failure.msg += self.watch.note()
            raise
        self.read = (volume, len(self.asked))
        return volume


def _done(volume, calls):
    """The calls of CALLS ((server ID, action)) whose result the volume shows."""
    holders = set(attached_server_ids(volume))
    return [(s, a) for s, a in calls if (s in holders) == (a == Action.ATTACH)]


def _shows(volume, calls):
    """The volume is settled and shows every call of CALLS done."""
    return volume.status in SETTLED and len(_done(volume, calls)) == len(calls)


def _listed(calls):
    return [{"server_id": s, "action": Action(a).value} for s, a in calls]


def converge(
    conn,
    volume,
    to_attach,
    to_detach,
    timeout,
    wait=True,
    device=None,
    abandoned_after=ABANDONED_AFTER,
):
    """Detach, then attach, one call after another at Cinder's pace; with WAIT, until the
    volume shows them all. Returns ([(server ID, Action)], the volume as the last read
    showed it or None, the repairs made).

    A failure is reported with what the volume showed done and what Nova took but it
    did not show yet, so a re-run knows where it stands.
    """
    worker = AttachmentWorker(conn, volume.id, timeout, abandoned_after)
    calls = [(s, Action.DETACH) for s in to_detach] + [(s, Action.ATTACH) for s in to_attach]
    # Two or more detaches are asked for at once (detach_at_once); then, before an attach,
    # the volume is read until Cinder takes it. Attaches follow one another at the volume's
    # pace: a refused attach costs a call to the server's compute service and a block device
    # mapping made and deleted, and a read costs less.
    try:
        if len(to_detach) > 1:
            worker.detach_at_once(list(to_detach))
            if to_attach:
                worker.settle(to_detach[-1], Action.DETACH)
            calls_one_by_one = calls[len(to_detach) :]
        else:
            calls_one_by_one = calls
        for index, (server_id, action) in enumerate(calls_one_by_one):
            worker.make(server_id, action, device, settle=index + 1 < len(calls_one_by_one))
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
            "%s failed after %s%s: %s"
            % (
                "attach or detach of volume %s" % (volume.name or volume.id),
                ", ".join("%s %s" % (Action(a).value, s) for s, a in done) or "no change shown",
                "; Nova took, not shown yet: %s"
                % ", ".join("%s %s" % (Action(a).verb, s) for s, a in pending)
                if pending
                else "",
                describe_error(error),
            ),
            done=_listed(done),
            asked=_listed(pending),
        ) from error
