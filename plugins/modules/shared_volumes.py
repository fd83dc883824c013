#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: shared_volumes
short_description: Several multiattach volumes, each made and held by its own servers, at once
version_added: 0.2.0
description:
  - Declares several shared volumes, one per cluster. Each entry of O(volumes) is a
    multiattach volume (created if missing, as M(multiattach.cloud.volume) does) held by
    its servers (attached as M(multiattach.cloud.volume_attachments) does).
  - Cinder takes one attach or detach of a volume at a time but works different volumes
    side by side, so each volume is worked in a thread of its own (up to 10 at once) in
    this one module run. This is the fast way to provision many clusters, where a task per
    volume, even in forks, pays the module's start-up for each.
  - Nothing is changed unless every entry can be planned. The servers are listed once and
    every entry's servers resolved; every volume is read and planned (its type must exist
    and be multiattach without encryption; an existing volume's size may only grow). A
    problem with any entry fails the run naming every such entry, and no volume is made.
  - A failure while volumes are being made or attached leaves the other volumes' work
    done; the run fails naming each volume that failed and why, and returns every
    volume's result. A new volume that goes to V(error) is deleted again.
  - Sharing a volume is safe only with a cluster filesystem (OCFS2, GFS2) on it; an
    ordinary filesystem written by two servers is lost.
author:
  - multiattach.cloud developers (@multiattach)
options:
  volumes:
    description: The shared volumes, each with the servers that must hold it.
    type: list
    elements: dict
    required: true
    suboptions:
      name:
        description: Name of the volume; each name once in the list.
        type: str
        required: true
      size:
        description: Size in GiB. Needed to create the volume; a larger one extends it.
        type: int
      volume_type:
        description:
          - Name or ID of a volume type with C(multiattach=<is> True). Needed to create the
            volume; a different one retypes an V(available) volume.
        type: str
      servers:
        description:
          - Names or IDs of the servers that must hold the volume.
          - An empty list with O(volumes[].exclusive=true) detaches the volume from every server.
        type: list
        elements: str
        required: true
      exclusive:
        description: Also detach the volume from servers that are not in O(volumes[].servers).
        type: bool
        default: false
seealso:
  - {module: "multiattach.cloud.volume", description: "one volume, every option (metadata, read-only flag, a copy of another)"}
  - {module: "multiattach.cloud.volume_attachments", description: "the servers that hold one volume"}
  - {module: "multiattach.cloud.volume_info", description: "the keys of the volumes returned"}
  - {name: "Cinder", link: "https://docs.openstack.org/cinder/latest/admin/volume-multiattach.html", description: "volume multi-attach"}
extends_documentation_fragment:
  - multiattach.cloud.attachments
attributes:
  check_mode:
    details: >-
      Reports the volumes that would be made and the servers that would be attached and
      detached, and calls nothing that changes. A volume still to be made is reported with
      C(id) null and every server listed as attached.
  diff_mode:
    details: Shows, per volume by name, its size and type and the servers that hold it, before and after.
"""

EXAMPLES = r"""
- name: One shared volume per cluster, all provisioned at once
  multiattach.cloud.shared_volumes:
    cloud: mycloud
    volumes:
      - name: db-data
        size: 100
        volume_type: multiattach
        servers: "{{ groups['db_nodes'] }}"
      - name: web-data
        size: 20
        volume_type: multiattach
        servers: [web-1, web-2, web-3]
        exclusive: true
  register: provisioned

- name: Each volume's ID, by name
  ansible.builtin.debug:
    msg: "{{ provisioned.volumes | items2dict(key_name='name', value_name='volume') }}"
"""

RETURN = r"""
volumes:
  description:
    - One entry per entry of O(volumes), in the same order. C(volume), C(servers),
      C(attached) and C(detached) are as M(multiattach.cloud.volume_attachments) returns
      them for that volume.
  returned: always
  type: list
  elements: dict
  sample:
    - name: db-data
      changed: true
      created: true
      volume: {"id": "5bd8c3a0-8e4b-4c2b-9a53-2d7d0e1f6a11", "status": "in-use", "multiattach": true}
      servers: [{"server_id": "0f4c1e9a-6b2d-4f7e-8a3c-1d2e3f4a5b6c", "server_name": "db-1", "action": "attached"}]
      attached: [0f4c1e9a-6b2d-4f7e-8a3c-1d2e3f4a5b6c]
      detached: []
  contains:
    name:
      description: The volume's name, as listed.
      type: str
      returned: always
    changed:
      description: Whether this volume was (or would be) made, extended, retyped, attached or detached.
      type: bool
      returned: always
    created:
      description: Whether the volume was (or would be) made by this run.
      type: bool
      returned: success
    volume:
      description: The volume once its servers hold it, as M(multiattach.cloud.volume_info) returns it.
      type: dict
      returned: success
      sample: {"id": "5bd8c3a0-8e4b-4c2b-9a53-2d7d0e1f6a11", "status": "in-use", "attachments": [{"server_name": "db-1"}]}
    servers:
      description: The servers attached, detached or already holding the volume, each with C(server_id), C(server_name) and C(action).
      type: list
      elements: dict
      returned: success
      sample: [{"server_id": "0f4c1e9a-6b2d-4f7e-8a3c-1d2e3f4a5b6c", "server_name": "db-1", "action": "unchanged"}]
    attached:
      description: IDs of the servers the volume was (or would be) attached to.
      type: list
      elements: str
      returned: success
    detached:
      description: IDs of the servers the volume was (or would be) detached from.
      type: list
      elements: str
      returned: success
    failed:
      description: True for a volume whose work failed (the run fails too).
      type: bool
      returned: when the volume failed
    msg:
      description: Why the volume's work failed.
      type: str
      returned: when the volume failed
"""

from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.attachments import (
    ATTACHMENT_ARGUMENT_SPEC,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.module import (
    OpenStackModule,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.shared_volumes import (
    SharedVolumesChange,
)


class SharedVolumesModule(OpenStackModule):
    argument_spec = dict(
        volumes=dict(
            type="list",
            elements="dict",
            required=True,
            options=dict(
                name=dict(type="str", required=True),
                size=dict(type="int"),
                volume_type=dict(type="str"),
                servers=dict(type="list", elements="str", required=True),
                exclusive=dict(type="bool", default=False),
            ),
        ),
        **ATTACHMENT_ARGUMENT_SPEC,
    )
    wait_options = True
    job = SharedVolumesChange


def main():
    SharedVolumesModule()()


if __name__ == "__main__":
    main()
