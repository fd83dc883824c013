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
  - Declares which servers hold a Cinder volume. Servers in I(servers) that
    do not hold it get it attached; with I(exclusive=true), servers that hold
    it and are not listed get it detached. Other servers are left untouched.
  - Attaches with compute API microversion 2.60, the first that lets Nova
    attach a volume that is already C(in-use) on another server.
  - Cinder takes one attach or detach of a volume at a time and refuses a
    concurrent one with HTTP 400 while the volume is C(attaching) or
    C(detaching). The module issues its calls one after another and retries
    exactly those refusals (from other runs) with backoff until I(timeout);
    any other error fails at once.
  - A volume that is not multiattach may be held by one server only, and a plan
    that would give it a second server is refused before any call.
  - A run with nothing to do makes read calls only, and a constant number of
    them whatever the number of servers (the servers are listed once).
  - Sharing a volume is safe only with a cluster filesystem (OCFS2, GFS2) on
    it; an ordinary filesystem written by two servers is lost.
  - Nova's API begins an attach (volume and attachment C(reserved)) or a
    detach (volume C(detaching)) and leaves the rest to the server's compute
    service, which rolls back what fails; a compute service that dies in
    between leaves the volume so, and Cinder then refuses every attach and
    detach of it. Once such a volume has not changed for 120 s, longer than
    any RPC timeout, the module undoes the transition as Nova does, and warns;
    a detach with Cinder's C(roll_detaching) action; an attach (not one of a
    shelved-offloaded server, which stays C(reserved) by design) with an
    admin's reset-status to C(in-use) and Nova's detach of that server. Then
    it makes the wanted call again. Without admin credentials an abandoned
    attach fails the run with the commands an admin runs.
  - While the compute service of a server is down (also in the minute after
    it restarts, until it reports again) Nova refuses to detach with HTTP 409;
    that refusal is retried until I(timeout), then named with the fix.
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
      - An empty list with I(exclusive=true) detaches the volume from every server.
    type: list
    elements: str
    required: true
  exclusive:
    description: Also detach the volume from servers that are not in I(servers).
    type: bool
    default: false
extends_documentation_fragment:
  - multiattach.cloud.openstack
  - multiattach.cloud.openstack.WAIT
attributes:
  check_mode:
    support: full
    description: Reports the servers that would be attached and detached, and calls nothing that changes.
  diff_mode:
    support: full
    description: Shows the servers that hold the volume before and after.
  platform:
    support: full
    platforms: all
    description: Talks to the OpenStack APIs from wherever the module runs.
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
      description: "C(attached), C(detached) or C(unchanged) (in check mode: what would be done)."
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
  description: The volume after the task, with every attachment, as M(multiattach.cloud.volume_info) describes it.
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
          description: "Name of the server; null when the server is not visible to these credentials."
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
          description: "C(rw) or C(ro); null when Cinder does not show the attachment."
          type: str
          returned: always
        attached_at:
          description: "When the attachment was made."
          type: str
          returned: always
"""

from ansible_collections.multiattach.cloud.plugins.module_utils.attachments import (
    AttachmentChange)
from ansible_collections.multiattach.cloud.plugins.module_utils.base import MultiattachModule


class VolumeAttachmentsModule(MultiattachModule):
    argument_spec = dict(
        volume=dict(type="str", required=True),
        servers=dict(type="list", elements="str", required=True),
        exclusive=dict(type="bool", default=False),
    )
    module_kwargs = dict(supports_check_mode=True)
    wait_options = True

    def run(self):
        change = AttachmentChange(self.conn, self.params["volume"])
        names = change.index.names
        wanted = sorted(set(change.index.resolve(self.params["servers"]).values()))
        change.plan(wanted, self.params["exclusive"])
        change.carry_out(self.check_mode, self.params["timeout"], self.params["wait"])
        for warning in change.warnings:
            self.ansible.warn(warning)
        actions = dict([(s, "unchanged") for s in wanted if s in change.attached]
                       + [(s, "attached") for s in change.to_attach]
                       + [(s, "detached") for s in change.to_detach])
        self.exit(
            changed=change.changed, diff=change.diff(),
            servers=[{"server_id": s, "server_name": names.get(s), "action": a}
                     for s, a in sorted(actions.items())],
            attached=change.to_attach, detached=change.to_detach,
            volume=change.described_volume())


def main():
    VolumeAttachmentsModule()()


if __name__ == "__main__":
    main()
