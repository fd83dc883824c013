"""What a node records of its cluster and what the cluster says of the mounts
(plugins/module_utils/host/cluster_records.py, device_mounts.py, mkfs.py)."""

import os

from ansible_collections.multiattach.cloud.plugins.module_utils.host import (
    cluster_records,
    device_mounts,
    mkfs,
)

COROSYNC = """# Written by multiattach.cloud.clustered_fs
totem {
    version: 2
    crypto_cipher: aes256
}
nodelist {
    node {
        ring0_addr: 10.0.0.1
        name: node-1
        nodeid: 1
    }
    node {
        ring0_addr: 10.0.0.9   # joined later
        name: node-0
        nodeid: 3
    }
}
quorum {
    provider: corosync_votequorum
}
"""

O2CB = (
    "cluster:\n\tnode_count = 2\n\tname = lab\n\nnode:\n\tip_port = 7777\n\tip_address = 10.0.0.1\n"
    "\tnumber = 0\n\tname = node-1\n\tcluster = lab\n\nnode:\n\tip_address = 10.0.0.2\n\tnumber = 4\n"
    "\tname = node-2\n\tcluster = lab\n\nnode:\n\tnumber = 1\n\tname = other\n\tcluster = elsewhere\n"
)

DLM_LS = """dlm lockspaces
name          shared
id            0x3d5b4a44
flags         0x00000000
change        member 2 joined 1 remove 0 failed 0 seq 1,1
members       1 3

name          other
id            0x1
members       1
"""


def test_corosync_nodelist_is_read_with_ids_and_addresses():
    assert cluster_records.corosync_nodes(COROSYNC) == {
        "node-1": dict(id=1, address="10.0.0.1"),
        "node-0": dict(id=3, address="10.0.0.9"),
    }
    assert cluster_records.corosync_nodes(None) == {}
    assert cluster_records.corosync_nodes(
        COROSYNC.replace("version: 2", "version: 2\n    cluster_name: lab"), "lab"
    ) == cluster_records.corosync_nodes(COROSYNC)
    # Debian's corosync package ships a one-node file of its own cluster: no record of ours.
    assert (
        cluster_records.corosync_nodes(
            COROSYNC.replace("version: 2", "version: 2\n    cluster_name: debian"), "lab"
        )
        == {}
    )


def test_o2cb_nodes_of_this_cluster_only():
    assert cluster_records.o2cb_conf_nodes(O2CB, "lab") == {
        "node-1": dict(id=0, address="10.0.0.1"),
        "node-2": dict(id=4, address="10.0.0.2"),
    }


def test_gfs2_mounted_by_are_the_members_of_its_lockspace_named_by_the_record():
    recorded = cluster_records.corosync_nodes(COROSYNC)

    def run(argv):
        return (0, DLM_LS, "") if argv[:2] == ["dlm_tool", "ls"] else (1, "", "")

    assert cluster_records.dlm_lockspace_members(DLM_LS) == {"shared": [1, 3], "other": [1]}
    if cluster_records.shutil.which("dlm_tool"):
        assert cluster_records.gfs2_mounted_by(
            run, ["LABEL=lab:shared", "TYPE=gfs2"], recorded
        ) == ["node-1", "node-0"]


def test_ocfs2_mounted_by_reads_the_slot_map_listing(monkeypatch):
    monkeypatch.setattr(cluster_records.shutil, "which", lambda name: "/usr/sbin/" + name)
    listing = (
        "Device                Stack  Cluster  F  Nodes\n"
        "/dev/vdb              o2cb   lab         node-1, 4\n"
    )
    recorded = cluster_records.o2cb_conf_nodes(O2CB, "lab")
    assert cluster_records.ocfs2_mounted_by(
        lambda argv: (0, listing, ""), "/dev/vdb", recorded
    ) == ["node-1", "node-2"]
    unmounted = "Device  Stack  Cluster  F  Nodes\n/dev/vdb  o2cb  lab     Not mounted\n"
    assert (
        cluster_records.ocfs2_mounted_by(lambda argv: (0, unmounted, ""), "/dev/vdb", recorded)
        == []
    )


def test_authkey_digest_names_the_key_without_showing_it(tmp_path):
    key = tmp_path / "authkey"
    key.write_bytes(b"\x00secret\xff")
    digest = cluster_records.authkey_digest(str(key))
    assert len(digest) == 64 and "secret" not in digest
    assert cluster_records.authkey_digest(str(tmp_path / "none")) is None


def test_every_mount_of_a_device_is_found_by_its_number_wherever_it_is(tmp_path):
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(
        "22 1 254:0 / / rw - ext4 /dev/vda rw\n"
        "40 22 252:16 / /srv/shared rw,noatime shared:1 - ocfs2 /dev/vdb rw\n"
        "41 22 252:16 /sub /mnt/other\\040place rw - ocfs2 /dev/vdb rw\n"
    )
    assert device_mounts.mounts_of((252, 16), str(mountinfo)) == [
        dict(target="/srv/shared", fstype="ocfs2", source="/dev/vdb"),
        dict(target="/mnt/other place", fstype="ocfs2", source="/dev/vdb"),
    ]
    assert device_mounts.mounts_of(None, str(mountinfo)) == []


def test_processes_using_a_filesystem_are_found_by_their_working_directory():
    here = os.stat(".").st_dev
    users = device_mounts.processes_using((os.major(here), os.minor(here)))
    assert users and all(" (" in user for user in users)


def test_mkfs_is_answered_yes_only_when_it_found_nothing():
    assert (
        mkfs.answer(
            "This will destroy any data on /dev/vdb\nAre you sure you want to proceed? [y/n] "
        )
        == b"y\n"
    )
    assert (
        mkfs.answer("It appears to contain an existing filesystem (ext4)\nAre you sure? [y/n] ")
        == b"n\n"
    )
    assert mkfs.answer("Overwriting existing ocfs2 partition.\nProceed (y/N): ") == b"n\n"
    assert mkfs.mkfs_command("gfs2", "/dev/vdb", 4, "shared", "lab") == [
        "mkfs.gfs2",
        "-p",
        "lock_dlm",
        "-t",
        "lab:shared",
        "-j",
        "4",
        "/dev/vdb",
    ]
    assert "-F" not in mkfs.mkfs_command("ocfs2", "/dev/vdb", 4, "shared", "lab")


def test_the_ring_members_are_the_joined_nodes_of_corosyncs_cmap(monkeypatch):
    monkeypatch.setattr(cluster_records.shutil, "which", lambda name: "/usr/sbin/" + name)
    cmap = (
        "runtime.members.1.config_version (u64) = 0\n"
        "runtime.members.1.ip (str) = r(0) ip(10.0.0.1) \n"
        "runtime.members.1.status (str) = joined\n"
        "runtime.members.2.status (str) = left\n"
        "runtime.members.3.join_count (u32) = 2\n"
        "runtime.members.3.status (str) = joined\n"
        "runtime.members.7.status (str) = joined\n"
    )
    recorded = cluster_records.corosync_nodes(COROSYNC)
    calls = []

    def run(argv):
        calls.append(argv)
        return 0, cmap, ""

    assert cluster_records.ring_members(run, recorded) == ["node-1", "node-0", "nodeid 7"]
    assert calls == [["corosync-cmapctl", "-b", "runtime.members"]]
    assert cluster_records.ring_members(lambda argv: (1, "", "no corosync"), recorded) == []


def test_the_server_each_gfs2_node_is_fenced_as_comes_from_dlm_conf():
    dlm_conf = (
        "# Written by multiattach.cloud.clustered_fs\n"
        "enable_fencing=1\n"
        "device os /usr/local/sbin/multiattach-fence-openstack cloud=c action=reboot\n"
        "connect os node=1 plug=5E0C5A52-3B8E-4A43-9D0C-0B1F0C6F9E11 delay=15\n"
        "connect os node=3 plug=0f4c1e9a-6b2d-4f7e-8a3c-1d2e3f4a5b6c\n"
        "connect os node=7 plug=aa  # a node no record names\n"
    )
    recorded = cluster_records.corosync_nodes(COROSYNC)
    assert cluster_records.fenced_as(recorded, dlm_conf) == {
        "node-1": "5e0c5a52-3b8e-4a43-9d0c-0b1f0c6f9e11",
        "node-0": "0f4c1e9a-6b2d-4f7e-8a3c-1d2e3f4a5b6c",
        "nodeid 7": "aa",
    }
    assert cluster_records.fenced_as(recorded, "enable_fencing=0\n") == {}
