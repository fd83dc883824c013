# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Cinder volumes as the modules report them, and how to find them."""

from __future__ import annotations

import time

from ansible_collections.multiattach.cloud.plugins.module_utils.change import Reading
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.listing import every_page
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.microversions import (
    BLOCK_STORAGE_ATTACHMENTS,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.sdk import sdk_exceptions
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.servers import (
    deleted_names,
)

POLL_SECONDS = 0.25


def find_one_volume(conn, name_or_id, all_projects=False):
    """The volume with this ID or name; None if none; a failure if the name is ambiguous."""
    query = {"all_projects": True} if all_projects else {}
    by_id = (
        conn.block_storage.find_volume(name_or_id, ignore_missing=True, **query)
        if _looks_like_id(name_or_id)
        else None
    )
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
            % (len(named), name_or_id, ", ".join(sorted(v.id for v in named)))
        )
    return named[0] if named else None


def _looks_like_id(value):
    return len(value) == 36 and value.count("-") == 4


# Admin metadata Cinder shows among a volume's metadata; set through their own calls.
READ_ONLY_KEY = "readonly"
ADMIN_METADATA_SHOWN = (READ_ONLY_KEY, "attached_mode")


def is_read_only(volume):
    """Cinder's read-only flag (os-update_readonly_flag): every new attachment gets access
    mode ro, so Nova gives the servers a <readonly/> disk."""
    return str((volume.metadata or {}).get(READ_ONLY_KEY)).lower() == "true"


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
        "read_only": is_read_only(volume),
        "availability_zone": volume.availability_zone,
        "description": volume.description,
        "metadata": dict(volume.metadata or {}),
        "attachments": [
            describe_attachment(a, server_names, attach_modes) for a in volume.attachments or []
        ],
    }


def one_host_warning(described):
    """The warning for a volume whose servers all run on one compute host: a cluster that one
    host failure takes down whole. None otherwise (one server, or hosts unknown)."""
    hosts = {attachment["host_name"] for attachment in described["attachments"]}
    if len(described["attachments"]) < 2 or len(hosts) != 1 or None in hosts:
        return None
    return (
        "every server holding volume %s (%s) runs on compute host %s: one host failure takes them "
        "all down at once. Put the servers in a server group with the soft-anti-affinity policy "
        "(openstack server group create --policy soft-anti-affinity NAME; openstack server create "
        "--hint group=<its ID>), see docs/playbooks.md"
        % (
            described["name"] or described["id"],
            ", ".join(sorted(a["server_name"] or a["server_id"] for a in described["attachments"])),
            hosts.pop(),
        )
    )


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
                % (volume.name or volume.id, volume.status, what)
            )
        if condition(volume):
            return volume
        if time.time() > deadline:
            raise ModuleFailure(
                "timed out after %d s waiting for %s (volume status %s). Raise timeout, or "
                "check nova-compute and cinder-volume" % (timeout, what, volume.status)
            )


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
        return (
            "The volume this run made, %s (ID %s), is left in status %s: Cinder refused to "
            "delete it (%s). Delete it once it has left %s: openstack volume delete %s"
            % (
                volume.name,
                volume.id,
                status,
                " ".join(str(getattr(refusal, "details", "") or refusal).split()),
                status,
                volume.id,
            )
        )


def attachment_records(conn, volume_ids, all_projects=False):
    """Cinder's attachment records (dicts) of VOLUME_IDS, in one listing.

    Read from /attachments/detail through the block storage proxy: it is the only
    listing that carries attach_mode and the records still in transition (reserved,
    attaching), and older openstacksdk releases list the summary instead. One volume
    is asked for by its ID (Cinder filters on it).
    """
    query = {"all_tenants": 1} if all_projects else {}
    if len(volume_ids) == 1:
        query["volume_id"] = next(iter(volume_ids))
    return [
        attachment
        for attachment in every_page(
            conn.block_storage,
            "/attachments/detail",
            "attachments",
            query,
            microversion=BLOCK_STORAGE_ATTACHMENTS,
        )
        if attachment.get("volume_id") in volume_ids
    ]


def access_mode(record):
    """The mode the server was given: the connection's access_mode, which Nova's libvirt
    driver turns into <readonly/>; None while no connection is made (reserved, attaching).
    The record's own attach_mode is not it: Cinder sets it to ro whenever the volume's
    read-only flag was ever set, also after it was cleared (the flag then reads 'False',
    which attachment_create takes as true)."""
    connection = record.get("connection_info")
    if not isinstance(connection, dict):
        return None
    given = (connection.get("data") or connection).get("access_mode")
    return given if given in ("ro", "rw") else None


def attach_modes(conn, volume_ids, all_projects=False):
    """{attachment ID: access mode} for the attachments of VOLUME_IDS, in one listing."""
    return {
        record["id"]: access_mode(record)
        for record in attachment_records(conn, volume_ids, all_projects)
    }


def volumes_described(conn, name=None, multiattach_only=False, status=None, all_projects=False):
    """The volume_info module's volumes: one, or all these credentials see, filtered,
    each with its attachments; one list call of servers and one of attachments in all (and one
    of the deleted servers, only when an attachment outlived its server)."""
    query = {"all_projects": True} if all_projects else {}
    if name:
        volume = find_one_volume(conn, name, all_projects)
        volumes = [volume] if volume else []
    else:
        volumes = list(conn.block_storage.volumes(details=True, **query))
    volumes = [
        v
        for v in volumes
        if (not multiattach_only or v.is_multiattach) and (not status or v.status == status)
    ]
    attached = [v for v in volumes if v.attachments]
    server_names, modes = {}, {}
    if attached:
        server_names = {s.id: s.name for s in conn.compute.servers(details=False, **query)}
        gone = {s for v in attached for s in attached_server_ids(v)} - set(server_names)
        server_names.update(deleted_names(conn, gone, all_projects))
        modes = attach_modes(conn, {v.id for v in attached}, all_projects)
    return [describe_volume(v, server_names, modes) for v in volumes]


class VolumesReading(Reading):
    """The volume_info module: one volume or all these credentials see, filtered, each with
    its attachments, and a warning for each whose servers all run on one compute host."""

    def __init__(self, conn, *, name, multiattach_only, status, all_projects):
        self.conn = conn
        self.name = name
        self.multiattach_only = multiattach_only
        self.status = status
        self.all_projects = all_projects

    def read(self, check_mode):
        volumes = volumes_described(
            self.conn, self.name, self.multiattach_only, self.status, self.all_projects
        )
        return dict(volumes=volumes, warnings=placement_warnings(volumes))
