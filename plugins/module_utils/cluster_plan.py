# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cluster's membership planned from what its nodes read (clustered_fs_info): each
member's node ID, and which recorded nodes the new configuration drops.

A node's ID (corosync nodeid, o2cb node number) is fixed for the life of the cluster: DLM,
the fencing configuration and OCFS2's slot map know a node by it. So an ID comes from the
stack configuration the nodes already hold (and from the running o2cb cluster); only a node
that no record knows gets a new one, after the highest ever given (the files record it: a
running dlm_controld keeps what it read for an ID, so a departed node's ID is never reused).
OCFS2's numbers end at 254: once they are used up, a new node takes the lowest number that no
member's configuration and no running o2cb cluster knows (o2cb has no daemon that remembers a
departed node, and a node is dropped only once no slot map holds it).
The inventory's order never decides an ID, except for the very first members of a new cluster.

A node the configuration drops must not have the filesystem mounted anywhere the cluster can
see (slot map, lockspace), nor still be in the running corosync ring (GFS2): a node's lockspaces
are seen only by the nodes that have the filesystem mounted themselves, so when no member in the
run has it mounted, the ring is what still knows that node. Dropping it would let it write on
unfenced and uncoordinated.

Every member is one server: two inventory hosts that reach the same server (one Nova UUID read on
both), or two servers with one hostname (which the stack's records key nodes by), are refused.
"""

from __future__ import annotations

FIRST_ID = {"gfs2": 1, "ocfs2": 0}
MAX_ID = {"gfs2": 2**32 - 1, "ocfs2": 254}


class ClusterPlanError(Exception):
    pass


def _records(reads):
    """{node name: {id: [inventory hosts whose files say so]}} from every read."""
    records = {}
    for host, read in reads.items():
        entries = {name: node["id"] for name, node in (read.get("recorded_nodes") or {}).items()}
        entries.update(read.get("o2cb_nodes") or {})
        for name, node_id in entries.items():
            records.setdefault(name, {}).setdefault(int(node_id), []).append(host)
    return records


def _highest(reads):
    """The highest IDs ever given that the members' files record (IDs of departed nodes)."""
    return {
        int(read["highest_node_id"])
        for read in reads.values()
        if read.get("highest_node_id") is not None
    }


def _pin(value, host, filesystem):
    if value in (None, ""):
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ClusterPlanError("clustered_fs_node_id of %s is %r, not a number" % (host, value))
    if not FIRST_ID[filesystem] <= number <= MAX_ID[filesystem]:
        raise ClusterPlanError(
            "clustered_fs_node_id of %s is %d: %s node IDs run from %d to %d"
            % (host, number, filesystem.upper(), FIRST_ID[filesystem], MAX_ID[filesystem])
        )
    return number


def node_ids(reads, records, highest, members, pins, filesystem):
    """{node name: ID} of MEMBERS (inventory hosts, in order); READS: {host: its read};
    RECORDS: _records(READS); HIGHEST: _highest(READS); PINS: {host: the clustered_fs_node_id
    it sets, or None}."""
    missing = [host for host in members if host not in reads]
    if missing:
        raise ClusterPlanError(
            "%s %s in the cluster's group but not read in this run (unreachable, or left out by "
            "--limit): node IDs and the nodes to drop are decided from every member's own "
            "configuration, so every member must be in the play"
            % (", ".join(missing), "is" if len(missing) == 1 else "are")
        )
    for name, ids in sorted(records.items()):
        if len(ids) > 1:
            raise ClusterPlanError(
                "the nodes' configurations disagree on %s's ID: %s. Make them agree "
                "(the running cluster's is the one to keep), then run again"
                % (
                    name,
                    "; ".join(
                        "%d on %s" % (number, ", ".join(sorted(hosts)))
                        for number, hosts in sorted(ids.items())
                    ),
                )
            )
    recorded = {name: next(iter(ids)) for name, ids in records.items()}
    names = {host: reads[host]["node_name"] for host in members}
    _refuse_one_server_twice(reads, members, names)
    planned = {}
    for host in members:
        name = names[host]
        pinned = _pin(pins.get(host), host, filesystem)
        if name in recorded and pinned is not None and pinned != recorded[name]:
            raise ClusterPlanError(
                "%s (node %s) has ID %d in the cluster's configuration and clustered_fs_node_id %d: a "
                "member keeps its ID for the life of the cluster. Remove the host variable or set it "
                "to %d" % (host, name, recorded[name], pinned, recorded[name])
            )
        if name in recorded or pinned is not None:
            planned[name] = recorded.get(name, pinned)
    used = set(recorded.values()) | set(planned.values()) | highest
    next_id = max(used) + 1 if used else FIRST_ID[filesystem]
    for host in members:
        if names[host] in planned:
            continue
        if next_id > MAX_ID[filesystem] and filesystem == "ocfs2":
            known = set(recorded.values()) | set(planned.values())
            free = [
                n for n in range(FIRST_ID[filesystem], MAX_ID[filesystem] + 1) if n not in known
            ]
            if free:
                planned[names[host]] = free[0]
                continue
        planned[names[host]] = next_id
        next_id += 1
    by_id = {}
    for name, number in planned.items():
        by_id.setdefault(number, []).append(name)
    shared = {number: found for number, found in by_id.items() if len(found) > 1}
    if shared:
        raise ClusterPlanError(
            "%s would share a node ID (%s): each member needs its own. Set "
            "clustered_fs_node_id on the new one"
            % (
                " and ".join(sorted(name for names in shared.values() for name in names)),
                ", ".join(str(number) for number in sorted(shared)),
            )
        )
    if max(planned.values(), default=0) > MAX_ID[filesystem]:
        raise ClusterPlanError(
            "%s node IDs end at %d; the plan needs %d"
            % (filesystem.upper(), MAX_ID[filesystem], max(planned.values()))
        )
    return planned


def _twins(hosts_by_key):
    return {key: hosts for key, hosts in hosts_by_key.items() if key and len(hosts) > 1}


def _refuse_one_server_twice(reads, members, names):
    """Two hosts of one hostname would be merged into one node ID; two hosts that read the same
    Nova UUID are one server reached twice (an inventory address that now reaches another)."""
    by_name, by_uuid = {}, {}
    for host in members:
        by_name.setdefault(names[host], []).append(host)
    for host in sorted(reads):
        by_uuid.setdefault(reads[host].get("server_uuid"), []).append(host)
    same_name, same_server = _twins(by_name), _twins(by_uuid)
    if same_server:
        raise ClusterPlanError(
            "%s reach one and the same server (Nova UUID %s, read on each): an inventory address "
            "points at another server than its host names. Nothing was changed. Fix the "
            "inventory's ansible_host so that each host reaches its own server"
            % (
                "; ".join(" and ".join(hosts) for hosts in same_server.values()),
                ", ".join(sorted(same_server)),
            )
        )
    if same_name:
        raise ClusterPlanError(
            "%s share the hostname %s: the cluster's records know a node by its hostname, so they "
            "would be one node. Nothing was changed. Give each server its own hostname "
            "(hostnamectl set-hostname), then run again"
            % (
                "; ".join(" and ".join(hosts) for hosts in same_name.values()),
                ", ".join(sorted(same_name)),
            )
        )


def listed_by(reads, key):
    """{node name: [hosts whose read lists it under KEY]}: where the cluster says the filesystem
    is mounted (mounted_by), or which nodes its running ring has joined (ring_members)."""
    seen = {}
    for host, read in reads.items():
        for name in read.get(key) or []:
            seen.setdefault(name, []).append(host)
    return seen


def _refuse_an_unsure_view(reads, dropped, known):
    """Dropping a node needs a sure view of who the cluster counts: a member whose tools did not
    answer, a lockspace still recovering from a failed node, or a node the cluster counts that
    no record names, refuses (none is ever read as "not counted")."""
    unread = {host: read.get("cluster_view_unread") for host, read in reads.items()}
    unread = {host: gaps for host, gaps in unread.items() if gaps}
    if unread:
        raise ClusterPlanError(
            "the cluster's new configuration leaves out %s, but whether the cluster still counts "
            "it cannot be read for sure: %s. Nothing was changed. Run again once the cluster has "
            "settled (a lost node is fenced and its journal recovered)"
            % (
                ", ".join(dropped),
                "; ".join(
                    "%s: %s" % (host, ", ".join(gaps)) for host, gaps in sorted(unread.items())
                ),
            )
        )
    unknown = sorted(
        name
        for key in ("mounted_by", "ring_members")
        for name in listed_by(reads, key)
        if name not in known
    )
    if unknown:
        raise ClusterPlanError(
            "the cluster's new configuration leaves out %s, but the cluster counts %s, which no "
            "member's configuration names. Nothing was changed. Find out which server that is "
            "before any node is dropped" % (", ".join(dropped), ", ".join(unknown))
        )


def cluster_plan(reads, members, pins, filesystem):
    """The IDs of the members, and the refusal when the plan would drop a node that holds the
    filesystem mounted."""
    records, highest = _records(reads), _highest(reads)
    ids = node_ids(reads, records, highest, members, pins, filesystem)
    # The nodes some member's configuration or running cluster records that are no members now.
    dropped = sorted(set(records) - set(ids))
    if dropped:
        _refuse_an_unsure_view(reads, dropped, set(records) | set(ids))
    mounted = listed_by(reads, "mounted_by")
    still_mounted = [name for name in dropped if name in mounted]
    if still_mounted:
        raise ClusterPlanError(
            "the cluster's new configuration leaves out %s, which still %s the filesystem mounted (as "
            "%s sees it). Nothing was changed. Take a node out with the remove_node playbook "
            "(ansible-playbook multiattach.cloud.remove_node -e node=NAME), which unmounts it "
            "before the others drop it; or put it back in the cluster's group"
            % (
                ", ".join(still_mounted),
                "has" if len(still_mounted) == 1 else "have",
                ", ".join(sorted({disk for name in still_mounted for disk in mounted[name]})),
            )
        )
    in_ring = listed_by(reads, "ring_members")
    still_in_ring = [name for name in dropped if name in in_ring]
    if still_in_ring:
        raise ClusterPlanError(
            "the cluster's new configuration leaves out %s, which %s still in the running corosync "
            "ring (as %s sees it): it may have the filesystem mounted where no member in this run "
            "can see its lockspace. Nothing was changed. Take a node out with the remove_node "
            "playbook (ansible-playbook multiattach.cloud.remove_node -e node=NAME), which unmounts "
            "it and stops its stack before the others drop it; a dead node leaves the ring once "
            "the cluster has fenced it"
            % (
                ", ".join(still_in_ring),
                "is" if len(still_in_ring) == 1 else "are",
                ", ".join(sorted({host for name in still_in_ring for host in in_ring[name]})),
            )
        )
    return dict(ids=ids, dropped=dropped, highest=max(set(ids.values()) | highest))
