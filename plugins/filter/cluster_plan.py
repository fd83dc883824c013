# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: cluster_plan
short_description: Plan a cluster filesystem's node IDs and the nodes it drops, from its nodes' reads
version_added: 0.1.0
description:
  - Used by the R(multiattach.cloud.clustered_fs,role) role. Takes what each node of the play read
    with M(multiattach.cloud.clustered_fs_info) and returns every member's node ID (corosync
    C(nodeid), o2cb C(number)) and the recorded nodes the new configuration leaves out.
  - An ID comes from the stack configuration the nodes already hold or the running o2cb cluster;
    a node no record knows gets the next ID after the highest in use (or its C(clustered_fs_node_id)).
    The inventory's order decides only for the first members of a new cluster.
  - Fails, naming the nodes, when the records disagree, a pin would change a member's ID, two
    members would share one, a member was not read in this run, or a node left out of the
    configuration still has the filesystem mounted.
options:
  _input:
    description: C(hostvars), where each host's C(clustered_fs_node) read is.
    type: dict
    required: true
  play_hosts:
    description: The hosts whose C(clustered_fs_node) read counts (C(ansible_play_hosts)).
    type: list
    elements: str
    required: true
  members:
    description: The inventory hosts of the cluster, in the inventory's order.
    type: list
    elements: str
    required: true
  filesystem:
    description: C(ocfs2) or C(gfs2).
    type: str
    required: true
author:
  - multiattach.cloud developers (@multiattach)
"""

EXAMPLES = r"""
- name: Plan the members' node IDs
  ansible.builtin.set_fact:
    clustered_fs_plan: "{{ hostvars | multiattach.cloud.cluster_plan(ansible_play_hosts, clustered_fs_members, 'gfs2') }}"
"""

RETURN = r"""
_value:
  description: C(ids), {node name - ID} of the members; C(dropped), the recorded nodes that are no members.
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.multiattach.cloud.plugins.module_utils.cluster_plan import ClusterPlanError
from ansible_collections.multiattach.cloud.plugins.module_utils.cluster_plan import (
    cluster_plan as plan,
)


def cluster_plan(hostvars, play_hosts, members, filesystem):
    reads = {
        host: hostvars[host]["clustered_fs_node"]
        for host in play_hosts
        if "clustered_fs_node" in hostvars[host]
    }
    pins = {
        host: hostvars[host].get(
            "clustered_fs_node_id", hostvars[host].get("clustered_fs_node_number")
        )
        for host in members
        if host in reads
    }
    try:
        return plan(reads, list(members), pins, filesystem)
    except ClusterPlanError as error:
        raise AnsibleFilterError("clustered_fs: %s." % error)


class FilterModule:
    def filters(self):
        return {"cluster_plan": cluster_plan}
