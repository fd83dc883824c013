# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Attach and detach one volume to many servers: find, plan, act, wait.

Nova attaches a volume that is already attached only at compute API 2.60 or
later. Cinder takes one attach or detach of a volume at a time and refuses a
concurrent one with HTTP 400 while the volume is attaching or detaching; those
refusals, and only those, are retried until the timeout.
"""

from __future__ import annotations

import calendar
import datetime
import time

from ansible_collections.multiattach.cloud.plugins.module_utils.errors import (
    ModuleFailure, describe_error)
from ansible_collections.multiattach.cloud.plugins.module_utils.compare import diff
from ansible_collections.multiattach.cloud.plugins.module_utils.volumes import (
    POLL_SECONDS, attach_modes, describe_volume, find_one_volume, wait_for_volume)

try:
    from keystoneauth1 import exceptions as ksa_exceptions
    from openstack import exceptions as sdk_exceptions
except ImportError:  # reported by the module base before any call
    ksa_exceptions = None
    sdk_exceptions = None

MULTIATTACH_MICROVERSION = "2.60"
# A volume `detaching` unchanged for longer than this was left by a detach whose compute
# service died: twice oslo.messaging's default RPC timeout (60 s).
ABANDONED_AFTER = 120
# Nova's HTTP 400 when it already has a block device mapping of the volume on the server.
ALREADY_ATTACHED = "already attached"
# Texts of Nova's HTTP 400 while Cinder works on another attach or detach of the volume.
TRANSIENT_REFUSALS = (
    "status must be available or in-use or downloading to reserve",
    "Volume status must be 'in-use' and attach_status must be 'attached' to detach",
    "is attaching", "is detaching", "status is attaching", "status is detaching",
)


def _seconds_since(timestamp):
    """Seconds since Cinder's UTC timestamp (2026-11-23T09:47:19.000000); 0 if unreadable."""
    try:
        then = datetime.datetime.strptime(str(timestamp).split(".", maxsplit=1)[0].rstrip("Z"),
                                          "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return 0
    return time.time() - calendar.timegm(then.timetuple())


def _abandoned(volume):
    return volume.status == "detaching" and _seconds_since(volume.updated_at) >= ABANDONED_AFTER


def plan(attached_ids, wanted_ids, exclusive):
    """(servers to attach, servers to detach), each sorted, for the wanted set."""
    attached, wanted = set(attached_ids), set(wanted_ids)
    to_attach = sorted(wanted - attached)
    to_detach = sorted(attached - wanted) if exclusive else []
    return to_attach, to_detach


def attached_server_ids(volume):
    return sorted({a["server_id"] for a in volume.attachments or [] if a.get("server_id")})


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


class ServerIndex:
    """Every server visible to these credentials, listed once; resolves names and IDs."""

    def __init__(self, conn, all_projects=False):
        query = {"all_projects": True} if all_projects else {}
        self.servers = list(conn.compute.servers(details=False, **query))
        self.names = {server.id: server.name for server in self.servers}

    def resolve(self, names_or_ids):
        """{requested: server ID}; fails naming the unknown and the ambiguous ones."""
        resolved, unknown, ambiguous = {}, [], []
        for wanted in names_or_ids:
            if wanted in self.names:
                resolved[wanted] = wanted
                continue
            matches = [server.id for server in self.servers if server.name == wanted]
            if len(matches) == 1:
                resolved[wanted] = matches[0]
            elif matches:
                ambiguous.append("%s (%s)" % (wanted, ", ".join(sorted(matches))))
            else:
                unknown.append(wanted)
        problems = []
        if unknown:
            problems.append("no server named or with ID %s" % ", ".join(sorted(unknown)))
        if ambiguous:
            problems.append("more than one server is named %s: give IDs instead"
                            % "; ".join(ambiguous))
        if problems:
            raise ModuleFailure("; ".join(problems))
        return resolved


def _is_transient(error):
    text = "%s %s" % (getattr(error, "details", "") or "", error)
    return getattr(error, "status_code", None) in (400, 409) and \
        any(marker in text for marker in TRANSIENT_REFUSALS)


class AttachmentWorker:
    """Issues attach and detach calls one after another and waits for each."""

    def __init__(self, conn, volume_id, timeout, wait=True):
        self.conn = conn
        self.volume_id = volume_id
        self.deadline = time.time() + timeout
        self.timeout = timeout
        self.wait = wait
        self.retries = 0
        self.rolled_back = 0  # abandoned detaches rolled back (_roll_back_abandoned_detach)
        self.last_seen = None  # the volume as the last wait read it

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

    def _with_retries(self, what, call):
        delay = POLL_SECONDS
        while True:
            try:
                return call()
            except sdk_exceptions.HttpException as error:
                if not _is_transient(error) or time.time() + delay > self.deadline:
                    raise
                if self._roll_back_abandoned_detach():
                    continue
                self.retries += 1
                time.sleep(delay)
                delay = min(delay * 2, 2.0)

    def _roll_back_abandoned_detach(self):
        """Put a volume that an abandoned detach left `detaching` back to `in-use`.

        Nova marks the volume `detaching` before its compute service detaches it, and
        rolls that back when the detach fails; when the compute service dies in between,
        nothing does, and Cinder refuses every further attach and detach of the volume.
        Once the volume has not changed for longer than any RPC timeout, no detach is
        under way: Cinder's roll_detaching (Nova's own rollback) makes it usable again,
        and the detach that is wanted is asked for anew.
        """
        if not _abandoned(self.conn.block_storage.get_volume(self.volume_id)):
            return False
        response = self.conn.block_storage.post("/volumes/%s/action" % self.volume_id,
                                                json={"os-roll_detaching": {}})
        sdk_exceptions.raise_from_response(response)
        self.rolled_back += 1
        return True

    def attach(self, server_id, device=None):
        body = {"volumeId": self.volume_id}
        if device:
            body["device"] = device
        try:
            self._with_retries("attach", lambda: self._call(
                "post", "/servers/%s/os-volume_attachments" % server_id,
                json={"volumeAttachment": body}))
        except sdk_exceptions.BadRequestException as error:
            if ALREADY_ATTACHED not in "%s %s" % (getattr(error, "details", "") or "", error):
                raise
            # Nova holds this attach already (an earlier run's call, carried out late after a
            # fault) while Cinder does not show it yet: wait for that one instead of a second.
            if not self.wait:
                return
            self.wait_for(lambda v: server_id in attached_server_ids(v) and v.status == "in-use",
                          "the attach of server %s that Nova already holds (an earlier, "
                          "interrupted call) to show in Cinder; if it never does, detach it "
                          "(state: absent) and run again" % server_id)
            return
        if self.wait:
            self.wait_for(lambda v: server_id in attached_server_ids(v) and v.status == "in-use",
                          "the volume to be attached to server %s" % server_id)

    def detach(self, server_id):
        try:
            self._with_retries("detach", lambda: self._call(
                "delete", "/servers/%s/os-volume_attachments/%s" % (server_id, self.volume_id)))
        except sdk_exceptions.NotFoundException:
            self.last_seen = None  # no read since the call: the last one is stale
            return  # gone already: what we wanted
        if self.wait:
            # Only this server's attachment goes; the volume stays in-use for the others.
            volume = self.wait_for(lambda v: _abandoned(v) or (
                server_id not in attached_server_ids(v) and v.status in ("available", "in-use")),
                "server %s's attachment to go" % server_id)
            if _abandoned(volume) and self._roll_back_abandoned_detach():
                self.detach(server_id)

    def wait_for(self, condition, what):
        self.last_seen = wait_for_volume(self.conn, self.volume_id, condition, self.deadline,
                                         what, self.timeout)
        return self.last_seen


def converge(conn, volume, to_attach, to_detach, timeout, wait=True, device=None):
    """Detach, then attach, one call at a time. Returns ([(server ID, action)], the volume
    as the last wait read it, or None without waits).

    A failure is reported with what was already done, so a re-run knows where it stands.
    """
    worker = AttachmentWorker(conn, volume.id, timeout, wait)
    done = []
    try:
        for server_id in to_detach:
            worker.detach(server_id)
            done.append((server_id, "detached"))
        for server_id in to_attach:
            worker.attach(server_id, device)
            done.append((server_id, "attached"))
        return done, worker.last_seen, worker.rolled_back
    except ModuleFailure as failure:
        failure.result.setdefault("done", [{"server_id": s, "action": a} for s, a in done])
        raise
    except sdk_exceptions.SDKException as error:
        raise ModuleFailure(
            "%s failed after %s: %s" % (
                "attach or detach of volume %s" % (volume.name or volume.id),
                ", ".join("%s %s" % (a, s) for s, a in done) or "no change",
                describe_error(error)),
            done=[{"server_id": s, "action": a} for s, a in done]) from error


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
        self.warnings = []

    @property
    def changed(self):
        return bool(self.to_attach or self.to_detach)

    def plan(self, wanted_ids, exclusive):
        self.to_attach, self.to_detach = plan(self.attached, wanted_ids, exclusive)
        self.final = sorted((set(self.attached) - set(self.to_detach)) | set(self.to_attach))
        check_sharing_allowed(self.volume, self.final, self.index.names)

    def carry_out(self, check_mode, timeout, wait, device=None):
        if self.changed and not check_mode:
            _done, last_seen, rolled_back = converge(self.conn, self.volume, self.to_attach,
                                                     self.to_detach, timeout, wait, device)
            self.volume = last_seen or self.conn.block_storage.get_volume(self.volume.id)
            if rolled_back:
                self.warnings.append(
                    "volume %s was left 'detaching' by a detach whose compute service died (no "
                    "change for %d s); it was rolled back to in-use (Cinder's roll_detaching, as "
                    "Nova does for a failed detach) and the detach asked for again"
                    % (self.volume.name or self.volume.id, ABANDONED_AFTER))

    def described_volume(self):
        """The volume as volume_info describes it, attach modes read from Cinder (one
        listing, only when the volume has attachments)."""
        modes = attach_modes(self.conn, {self.volume.id}) if self.volume.attachments else {}
        return describe_volume(self.volume, self.index.names, modes)

    def diff(self):
        names = self.index.names
        return diff({"servers": sorted(names.get(s, s) for s in self.attached)},
                    {"servers": sorted(names.get(s, s) for s in self.final)})
