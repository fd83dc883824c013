# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One multiattach volume toward the volume module's options."""

from __future__ import annotations

import time

from ansible_collections.multiattach.cloud.plugins.module_utils.change import Change, Plan, Step
from ansible_collections.multiattach.cloud.plugins.module_utils.compare import changed_fields, dict_changes
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.errors import describe_error, is_anticipated
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.servers import ServerIndex
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volume_types import find_type, is_multiattach_type, readable_encryption_of
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volumes import attached_server_ids, describe_volume, find_one_volume
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volumes import remove_half_made, wait_for_volume


COMPARED = ("size", "volume_type", "description", "metadata", "bootable")


def compared(described):
    return {name: described[name] for name in COMPARED}


class VolumeChange(Change):
    """Create, update or delete one volume of a multiattach type; wait when asked."""

    def __init__(self, conn, *, name, size, volume_type, availability_zone, description,
                 metadata, bootable, state, wait, timeout):
        if size is not None and size < 1:
            raise ModuleFailure("size must be at least 1 (GiB), not %d" % size)
        self.conn = conn
        self.name = name
        self.size = size
        self.volume_type = volume_type
        self.availability_zone = availability_zone
        self.description = description
        self.metadata = metadata
        self.bootable = bootable
        self.state = state
        self.wait = wait
        self.timeout = timeout

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
                % (current.name, current.volume_type))
        return self.plan_update(current, volume_type)

    def multiattach_type(self):
        volume_type = find_type(self.conn, self.volume_type)
        if volume_type is None:
            raise ModuleFailure("volume type %r does not exist: create it with "
                                "multiattach.cloud.volume_type" % self.volume_type)
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

    def plan_create(self, volume_type):
        missing = [name for name, value in (("size", self.size), ("volume_type", self.volume_type))
                   if value is None]
        if missing:
            raise ModuleFailure("volume %r does not exist, and creating it needs %s"
                                % (self.name, " and ".join(missing)))
        after = {"size": self.size, "volume_type": volume_type.name,
                 "description": self.description, "metadata": self.metadata or {},
                 "bootable": bool(self.bootable)}
        return Plan(None, after, [Step("create volume %s" % self.name,
                                       lambda: self.create(volume_type))],
                    result=dict(volume=dict(after, id=None, name=self.name)))

    def create(self, volume_type):
        storage = self.conn.block_storage
        volume = storage.create_volume(
            name=self.name, size=self.size, volume_type=volume_type.id,
            availability_zone=self.availability_zone, description=self.description,
            metadata=self.metadata or {})
        if not self.wait and not self.bootable:
            return dict(volume=describe_volume(volume))
        try:
            volume = self.wait_for(volume.id, lambda v: v.status == "available",
                                   "the new volume to become available")
            if self.bootable:
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
        return dict(volume=describe_volume(volume))

    def plan_update(self, current, volume_type):
        before = compared(describe_volume(current))
        wanted = {"size": self.size, "description": self.description, "bootable": self.bootable,
                  "volume_type": volume_type.name if volume_type else None}
        fields = changed_fields(before, wanted)
        metadata_to_set = dict_changes(before["metadata"], self.metadata or {})[0]
        if "size" in fields and self.size < before["size"]:
            raise ModuleFailure("volume %r is %d GiB and Cinder cannot shrink a volume: give a "
                                "size of at least %d" % (current.name, before["size"], before["size"]))
        if "volume_type" in fields and current.status != "available":
            raise ModuleFailure(
                "volume %r is %s and Cinder cannot retype a volume to or from multiattach while "
                "it is attached: detach it from %s first"
                % (current.name, current.status, ", ".join(attached_server_ids(current)) or "-"))
        after = dict(before, **{f: wanted[f] for f in fields})
        after["metadata"] = dict(before["metadata"], **metadata_to_set)
        changes = fields + ["metadata"] * bool(metadata_to_set)
        steps = [Step("update volume %s: %s" % (current.name, ", ".join(changes)),
                      lambda: self.update(current, fields, metadata_to_set, volume_type))] if changes else []
        return Plan(before, after, steps, result=dict(volume=dict(describe_volume(current), **after)))

    def update(self, current, fields, metadata_to_set, volume_type):
        storage = self.conn.block_storage
        if "description" in fields:
            storage.update_volume(current, description=self.description)
        if metadata_to_set:
            storage.set_volume_metadata(current, **metadata_to_set)
        if "bootable" in fields:
            storage.set_volume_bootable_status(current, self.bootable)
        if "size" in fields:
            storage.extend_volume(current, self.size)
            if self.wait or "volume_type" in fields:  # Cinder retypes only a volume at rest
                self.wait_for(current.id, lambda v: v.size == self.size
                              and v.status in ("available", "in-use"), "the volume to be extended")
        if "volume_type" in fields:
            storage.retype_volume(current, volume_type.name, migration_policy="never")
            if self.wait:
                self.wait_for(current.id, lambda v: v.volume_type == volume_type.name
                              and v.status == "available", "the volume to be retyped")
        return dict(volume=describe_volume(storage.get_volume(current.id)))

    def wait_for(self, volume_id, condition, what):
        return wait_for_volume(self.conn, volume_id, condition, time.time() + self.timeout, what,
                               self.timeout)

    def plan_absent(self, current):
        if current is None:
            return Plan(None, None, result=dict(volume=None))
        holders = attached_server_ids(current)
        if holders:
            names = ServerIndex(self.conn).names
            raise ModuleFailure(
                "volume %r is attached to %s: detach it first (multiattach.cloud."
                "volume_attachments with servers: [] and exclusive: true)"
                % (current.name, ", ".join(sorted(names.get(s, s) for s in holders))))
        return Plan(compared(describe_volume(current)), None,
                    [Step("delete volume %s" % current.name, lambda: self.delete(current))],
                    result=dict(volume=None))

    def delete(self, current):
        self.conn.block_storage.delete_volume(current)
        if self.wait:
            self.conn.block_storage.wait_for_delete(current, wait=self.timeout)
