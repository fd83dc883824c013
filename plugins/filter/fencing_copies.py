# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: fencing_copies
short_description: The distinct copies of a cluster's fencing credentials its members hold
version_added: 0.2.0
description:
  - Used by the R(multiattach.cloud.clustered_fs,role) role. From each member's
    M(multiattach.cloud.clustered_fs_info) read, the copies of the fencing credentials the members
    hold, one for each user and sha256, with the members that hold it. Never a password.
  - Copies that differ come from a run cut short; M(multiattach.cloud.fencing_identity) and the
    filter R(multiattach.cloud.fencing_renewal,filter) decide what the members hold next.
options:
  _input:
    description: The members' inventory names.
    type: list
    elements: str
    required: true
  nodes:
    description: Each member's clustered_fs_info read, in the same order.
    type: list
    elements: dict
    required: true
  path:
    description: Where the role keeps the credentials on a member.
    type: str
    required: true
author:
  - multiattach.cloud developers (@multiattach)
"""

EXAMPLES = r"""
- name: Find the copies of the fencing credentials the members hold
  ansible.builtin.set_fact:
    copies: >-
      {{ members | multiattach.cloud.fencing_copies(
           members | map('extract', hostvars, 'clustered_fs_node') | list,
           '/etc/multiattach/fencing/.config/openstack/clouds.yaml') }}
"""

RETURN = r"""
_value:
  description: The copies, each C(user) (the user it names), C(digest) (its sha256) and C(holders) (the members that hold it).
  type: list
  elements: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.multiattach.cloud.plugins.module_utils.fencing_renewal import copies_held


def fencing_copies(names, nodes, path):
    names, nodes = list(names or []), list(nodes or [])
    if len(names) != len(nodes):
        raise AnsibleFilterError(
            "fencing_copies takes one clustered_fs_info read for each member: %d names, %d reads"
            % (len(names), len(nodes))
        )
    return copies_held(names, nodes, str(path))


class FilterModule:
    def filters(self):
        return {"fencing_copies": fencing_copies}
