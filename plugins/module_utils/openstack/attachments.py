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
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.servers import ServerIndex
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.transitions import (
    ABANDONED_AFTER,
    check_abandoned_after,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volumes import (
    attach_modes,
    attached_server_ids,
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
    """server_volume: one server holds the volume (present) or not (absent)."""

    def __init__(self, conn, *, server, state, **options):
        super().__init__(conn, **options)
        self.server = server
        self.state = state
        self.server_id = None

    def wanted(self, attached):
        self.server_id = self.index.resolve([self.server])[self.server]
        if self.state == "present":
            return attached + [self.server_id], False
        return [s for s in attached if s != self.server_id], True

    def report(self, plan, result):
        reported = super().report(plan, result)
        reported["attachment"] = next(
            (a for a in reported["volume"]["attachments"] if a["server_id"] == self.server_id), None
        )
        reported["server_id"] = self.server_id
        reported["server_name"] = self.index.names.get(self.server_id)
        return reported
