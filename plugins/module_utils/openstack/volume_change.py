# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One multiattach volume toward the volume module's options."""

from __future__ import annotations

import time

from ansible_collections.multiattach.cloud.plugins.module_utils.change import Change, Plan, Step
from ansible_collections.multiattach.cloud.plugins.module_utils.compare import (
    changed_fields,
    dict_changes,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.errors import (
    describe_error,
    is_anticipated,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.servers import ServerIndex
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volume_types import (
    find_type,
    is_multiattach_type,
    readable_encryption_of,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volumes import (
    ADMIN_METADATA_SHOWN,
    attached_server_ids,
    describe_volume,
    find_one_volume,
    remove_half_made,
    wait_for_volume,
)

COMPARED = ("size", "volume_type", "description", "metadata", "bootable", "read_only")


def compared(described):
    return {name: described[name] for name in COMPARED}


def checked_multiattach_type(conn, name):
    """The volume type NAME, refused unless it exists, is multiattach and has no encryption."""
    volume_type = find_type(conn, name)
    if volume_type is None:
        raise ModuleFailure(
            "volume type %r does not exist: create it with multiattach.cloud.volume_type" % name
        )
    if not is_multiattach_type(volume_type):
        raise ModuleFailure(
            "volume type %r has no extra spec multiattach='<is> True', so its volumes can "
            "be attached to one server only. Use a multiattach type (multiattach.cloud."
            "volume_type)" % volume_type.name
        )
    if readable_encryption_of(conn, volume_type) is not None:
        raise ModuleFailure(
            "volume type %r has encryption, and Cinder cannot attach an encrypted volume to "
            "several servers (multiattach and encryption do not combine). Use a multiattach "
            "type without encryption" % volume_type.name
        )
    return volume_type


class VolumeChange(Change):
    """Create, update or delete one volume of a multiattach type; wait when asked."""

    def __init__(
        self,
        conn,
        *,
        name,
        size,
        volume_type,
        availability_zone,
        description,
        metadata,
        bootable,
        read_only,
        source_volume,
        state,
        wait,
        timeout,
        checked_type=None,
    ):
        if size is not None and size < 1:
            raise ModuleFailure("size must be at least 1 (GiB), not %d" % size)
        flags = sorted(set(metadata or {}) & set(ADMIN_METADATA_SHOWN))
        if flags:
            raise ModuleFailure(
                "metadata may not set %s: Cinder keeps these as its own flags and shows them "
                "among the metadata. Use the option read_only to set or clear the read-only flag"
                % ", ".join(flags)
            )
        self.conn = conn
        self.name = name
        self.size = size
        self.volume_type = volume_type
        self.availability_zone = availability_zone
        self.description = description
        self.metadata = metadata
        self.bootable = bootable
        self.read_only = read_only
        self.source_volume = source_volume
        self.state = state
        self.wait = wait
        self.timeout = timeout
        # The type, already looked up and checked by a caller that plans several volumes of it.
        self.checked_type = checked_type
        # The volume as last read once create() made it, for a caller that goes on with it.
        self.created_volume = None

    def read(self):
        return find_one_volume(self.conn, self.name)

    def plan(self, current):
        if self.state == "absent":
            return self.plan_absent(current)
        volume_type = self.multiattach_type() if self.volume_type else None
        if current is None:
            return self.plan_create(volume_type)
        if volume_type is None and not current.is_multiattach:
            raise ModuleFailure(
                "volume %r exists and is not multiattach (type %r), so only one server can "
                "hold it: give volume_type with a multiattach type to retype it (it must be "
                "available), or manage single-server volumes with openstack.cloud.volume"
                % (current.name, current.volume_type)
            )
        return self.plan_update(current, volume_type)

    def multiattach_type(self):
        if self.checked_type is not None:
            return self.checked_type
        return checked_multiattach_type(self.conn, self.volume_type)

    def plan_create(self, volume_type):
        source = self.source() if self.source_volume else None
        size = self.size if self.size is not None or source is None else source.size
        missing = [
            name
            for name, value in (("size", size), ("volume_type", self.volume_type))
            if value is None
        ]
        if missing:
            raise ModuleFailure(
                "volume %r does not exist, and creating it needs %s"
                % (self.name, " and ".join(missing))
            )
        if source is not None and size < source.size:
            raise ModuleFailure(
                "volume %r would be %d GiB, smaller than its source %s (%d GiB): give a "
                "size of at least %d or none"
                % (self.name, size, source.name or source.id, source.size, source.size)
            )
        after = {
            "size": size,
            "volume_type": volume_type.name,
            "description": self.description,
            "metadata": self.metadata or {},
            "bootable": bool(self.bootable),
            "read_only": bool(self.read_only),
        }
        says = "create volume %s" % self.name + (" from volume %s" % source.id if source else "")
        return Plan(
            None,
            after,
            [Step(says, lambda: self.create(volume_type, size, source))],
            result=dict(volume=dict(after, id=None, name=self.name)),
        )

    def source(self):
        source = find_one_volume(self.conn, self.source_volume)
        if source is None:
            raise ModuleFailure(
                "source_volume %r does not exist: give the name or ID of the "
                "volume to copy" % self.source_volume
            )
        if source.status not in ("available", "in-use"):
            raise ModuleFailure(
                "source_volume %s is %s: Cinder copies a volume that is available "
                "or in-use; wait until it is" % (source.name or source.id, source.status)
            )
        return source

    def create(self, volume_type, size, source):
        storage = self.conn.block_storage
        volume = storage.create_volume(
            name=self.name,
            size=size,
            volume_type=volume_type.id,
            availability_zone=self.availability_zone,
            description=self.description,
            metadata=self.metadata or {},
            **({"source_volume_id": source.id} if source else {}),
        )
        # The flags are set on a created volume only, so these wait also with wait=false.
        if not self.wait and not self.bootable and self.read_only is None:
            return dict(volume=describe_volume(volume))
        try:
            volume = self.wait_for(
                volume.id, lambda v: v.status == "available", "the new volume to become available"
            )
            if self.bootable:
                storage.set_volume_bootable_status(volume, True)
            # A copy takes no flag of its source; false is written too, so that the flag
            # reads as asked.
            if self.read_only is not None:
                storage.set_volume_readonly(volume, bool(self.read_only))
            if self.bootable or self.read_only is not None:
                volume = storage.get_volume(volume.id)
            self.created_volume = volume
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
        return dict(volume=describe_volume(volume))

    def plan_update(self, current, volume_type):
        before = compared(describe_volume(current))
        wanted = {
            "size": self.size,
            "description": self.description,
            "bootable": self.bootable,
            "volume_type": volume_type.name if volume_type else None,
            "read_only": self.read_only,
        }
        fields = changed_fields(before, wanted)
        metadata_to_set = dict_changes(before["metadata"], self.metadata or {})[0]
        if "size" in fields and self.size < before["size"]:
            raise ModuleFailure(
                "volume %r is %d GiB and Cinder cannot shrink a volume: give a "
                "size of at least %d" % (current.name, before["size"], before["size"])
            )
        if "volume_type" in fields and current.status != "available":
            raise ModuleFailure(
                "volume %r is %s and Cinder cannot retype a volume to or from multiattach while "
                "it is attached: detach it from %s first"
                % (current.name, current.status, ", ".join(attached_server_ids(current)) or "-")
            )
        if "read_only" in fields and current.status != "available":
            holders = self.holder_names(current)
            raise ModuleFailure(
                "volume %r is %s and Cinder sets or clears the read-only flag only while a volume "
                "is available%s. Detach it from every server first (multiattach.cloud."
                "volume_attachments with servers: [] and exclusive: true), or leave this volume "
                "as it is and publish a new one (playbooks/publish_dataset.yml), so that no reader "
                "goes without it"
                % (current.name, current.status, ", held by " + holders if holders else "")
            )
        after = dict(before, **{f: wanted[f] for f in fields})
        after["metadata"] = dict(before["metadata"], **metadata_to_set)
        changes = fields + ["metadata"] * bool(metadata_to_set)
        steps = (
            [
                Step(
                    "update volume %s: %s" % (current.name, ", ".join(changes)),
                    lambda: self.update(current, fields, metadata_to_set, volume_type),
                )
            ]
            if changes
            else []
        )
        return Plan(
            before, after, steps, result=dict(volume=dict(describe_volume(current), **after))
        )

    def update(self, current, fields, metadata_to_set, volume_type):
        storage = self.conn.block_storage
        if "description" in fields:
            storage.update_volume(current, description=self.description)
        if metadata_to_set:
            storage.set_volume_metadata(current, **metadata_to_set)
        if "bootable" in fields:
            storage.set_volume_bootable_status(current, self.bootable)
        if "read_only" in fields:
            storage.set_volume_readonly(current, self.read_only)
        if "size" in fields:
            storage.extend_volume(current, self.size)
            if self.wait or "volume_type" in fields:  # Cinder retypes only a volume at rest
                self.wait_for(
                    current.id,
                    lambda v: v.size == self.size and v.status in ("available", "in-use"),
                    "the volume to be extended",
                )
        if "volume_type" in fields:
            storage.retype_volume(current, volume_type.name, migration_policy="never")
            if self.wait:
                self.wait_for(
                    current.id,
                    lambda v: v.volume_type == volume_type.name and v.status == "available",
                    "the volume to be retyped",
                )
        return dict(volume=describe_volume(storage.get_volume(current.id)))

    def wait_for(self, volume_id, condition, what):
        return wait_for_volume(
            self.conn, volume_id, condition, time.time() + self.timeout, what, self.timeout
        )

    def holder_names(self, volume):
        """'NAME, NAME' for the servers that hold VOLUME (IDs for servers these credentials
        cannot see); '' for none."""
        holders = attached_server_ids(volume)
        if not holders:
            return ""
        names = ServerIndex(self.conn).names
        return ", ".join(sorted(names.get(s, s) for s in holders))

    def plan_absent(self, current):
        if current is None:
            return Plan(None, None, result=dict(volume=None))
        if attached_server_ids(current):
            raise ModuleFailure(
                "volume %r is attached to %s: detach it first (multiattach.cloud."
                "volume_attachments with servers: [] and exclusive: true)"
                % (current.name, self.holder_names(current))
            )
        return Plan(
            compared(describe_volume(current)),
            None,
            [Step("delete volume %s" % current.name, lambda: self.delete(current))],
            result=dict(volume=None),
        )

    def delete(self, current):
        self.conn.block_storage.delete_volume(current)
        if self.wait:
            self.conn.block_storage.wait_for_delete(current, wait=self.timeout)
