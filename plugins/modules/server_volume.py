#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: server_volume
short_description: Attach a volume to one server, or detach it, also when other servers hold it
version_added: 0.1.0
description:
  - Attaches a Cinder volume to one server with compute API microversion
    2.60, so a multiattach volume that is already C(in-use) on other servers
    is attached too (C(openstack.cloud.server_volume) refuses that).
  - Detaches only this server's attachment and waits for that attachment to
    go, not for the volume to become C(available), which never happens while
    other servers hold it.
  - A second server on a volume that is not multiattach is refused before any
    call. Concurrent attaches of the same volume by other runs are waited out
    (Cinder takes one at a time), see M(multiattach.cloud.volume_attachments).
notes:
  - For several servers use M(multiattach.cloud.volume_attachments) in one
    task instead of this module in a loop. Each loop item is a new Python
    process that imports openstacksdk, signs in and discovers the API versions
    again, about 1.5 s per server on top of the attach itself on the local
    cloud; one task pays that once (see docs/benchmarks.md).
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
  server:
    description: Name or ID of the server.
    type: str
    required: true
  volume:
    description: Name or ID of the volume.
    type: str
    required: true
  device:
    description:
      - Device name to ask for, for example C(/dev/vdb). Most hypervisors
        ignore it; the guest's device name is not guaranteed.
    type: str
  state:
    description: C(present) attaches, C(absent) detaches this server's attachment only.
    type: str
    choices: [present, absent]
    default: present
extends_documentation_fragment:
  - multiattach.cloud.openstack
  - multiattach.cloud.openstack.WAIT
attributes:
  check_mode:
    support: full
    description: Reports whether the volume would be attached or detached and changes nothing.
  diff_mode:
    support: full
    description: Shows the servers that hold the volume before and after.
  platform:
    support: full
    platforms: all
    description: Talks to the OpenStack APIs from wherever the module runs.
"""

EXAMPLES = r"""
- name: Attach the shared volume to this node (others keep it)
  multiattach.cloud.server_volume:
    cloud: mycloud
    server: "{{ inventory_hostname }}"
    volume: cluster-data

- name: Detach it from this node only
  multiattach.cloud.server_volume:
    cloud: mycloud
    server: "{{ inventory_hostname }}"
    volume: cluster-data
    state: absent
"""

RETURN = r"""
attachment:
  description: This server's attachment after the task; null when detached (or in check mode before it exists).
  returned: always
  type: dict
  contains:
    attachment_id:
      description: Cinder attachment ID.
      type: str
      returned: always
    server_id:
      description: Server ID.
      type: str
      returned: always
    server_name:
      description: Server name.
      type: str
      returned: always
    host_name:
      description: Compute host of the server.
      type: str
      returned: always
    device:
      description: Device name as Nova reported it.
      type: str
      returned: always
    attach_mode:
      description: C(rw) or C(ro), as Cinder records the attachment.
      type: str
      returned: always
    attached_at:
      description: When the attachment was made.
      type: str
      returned: always
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


class ServerVolumeModule(MultiattachModule):
    argument_spec = dict(
        server=dict(type="str", required=True),
        volume=dict(type="str", required=True),
        device=dict(type="str"),
        state=dict(type="str", default="present", choices=["present", "absent"]),
    )
    module_kwargs = dict(supports_check_mode=True)
    wait_options = True

    def run(self):
        change = AttachmentChange(self.conn, self.params["volume"])
        server_id = change.index.resolve([self.params["server"]])[self.params["server"]]
        if self.params["state"] == "present":
            change.plan(change.attached + [server_id], exclusive=False)
        else:
            change.plan([s for s in change.attached if s != server_id], exclusive=True)
        change.carry_out(self.check_mode, self.params["timeout"], self.params["wait"],
                         self.params["device"])
        for warning in change.warnings:
            self.ansible.warn(warning)
        described = change.described_volume()
        attachment = next((a for a in described["attachments"] if a["server_id"] == server_id),
                          None)
        self.exit(changed=change.changed, diff=change.diff(), attachment=attachment,
                  volume=described)


def main():
    ServerVolumeModule()()


if __name__ == "__main__":
    main()
