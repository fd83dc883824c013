#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: fencing_identity
short_description: The Keystone user a cluster's nodes fence each other's servers with
version_added: 0.1.0
description:
  - Makes (or removes) one Keystone user for one cluster, with one role (default
    C(multiattach_fencer)) on the project that holds the cluster's servers and no other role
    anywhere - an assignment it finds besides that one is taken away, inherited and system-scope
    ones included. The cluster filesystem's fence agent (C(fence_openstack), through the role
    R(multiattach.cloud.clustered_fs,ansible_collections.multiattach.cloud.clustered_fs_role)'s
    wrapper) logs in as this user to read a lost node's server and hard-reboot it through Nova.
  - O(role) is a role of its own, made when Keystone has none of that name. The policy that
    R(multiattach.cloud.fencing_policy,ansible_collections.multiattach.cloud.fencing_policy_role)
    writes on the Nova, Cinder and Keystone API hosts gives it what a fence calls (server show, stop,
    start, reboot, instance actions; in Cinder a read of its project's volumes, which Nova's hard
    reboot does in its name) and refuses it application credentials, trusts and credentials;
    Nova's, Cinder's and Glance's default rules give it nothing else. Keystone's default roles
    (C(admin), C(manager), C(member), C(reader), C(service)) and a role that implies another are
    refused before anything changes - a user holding one could delete, rebuild or snapshot the
    project's servers and delete or transfer its volumes.
  - The password is the user's only way in - an application credential, a credential (EC2 and
    others) or a trust that the user holds or gave is revoked, as each would outlive a new
    password (a root on a member that knew the password could have made one).
  - The user is an account no person signs in with - its Keystone options
    C(ignore_password_expiry), C(ignore_lockout_failure_attempts),
    C(ignore_change_password_upon_first_use) and C(ignore_user_inactivity) are set, so that a
    cloud's password expiry, lockout or inactivity rule never stops a cluster's fencing, and
    C(lock_password), so that whoever holds the password cannot change it (only an admin can). A password Keystone's C(password_regex) refuses fails the
    task, naming it.
  - The password is checked by authenticating with it; a run with the same password changes
    nothing. It is never returned, logged or shown in a diff.
  - Needs credentials that may manage users, roles and role assignments in O(domain) (Keystone's
    admin).
author:
  - multiattach.cloud developers (@multiattach)
seealso:
  - {module: "multiattach.cloud.clustered_fs_info", description: "reads whether a node holds the fencing credentials"}
  - {name: "dlm.conf(5)", link: "https://manpages.debian.org/bookworm/dlm-controld/dlm.conf.5.en.html", description: "DLM fencing devices"}
  - {name: "Keystone", link: "https://docs.openstack.org/keystone/latest/admin/service-api-protection.html", description: "default roles"}
extends_documentation_fragment:
  - multiattach.cloud.openstack.CHANGES
options:
  name:
    description: The user's name, one per cluster (the role uses C(multiattach-fence-<cluster name>)).
    type: str
    required: true
  password:
    description:
      - Its password; required with O(state=present). A user whose password differs gets this one.
    type: str
  project:
    description: Name or ID of the project that holds the cluster's servers; required with O(state=present).
    type: str
  domain:
    description: Name or ID of the domain of the user and of O(project).
    type: str
    default: Default
  role:
    description:
      - The one role the user has, on O(project); made when missing.
      - Keystone's default roles and a role that implies another are refused before anything
        changes - every cluster node holds the user's password.
    type: str
    default: multiattach_fencer
  cluster:
    description:
      - The identity of the cluster the user fences (the role gives the shared volume's ID),
        recorded in the user's description. A user whose description names another cluster is
        refused, naming both - two clusters never share a fencing identity. A user made without
        one gets this one.
    type: str
  holders:
    description:
      - The Nova UUIDs of the servers that hold the user's password after this run (the role gives
        the members'), recorded in the user's description next to O(cluster). A later run reads
        them back (RV(holders_recorded)); the role
        R(multiattach.cloud.clustered_fs,ansible_collections.multiattach.cloud.clustered_fs_role)
        renews the password when one of them is no longer a member, whichever way it left.
      - Omitted, the record is left as it is.
    type: list
    elements: str
  state:
    description: Whether the user exists.
    type: str
    choices: [present, absent]
    default: present
"""

EXAMPLES = r"""
- name: Make the fencing user of cluster db (admin credentials)
  multiattach.cloud.fencing_identity:
    cloud: prod-admin
    name: multiattach-fence-db
    password: "{{ fencing_password }}"
    project: db-servers
  no_log: true
"""

RETURN = r"""
identity:
  description: The user as it is (or would be) after the task; null when absent. Never the password.
  returned: always
  type: dict
  sample: {"user_id": "4f0c9c2e8b5b4c4c9f4b1d7c2a7e9f10", "name": "multiattach-fence-db", "domain_id": "default",
           "project_id": "8d1e5c3b2a7f4e0c9b6a5d4c3b2a1f0e", "project_name": "db-servers", "role": "multiattach_fencer",
           "holders": ["0b6f1a3e-5c2d-4e8f-9a7b-1c2d3e4f5a6b", "6e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b"]}
holders_recorded:
  description:
    - The servers the user's record named before this run (sorted Nova UUIDs); null when it names
      none (no user yet, or a user made before the record or by someone else).
  returned: always
  type: list
  elements: str
  sample: ["0b6f1a3e-5c2d-4e8f-9a7b-1c2d3e4f5a6b"]
password_taken:
  description:
    - Whether Keystone took O(password) for the user before this run (a sign-in with it); null
      when there was no user. The role reads it in check mode to tell which copy of a password
      the members hold still works.
  returned: success
  type: bool
  sample: true
"""

from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.identity import (
    FencingIdentityChange,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.module import (
    OpenStackModule,
)


class FencingIdentityModule(OpenStackModule):
    argument_spec = dict(
        name=dict(type="str", required=True),
        password=dict(type="str", no_log=True),
        project=dict(type="str"),
        domain=dict(type="str", default="Default"),
        role=dict(type="str", default="multiattach_fencer"),
        cluster=dict(type="str"),
        holders=dict(type="list", elements="str"),
        state=dict(type="str", default="present", choices=["present", "absent"]),
    )
    module_kwargs = dict(required_if=[("state", "present", ("password", "project"))])
    job = FencingIdentityChange


def main():
    FencingIdentityModule()()


if __name__ == "__main__":
    main()
