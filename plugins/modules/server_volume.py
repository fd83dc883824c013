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
    2.60, so a multiattach volume that is already V(in-use) on other servers
    is attached too (M(openstack.cloud.server_volume) refuses that).
  - Detaches only this server's attachment and waits for that attachment to
    go, not for the volume to become V(available), which never happens while
    other servers hold it.
  - A second server on a volume that is not multiattach is refused before any
    call. Concurrent attaches of the same volume by other runs are waited out
    (Cinder takes one at a time), see M(multiattach.cloud.volume_attachments).
notes:
  - A volume in status V(error), V(maintenance) or V(error_*) that needs an attach
    or detach fails at once, naming the status and what to do; Cinder takes neither
    in those statuses. One that needs no change is left alone with a warning.
  - For several servers use M(multiattach.cloud.volume_attachments) in one
    task instead of this module in a loop. Each loop item is a new Python
    process that imports openstacksdk, signs in and discovers the API versions
    again, about 1.5 s per server on top of the attach itself on the local
    cloud; one task pays that once (see docs/benchmarks.md).
author:
  - multiattach.cloud developers (@multiattach)
options:
  server:
    description:
      - Name or ID of the server to attach the volume to, or detach it from.
      - With O(state=absent), also the ID of a server that Nova deleted while an attachment of
        the volume still names it (a dead host's server). Its attachment is then removed through
        Cinder, only when Nova shows that this project deleted the server and its compute host
        terminated it; otherwise the task fails and changes nothing (another project's server,
        or one deleted while its host was down, whose guest may still run).
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
    description: V(present) attaches, V(absent) detaches this server's attachment only.
    type: str
    choices: [present, absent]
    default: present
  require_powered_off:
    description:
      - With O(state=absent), detach only while Nova reports the server powered off (RV(server_state)
        C(powered_off), read in the same run just before the detach); otherwise fail and change
        nothing. For a server whose guest cannot leave first (a lost cluster member); a guest
        started again meanwhile may hold the volume.
    type: bool
    default: false
seealso:
  - {module: "multiattach.cloud.volume_attachments", description: "every server that holds a volume, at once"}
  - {module: "multiattach.cloud.volume_info", description: "the keys of the volume returned"}
  - {module: "openstack.cloud.server_volume", description: "refuses a volume that is in-use: no second server"}
  - {name: "Nova", link: "https://docs.openstack.org/nova/latest/admin/manage-volumes.html", description: "manage volumes, volume multi-attach"}
  - {name: "Nova API", link: "https://docs.openstack.org/api-ref/compute/#servers-with-volume-attachments-servers-os-volume-attachments", description: "2.60"}
extends_documentation_fragment:
  - multiattach.cloud.attachments
attributes:
  check_mode:
    details: Reports whether the volume would be attached or detached and changes nothing.
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
  description:
    - This server's attachment after the task, its entry of the attachments in RV(volume) (see
      M(multiattach.cloud.volume_info) for the keys); null when detached (or in check mode
      before it exists).
  returned: always
  type: dict
  sample: {"attachment_id": "8a1e9f3c-2b7d-4c1e-9f0a-6d5c4b3a2f10", "server_id": "0f4c1e9a-6b2d-4f7e-8a3c-1d2e3f4a5b6c", "server_name": "db-1"}
server_id:
  description:
    - The ID of the server named by O(server), as Nova knows it, also in check mode and when
      nothing changed (a playbook finds the server's inventory host by it before the
      attachment exists).
    - Null for a name that only deleted servers had (O(state=absent)) when none of them holds
      the volume; whichever it meant has nothing to let go of.
  returned: always
  type: str
  sample: 0f4c1e9a-6b2d-4f7e-8a3c-1d2e3f4a5b6c
server_name:
  description: The name of that server.
  returned: always
  type: str
  sample: db-1
server_state:
  description:
    - How Nova knows that server when the task began, also in check mode.
    - C(status) is Nova's (V(ACTIVE), V(SHUTOFF), V(ERROR), ...; V(DELETED) for a deleted
      server), C(power_state) the hypervisor's (V(running), V(shutdown), V(crashed), ...;
      V(deleted)), C(task_state) the task Nova runs on it (null for none). C(powered_off) is
      true when its guest runs nothing and Nova starts nothing (shut down or crashed, not in
      ERROR, no task; shelved and offloaded; or deleted), C(deleted) when Nova deleted it (see O(server)).
  returned: always
  type: dict
  sample: {"status": "SHUTOFF", "power_state": "shutdown", "task_state": null, "powered_off": true, "deleted": false}
  contains:
    status:
      description: Nova's status of the server; V(DELETED) for a deleted one.
      type: str
      returned: always
    power_state:
      description: The hypervisor's power state (V(running), V(shutdown), V(crashed), ...); V(deleted).
      type: str
      returned: always
    task_state:
      description: The task Nova runs on the server (V(powering-on), ...); null for none.
      type: str
      returned: always
    powered_off:
      description:
      - Whether its guest runs nothing and Nova starts nothing (shut down or crashed, not in
        ERROR, no task; shelved and offloaded; or deleted).
      type: bool
      returned: always
    deleted:
      description: Whether Nova deleted the server (and its compute host terminated it).
      type: bool
      returned: always
volume:
  description:
    - The volume once this server holds it (or no longer does), with every server's attachment.
    - Its keys are those of an entry of M(multiattach.cloud.volume_info)'s C(volumes), documented there.
  returned: always
  type: dict
  sample: {"id": "5bd8c3a0-8e4b-4c2b-9a53-2d7d0e1f6a11", "status": "in-use", "multiattach": true, "attachments": [{"server_name": "db-1"}]}
"""

from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.attachments import (
    ATTACHMENT_ARGUMENT_SPEC,
    ServerVolumeChange,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.module import (
    OpenStackModule,
)


class ServerVolumeModule(OpenStackModule):
    argument_spec = dict(
        server=dict(type="str", required=True),
        volume=dict(type="str", required=True),
        device=dict(type="str"),
        state=dict(type="str", default="present", choices=["present", "absent"]),
        require_powered_off=dict(type="bool", default=False),
        **ATTACHMENT_ARGUMENT_SPEC,
    )
    wait_options = True
    job = ServerVolumeChange


def main():
    ServerVolumeModule()()


if __name__ == "__main__":
    main()
