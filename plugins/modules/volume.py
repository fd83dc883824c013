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
  - A larger O(size) extends the volume where Cinder allows it; a smaller one
    is refused. A change of O(volume_type) retypes an V(available) volume and
    is refused, before any call, while the volume is V(in-use) (Cinder cannot
    retype to or from multiattach then).
  - O(state=absent) is refused while servers hold the volume, naming them.
  - A volume that goes to V(error) while being created is deleted again, so no
    half-made volume is left behind. With O(wait=false) the module returns as
    soon as Cinder accepted the request (status V(creating), C(extending) or
    C(retyping)) and that clean-up is the caller's; a new volume with
    O(bootable=true) is still waited for, as Cinder marks only a created
    volume bootable.
  - O(read_only) sets or clears Cinder's read-only flag. Cinder changes it only while the
    volume is V(available); a change while servers hold it is refused before any call,
    naming them. Every attachment made while the flag is set is read-only; Nova's libvirt
    driver gives the servers a C(<readonly/>) disk. A dataset written once and read by many
    servers needs no cluster filesystem this way (see C(playbooks/publish_dataset.yml)).
  - An existing volume whose type is not multiattach is refused unless
    O(volume_type) names a multiattach type to retype it to; this module
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
  read_only:
    description:
      - Whether the volume is read-only for every server that attaches it (Cinder's
        C(os-update_readonly_flag); Cinder shows it as the metadata key C(readonly)).
      - Set or cleared only while the volume is V(available); a change while it is attached
        is refused, naming the servers that hold it.
      - Unset leaves the flag as it is. A new volume made with it waits until it is
        V(available), also with O(wait=false), since Cinder flags only a volume at rest.
    type: bool
  source_volume:
    description:
      - Name or ID of a volume to copy into the new volume (Cinder's clone; on RBD a
        copy-on-write clone). Used only when the volume is created; O(size) defaults to the
        source's size and may not be smaller.
      - The copy does not take the source's read-only flag; give O(read_only) for it.
      - The source may be attached (V(in-use)); the copy then holds what was written to the disk
        at that moment, so stop the writers or unmount first for a consistent filesystem.
    type: str
  state:
    description: V(present) or V(absent).
    type: str
    choices: [present, absent]
    default: present
seealso:
  - {module: "multiattach.cloud.volume_type", description: "the multiattach volume type a volume is created with"}
  - {module: "multiattach.cloud.volume_attachments", description: "the servers that hold the volume"}
  - {module: "multiattach.cloud.volume_info", description: "what the modules return of a volume"}
  - {name: "Cinder", link: "https://docs.openstack.org/cinder/latest/admin/volume-multiattach.html", description: "volume multi-attach, enable and use"}
  - {name: "Cinder block storage API v3", link: "https://docs.openstack.org/api-ref/block-storage/v3/", description: "its reference"}
extends_documentation_fragment:
  - multiattach.cloud.openstack.CHANGES_WITH_WAIT
attributes:
  diff_mode:
    details: Shows the volume's size, type, description, metadata, bootable and read-only flags before and after.
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

- name: Version 2 of a dataset, a copy of version 1, to be written by one server
  multiattach.cloud.volume:
    cloud: mycloud
    name: reference-data-v2
    source_volume: reference-data-v1
    volume_type: multiattach
    read_only: false

- name: Make it read-only before the readers attach it
  multiattach.cloud.volume:
    cloud: mycloud
    name: reference-data-v2
    read_only: true
"""

RETURN = r"""
volume:
  description:
    - The volume after the task (null once deleted), as M(multiattach.cloud.volume_info) returns
      each of its C(volumes); each key is documented there. In check mode, what it would be.
  returned: always
  type: dict
  sample: {"id": "5bd8c3a0-8e4b-4c2b-9a53-2d7d0e1f6a11", "name": "shared-data", "status": "available", "multiattach": true,
           "read_only": false, "attachments": []}
"""

from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.module import (
    OpenStackModule,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volume_change import (
    VolumeChange,
)


class VolumeModule(OpenStackModule):
    argument_spec = dict(
        name=dict(type="str", required=True),
        size=dict(type="int"),
        volume_type=dict(type="str"),
        availability_zone=dict(type="str"),
        description=dict(type="str"),
        metadata=dict(type="dict"),
        bootable=dict(type="bool"),
        read_only=dict(type="bool"),
        source_volume=dict(type="str"),
        state=dict(type="str", default="present", choices=["present", "absent"]),
    )
    wait_options = True
    job = VolumeChange


def main():
    VolumeModule()()


if __name__ == "__main__":
    main()
