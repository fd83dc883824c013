#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: volume_attachments
short_description: Make a set of servers hold one multiattach volume
version_added: 0.1.0
description:
  - Declares which servers hold a Cinder volume. Servers in O(servers) that
    do not hold it get it attached; with O(exclusive=true), servers that hold
    it and are not listed get it detached. Other servers are left untouched.
  - Attaches with compute API microversion 2.60, the first that lets Nova
    attach a volume that is already V(in-use) on another server.
  - Cinder takes one attach or detach of a volume at a time and refuses a
    concurrent one with HTTP 400 while the volume is V(attaching) or
    V(detaching). The module asks for two or more detaches at once (a few
    threads, each retrying Nova's refusal soon, so the next detach is taken as
    soon as Cinder ends the last) and sends an attach once the volume's status
    says Cinder takes it, retries exactly those refusals (the last call not
    ended yet, other runs' calls) with backoff until O(timeout), and waits once
    for the whole set; any other error fails at once.
  - A volume that is not multiattach may be held by one server only, and a plan
    that would give it a second server is refused before any call.
  - A volume in status V(error), V(maintenance) or V(error_*) that needs an attach
    or detach fails at once, naming the status and what to do; Cinder takes neither
    in those statuses. One that needs no change is left alone with a warning.
  - A run with nothing to do makes read calls only, and a constant number of
    them whatever the number of servers (the servers are listed once).
  - Sharing a volume is safe only with a cluster filesystem (OCFS2, GFS2) on
    it; an ordinary filesystem written by two servers is lost.
author:
  - multiattach.cloud developers (@multiattach)
options:
  volume:
    description: Name or ID of the volume.
    type: str
    required: true
  servers:
    description:
      - Names or IDs of the servers that must hold the volume.
      - An empty list with O(exclusive=true) detaches the volume from every server.
    type: list
    elements: str
    required: true
  exclusive:
    description: Also detach the volume from servers that are not in O(servers).
    type: bool
    default: false
seealso:
  - {module: "multiattach.cloud.server_volume", description: "one server's attachment"}
  - {module: "multiattach.cloud.volume_info", description: "the keys of the volume returned"}
  - {module: "openstack.cloud.server_volume", description: "refuses a volume that is in-use: no second server"}
  - {name: "Nova", link: "https://docs.openstack.org/nova/latest/admin/manage-volumes.html", description: "manage volumes, volume multi-attach"}
  - {name: "Nova API", link: "https://docs.openstack.org/api-ref/compute/#servers-with-volume-attachments-servers-os-volume-attachments", description: "2.60"}
extends_documentation_fragment:
  - multiattach.cloud.attachments
attributes:
  check_mode:
    details: Reports the servers that would be attached and detached, and calls nothing that changes.
"""

EXAMPLES = r"""
- name: Share the cluster volume with every node of the group
  multiattach.cloud.volume_attachments:
    cloud: mycloud
    volume: cluster-data
    servers: "{{ groups['cluster'] }}"

- name: Exactly these two servers hold the volume; detach it from any other
  multiattach.cloud.volume_attachments:
    cloud: mycloud
    volume: cluster-data
    servers: [node1, node2]
    exclusive: true
"""

RETURN = r"""
servers:
  description: One entry per server that was attached, detached or already held the volume and was asked for.
  returned: always
  type: list
  elements: dict
  sample:
    - server_id: 0f4c1e9a-6b2d-4f7e-8a3c-1d2e3f4a5b6c
      server_name: db-1
      action: unchanged
    - server_id: 7d2a9c4e-1f3b-4a5d-9e8c-2b1a0f9e8d7c
      server_name: db-2
      action: attached
  contains:
    server_id:
      description: Server ID.
      type: str
      returned: always
    server_name:
      description: Server name.
      type: str
      returned: always
    action:
      description: "RV(attached), RV(detached) or V(unchanged) (in check mode: what would be done)."
      type: str
      returned: always
attached:
  description: IDs of the servers the volume was (or would be) attached to.
  returned: always
  type: list
  elements: str
detached:
  description: IDs of the servers the volume was (or would be) detached from.
  returned: always
  type: list
  elements: str
volume:
  description:
    - The volume once the servers that hold it are as wanted, every attachment included, as
      M(multiattach.cloud.volume_info) returns it (the keys are documented there).
  returned: always
  type: dict
  sample: {"id": "5bd8c3a0-8e4b-4c2b-9a53-2d7d0e1f6a11", "status": "in-use", "multiattach": true, "attachments": [{"server_name": "db-2"}]}
"""

from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.attachments import (
    ATTACHMENT_ARGUMENT_SPEC,
    VolumeAttachmentsChange,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.module import (
    OpenStackModule,
)


class VolumeAttachmentsModule(OpenStackModule):
    argument_spec = dict(
        volume=dict(type="str", required=True),
        servers=dict(type="list", elements="str", required=True),
        exclusive=dict(type="bool", default=False),
        **ATTACHMENT_ARGUMENT_SPEC,
    )
    wait_options = True
    job = VolumeAttachmentsChange


def main():
    VolumeAttachmentsModule()()


if __name__ == "__main__":
    main()
