# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: fencing_renewal
short_description: Whether a cluster's fencing password is renewed, and why
version_added: 0.2.0
description:
  - Used by the R(multiattach.cloud.clustered_fs,role) role. Takes what
    M(multiattach.cloud.fencing_identity) returned in check mode before anything is written (its
    C(holders_recorded), the servers Keystone's record says held the password) and the members
    now, and says whether the password is renewed.
  - Renewed when a recorded server is no longer a member (whichever way it left, however many runs
    ago), when the members' copies differ (a renewal cut short), when asked, and once for a user
    whose record names no servers.
options:
  _input:
    description: The result of M(multiattach.cloud.fencing_identity) in check mode; null or a skipped result when it did not run.
    type: dict
    required: true
  members:
    description: The members' servers (Nova UUIDs).
    type: list
    elements: str
    required: true
  copies:
    description: The distinct sha256 digests of the members' copies of the credentials.
    type: list
    elements: str
    required: true
  asked:
    description: The operator asked for a new password.
    type: bool
    default: false
  former:
    description:
      - Members hold the password only in C(/etc/openstack/clouds.yaml), where an earlier version
        of the role wrote it; the upgrade is handed over like a renewal.
    type: bool
    default: false
author:
  - multiattach.cloud developers (@multiattach)
"""

EXAMPLES = r"""
- name: Decide whether the fencing user gets a new password
  ansible.builtin.set_fact:
    renewal: "{{ recorded | multiattach.cloud.fencing_renewal(members=member_servers, copies=digests) }}"
"""

RETURN = r"""
_value:
  description: C(renew) (bool), C(departed) (the recorded servers that are no longer members) and C(why) (a sentence, or null).
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.multiattach.cloud.plugins.module_utils.fencing_renewal import (
    fencing_renewal as decide,
)


def fencing_renewal(recorded, members, copies, asked=False, former=False):
    if recorded is not None and not isinstance(recorded, dict):
        raise AnsibleFilterError(
            "fencing_renewal takes fencing_identity's result, got %r" % recorded
        )
    if (recorded or {}).get("skipped"):
        recorded = None
    return decide(recorded, list(members or []), list(copies or []), bool(asked), bool(former))


class FilterModule:
    def filters(self):
        return {"fencing_renewal": fencing_renewal}
