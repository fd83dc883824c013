# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which servers hold one volume: the plan of attaches and detaches, what must be refused
before any call, and the modules' results (server_volume, volume_attachments). The calls
themselves are attachment_worker's; abandoned transitions are transitions'."""

from __future__ import annotations

from ansible_collections.multiattach.cloud.plugins.module_utils.change import Change, Plan, Step
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.attachment_worker import (
    Action,
    converge,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.microversions import (
    BLOCK_STORAGE_ATTACHMENTS,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.sdk import sdk_exceptions
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.servers import (
    DELETED,
    ServerIndex,
    deleted_names,
    terminated_here,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.transitions import (
    ABANDONED_AFTER,
    check_abandoned_after,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volumes import (
    attach_modes,
    attached_server_ids,
    attachment_records,
    describe_volume,
    find_one_volume,
    placement_warnings,
)

ATTACHMENT_ARGUMENT_SPEC = dict(abandoned_after=dict(type="int", default=ABANDONED_AFTER))


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
        % (
            volume.name or volume.id,
            volume.volume_type,
            ", ".join(sorted(server_names.get(s, s) for s in holders)),
        )
    )


STATUS_ADVICE = {
    "error": "it failed in Cinder (see cinder-volume's log); delete it, or have an admin reset "
    "its status (openstack volume set --state available) if the backend holds it intact",
    "maintenance": "Cinder or an admin is working on it (a migration or a retype); run again "
    "once it has left maintenance",
}
ERROR_STATUS_ADVICE = (
    "an operation on it failed in Cinder (see cinder-volume's log); an admin "
    "checks the backend, then resets its status (openstack volume set --state "
    "in-use or available)"
)


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
            % (
                volume.name or volume.id,
                volume.status,
                ", ".join(
                    ["attach to %d server(s)" % len(attach)] * bool(attach)
                    + ["detach from %d server(s)" % len(detach)] * bool(detach)
                ),
                advice,
            )
        )


class AttachmentChange(Change):
    """One volume's holders toward what a module wants: read the volume and the servers once
    (a constant number of reads, whatever the number of servers), plan, check, carry out at
    Cinder's pace, describe."""

    def __init__(self, conn, *, volume, wait, timeout, abandoned_after, device=None, index=None):
        check_abandoned_after(abandoned_after)
        self.conn = conn
        self.volume_name_or_id = volume
        self.wait = wait
        self.timeout = timeout
        self.abandoned_after = abandoned_after
        self.device = device
        # A caller that works several volumes lists the servers once and gives the listing.
        self.index = index

    def read(self):
        volume = find_one_volume(self.conn, self.volume_name_or_id)
        if volume is None:
            raise ModuleFailure(
                "volume %r does not exist: check the name or ID" % self.volume_name_or_id
            )
        if self.index is None:
            self.index = ServerIndex(self.conn)
        return volume

    def wanted(self, attached):
        """(server IDs wanted, exclusive) from the module's options and the current holders."""
        raise NotImplementedError

    def plan(self, current):
        attached = attached_server_ids(current)
        wanted, exclusive = self.wanted(attached)
        to_attach, to_detach = plan(attached, wanted, exclusive)
        final = sorted((set(attached) - set(to_detach)) | set(to_attach))
        check_sharing_allowed(current, final, self.index.names)
        check_status_allows_change(current, to_attach, to_detach)
        names = self.index.names
        steps = (
            [
                Step(
                    "%s; %s"
                    % (
                        "detach %s" % ", ".join(to_detach) if to_detach else "detach none",
                        "attach %s" % ", ".join(to_attach) if to_attach else "attach none",
                    ),
                    lambda: self.carry_out(current, to_attach, to_detach),
                )
            ]
            if to_attach or to_detach
            else []
        )
        warnings = []
        if refused_status(current):
            warnings.append(
                "volume %s is in status %s: %s"
                % (current.name or current.id, current.status, refused_status(current))
            )
        return Plan(
            {"servers": sorted(names.get(s, s) for s in attached)},
            {"servers": sorted(names.get(s, s) for s in final)},
            steps,
            result=self.outcome(current, wanted, attached, to_attach, to_detach),
            warnings=warnings,
        )

    def carry_out(self, volume, to_attach, to_detach):
        _done, last_seen, repairs = converge(
            self.conn,
            volume,
            to_attach,
            to_detach,
            self.timeout,
            self.wait,
            self.device,
            self.abandoned_after,
        )
        return dict(
            volume=last_seen or self.conn.block_storage.get_volume(volume.id), warnings=repairs
        )

    def described(self, volume):
        """The volume as volume_info describes it, attach modes read from Cinder (one
        listing, only when the volume has attachments)."""
        modes = attach_modes(self.conn, {volume.id}) if volume.attachments else {}
        return describe_volume(volume, self.index.names, modes)

    def outcome(self, volume, wanted, attached, to_attach, to_detach):
        """The module's own result keys; `volume` is the volume as read, described in report()."""
        return dict(volume=volume)

    def report(self, plan, result):
        # Described once, as the last read showed it: attach modes cost a listing.
        reported = super().report(plan, dict(result, volume=self.described(result["volume"])))
        placement = placement_warnings([reported["volume"]])
        if placement:
            reported["warnings"] = reported.get("warnings", []) + placement
        return reported


class VolumeAttachmentsChange(AttachmentChange):
    """volume_attachments: the volume held by the servers listed (only them, if exclusive)."""

    def __init__(self, conn, *, servers, exclusive, **options):
        super().__init__(conn, **options)
        self.servers = servers
        self.exclusive = exclusive

    def wanted(self, attached):
        return sorted(set(self.index.resolve(self.servers).values())), self.exclusive

    def outcome(self, volume, wanted, attached, to_attach, to_detach):
        names = self.index.names
        actions = dict(
            [(s, "unchanged") for s in wanted if s in attached]
            + [(s, Action.ATTACH.value) for s in to_attach]
            + [(s, Action.DETACH.value) for s in to_detach]
        )
        return dict(
            super().outcome(volume, wanted, attached, to_attach, to_detach),
            servers=[
                {"server_id": s, "server_name": names.get(s), "action": a}
                for s, a in sorted(actions.items())
            ],
            attached=to_attach,
            detached=to_detach,
        )


class ServerVolumeChange(AttachmentChange):
    """server_volume: one server holds the volume (present) or not (absent). A server that Nova
    deleted, which an attachment of the volume still names by its ID, lets go of it through
    Cinder (its attachment record deleted): only when Nova shows that this project deleted it
    and its compute host terminated it."""

    def __init__(self, conn, *, server, state, require_powered_off=False, **options):
        super().__init__(conn, **options)
        self.server = server
        self.state = state
        self.require_powered_off = require_powered_off
        self.server_id = None
        self.server_state = None

    def read(self):
        if self.index is None:
            # Detailed: each server's status and power state come with the one listing.
            self.index = ServerIndex(self.conn, details=True)
        volume = super().read()
        if self.state == "absent" and not self._listed(self.server):
            self.server_id = self._deleted_server(volume)
            self.server_state = dict(DELETED)
        else:
            self.server_id = self.index.resolve([self.server])[self.server]
            self.server_state = self.index.state(self.server_id)
        return volume

    def _listed(self, name_or_id):
        return name_or_id in self.index.names or name_or_id in self.index.names.values()

    def _deleted_server(self, volume):
        """The ID of the deleted server that O(server) names (its ID, or its name), proven
        deleted here; fails otherwise, changing nothing. A name that several deleted servers
        had is refused when two of them hold the volume; when none does, none has anything to
        let go of (None), once each is proven deleted here."""
        deleted = deleted_names(self.conn)
        attached = attached_server_ids(volume)
        if self.server in attached:
            deleted.setdefault(self.server, None)
        matches = sorted(s for s, name in deleted.items() if self.server in (s, name))
        if not matches:
            self.index.resolve([self.server])  # fails naming it
        holding = [s for s in matches if s in attached]
        if len(holding) > 1:
            raise ModuleFailure(
                "no server is named %s now, and %d deleted servers that were hold volume %s (%s): "
                "give the ID of the one meant"
                % (self.server, len(holding), volume.name or volume.id, ", ".join(holding))
            )
        unproven = [s for s in holding or matches if not terminated_here(self.conn, s)]
        if unproven:
            raise ModuleFailure(
                "server %s is not one Nova shows these credentials%s, and Nova shows no delete of "
                "it in this project that its compute host carried out: it may be another "
                "project's server, one deleted while its compute host was down (its guest may "
                "still run there), or one evacuated before its delete (its old host may still "
                "run it). Nothing was changed. Once an admin has made sure that no guest "
                "of that server runs, they remove Cinder's attachment record themselves "
                "(openstack volume attachment delete, volume API 3.27)"
                % (
                    ", ".join(unproven),
                    ", yet volume %s is attached to it" % (volume.name or volume.id)
                    if set(unproven) & set(attached)
                    else "",
                )
            )
        if holding or len(matches) == 1:
            server_id = (holding or matches)[0]
            self.index.names.setdefault(server_id, deleted.get(server_id))
            return server_id
        return None

    def wanted(self, attached):
        if self.state == "present":
            return attached + [self.server_id], False
        return [s for s in attached if s != self.server_id], True

    def plan(self, current):
        planned = super().plan(current)
        if self.require_powered_off and planned.steps and not self.server_state["powered_off"]:
            raise ModuleFailure(
                "server %s is not powered off now (Nova: status %s, power state %s, task %s): "
                "its guest may run and hold the volume, so it was not detached. Nothing was "
                "changed; find out why it runs (a fence's start, an operator), then run again"
                % (
                    self.server_id,
                    self.server_state["status"],
                    self.server_state["power_state"],
                    self.server_state["task_state"] or "none",
                )
            )
        if self.server_state["deleted"] and planned.steps:
            planned.steps = [
                Step(
                    "delete Cinder's attachment of deleted server %s" % self.server_id,
                    lambda: self.remove_records(current),
                )
            ]
        return planned

    def remove_records(self, volume):
        """Nova has nothing left to detach: the attachment records are all there is."""
        records = [
            record
            for record in attachment_records(self.conn, {volume.id})
            if record.get("instance") == self.server_id
        ]
        for record in records:
            response = self.conn.block_storage.delete(
                "/attachments/%s" % record["id"], microversion=BLOCK_STORAGE_ATTACHMENTS
            )
            if response.status_code != 404:
                sdk_exceptions.raise_from_response(response)
        return dict(volume=self.conn.block_storage.get_volume(volume.id), warnings=[])

    def report(self, plan, result):
        reported = super().report(plan, result)
        reported["attachment"] = next(
            (a for a in reported["volume"]["attachments"] if a["server_id"] == self.server_id), None
        )
        reported["server_id"] = self.server_id
        reported["server_name"] = self.index.names.get(self.server_id, self.server)
        reported["server_state"] = self.server_state
        return reported
