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
    device:
      description: Device name as Nova reported it.
      type: str
      returned: always
volume:
  description: The volume after the task, with every attachment, as M(multiattach.cloud.volume_info) describes it.
  returned: always
  type: dict
"""

from ansible_collections.multiattach.cloud.plugins.module_utils.attachments import (
    ServerIndex, attached_server_ids, check_sharing_allowed, converge)
from ansible_collections.multiattach.cloud.plugins.module_utils.base import MultiattachModule
from ansible_collections.multiattach.cloud.plugins.module_utils.compare import diff
from ansible_collections.multiattach.cloud.plugins.module_utils.errors import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.volumes import (
    describe_volume, find_one_volume)


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
        volume = find_one_volume(self.conn, self.params["volume"])
        if volume is None:
            raise ModuleFailure("volume %r does not exist: check the name or ID"
                                % self.params["volume"])
        index = ServerIndex(self.conn)
        server_id = index.resolve([self.params["server"]])[self.params["server"]]
        attached = attached_server_ids(volume)
        if self.params["state"] == "present":
            to_attach = [] if server_id in attached else [server_id]
            to_detach = []
            final = sorted(set(attached) | {server_id})
            check_sharing_allowed(volume, final, index.names)
        else:
            to_attach = []
            to_detach = [server_id] if server_id in attached else []
            final = sorted(set(attached) - {server_id})

        changed = bool(to_attach or to_detach)
        if changed and not self.check_mode:
            converge(self.conn, volume, to_attach, to_detach, self.params["timeout"],
                     self.params["wait"], self.params["device"])
            volume = self.conn.block_storage.get_volume(volume.id)
        described = describe_volume(volume, index.names)
        attachment = next((a for a in described["attachments"] if a["server_id"] == server_id),
                          None)
        self.exit(changed=changed,
                  diff=diff({"servers": sorted(index.names.get(s, s) for s in attached)},
                            {"servers": sorted(index.names.get(s, s) for s in final)}),
                  attachment=attachment, volume=described)


def main():
    ServerVolumeModule()()


if __name__ == "__main__":
    main()
