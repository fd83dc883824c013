# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: policy_file
short_description: The text of an oslo.policy file with some rules set and every other rule kept
version_added: 0.2.0
description:
  - Used by the R(multiattach.cloud.cinder_multiattach,role) and
    R(multiattach.cloud.fencing_policy,role) roles, which both write Cinder's policy file. Both
    write it the same way (one header, the rules sorted), so a run of one never undoes the
    other's.
options:
  _input:
    description: The rules the file holds now (a mapping of rule to check string); null for none.
    type: dict
    required: true
  wanted:
    description: The rules to set, with their check strings.
    type: dict
    required: true
author:
  - multiattach.cloud developers (@multiattach)
"""

EXAMPLES = r"""
- name: Write Cinder's policy file, keeping every other rule
  ansible.builtin.copy:
    dest: /etc/cinder/policy.yaml
    content: "{{ current_rules | multiattach.cloud.policy_file({'volume:multiattach': 'role:admin'}) }}"
"""

RETURN = r"""
_value:
  description: The file's text, a header comment then the rules as YAML, sorted.
  type: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.multiattach.cloud.plugins.module_utils.policy_rules import (
    policy_file as file_text,
)


def rules_mapping(value, what):
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise AnsibleFilterError(
            "%s must be a mapping of rule to check string, got %r" % (what, value)
        )
    return value


def policy_file(current, wanted):
    return file_text(
        rules_mapping(current, "the policy file's rules"), rules_mapping(wanted, "wanted")
    )


class FilterModule:
    def filters(self):
        return {"policy_file": policy_file}
