#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: volume
short_description: Create, update or delete a Cinder volume of a multiattach type
version_added: 0.1.0
description:
  - Manages a Cinder volume that several servers may attach at once. Its
    volume type must carry the extra spec C(multiattach=<is> True); a type
    without it is refused.
  - The volume is found by name; two volumes with the name are a failure that
    lists their IDs.
  - A larger I(size) extends the volume where Cinder allows it; a smaller one
    is refused. A change of I(volume_type) retypes an C(available) volume and
    is refused, before any call, while the volume is C(in-use) (Cinder cannot
    retype to or from multiattach then).
  - I(state=absent) is refused while servers hold the volume, naming them.
  - A volume that goes to C(error) while being created is deleted again, so no
    half-made volume is left behind. With I(wait=false) the module returns as
    soon as Cinder accepted the request (status C(creating), C(extending) or
    C(retyping)) and that clean-up is the caller's; a new volume with
    I(bootable=true) is still waited for, as Cinder marks only a created
    volume bootable.
  - An existing volume whose type is not multiattach is refused unless
    I(volume_type) names a multiattach type to retype it to; this module
    manages only volumes that several servers may hold.
author:
  - multiattach.cloud developers (@multiattach)
options:
  name:
    description: Name of the volume.
    type: str
    required: true
  size:
    description: Size in GiB. Needed to create the volume.
    type: int
  volume_type:
    description:
      - Name or ID of a volume type with C(multiattach=<is> True) (see
        M(multiattach.cloud.volume_type)). Needed to create the volume.
    type: str
  availability_zone:
    description: Availability zone to create the volume in. Not changed afterwards.
    type: str
  description:
    description: Description of the volume.
    type: str
  metadata:
    description: Metadata to set; keys not named are left alone.
    type: dict
  bootable:
    description:
      - Whether the volume is bootable. Attaching a bootable multiattach volume
        needs the Cinder policy rule C(volume:multiattach_bootable_volume).
    type: bool
  state:
    description: C(present) or C(absent).
    type: str
    choices: [present, absent]
    default: present
extends_documentation_fragment:
  - multiattach.cloud.openstack
  - multiattach.cloud.openstack.WAIT
attributes:
  check_mode:
    support: full
    description: Reports what would change and changes nothing.
  diff_mode:
    support: full
    description: Shows the volume's size, type, description, metadata and bootable flag before and after.
  platform:
    support: full
    platforms: all
    description: Talks to the OpenStack APIs from wherever the module runs.
"""

EXAMPLES = r"""
- name: A 100 GiB volume for the cluster filesystem
  multiattach.cloud.volume:
    cloud: mycloud
    name: cluster-data
    size: 100
    volume_type: multiattach

- name: Grow it
  multiattach.cloud.volume:
    cloud: mycloud
    name: cluster-data
    size: 200
"""

RETURN = r"""
volume:
  description: The volume after the task (in check mode, as it would be); null when absent.
  returned: always
  type: dict
  contains:
    id:
      description: "Volume ID."
      type: str
      returned: always
    name:
      description: "Volume name."
      type: str
      returned: always
    status:
      description: "Volume status (available, in-use, attaching, ...)."
      type: str
      returned: always
    size:
      description: "Size in GiB."
      type: int
      returned: always
    multiattach:
      description: "Whether several servers may attach it at once."
      type: bool
      returned: always
    volume_type:
      description: "Name of the volume type."
      type: str
      returned: always
    bootable:
      description: "Whether the volume is bootable."
      type: bool
      returned: always
    availability_zone:
      description: "Availability zone."
      type: str
      returned: always
    description:
      description: "Volume description."
      type: str
      returned: always
    metadata:
      description: "Volume metadata."
      type: dict
      returned: always
    attachments:
      description: One entry per server that holds the volume.
      type: list
      elements: dict
      returned: always
      contains:
        attachment_id:
          description: "Cinder attachment ID."
          type: str
          returned: always
        server_id:
          description: "ID of the server."
          type: str
          returned: always
        server_name:
          description: "Name of the server; null here: this module does not list servers (see M(multiattach.cloud.volume_info))."
          type: str
          returned: always
        host_name:
          description: "Compute host of the server."
          type: str
          returned: always
        device:
          description: "Device name in the guest as Nova reported it."
          type: str
          returned: always
        attach_mode:
          description: "Null here: this module does not list attachments (see M(multiattach.cloud.volume_info))."
          type: str
          returned: always
        attached_at:
          description: "When the attachment was made."
          type: str
          returned: always
"""

import time

from ansible_collections.multiattach.cloud.plugins.module_utils.attachments import (
    ServerIndex, attached_server_ids)
from ansible_collections.multiattach.cloud.plugins.module_utils.base import MultiattachModule
from ansible_collections.multiattach.cloud.plugins.module_utils.compare import (
    changed_fields, dict_changes, diff)
from ansible_collections.multiattach.cloud.plugins.module_utils.errors import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.volume_types import (
    find_type, is_multiattach_type, readable_encryption_of)
from ansible_collections.multiattach.cloud.plugins.module_utils.volumes import (
    describe_volume, find_one_volume, wait_for_volume)

COMPARED = ("size", "volume_type", "description", "metadata", "bootable")


def compared(described):
    return {name: described[name] for name in COMPARED}


class VolumeModule(MultiattachModule):
    argument_spec = dict(
        name=dict(type="str", required=True),
        size=dict(type="int"),
        volume_type=dict(type="str"),
        availability_zone=dict(type="str"),
        description=dict(type="str"),
        metadata=dict(type="dict"),
        bootable=dict(type="bool"),
        state=dict(type="str", default="present", choices=["present", "absent"]),
    )
    module_kwargs = dict(supports_check_mode=True)
    wait_options = True

    def run(self):
        if self.params["size"] is not None and self.params["size"] < 1:
            raise ModuleFailure("size must be at least 1 (GiB), not %d" % self.params["size"])
        current = find_one_volume(self.conn, self.params["name"])
        if self.params["state"] == "absent":
            self.absent(current)
        volume_type = self.multiattach_type() if self.params["volume_type"] else None
        if current is None:
            self.create(volume_type)
        if volume_type is None and not current.is_multiattach:
            raise ModuleFailure(
                "volume %r exists and is not multiattach (type %r), so only one server can "
                "hold it: give volume_type with a multiattach type to retype it (it must be "
                "available), or manage single-server volumes with openstack.cloud.volume"
                % (current.name, current.volume_type))
        self.update(current, volume_type)

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
            self.exit(changed=True, diff=diff(None, after), volume=dict(after, id=None,
                                                                        name=self.params["name"]))
        storage = self.conn.block_storage
        volume = storage.create_volume(
            name=self.params["name"], size=self.params["size"], volume_type=volume_type.id,
            availability_zone=self.params["availability_zone"],
            description=self.params["description"], metadata=self.params["metadata"] or {})
        if not self.params["wait"] and not self.params["bootable"]:
            self.exit(changed=True, diff=diff(None, after), volume=describe_volume(volume))
        try:
            volume = self.wait_for(volume.id, lambda v: v.status == "available",
                                   "the new volume to become available")
            if self.params["bootable"]:
                storage.set_volume_bootable_status(volume, True)
                volume = storage.get_volume(volume.id)
        except Exception:
            # No half-made volume is left behind.
            storage.delete_volume(volume, ignore_missing=True)
            raise
        self.exit(changed=True, diff=diff(None, after), volume=describe_volume(volume))

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
        self.exit(changed=changed, diff=diff(before, after),
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
            self.exit(changed=False, diff=diff(None, None), volume=None)
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
        self.exit(changed=True, diff=diff(compared(describe_volume(current)), None), volume=None)


def main():
    VolumeModule()()


if __name__ == "__main__":
    main()
