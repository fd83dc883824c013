#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: volume_info
short_description: List Cinder volumes with their attachments, multiattach ones first of all
version_added: 0.1.0
description:
  - Lists Cinder volumes by name, ID or filter, each with its multiattach flag,
    type, status and size, and every attachment with the server's ID and name,
    the compute host, the device, the attachment ID, the attach mode and the
    time it was attached.
  - Reads only; never changes the cloud.
author:
  - multiattach.cloud developers (@multiattach)
options:
  name:
    description:
      - Name or ID of the volume to show. Without it, every volume that
        matches the other options is listed.
    type: str
  multiattach_only:
    description:
      - List only volumes whose RV(volumes[].multiattach) flag is true.
    type: bool
    default: false
  status:
    description:
      - List only volumes with this status, for example V(in-use).
    type: str
  all_projects:
    description:
      - List the volumes of every project (needs an admin role).
    type: bool
    default: false
seealso:
  - {module: "multiattach.cloud.volume_attachments", description: "change which servers hold a volume"}
  - {module: "multiattach.cloud.volume", description: "create or change a volume"}
  - {name: "Cinder block storage API v3", link: "https://docs.openstack.org/api-ref/block-storage/v3/", description: "its reference"}
extends_documentation_fragment:
  - multiattach.cloud.openstack.INFO
"""

EXAMPLES = r"""
- name: Show where the shared volume is attached
  multiattach.cloud.volume_info:
    cloud: mycloud
    name: shared-data
  register: shared

- name: Print the servers that hold it
  ansible.builtin.debug:
    msg: "{{ shared.volumes[0].attachments | map(attribute='server_name') | list }}"

- name: List every multiattach volume in use, in all projects
  multiattach.cloud.volume_info:
    cloud: mycloud-admin
    multiattach_only: true
    status: in-use
    all_projects: true
"""

RETURN = r"""
volumes:
  description: The volumes found; an empty list when none matches.
  returned: always
  type: list
  elements: dict
  sample:
    - id: 5bd8c3a0-8e4b-4c2b-9a53-2d7d0e1f6a11
      name: shared-data
      status: in-use
      size: 10
      multiattach: true
      volume_type: multiattach-rbd-1
      bootable: false
      read_only: false
      availability_zone: nova
      description: null
      metadata: {}
      attachments:
      - attachment_id: 8a1e9f3c-2b7d-4c1e-9f0a-6d5c4b3a2f10
        server_id: 0f4c1e9a-6b2d-4f7e-8a3c-1d2e3f4a5b6c
        server_name: db-1
        host_name: compute-1
        device: /dev/vdb
        attach_mode: rw
        attached_at: '2026-11-25T10:14:03.000000'
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
    read_only:
      description:
        - "Cinder's read-only flag: every attachment made while it is set gets access mode C(ro),
          a C(<readonly/>) disk in the guest. Cinder also shows it as the metadata key C(readonly)."
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
      sample: {"purpose": "cluster data"}
      returned: always
    attachments:
      description: One entry per server that holds the volume.
      type: list
      elements: dict
      sample: [{"server_name": "db-1", "host_name": "compute-1", "device": "/dev/vdb", "attach_mode": "rw"}]
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
          description:
            - "Name of the server; null when the server is not visible to these credentials."
            - "Also the name of a deleted server whose attachment outlived it (Nova lists deleted
              servers to their own project); M(multiattach.cloud.server_volume) removes such an
              attachment."
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
          description:
            - "The mode the server was given, C(rw) or C(ro): the C(access_mode) of the attachment's
              connection, which Nova's libvirt driver turns into C(<readonly/>). Null while no
              connection is made (the attachment reserved or attaching) or Cinder does not show it."
            - "Not the attachment record's own C(attach_mode): Cinder leaves that C(ro) for a
              volume whose read-only flag was ever set, also after it was cleared."
          type: str
          returned: always
        attached_at:
          description: "When the attachment was made."
          type: str
          returned: always
"""

from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.module import (
    OpenStackModule,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volumes import (
    VolumesReading,
)


class VolumeInfoModule(OpenStackModule):
    argument_spec = dict(
        name=dict(type="str"),
        multiattach_only=dict(type="bool", default=False),
        status=dict(type="str"),
        all_projects=dict(type="bool", default=False),
    )
    job = VolumesReading


def main():
    VolumeInfoModule()()


if __name__ == "__main__":
    main()
