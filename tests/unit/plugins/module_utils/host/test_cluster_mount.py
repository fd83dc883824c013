"""The planning of clustered_fs_mount with fakes of the disk and the mount table: the entry
written in its place and once, the mount made once, dlm started before a GFS2 mount and nothing
mounted when it does not start, systemd told after the mount, and check mode changing nothing."""

import re

import pytest

from ansible_collections.multiattach.cloud.plugins.module_utils.host import (
    cluster_mount,
    cluster_node,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure

DISK = {
    "path": "/dev/disk/by-id/virtio-5bd8c3a0-8e4b-4c2b-9",
    "exists": True,
    "is_block_device": True,
}
OTHER_LINES = "UUID=1 / ext4 defaults 0 1\nUUID=2 /boot ext4 defaults 0 2\n"


ROOT_MOUNT = "26 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"


class FakeNode:
    """run_command of a node, and its mountinfo: MOUNTED ("MAJ:MIN FSTYPE") is mounted on the
    mount point, a mount mounts the shared disk (252:16) there, and FAILING commands (by
    their first two words) fail."""

    def __init__(self, mounted=None, failing=()):
        self.mounted = mounted
        self.failing = set(failing)
        self.commands = []
        self.mountinfo = None

    def attach(self, node):
        self.mountinfo = node["mountinfo"]
        self.mount_point = str(node["mount_point"])
        self.write_mountinfo()
        return self

    def write_mountinfo(self):
        lines = ROOT_MOUNT
        if self.mounted:
            number, fstype = self.mounted.split()
            lines += "216 26 %s / %s rw,noatime shared:114 - %s /dev/vdb rw\n" % (
                number,
                self.mount_point,
                fstype,
            )
        self.mountinfo.write_text(lines)

    def __call__(self, argv):
        self.commands.append(argv)
        if " ".join(argv[:2]) in self.failing:
            return 1, "", "Job for dlm.service failed"
        if argv[0] == "mount":
            self.mounted = "252:16 ocfs2"
            self.write_mountinfo()
        return 0, "", ""


@pytest.fixture
def node(monkeypatch, tmp_path):
    fstab = tmp_path / "fstab"
    fstab.write_text(OTHER_LINES)
    booted = tmp_path / "run-systemd-system"
    booted.mkdir()
    monkeypatch.setattr(cluster_mount, "find_disk", lambda volume_id, device: dict(DISK))
    monkeypatch.setattr(cluster_mount, "device_number", lambda path: (252, 16))
    return dict(
        fstab=fstab,
        booted=booted,
        mount_point=tmp_path / "srv" / "shared",
        mountinfo=tmp_path / "mountinfo",
    )


def change(run, node, **options):
    values = dict(
        volume_id="5bd8c3a0-8e4b-4c2b-9a53-2d7d0e1f6a11",
        device=None,
        filesystem="ocfs2",
        mount_point=str(node["mount_point"]),
        options="_netdev,noatime",
        fstab=str(node["fstab"]),
        systemd_booted=str(node["booted"]),
        mountinfo=str(node["mountinfo"]),
    )
    values.update(options)
    if run.mountinfo is None:
        run.attach(node)
    return cluster_mount.ClusterMountChange(run, **values)


def entry(node, filesystem="ocfs2", options="_netdev,noatime"):
    return cluster_mount.cluster_fstab_entry(
        DISK["path"], str(node["mount_point"]), filesystem, options
    )


def test_a_fresh_node_is_mounted_in_one_run_check_mode_changes_nothing_a_rerun_nothing_more(node):
    run = FakeNode()
    checked = change(run, node).run(check_mode=True)
    assert checked["changed"] is True
    assert checked["diff"] == {
        "before": {"fstab": [], "mounted": None},
        "after": {"fstab": [entry(node)], "mounted": "ocfs2"},
    }
    assert run.commands == [] and node["fstab"].read_text() == OTHER_LINES
    assert not node["mount_point"].exists()

    done = change(run, node).run(check_mode=False)
    assert done["changed"] is True and done["fstab_entry"] == entry(node)
    assert node["fstab"].read_text() == OTHER_LINES + entry(node) + "\n"
    assert node["mount_point"].is_dir()
    # The entry before the mount (mount reads it), systemd told after, unwaited.
    assert run.commands == [
        ["blockdev", "--flushbufs", DISK["path"]],
        ["mount", str(node["mount_point"])],
        cluster_mount.RELOAD_UNWAITED,
    ]
    assert cluster_mount.RELOAD_UNWAITED[:2] == ["systemd-run", "--no-block"]

    run.commands.clear()
    again = change(run, node).run(check_mode=False)
    assert again["changed"] is False and run.commands == []


def test_gfs2_starts_dlm_before_its_mount_and_its_entry_requires_dlm(node):
    run = FakeNode()
    done = change(run, node, filesystem="gfs2").run(check_mode=False)
    assert done["fstab_entry"].split()[3] == "_netdev,noatime,x-systemd.requires=dlm.service"
    assert [argv[:2] for argv in run.commands] == [
        ["systemctl", "start"],
        ["blockdev", "--flushbufs"],
        ["mount", str(node["mount_point"])],
        ["systemd-run", "--no-block"],
    ]


def test_when_dlm_does_not_start_nothing_is_mounted_and_the_failure_says_why_and_what_to_do(node):
    run = FakeNode(failing=["systemctl start"])
    with pytest.raises(ModuleFailure) as failure:
        change(run, node, filesystem="gfs2").run(check_mode=False)
    assert "dlm.service did not start on this node, so GFS2 is not mounted" in failure.value.msg
    assert (
        "corosync-cfgtool -s" in failure.value.msg
        and "Job for dlm.service failed" in failure.value.msg
    )
    assert [argv[0] for argv in run.commands] == ["systemctl"]
    # The entry is kept, so the next run mounts and has systemd read fstab, entry unchanged.
    run = FakeNode()
    done = change(run, node, filesystem="gfs2").run(check_mode=False)
    assert done["changed"] is True
    assert run.commands[-1] == cluster_mount.RELOAD_UNWAITED


def test_an_entry_for_the_mount_point_is_replaced_where_it_was_and_others_for_it_are_dropped(node):
    mount_point = str(node["mount_point"])
    node["fstab"].write_text(
        "UUID=1 / ext4 defaults 0 1\n"
        "/dev/vdb %s ocfs2 _netdev 0 0\n"
        "# /dev/vdc %s ocfs2 _netdev 0 0\n"
        "UUID=2 /boot ext4 defaults 0 2\n"
        "/dev/vdd\t%s   ocfs2 defaults 0 0\n" % (mount_point, mount_point, mount_point)
    )
    node["mount_point"].mkdir(parents=True)
    run = FakeNode(mounted="252:16 ocfs2")
    done = change(run, node).run(check_mode=False)
    assert done["changed"] is True
    assert done["diff"]["before"]["fstab"] == [
        "/dev/vdb %s ocfs2 _netdev 0 0" % mount_point,
        "/dev/vdd %s ocfs2 defaults 0 0" % mount_point,
    ]
    assert node["fstab"].read_text() == (
        "UUID=1 / ext4 defaults 0 1\n%s\n# /dev/vdc %s ocfs2 _netdev 0 0\nUUID=2 /boot ext4 defaults 0 2\n"
        % (entry(node), mount_point)
    )
    # Mounted already: the entry and systemd's reading of it, no second mount.
    assert run.commands == [cluster_mount.RELOAD_UNWAITED]


def test_without_systemd_as_init_nothing_is_reloaded(node):
    node["booted"].rmdir()
    run = FakeNode()
    change(run, node).run(check_mode=False)
    assert [argv[0] for argv in run.commands] == ["blockdev", "mount"]


@pytest.mark.parametrize(
    "mounted, says",
    [
        ("252:16 ext4", "ext4 is already mounted on"),
        ("252:32 ocfs2", "ocfs2 is already mounted on"),
    ],
)
def test_another_filesystem_or_disk_on_the_mount_point_is_refused_in_check_mode_too(
    node, mounted, says
):
    for check_mode in (True, False):
        run = FakeNode(mounted=mounted)
        with pytest.raises(ModuleFailure) as failure:
            change(run, node).run(check_mode=check_mode)
        assert says in failure.value.msg and "not the shared disk" in failure.value.msg
        assert run.commands == [] and node["fstab"].read_text() == OTHER_LINES


def test_a_mount_point_that_is_a_file_is_refused(node):
    node["mount_point"].parent.mkdir(parents=True)
    node["mount_point"].write_text("")
    with pytest.raises(ModuleFailure, match="exists and is no directory"):
        change(FakeNode(), node).run(check_mode=False)
    assert node["fstab"].read_text() == OTHER_LINES


def test_a_disk_not_attached_is_refused_naming_the_fix(node, monkeypatch):
    monkeypatch.setattr(
        cluster_mount,
        "find_disk",
        lambda volume_id, device: dict(path=None, exists=False, is_block_device=False),
    )
    with pytest.raises(ModuleFailure, match="attach the volume to it first"):
        change(FakeNode(), node).run(check_mode=True)


@pytest.mark.parametrize("options", ["", "_netdev, noatime", "defaults\n"])
def test_options_that_are_no_fstab_field_are_refused(node, options):
    with pytest.raises(ModuleFailure, match="comma-separated, without spaces"):
        change(FakeNode(), node, options=options)


@pytest.mark.parametrize(
    ("filesystem", "options", "refused"),
    [
        ("gfs2", "_netdev,lockproto=lock_nolock", "lockproto=lock_nolock"),
        ("gfs2", "locktable=other:fs", "locktable=other:fs"),
        ("gfs2", "hostdata=jid=0", "hostdata=jid=0"),
        ("gfs2", "localflocks", "localflocks"),
        ("gfs2", "spectator", "spectator"),
        ("gfs2", "norecovery", "norecovery"),
        ("ocfs2", "localflocks", "localflocks"),
        ("ocfs2", "_netdev,coherency=buffered", "coherency=buffered"),
        ("ocfs2", "bind", "bind"),
        ("gfs2", "remount,spectator", "remount, spectator"),
    ],
)
def test_options_that_undo_the_clusters_safety_are_refused_naming_each(
    node, filesystem, options, refused
):
    """b613a3e wrote lockproto=lock_nolock into fstab."""
    run = FakeNode()
    expected = r"mount options? %s refused for a %s mount shared by the cluster" % (
        re.escape(refused),
        filesystem.upper(),
    )
    with pytest.raises(ModuleFailure, match=expected):
        change(run, node, filesystem=filesystem, options=options).run(check_mode=True)
    assert node["fstab"].read_text() == OTHER_LINES


def test_ocfs2_keeps_full_coherency_and_gfs2_its_ordinary_options(node):
    change(FakeNode(), node, filesystem="ocfs2", options="_netdev,coherency=full")
    change(FakeNode(), node, filesystem="gfs2", options="_netdev,noatime,quota=off")


def test_the_nodes_read_refuses_them_so_the_role_writes_nothing_first():
    with pytest.raises(ModuleFailure, match=r"lockproto=lock_nolock refused for a GFS2 mount"):
        cluster_node.ClusterNodeReading(
            None,
            volume_id="5bd8c3a0-8e4b-4c2b-9a53-2d7d0e1f6a11",
            device=None,
            filesystem="gfs2",
            cluster_name="lab",
            mount_point="/srv/shared",
            packages=[],
            gfs2_fencing=True,
            fencing_cloud=None,
            read_users=False,
            files=[],
            mount_options="_netdev,lockproto=lock_nolock",
        )
