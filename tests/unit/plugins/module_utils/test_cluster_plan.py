"""Node IDs kept for the life of a cluster, and no member dropped while it has the filesystem
mounted (plugins/module_utils/cluster_plan.py, the role's tasks/plan.yml)."""

import pytest

from ansible_collections.multiattach.cloud.plugins.module_utils.cluster_plan import (
    ClusterPlanError,
    cluster_plan,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.host import cluster_records


def read(name, recorded=None, mounted_by=(), o2cb=None):
    return dict(
        node_name=name,
        recorded_nodes={
            n: dict(id=i, address="10.0.0.%d" % i) for n, i in (recorded or {}).items()
        },
        mounted_by=list(mounted_by),
        o2cb_nodes=o2cb or {},
    )


def test_a_new_cluster_numbers_its_first_members_in_the_inventory_order():
    reads = {"b": read("b"), "a": read("a")}
    assert cluster_plan(reads, ["b", "a"], {}, "gfs2")["ids"] == {"b": 1, "a": 2}
    assert cluster_plan(reads, ["b", "a"], {}, "ocfs2")["ids"] == {"b": 0, "a": 1}


def test_a_node_that_sorts_first_joins_with_a_new_id_and_the_members_keep_theirs():
    record = {"node-1": 1, "node-2": 2}
    reads = {
        "node-0": read("node-0"),
        "node-1": read("node-1", record),
        "node-2": read("node-2", record),
    }
    plan = cluster_plan(reads, ["node-0", "node-1", "node-2"], {}, "gfs2")
    assert plan["ids"] == {"node-0": 3, "node-1": 1, "node-2": 2}
    assert plan["dropped"] == []


def test_removing_a_middle_node_renumbers_nobody_and_a_later_node_never_takes_a_live_id():
    record = {"node-0": 3, "node-1": 1, "node-2": 2}
    reads = {"node-0": read("node-0", record), "node-2": read("node-2", record)}
    plan = cluster_plan(reads, ["node-0", "node-2"], {}, "gfs2")
    assert plan == {"ids": {"node-0": 3, "node-2": 2}, "dropped": ["node-1"], "highest": 3}
    reads["node-9"] = read("node-9")
    assert cluster_plan(reads, ["node-9", "node-0", "node-2"], {}, "gfs2")["ids"]["node-9"] == 4


def test_a_departed_nodes_id_is_never_given_again():
    record = {"node-1": 1, "node-2": 2}
    reads = {name: dict(read(name, record), highest_node_id=5) for name in record}
    reads["new"] = read("new")
    plan = cluster_plan(reads, ["node-1", "node-2", "new"], {}, "gfs2")
    assert plan["ids"]["new"] == 6 and plan["highest"] == 6


def test_ocfs2_numbers_used_up_give_a_new_node_the_lowest_one_nobody_knows():
    """Issue 50: IDs never reused stopped OCFS2 at 254 departed nodes."""
    record = {"node-1": 7, "node-2": 254}
    reads = {name: dict(read(name, record), highest_node_id=254) for name in record}
    reads["new"] = read("new")
    reads["node-1"]["o2cb_nodes"] = {"node-1": 7, "node-2": 254, "leaving": 0}
    plan = cluster_plan(reads, ["node-1", "node-2", "new"], {}, "ocfs2")
    assert plan["ids"]["new"] == 1  # 0 is still in node-1's running cluster
    assert plan["highest"] == 254
    # GFS2 never reuses one: its IDs do not run out
    gfs2 = cluster_plan(reads, ["node-1", "node-2", "new"], {}, "gfs2")
    assert gfs2["ids"]["new"] == 255


def test_ocfs2_with_every_number_known_refuses_a_new_node():
    record = {"node-%d" % n: n for n in range(255)}
    reads = {name: dict(read(name, record), highest_node_id=254) for name in list(record)[:2]}
    reads["new"] = read("new")
    with pytest.raises(ClusterPlanError, match="OCFS2 node IDs end at 254; the plan needs 255"):
        cluster_plan(reads, ["node-0", "node-1", "new"], {}, "ocfs2")


def test_the_running_o2cb_cluster_is_a_record_too():
    reads = {"x": read("x", o2cb={"x": 5, "y": 2}), "y": read("y", o2cb={"x": 5, "y": 2})}
    assert cluster_plan(reads, ["y", "x"], {}, "ocfs2")["ids"] == {"x": 5, "y": 2}


def test_a_member_still_mounted_is_never_dropped():
    record = {"node-1": 1, "node-2": 2, "node-3": 3}
    reads = {
        "node-1": read("node-1", record, mounted_by=["node-1", "node-3"]),
        "node-2": read("node-2", record, mounted_by=["node-1", "node-3"]),
    }
    with pytest.raises(
        ClusterPlanError,
        match=r"leaves out node-3, which still has the filesystem mounted "
        r"\(as node-1, node-2 sees it\).*remove_node",
    ):
        cluster_plan(reads, ["node-1", "node-2"], {}, "gfs2")


def test_a_pin_cannot_change_a_recorded_id_and_two_members_cannot_share_one():
    record = {"a": 1, "b": 2}
    reads = {"a": read("a", record), "b": read("b", record), "c": read("c")}
    with pytest.raises(
        ClusterPlanError, match="has ID 2 in the cluster's configuration and clustered_fs_node_id 5"
    ):
        cluster_plan(reads, ["a", "b"], {"b": 5}, "gfs2")
    with pytest.raises(ClusterPlanError, match="a and c would share a node ID"):
        cluster_plan(reads, ["a", "b", "c"], {"c": "1"}, "gfs2")
    assert cluster_plan(reads, ["a", "b", "c"], {"c": 9}, "gfs2")["ids"]["c"] == 9
    with pytest.raises(ClusterPlanError, match="not a number"):
        cluster_plan(reads, ["a", "b", "c"], {"c": "x"}, "gfs2")
    with pytest.raises(ClusterPlanError, match="run from 0 to 254"):
        cluster_plan(reads, ["a", "b", "c"], {"c": 300}, "ocfs2")


def test_records_that_disagree_and_members_not_read_are_refused_with_their_names():
    reads = {"a": read("a", {"a": 1, "b": 2}), "b": read("b", {"a": 1, "b": 3})}
    with pytest.raises(ClusterPlanError, match=r"disagree on b's ID: 2 on a; 3 on b"):
        cluster_plan(reads, ["a", "b"], {}, "gfs2")
    with pytest.raises(
        ClusterPlanError, match=r"c is in the cluster's group but not read in this run"
    ):
        cluster_plan({"a": read("a")}, ["a", "c"], {}, "gfs2")


def test_a_node_still_in_the_corosync_ring_is_never_dropped_though_no_lockspace_shows_it():
    """GFS2: no member in the run has the filesystem mounted, so no lockspace names node-3; the
    ring still does (b613a3e dropped it)."""
    record = {"node-1": 1, "node-2": 2, "node-3": 3}
    reads = {
        name: dict(read(name, record), ring_members=["node-1", "node-2", "node-3"])
        for name in ("node-1", "node-2")
    }
    with pytest.raises(
        ClusterPlanError,
        match=r"leaves out node-3, which is still in the running corosync ring "
        r"\(as node-1, node-2 sees it\).*Nothing was changed.*remove_node",
    ):
        cluster_plan(reads, ["node-1", "node-2"], {}, "gfs2")
    for node_read in reads.values():
        node_read["ring_members"] = ["node-1", "node-2"]
    assert cluster_plan(reads, ["node-1", "node-2"], {}, "gfs2")["dropped"] == ["node-3"]


def test_two_members_with_one_hostname_are_refused_naming_both():
    """b613a3e merged them into one node ID."""
    reads = {"web-a": read("web"), "web-b": read("web")}
    with pytest.raises(ClusterPlanError, match=r"web-a and web-b share the hostname web"):
        cluster_plan(reads, ["web-a", "web-b"], {}, "gfs2")


def test_two_hosts_that_reach_one_server_are_refused_naming_it():
    reads = {
        "web-a": dict(read("web-a"), server_uuid="u-1"),
        "web-b": dict(read("web-b"), server_uuid="u-1"),
        "web-c": dict(read("web-c"), server_uuid=None),
        "web-d": dict(read("web-d"), server_uuid=None),
    }
    with pytest.raises(
        ClusterPlanError, match=r"web-a and web-b reach one and the same server \(Nova UUID u-1"
    ):
        cluster_plan(reads, list(reads), {}, "gfs2")
    reads["web-b"]["server_uuid"] = "u-2"
    assert set(cluster_plan(reads, list(reads), {}, "gfs2")["ids"]) == set(reads)


@pytest.mark.parametrize(
    "gaps",
    [
        ["dlm_tool ls exited 1"],
        ["dlm_tool ls: lockspace fs is still recovering from a failed node (new change ...)"],
        ["mounted.ocfs2 -f exited 1"],
    ],
)
def test_a_node_is_never_dropped_on_a_view_that_could_not_be_read(gaps):
    """Review of 28ea3c8: a tool that failed read as 'not counted'."""
    record = {"node-1": 1, "node-2": 2, "node-3": 3}
    reads = {name: read(name, record) for name in ("node-1", "node-2")}
    reads["node-1"]["cluster_view_unread"] = gaps
    with pytest.raises(ClusterPlanError, match="cannot be read for sure: node-1: " + gaps[0][:12]):
        cluster_plan(reads, ["node-1", "node-2"], {}, "gfs2")
    # Nothing dropped: the same view takes no refusal (a converge on a settling cluster).
    assert (
        cluster_plan(
            {
                name: read(name, record) | {"cluster_view_unread": gaps}
                for name in ("node-1", "node-2")
            }
            | {"node-3": read("node-3", record)},
            ["node-1", "node-2", "node-3"],
            {},
            "gfs2",
        )["dropped"]
        == []
    )


def test_a_node_is_never_dropped_while_the_cluster_counts_one_no_record_names():
    record = {"node-1": 1, "node-2": 2, "node-3": 3}
    reads = {
        name: read(name, record, mounted_by=["node-1", "nodeid 7"]) for name in ("node-1", "node-2")
    }
    with pytest.raises(
        ClusterPlanError, match="counts nodeid 7, which no member's configuration names"
    ):
        cluster_plan(reads, ["node-1", "node-2"], {}, "gfs2")


def test_a_lockspace_change_waiting_on_a_failed_node_is_a_gap():
    text = (
        "dlm lockspaces\nname          fs\nid            0x1\nflags         0x00000004 kern_stop\n"
        "change        member 3 joined 1 remove 0 failed 0 seq 3,3\nmembers       1 2 3\n"
        "new change    member 2 joined 0 remove 1 failed 1 seq 4,4\n"
        "new status    wait_messages 0 wait_condition 1 fencing\nnew members   1 2\n"
    )
    [gap] = cluster_records.dlm_lockspace_gaps(text, "fs")
    assert "lockspace fs is still recovering from a failed node" in gap
    assert cluster_records.dlm_lockspace_gaps(text.replace("failed 1", "failed 0"), "fs") == []
    assert cluster_records.dlm_lockspace_gaps(text, "other") == []
    assert cluster_records.dlm_lockspace_gaps("name fs\nmembers       error\n", "fs")
