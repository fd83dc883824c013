# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: fencing_renewal
short_description: Which of a cluster's two fencing users the members hold after a run, and whether it gets a new password
version_added: 0.2.0
description:
  - Used by the R(multiattach.cloud.clustered_fs,role) role. Takes what
    M(multiattach.cloud.fencing_identity) returned in check mode for each of the cluster's two
    fencing users, before anything is written (its C(holders_recorded), the servers Keystone's
    record says held the password, and C(password_taken)), the members now and the copies of the
    credentials they hold, and says which user the members hold after the run and whether it gets
    a new password.
  - Renewed when a recorded server is no longer a member (whichever way it left, however many runs
    ago), when the members' copies of one user differ (a renewal cut short), when asked, once for
    a user whose record names no servers, and when Keystone no longer has the user the members
    hold (deleted, perhaps to revoke it).
  - When the members hold both users (a hand-over cut short), the one whose password Keystone
    still takes and whose record names members only goes to every member as it is; otherwise the
    password is renewed.
options:
  _input:
    description:
      - The registered result of M(multiattach.cloud.fencing_identity) in check mode looped over
        the two users (each result's C(item) names its user); null or a skipped result when it did
        not run.
    type: dict
    required: true
  users:
    description: The cluster's two fencing users, in order.
    type: list
    elements: str
    required: true
  members:
    description: The members' servers (Nova UUIDs).
    type: list
    elements: str
    required: true
  copies:
    description:
      - The distinct copies of the credentials the members hold, each C(user) (the user it names),
        C(digest) (its sha256) and C(holders) (the members that hold it). Never the password.
    type: list
    elements: dict
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
- name: Decide which fencing user the members hold, and whether it gets a new password
  ansible.builtin.set_fact:
    renewal: >-
      {{ checked | multiattach.cloud.fencing_renewal(users=fencing_users, members=member_servers,
                                                    copies=copies) }}
"""

RETURN = r"""
_value:
  description:
    - C(renew) (bool), C(why) (a sentence, or null), C(departed) (the recorded servers that are no
      longer members), C(target) (the user the members hold after the run), C(retired) (the other,
      deleted once every member holds the target), C(retired_exists) (Keystone has it) and
      C(spread) (a sentence when a copy goes to every member as it is, or null).
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.multiattach.cloud.plugins.module_utils.fencing_renewal import (
    fencing_renewal as decide,
)


def fencing_renewal(checked, users, members, copies, asked=False, former=False):
    if checked is not None and not isinstance(checked, dict):
        raise AnsibleFilterError(
            "fencing_renewal takes fencing_identity's registered result, got %r" % checked
        )
    users = list(users or [])
    if len(users) != 2 or len(set(users)) != 2:
        raise AnsibleFilterError(
            "fencing_renewal's users are the two fencing users, got %r" % users
        )
    by_user = {}
    if checked and not checked.get("skipped"):
        for result in checked.get("results", []):
            if not result.get("skipped"):
                by_user[result.get("item")] = result
    for copy in copies or []:
        if not isinstance(copy, dict) or not {"user", "digest", "holders"} <= set(copy):
            raise AnsibleFilterError(
                "fencing_renewal's copies are {user, digest, holders}, got %r" % (copy,)
            )
    return decide(
        users,
        by_user,
        list(members or []),
        [dict(copy) for copy in copies or []],
        bool(asked),
        bool(former),
    )


class FilterModule:
    def filters(self):
        return {"fencing_renewal": fencing_renewal}
