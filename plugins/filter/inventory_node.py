# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: inventory_node
short_description: The inventory host a day-2 playbook's node names, however it is named
version_added: 0.1.0
description:
  - Used by the C(add_node) and C(remove_node) playbooks. I(node) may be the inventory name, the
    OpenStack server name (host variable C(openstack_server_name), default the inventory name) or
    the server ID (host variable C(openstack_server_id), or the shared volume's attachment to it).
  - Fails naming the problem when no host or more than one matches.
author:
  - multiattach.cloud developers (@multiattach)
options:
  _input:
    description: C(hostvars).
    type: dict
    required: true
  hosts:
    description: The inventory's hosts (C(groups['all'])).
    type: list
    elements: str
    required: true
  node:
    description: The name or ID the operator gave.
    type: str
    required: true
  attachments:
    description: The shared volume's attachments (M(multiattach.cloud.volume_info)), each with C(server_id) and C(server_name).
    type: list
    elements: dict
    default: []
  required:
    description: When false, return null instead of failing when no host matches.
    type: bool
    default: true
"""

EXAMPLES = r"""
- name: Find the host the operator named
  ansible.builtin.set_fact:
    leaving: "{{ hostvars | multiattach.cloud.inventory_node(groups['all'], node, volume.attachments) }}"
"""

RETURN = r"""
_value:
  description: C(host), the inventory host; C(server), the server ID Nova knows (or its name); C(attached), whether the volume is attached to it.
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.multiattach.cloud.plugins.module_utils.inventory_node import (
    InventoryNodeError,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.inventory_node import (
    inventory_node as find,
)


def inventory_node(hostvars, hosts, node, attachments=None, required=True):
    try:
        return find(hostvars, list(hosts), node, attachments or [], required)
    except InventoryNodeError as error:
        raise AnsibleFilterError("%s." % error)


class FilterModule:
    def filters(self):
        return {"inventory_node": inventory_node}
