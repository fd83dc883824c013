# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Cinder volumes as the modules report them, and how to find them."""

from __future__ import annotations

import time

from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.sdk import sdk_exceptions
from ansible_collections.multiattach.cloud.plugins.module_utils.compare import changed_fields, dict_changes, diff
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.errors import describe_error, is_anticipated
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.module import ResourceChange
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.servers import ServerIndex
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volume_types import find_type, is_multiattach_type, readable_encryption_of


POLL_SECONDS = 0.25


def find_one_volume(conn, name_or_id, all_projects=False):
    """The volume with this ID or name; None if none; a failure if the name is ambiguous."""
    query = {"all_projects": True} if all_projects else {}
    by_id = conn.block_storage.find_volume(name_or_id, ignore_missing=True, **query) \
        if _looks_like_id(name_or_id) else None
    if by_id is not None:
        return by_id
    try:
        named = list(conn.block_storage.volumes(name=name_or_id, **query))
    except sdk_exceptions.BadRequestException:
        # Clouds may forbid the name filter to non-admins ("Invalid filters").
        named = list(conn.block_storage.volumes(**query))
    named = [volume for volume in named if volume.name == name_or_id]
    if len(named) > 1:
        raise ModuleFailure(
            "%d volumes are named %r (%s): give the volume's ID instead of its name"
            % (len(named), name_or_id, ", ".join(sorted(v.id for v in named))))
    return named[0] if named else None


def _looks_like_id(value):
    return len(value) == 36 and value.count("-") == 4


def describe_attachment(attachment, server_names, attach_modes):
    """One entry of a volume's `attachments` (from the volume itself, no extra call)."""
    attachment_id = attachment.get("attachment_id") or attachment.get("id")
    return {
        "attachment_id": attachment_id,
        "server_id": attachment.get("server_id"),
        "server_name": server_names.get(attachment.get("server_id")),
        "host_name": attachment.get("host_name"),
        "device": attachment.get("device"),
        "attach_mode": attach_modes.get(attachment_id),
        "attached_at": attachment.get("attached_at"),
    }


def attached_server_ids(volume):
    return sorted({a["server_id"] for a in volume.attachments or [] if a.get("server_id")})


def describe_volume(volume, server_names=None, attach_modes=None):
    server_names = server_names or {}
    attach_modes = attach_modes or {}
    return {
        "id": volume.id,
        "name": volume.name,
        "status": volume.status,
        "size": volume.size,
        "multiattach": bool(volume.is_multiattach),
        "volume_type": volume.volume_type,
        "bootable": str(volume.is_bootable).lower() == "true",
        "availability_zone": volume.availability_zone,
        "description": volume.description,
        "metadata": dict(volume.metadata or {}),
        "attachments": [describe_attachment(a, server_names, attach_modes)
                        for a in volume.attachments or []],
    }


def one_host_warning(described):
    """The warning for a volume whose servers all run on one compute host: a cluster that one
    host failure takes down whole. None otherwise (one server, or hosts unknown)."""
    hosts = {attachment["host_name"] for attachment in described["attachments"]}
    if len(described["attachments"]) < 2 or len(hosts) != 1 or None in hosts:
        return None
    return ("every server holding volume %s (%s) runs on compute host %s: one host failure takes them "
            "all down at once. Put the servers in a server group with the soft-anti-affinity policy "
            "(openstack server group create --policy soft-anti-affinity NAME; openstack server create "
            "--hint group=<its ID>), see docs/playbooks.md" % (
                described["name"] or described["id"],
                ", ".join(sorted(a["server_name"] or a["server_id"] for a in described["attachments"])),
                hosts.pop()))


def placement_warnings(described_volumes):
    return [warning for warning in map(one_host_warning, described_volumes) if warning]


def wait_for_volume(conn, volume_id, condition, deadline, what, timeout, delays=()):
    """Poll the volume until CONDITION(volume) holds; fail on error status or at DEADLINE.

    Every wait follows a call the services carry out asynchronously, so the first
    read comes one interval later: an immediate read would only see the old state.
    DELAYS: the seconds before each read, POLL_SECONDS once they run out.
    """
    delays = iter(delays)
    while True:
        time.sleep(next(delays, POLL_SECONDS))
        volume = conn.block_storage.get_volume(volume_id)
        if volume.status == "error" or volume.status.startswith("error_"):
            raise ModuleFailure(
                "volume %s went to status %s while waiting for %s. If it was being created, "
                "no backend may report the multiattach capability: see "
                "multiattach.cloud.preflight and the cinder-scheduler log"
                % (volume.name or volume.id, volume.status, what))
        if condition(volume):
            return volume
        if time.time() > deadline:
            raise ModuleFailure(
                "timed out after %d s waiting for %s (volume status %s). Raise timeout, or "
                "check nova-compute and cinder-volume" % (timeout, what, volume.status))


def remove_half_made(storage, volume):
    """Delete VOLUME, made by this run and not finished; None when it is gone, else a
    sentence naming it, its status and how to remove it (Cinder refuses to delete a
    volume while it is creating)."""
    try:
        storage.delete_volume(volume, ignore_missing=True)
        return None
    except sdk_exceptions.SDKException as refusal:
        try:
            status = storage.get_volume(volume.id).status
        except sdk_exceptions.SDKException:
            status = volume.status
        return ("The volume this run made, %s (ID %s), is left in status %s: Cinder refused to "
                "delete it (%s). Delete it once it has left %s: openstack volume delete %s"
                % (volume.name, volume.id, status, " ".join(str(getattr(refusal, "details", "") or refusal).split()),
                   status, volume.id))


ATTACHMENTS_MICROVERSION = "3.27"


def attachment_records(conn, volume_ids, all_projects=False):
    """Cinder's attachment records (dicts) of VOLUME_IDS, in one listing.

    Read from /attachments/detail through the block storage proxy: it is the only
    listing that carries attach_mode and the records still in transition (reserved,
    attaching), and older openstacksdk releases list the summary instead. One volume
    is asked for by its ID (Cinder filters on it).
    """
    params = {"all_tenants": 1} if all_projects else {}
    if len(volume_ids) == 1:
        params["volume_id"] = next(iter(volume_ids))
    url = "/attachments/detail"
    records = []
    while url:
        response = conn.block_storage.get(url, params=params,
                                          microversion=ATTACHMENTS_MICROVERSION)
        sdk_exceptions.raise_from_response(response)
        body = response.json()
        records.extend(attachment for attachment in body.get("attachments", [])
                       if attachment.get("volume_id") in volume_ids)
        url = next((link["href"] for link in body.get("attachments_links", [])
                    if link.get("rel") == "next"), None)
        params = {}
    return records


def attach_modes(conn, volume_ids, all_projects=False):
    """{attachment ID: attach mode} for the attachments of VOLUME_IDS, in one listing."""
    return {record["id"]: record.get("attach_mode")
            for record in attachment_records(conn, volume_ids, all_projects)}


def volumes_described(conn, name=None, multiattach_only=False, status=None,
                      all_projects=False):
    """The volume_info module's volumes: one, or all these credentials see, filtered,
    each with its attachments; one list call of servers and one of attachments in all."""
    query = {"all_projects": True} if all_projects else {}
    if name:
        volume = find_one_volume(conn, name, all_projects)
        volumes = [volume] if volume else []
    else:
        volumes = list(conn.block_storage.volumes(details=True, **query))
    volumes = [v for v in volumes
               if (not multiattach_only or v.is_multiattach)
               and (not status or v.status == status)]
    attached = [v for v in volumes if v.attachments]
    server_names, modes = {}, {}
    if attached:
        server_names = {s.id: s.name for s in conn.compute.servers(details=False, **query)}
        modes = attach_modes(conn, {v.id for v in attached}, all_projects)
    return [describe_volume(v, server_names, modes) for v in volumes]


COMPARED = ("size", "volume_type", "description", "metadata", "bootable")


def compared(described):
    return {name: described[name] for name in COMPARED}


class VolumeChange(ResourceChange):
    """One volume toward the volume module's options: find, compare, act, wait."""

    def result(self):
        """Carry the options out (not in check mode); the module's result."""
        if self.params["size"] is not None and self.params["size"] < 1:
            raise ModuleFailure("size must be at least 1 (GiB), not %d" % self.params["size"])
        current = find_one_volume(self.conn, self.params["name"])
        if self.params["state"] == "absent":
            return self.absent(current)
        volume_type = self.multiattach_type() if self.params["volume_type"] else None
        if current is None:
            return self.create(volume_type)
        if volume_type is None and not current.is_multiattach:
            raise ModuleFailure(
                "volume %r exists and is not multiattach (type %r), so only one server can "
                "hold it: give volume_type with a multiattach type to retype it (it must be "
                "available), or manage single-server volumes with openstack.cloud.volume"
                % (current.name, current.volume_type))
        return self.update(current, volume_type)

    def multiattach_type(self):
        volume_type = find_type(self.conn, self.params["volume_type"])
        if volume_type is None:
            raise ModuleFailure("volume type %r does not exist: create it with "
                                "multiattach.cloud.volume_type" % self.params["volume_type"])
        if not is_multiattach_type(volume_type):
            raise ModuleFailure(
                "volume type %r has no extra spec multiattach='<is> True', so its volumes can "
                "be attached to one server only. Use a multiattach type (multiattach.cloud."
                "volume_type)" % volume_type.name)
        if readable_encryption_of(self.conn, volume_type) is not None:
            raise ModuleFailure(
                "volume type %r has encryption, and Cinder cannot attach an encrypted volume to "
                "several servers (multiattach and encryption do not combine). Use a multiattach "
                "type without encryption" % volume_type.name)
        return volume_type

    def create(self, volume_type):
        missing = [name for name in ("size", "volume_type") if self.params[name] is None]
        if missing:
            raise ModuleFailure("volume %r does not exist, and creating it needs %s"
                                % (self.params["name"], " and ".join(missing)))
        after = {"size": self.params["size"], "volume_type": volume_type.name,
                 "description": self.params["description"],
                 "metadata": self.params["metadata"] or {},
                 "bootable": bool(self.params["bootable"])}
        if self.check_mode:
            return dict(changed=True, diff=diff(None, after),
                        volume=dict(after, id=None, name=self.params["name"]))
        storage = self.conn.block_storage
        volume = storage.create_volume(
            name=self.params["name"], size=self.params["size"], volume_type=volume_type.id,
            availability_zone=self.params["availability_zone"],
            description=self.params["description"], metadata=self.params["metadata"] or {})
        if not self.params["wait"] and not self.params["bootable"]:
            return dict(changed=True, diff=diff(None, after), volume=describe_volume(volume))
        try:
            volume = self.wait_for(volume.id, lambda v: v.status == "available",
                                   "the new volume to become available")
            if self.params["bootable"]:
                storage.set_volume_bootable_status(volume, True)
                volume = storage.get_volume(volume.id)
        except Exception as error:
            # No half-made volume is left behind; one Cinder will not delete yet (still
            # creating) is named with its ID, and the first failure is kept.
            left = remove_half_made(storage, volume)
            if left is None:
                raise
            if isinstance(error, ModuleFailure):
                raise ModuleFailure("%s. %s" % (error.msg.rstrip("."), left)) from error
            if is_anticipated(error):
                raise ModuleFailure("%s. %s" % (describe_error(error).rstrip("."), left)) from error
            raise
        return dict(changed=True, diff=diff(None, after), volume=describe_volume(volume))

    def update(self, current, volume_type):
        before = compared(describe_volume(current))
        wanted = {"size": self.params["size"], "description": self.params["description"],
                  "bootable": self.params["bootable"],
                  "volume_type": volume_type.name if volume_type else None}
        fields = changed_fields(before, wanted)
        metadata_to_set = dict_changes(before["metadata"], self.params["metadata"] or {})[0]
        if "size" in fields and self.params["size"] < before["size"]:
            raise ModuleFailure("volume %r is %d GiB and Cinder cannot shrink a volume: give a "
                                "size of at least %d" % (current.name, before["size"],
                                                         before["size"]))
        if "volume_type" in fields and current.status != "available":
            raise ModuleFailure(
                "volume %r is %s and Cinder cannot retype a volume to or from multiattach while "
                "it is attached: detach it from %s first"
                % (current.name, current.status, ", ".join(attached_server_ids(current)) or "-"))
        after = dict(before, **{f: wanted[f] for f in fields})
        after["metadata"] = dict(before["metadata"], **metadata_to_set)
        changed = bool(fields or metadata_to_set)
        if changed and not self.check_mode:
            current = self.apply(current, fields, metadata_to_set, volume_type)
        return dict(changed=changed, diff=diff(before, after),
                    volume=describe_volume(current) if not self.check_mode
                    else dict(describe_volume(current), **after))

    def apply(self, current, fields, metadata_to_set, volume_type):
        storage = self.conn.block_storage
        if "description" in fields:
            storage.update_volume(current, description=self.params["description"])
        if metadata_to_set:
            storage.set_volume_metadata(current, **metadata_to_set)
        if "bootable" in fields:
            storage.set_volume_bootable_status(current, self.params["bootable"])
        wait = self.params["wait"]
        if "size" in fields:
            storage.extend_volume(current, self.params["size"])
            if wait or "volume_type" in fields:  # Cinder retypes only a volume at rest
                self.wait_for(current.id, lambda v: v.size == self.params["size"]
                              and v.status in ("available", "in-use"), "the volume to be extended")
        if "volume_type" in fields:
            storage.retype_volume(current, volume_type.name, migration_policy="never")
            if wait:
                self.wait_for(current.id, lambda v: v.volume_type == volume_type.name
                              and v.status == "available", "the volume to be retyped")
        return storage.get_volume(current.id)

    def wait_for(self, volume_id, condition, what):
        timeout = self.params["timeout"]
        return wait_for_volume(self.conn, volume_id, condition, time.time() + timeout, what,
                               timeout)

    def absent(self, current):
        if current is None:
            return dict(changed=False, diff=diff(None, None), volume=None)
        holders = attached_server_ids(current)
        if holders:
            names = ServerIndex(self.conn).names
            raise ModuleFailure(
                "volume %r is attached to %s: detach it first (multiattach.cloud."
                "volume_attachments with servers: [] and exclusive: true)"
                % (current.name, ", ".join(sorted(names.get(s, s) for s in holders))))
        if not self.check_mode:
            self.conn.block_storage.delete_volume(current)
            if self.params["wait"]:
                self.conn.block_storage.wait_for_delete(current, wait=self.params["timeout"])
        return dict(changed=True, diff=diff(compared(describe_volume(current)), None), volume=None)
