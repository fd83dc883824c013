# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Cinder volumes as the modules report them, and how to find them."""

from __future__ import annotations

import time

from ansible_collections.multiattach.cloud.plugins.module_utils.errors import ModuleFailure

try:
    from openstack import exceptions as sdk_exceptions
    from openstack.exceptions import BadRequestException
except ImportError:  # reported by the module base before any call
    sdk_exceptions = None
    BadRequestException = Exception

MULTIATTACH_SPEC = "<is> True"
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
    except BadRequestException:
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


def wait_for_volume(conn, volume_id, condition, deadline, what, timeout):
    """Poll the volume until CONDITION(volume) holds; fail on error status or at DEADLINE.

    Every wait follows a call the services carry out asynchronously, so the first
    read comes one interval later: an immediate read would only see the old state.
    """
    while True:
        time.sleep(POLL_SECONDS)
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
