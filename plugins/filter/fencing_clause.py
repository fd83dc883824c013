# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: fencing_clause
short_description: A service's policy rules with the fencing role let in, or kept out
version_added: 0.2.0
description:
  - Used by the R(multiattach.cloud.fencing_policy,role) role. For each rule it names, the check
    string the policy file sets (or the service's default where the file sets none) with the
    fencing role's clause added - C(or (role:<role> and project_id:%(project_id)s)) for
    O(how=allow), C(and not role:<role>) for O(how=deny).
  - A check string that already holds the clause is kept as it is, so a rerun changes nothing.
options:
  _input:
    description: The rules the policy file holds now (a mapping of rule to check string); null for none.
    type: dict
    required: true
  defaults:
    description: The rules to change, each with the service's default check string.
    type: dict
    required: true
  role:
    description: The fencing role's name.
    type: str
    required: true
  how:
    description: Let the role in on its own project's resources, or keep it out.
    type: str
    choices: [allow, deny]
    required: true
author:
  - multiattach.cloud developers (@multiattach)
"""

EXAMPLES = r"""
- name: Nova's rules with the fencing role let in on its own project's servers
  ansible.builtin.set_fact:
    wanted: >-
      {{ current_rules | multiattach.cloud.fencing_clause(
           {'os_compute_api:servers:stop': 'rule:project_member_or_admin'},
           role='multiattach_fencer', how='allow') }}
"""

RETURN = r"""
_value:
  description: The rules named in O(defaults), each with its check string.
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.multiattach.cloud.plugins.module_utils.policy_rules import (
    ALLOW,
    DENY,
    with_fencing_clause,
)


def fencing_clause(current, defaults, role, how):
    if how not in (ALLOW, DENY):
        raise AnsibleFilterError("fencing_clause's how is %r: give allow or deny" % (how,))
    for value, what in ((current, "the policy file's rules"), (defaults, "defaults")):
        if value is not None and not isinstance(value, dict):
            raise AnsibleFilterError(
                "%s must be a mapping of rule to check string, got %r" % (what, value)
            )
    return with_fencing_clause(current or {}, defaults or {}, str(role), how)


class FilterModule:
    def filters(self):
        return {"fencing_clause": fencing_clause}
