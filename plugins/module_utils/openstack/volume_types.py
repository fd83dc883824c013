# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Multiattach volume types: the specs they must carry and how to find them."""

from __future__ import annotations

from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.sdk import sdk_exceptions

MULTIATTACH_SPEC = "<is> True"
BACKEND_SPEC_KEY = "volume_backend_name"


def desired_extra_specs(extra_specs, backend):
    """The type's extra specs: the given ones, the backend pin, and multiattach always."""
    specs = {str(key): str(value) for key, value in (extra_specs or {}).items()}
    if "multiattach" in specs and specs["multiattach"] != MULTIATTACH_SPEC:
        raise ModuleFailure(
            "extra_specs sets multiattach to %r, but a type of this collection always has "
            "multiattach: %r. Leave multiattach out of extra_specs (it is set for you)"
            % (specs["multiattach"], MULTIATTACH_SPEC)
        )
    if backend is not None:
        if specs.get(BACKEND_SPEC_KEY, backend) != backend:
            raise ModuleFailure(
                "backend is %r but extra_specs sets %s to %r: give the backend once, in backend"
                % (backend, BACKEND_SPEC_KEY, specs[BACKEND_SPEC_KEY])
            )
        specs[BACKEND_SPEC_KEY] = backend
    specs["multiattach"] = MULTIATTACH_SPEC
    return specs


def is_multiattach_type(volume_type):
    return (volume_type.extra_specs or {}).get("multiattach") == MULTIATTACH_SPEC


def find_type(conn, name_or_id):
    """The volume type with this name or ID, private types included (admin sees all)."""
    # is_public=None lists public and private types alike for an admin.
    for volume_type in conn.block_storage.types(is_public="None"):
        if name_or_id in (volume_type.id, volume_type.name):
            return volume_type
    return None


def encryption_of(conn, volume_type):
    """The type's encryption spec, or None."""
    encryption = conn.block_storage.get_type_encryption(volume_type)
    if encryption is None or not getattr(encryption, "encryption_id", None):
        return None
    return encryption


def readable_encryption_of(conn, volume_type):
    """The type's encryption spec, or None, also when these credentials may not read it
    (Cinder then refuses an encrypted multiattach volume itself)."""
    try:
        return encryption_of(conn, volume_type)
    except sdk_exceptions.ForbiddenException:
        return None


def describe_type(volume_type, projects=None):
    return {
        "id": volume_type.id,
        "name": volume_type.name,
        "description": volume_type.description,
        "is_public": bool(volume_type.is_public),
        "extra_specs": dict(volume_type.extra_specs or {}),
        "projects": sorted(projects) if projects is not None else None,
    }


def update_type_fields(conn, volume_type, fields):
    """Change the type's name, description or is_public in one PUT.

    Cinder's update schema takes is_public under that name; openstacksdk would
    send it as os-volume-type-access:is_public, the create-time name, which the
    update schema refuses with HTTP 400 (additional properties).
    """
    response = conn.block_storage.put(
        "/types/%s" % volume_type.id, json={"volume_type": dict(fields)}
    )
    sdk_exceptions.raise_from_response(response)
