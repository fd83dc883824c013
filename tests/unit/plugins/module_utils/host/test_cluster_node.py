"""clustered_fs_info's one-pass read of a node: the disk, its signature, the stack, the mount."""

import hashlib

import pytest

from ansible_collections.multiattach.cloud.plugins.module_utils.host import (
    cluster_node,
    device_mounts,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure

VOLUME_ID = "5bd8c3a0-8e4b-4c2b-9a53-2d7d0e1f6a11"


class FakeCommands:
    """Answers commands by their first word; records every command run."""

    def __init__(self, **answers):
        self.answers = answers
        self.ran = []

    def __call__(self, argv):
        self.ran.append(argv)
        return self.answers.get(argv[0].replace(".", "_").replace("-", "_"), (0, "", ""))


def params(**overrides):
    values = dict(
        volume_id=VOLUME_ID,
        device=None,
        filesystem="ocfs2",
        cluster_name="multiattach",
        mount_point="/srv/shared",
        packages=["ocfs2-tools"],
        gfs2_fencing=True,
        fencing_cloud=None,
        read_users=True,
        files=[],
    )
    values.update(overrides)
    return values


def node_report(run, options):
    """What clustered_fs_info reads on this node with OPTIONS."""
    return cluster_node.ClusterNodeReading(run, **options).read(check_mode=False)


def test_a_volume_is_found_by_its_virtio_serial_and_a_missing_one_is_named_by_nothing(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(cluster_node, "BY_ID", str(tmp_path))
    assert cluster_node.find_disk(VOLUME_ID, None) == dict(
        path=None, exists=False, is_block_device=False
    )
    (tmp_path / ("virtio-" + VOLUME_ID[:20])).write_text("")
    found = cluster_node.find_disk(VOLUME_ID, None)
    assert found == dict(
        path=str(tmp_path / ("virtio-" + VOLUME_ID[:20])), exists=True, is_block_device=False
    )


def test_a_device_path_is_used_as_given(tmp_path):
    assert cluster_node.find_disk("", str(tmp_path / "vdz")) == dict(
        path=str(tmp_path / "vdz"), exists=False, is_block_device=False
    )


def test_the_probe_drops_cached_blocks_before_blkid_and_reads_its_type():
    commands = FakeCommands(blkid=(0, "DEVNAME=/dev/vdb\nLABEL=shared\nTYPE=ocfs2\n", ""))
    signatures = cluster_node.probe_signatures(commands, "/dev/vdb")
    assert [argv[0] for argv in commands.ran] == ["blockdev", "blkid"]
    assert cluster_node.signature_type(signatures) == "ocfs2"


def test_an_empty_disk_has_no_signature_and_a_blkid_error_fails_naming_the_disk():
    assert cluster_node.probe_signatures(FakeCommands(blkid=(2, "", "")), "/dev/vdb") == []
    with pytest.raises(ModuleFailure, match="blkid cannot probe /dev/vdb"):
        cluster_node.probe_signatures(FakeCommands(blkid=(4, "", "I/O error")), "/dev/vdb")


STATUS = """Package: gfs2-utils
Status: install ok installed
Description: tools for GFS2
 Status: install ok installed (a description line, not a field)

Package: corosync
Status: deinstall ok config-files
Description: cluster engine
 .

Package: dlm-controld-doc
Status: install ok installed
"""


def test_missing_packages_are_those_dpkgs_status_file_does_not_list_as_installed(tmp_path):
    status = tmp_path / "status"
    status.write_text(STATUS)

    def no_command(argv):
        raise AssertionError("dpkg's status file was there: nothing to run, ran %s" % argv)

    wanted = ["gfs2-utils", "dlm-controld", "corosync"]
    assert cluster_node.missing_packages(no_command, wanted, str(status)) == [
        "dlm-controld",
        "corosync",
    ]
    assert cluster_node.missing_packages(no_command, [], str(status)) == []


def test_without_dpkgs_status_file_dpkg_query_answers_in_the_same_form(tmp_path):
    commands = FakeCommands(
        dpkg_query=(
            1,
            "Package: gfs2-utils\nStatus: install ok installed\n\n"
            "Package: corosync\nStatus: deinstall ok config-files\n\n",
            "dpkg-query: no packages found matching dlm-controld",
        )
    )
    wanted = ["gfs2-utils", "dlm-controld", "corosync"]
    assert cluster_node.missing_packages(commands, wanted, str(tmp_path / "none")) == [
        "dlm-controld",
        "corosync",
    ]
    [argv] = commands.ran
    assert argv[:2] == ["dpkg-query", "-W"] and argv[3:] == wanted


def test_a_service_runs_and_starts_at_boot_by_one_systemctl_show_and_a_sysv_script_by_its_links(
    tmp_path,
):
    shown = (
        "Id=o2cb.service\nActiveState=active\nUnitFileState=generated\n\n"
        "Id=ocfs2.service\nActiveState=inactive\nUnitFileState=generated\n\n"
        "Id=corosync.service\nActiveState=active\nUnitFileState=enabled\n\n"
        "Id=dlm.service\nActiveState=inactive\nUnitFileState=disabled\n\n"
        "Id=gone.service\nActiveState=inactive\nUnitFileState=\n"
    )
    ran = []

    def commands(argv):
        ran.append(argv)
        return 0, shown, ""

    # A SysV script starts at boot with a start link in rcS.d or rc5.d (systemd-sysv-install's
    # is-enabled); a stop link alone, or a start link elsewhere, is not that.
    for directory, link in (("rc5.d", "S01o2cb"), ("rc0.d", "K01ocfs2"), ("rc2.d", "S01ocfs2")):
        (tmp_path / directory).mkdir()
        (tmp_path / directory / link).symlink_to("../init.d/x")
    services = ["o2cb", "ocfs2", "corosync", "dlm", "gone"]
    assert cluster_node.service_states(commands, services, str(tmp_path)) == {
        "o2cb": dict(active=True, enabled=True),
        "ocfs2": dict(active=False, enabled=False),
        "corosync": dict(active=True, enabled=True),
        "dlm": dict(active=False, enabled=False),
        "gone": dict(active=False, enabled=False),
    }
    assert len(ran) == 1 and "--property=Id,ActiveState,UnitFileState" in ran[0]


def test_what_is_mounted_on_the_mount_point_is_the_last_mount_there_in_mountinfo(tmp_path):
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(
        "26 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
        "216 26 254:16 / /srv/shared rw,noatime shared:114 - ocfs2 /dev/vdb rw,_netdev\n"
        "217 216 0:40 / /srv/shared rw shared:115 - tmpfs tmpfs rw\n"
        "218 26 254:32 / /srv/with\\040space rw - gfs2 /dev/vdc rw\n"
    )
    assert cluster_node.mounted_type("/srv/shared", str(mountinfo)) == "tmpfs"
    assert device_mounts.mount_at("/srv/with space", str(mountinfo)) == dict(
        number=(254, 32), fstype="gfs2", source="/dev/vdc"
    )
    assert cluster_node.mounted_type("/srv/with space", str(mountinfo)) == "gfs2"
    assert cluster_node.mounted_type("/srv", str(mountinfo)) == ""
    assert cluster_node.mounted_type("/srv/shared", str(tmp_path / "none")) == ""


def test_the_running_o2cb_nodes_come_from_configfs(tmp_path, monkeypatch):
    monkeypatch.setattr(cluster_node, "O2CB_CONFIGFS", str(tmp_path / "{cluster}" / "node"))
    assert cluster_node.o2cb_nodes("multiattach") == {}
    for name, number in (("node-1", 0), ("node-2", 1)):
        (tmp_path / "multiattach" / "node" / name).mkdir(parents=True)
        (tmp_path / "multiattach" / "node" / name / "num").write_text("%d\n" % number)
    assert cluster_node.o2cb_nodes("multiattach") == {"node-1": 0, "node-2": 1}


def test_the_fstab_entry_is_the_line_for_the_mount_point_not_a_comment(tmp_path):
    fstab = tmp_path / "fstab"
    fstab.write_text(
        "/dev/vda / ext4 defaults 0 1\n#/dev/vdc /srv/shared ext4 defaults 0 0\n"
        "/dev/disk/by-id/virtio-x\t/srv/shared  ocfs2 _netdev,noatime 0 0\n"
    )
    assert cluster_node.fstab_entry("/srv/shared", str(fstab)) == (
        "/dev/disk/by-id/virtio-x /srv/shared ocfs2 _netdev,noatime 0 0"
    )
    assert cluster_node.fstab_entry("/srv/other", str(fstab)) is None


def test_a_node_without_the_volume_is_reported_without_probing_any_disk(tmp_path, monkeypatch):
    monkeypatch.setattr(cluster_node, "BY_ID", str(tmp_path))
    commands = FakeCommands()
    report = node_report(commands, params(mount_point=str(tmp_path / "mnt")))
    assert report["disk"]["exists"] is False and report["signature_type"] is None
    assert report["slots"] is None and report["mount_point_is_dir"] is False
    assert not [argv for argv in commands.ran if argv[0] in ("blockdev", "blkid", "tunefs.ocfs2")]


def test_gfs2_counts_as_in_use_only_with_corosync_running_and_a_lockspace(tmp_path, monkeypatch):
    monkeypatch.setattr(cluster_node, "BY_ID", str(tmp_path))
    monkeypatch.setattr(cluster_node, "DLM_LOCKSPACES", str(tmp_path / "dlm"))
    running = FakeCommands(systemctl=(0, "Id=corosync.service\nActiveState=active\n", ""))
    assert node_report(running, params(filesystem="gfs2"))["stack_in_use"] is False
    (tmp_path / "dlm" / "shared").mkdir(parents=True)
    assert node_report(running, params(filesystem="gfs2"))["stack_in_use"] is True
    stopped = FakeCommands(systemctl=(0, "Id=corosync.service\nActiveState=inactive\n", ""))
    assert node_report(stopped, params(filesystem="gfs2"))["stack_in_use"] is False


def test_gfs2_without_fencing_on_a_nova_server_is_warned_of_and_elsewhere_not(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(cluster_node, "BY_ID", str(tmp_path))
    dmi = tmp_path / "dmi"
    dmi.mkdir()
    (dmi / "product_uuid").write_text("390425E5-D5C6-4E6E-8BA1-29B1C77B6B90\n")
    (dmi / "product_name").write_text("OpenStack Nova\n")
    monkeypatch.setattr(cluster_node.cluster_records, "DMI", str(dmi))
    unfenced = node_report(FakeCommands(), params(filesystem="gfs2", gfs2_fencing=False))
    assert unfenced["server_uuid"] == "390425e5-d5c6-4e6e-8ba1-29b1c77b6b90"
    assert len(unfenced["warnings"]) == 1 and "WITHOUT FENCING" in unfenced["warnings"][0]
    assert node_report(FakeCommands(), params(filesystem="gfs2"))["warnings"] == []
    (dmi / "product_name").write_text("Standard PC (i440FX + PIIX, 1996)\n")
    elsewhere = node_report(FakeCommands(), params(filesystem="gfs2", gfs2_fencing=False))
    assert elsewhere["warnings"] == [] and elsewhere["server_uuid"] is None


# gfs2_edit -p jindex of a GFS2 made with -j 3 (gfs2-utils 3.5.0, Debian 12), dinode lines cut.
GFS2_JINDEX = """\
Block #2073    (0x819) of 102400 (0x19000) (inode)
--------------- Journal Index ------------------
Dinode:
  mh_magic              0x01161970(hex)
  di_size               3864                0xf18

Directory block: lf_depth:0, lf_entries:0, lf_inode: 0x0, lf_dist: 0, lf_nsec: 0, lf_sec: 0, fmt:0 next=0x0 (5 dirents).
   1/1 [0ED4E242] 5/2073 (0x5/0x819) +0: Dir     .
   2/2 [9608161C] 4/2072 (0x4/0x818) +0: Dir     ..
   3/3 [FC7745EB] 1/18 (0x1/0x12) +0: File    journal0
   4/4 [8B70757D] 2/2075 (0x2/0x81b) +0: File    journal1
   5/5 [127924C7] 3/4132 (0x3/0x1024) +0: File    journal2
------------------------------------------------------
"""


def test_gfs2_slots_are_its_journals_and_ocfs2_slots_come_from_tunefs(monkeypatch):
    monkeypatch.setattr(cluster_node.shutil, "which", lambda tool: "/usr/sbin/" + tool)
    assert (
        cluster_node.filesystem_slots(
            FakeCommands(gfs2_edit=(0, GFS2_JINDEX, "")), "/dev/vdb", "gfs2"
        )
        == 3
    )
    assert (
        cluster_node.filesystem_slots(
            FakeCommands(tunefs_ocfs2=(0, "4\n", "")), "/dev/vdb", "ocfs2"
        )
        == 4
    )
    assert (
        cluster_node.filesystem_slots(
            FakeCommands(gfs2_edit=(1, "", "bad superblock")), "/dev/vdb", "gfs2"
        )
        is None
    )


def test_slots_are_unknown_while_the_filesystem_tools_are_not_installed(monkeypatch):
    monkeypatch.setattr(cluster_node.shutil, "which", lambda tool: None)
    commands = FakeCommands()
    assert cluster_node.filesystem_slots(commands, "/dev/vdb", "ocfs2") is None
    assert cluster_node.filesystem_slots(commands, "/dev/vdb", "gfs2") is None
    assert commands.ran == []


def test_the_files_asked_for_are_read_as_sha256_and_mode(tmp_path):
    kept = tmp_path / "cluster.conf"
    kept.write_text("cluster:\n")
    kept.chmod(0o640)
    missing = tmp_path / "missing"
    read = node_report(FakeCommands(), params(files=[str(kept), str(missing)]))["files"]
    assert read == {
        str(kept): {"sha256": hashlib.sha256(b"cluster:\n").hexdigest(), "mode": "0640"},
        str(missing): None,
    }


def test_cluster_traces_are_the_cluster_filesystems_mounts_lockspaces_and_heartbeats(tmp_path):
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(
        "26 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
        "216 26 252:16 / /srv/shared rw,noatime shared:114 - gfs2 /dev/vdb rw\n"
        "217 26 252:32 / /srv/o rw shared:115 - ocfs2 /dev/vdc rw\n"
    )
    lockspaces = tmp_path / "dlm"
    (lockspaces / "shared").mkdir(parents=True)
    o2cb = tmp_path / "cluster"
    (o2cb / "lab" / "heartbeat" / "0C4F").mkdir(parents=True)
    (o2cb / "lab" / "heartbeat" / "dead_threshold").write_text("31\n")
    assert cluster_node.cluster_traces(str(mountinfo), str(lockspaces), str(o2cb)) == dict(
        mounts=["/srv/shared (gfs2 on /dev/vdb)", "/srv/o (ocfs2 on /dev/vdc)"],
        lockspaces=["shared"],
        heartbeats=["lab/0C4F"],
    )
    assert cluster_node.cluster_traces(
        str(tmp_path / "none"), str(tmp_path / "none"), str(tmp_path / "none")
    ) == dict(mounts=[], lockspaces=[], heartbeats=[])
