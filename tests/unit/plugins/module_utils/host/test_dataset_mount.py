"""The planning of dataset_mount with fakes of the disk, the mount table and mkfs: a reader never
replays a journal, a writer is refused unless it alone holds a writable volume, nothing is formatted
over a signature, and check mode runs no command that changes anything."""

import pytest

from ansible_collections.multiattach.cloud.plugins.module_utils.host import dataset_mount
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure

DISK = {
    "path": "/dev/disk/by-id/virtio-5bd8c3a0-8e4b-4c2b-9",
    "exists": True,
    "is_block_device": True,
}


class FakeHost:
    """run_command of a server: findmnt answers from MOUNTED; every other command is recorded."""

    def __init__(self, mounted=None):
        self.mounted = mounted
        self.commands = []

    def __call__(self, argv):
        if argv[0] == "findmnt":
            return (0, self.mounted, "") if self.mounted else (1, "", "")
        self.commands.append(argv)
        return 0, "", ""


@pytest.fixture
def host(monkeypatch, tmp_path):
    fstab = tmp_path / "fstab"
    fstab.write_text("UUID=1 / ext4 defaults 0 1\n")
    monkeypatch.setattr(dataset_mount, "FSTAB", str(fstab))
    monkeypatch.setattr(dataset_mount, "find_disk", lambda volume_id, device: dict(DISK))
    monkeypatch.setattr(dataset_mount, "device_number", lambda path: (252, 16))
    state = {"signatures": ["TYPE=ext4"], "kernel_read_only": True, "made": []}
    monkeypatch.setattr(
        dataset_mount, "probe_signatures", lambda run, path: list(state["signatures"])
    )
    monkeypatch.setattr(dataset_mount, "disk_is_read_only", lambda path: state["kernel_read_only"])
    monkeypatch.setattr(
        dataset_mount,
        "run_on_terminal",
        lambda argv: (
            state["made"].append(argv) or state["signatures"].append("TYPE=ext4") or (0, "", [])
        ),
    )
    state.update(mounts=[], users=[])
    monkeypatch.setattr(
        dataset_mount,
        "device_mounts",
        lambda path, with_users=True: (list(state["mounts"]), list(state["users"])),
    )
    state["fstab"] = fstab
    return state


def change(run, **options):
    values = dict(
        volume_id="5bd8c3a0-8e4b-4c2b-9a53-2d7d0e1f6a11",
        device=None,
        mount_point="/srv/data/v1",
        filesystem="ext4",
        mode="ro",
        holders=None,
        read_only_flag=False,
        make_filesystem=False,
        label="dataset",
        persistent=True,
        options=[],
        state="present",
    )
    values.update(options)
    return dataset_mount.DatasetMountChange(run, **values)


def test_a_reader_mounts_read_only_without_journal_replay_and_a_rerun_changes_nothing(host):
    run = FakeHost()
    reader = change(run)
    checked = reader.run(check_mode=True)
    assert checked["changed"] is True and checked["options"] == "ro,noload"
    assert run.commands == [] and "v1" not in host["fstab"].read_text()
    assert checked["diff"]["after"] == {
        "mounted": "ro",
        "fstab": "%s /srv/data/v1 ext4 ro,noload,nofail 0 0" % DISK["path"],
    }
    applied = reader.run(check_mode=False)
    assert applied["changed"] is True and applied.get("warnings") is None
    assert run.commands == [
        ["mount", "-t", "ext4", "-o", "ro,noload", DISK["path"], "/srv/data/v1"]
    ]
    assert host["fstab"].read_text().splitlines()[-1] == applied["fstab_entry"]
    again = change(FakeHost(mounted="252:16 ext4 ro,relatime,norecovery")).run(check_mode=False)
    assert again["changed"] is False


def test_xfs_readers_mount_with_norecovery_and_a_writable_disk_is_warned_of(host):
    """nouuid too: a version copied from another keeps its UUID, which XFS refused to mount
    beside the original (b613a3e mounted ro,norecovery)."""
    host["signatures"], host["kernel_read_only"] = ["TYPE=xfs"], False
    result = change(FakeHost(), filesystem="xfs").run(check_mode=True)
    assert result["options"] == "ro,norecovery,nouuid"
    assert "writable in this server (the volume has no read-only flag)" in result["warnings"][0]


@pytest.mark.parametrize(
    "options, refusal",
    [
        (
            dict(mode="rw", holders=3, writable=True),
            "is held by 3 servers, and an ordinary ext4 written by one of them is read stale",
        ),
        (
            dict(mode="rw", holders=1, read_only_flag=True, writable=True),
            r"is read-only \(Cinder's read-only flag\): it is never mounted read-write",
        ),
        (
            dict(mode="rw", holders=1),
            r"the kernel holds /dev/disk/by-id/virtio-5bd8c3a0-8e4b-4c2b-9 read-only: Nova gave a <readonly/> disk",
        ),
    ],
)
def test_a_writer_is_refused_on_a_shared_or_read_only_volume_before_any_command(
    host, options, refusal
):
    run = FakeHost()
    host["kernel_read_only"] = not options.pop("writable", False)
    with pytest.raises(ModuleFailure, match=refusal):
        change(run, **options).run(check_mode=False)
    assert run.commands == [] and host["made"] == []


def test_a_reader_mounted_read_write_is_never_remounted_rw_on_a_shared_volume(host):
    run = FakeHost(mounted="252:16 ext4 ro,noload")
    host["kernel_read_only"] = False
    with pytest.raises(ModuleFailure, match="held by 2 servers"):
        change(run, mode="rw", holders=2).run(check_mode=False)
    assert run.commands == []


def test_rw_needs_the_clouds_count_and_make_filesystem_needs_rw():
    with pytest.raises(ModuleFailure, match="mode rw needs holders"):
        change(FakeHost(), mode="rw")
    with pytest.raises(ModuleFailure, match="make_filesystem needs mode rw"):
        change(FakeHost(), make_filesystem=True)


def test_the_lone_writer_makes_ext4_on_a_blank_disk_only_and_never_over_a_signature(host):
    host["signatures"], host["kernel_read_only"] = [], False
    run = FakeHost()
    writer = change(
        run, mode="rw", holders=1, make_filesystem=True, persistent=False, mount_point="/mnt/w"
    )
    plan = writer.plan(writer.read())
    assert plan.says() == [
        "make ext4 on %s" % DISK["path"],
        "mount %s on /mnt/w (rw)" % DISK["path"],
    ]
    writer.run(check_mode=True)
    assert host["made"] == [] and run.commands == []
    writer.run(check_mode=False)
    assert host["made"] == [["mkfs.ext4", "-q", "-L", "dataset", DISK["path"]]]
    host["signatures"] = ["PTTYPE=gpt"]
    with pytest.raises(ModuleFailure, match="carries PTTYPE=gpt, not ext4, and is never formatted"):
        change(FakeHost(), mode="rw", holders=1, make_filesystem=True).run(check_mode=False)
    host["signatures"] = []
    with pytest.raises(ModuleFailure, match="holds no filesystem: a reader has nothing to mount"):
        change(FakeHost()).run(check_mode=False)


def test_absent_syncs_unmounts_and_removes_the_entry(host):
    host["fstab"].write_text(
        "UUID=1 / ext4 defaults 0 1\n%s /srv/data/v1 ext4 ro,noload,nofail 0 0\n" % DISK["path"]
    )
    run = FakeHost(mounted="252:16 ext4 ro,noload")
    result = change(run, state="absent").run(check_mode=False)
    assert result["changed"] is True and result["diff"]["after"] == {"mounted": None, "fstab": None}
    assert run.commands == [["sync", "-f", "/srv/data/v1"], ["umount", "/srv/data/v1"]]
    assert host["fstab"].read_text() == "UUID=1 / ext4 defaults 0 1\n"
    gone = change(FakeHost(), state="absent").run(check_mode=False)
    assert gone["changed"] is False


def test_another_filesystem_on_the_mount_point_is_left_alone(host):
    run = FakeHost(mounted="8:1 ext4 rw")
    with pytest.raises(ModuleFailure, match="another filesystem is mounted on /srv/data/v1"):
        change(run).run(check_mode=False)


@pytest.mark.parametrize(
    ("mode", "options", "refused"),
    [
        ("ro", ["rw"], "rw"),
        ("ro", ["noatime", "RW"], "RW"),
        ("ro", ["remount"], "remount"),
        ("ro", ["bind"], "bind"),
        ("rw", ["rbind"], "rbind"),
    ],
)
def test_options_that_let_a_reader_write_or_mount_something_else_are_refused_before_any_read(
    host, mode, options, refused
):
    """b613a3e mounted a reader given [rw] with ro,noload,rw: read-write."""
    run = FakeHost()
    with pytest.raises(
        ModuleFailure, match=r"mount options? %s refused for .*Nothing was changed" % refused
    ):
        change(run, mode=mode, holders=1, options=options).run(check_mode=False)
    assert run.commands == []


def test_a_reader_keeps_its_harmless_options():
    assert (
        dataset_mount.mount_options("ext4", "ro", ["noatime", "nodev"]) == "ro,noload,noatime,nodev"
    )


class UnmountingHost(FakeHost):
    """A server whose umount takes the mount out of the disk's mounts."""

    def __init__(self, state, mounted=None):
        super().__init__(mounted)
        self.state = state

    def __call__(self, argv):
        if argv[0] == "umount":
            self.state["mounts"] = [m for m in self.state["mounts"] if m["target"] != argv[1]]
        return super().__call__(argv)


def mount_of(target):
    return {"target": target, "fstype": "ext4", "source": DISK["path"]}


def test_absent_lets_go_of_every_mount_of_the_version_a_bind_mount_too(host):
    """b613a3e unmounted the mount point alone; the server was then detached under the bind
    mount of the old version elsewhere."""
    host["mounts"] = [mount_of("/srv/data/v1"), mount_of("/srv/kept-old")]
    run = UnmountingHost(host, mounted="252:16 ext4 ro,noload")
    result = change(run, state="absent").run(check_mode=False)
    assert result["changed"] is True
    assert run.commands == [
        ["sync", "-f", "/srv/kept-old"],
        ["umount", "/srv/kept-old"],
        ["sync", "-f", "/srv/data/v1"],
        ["umount", "/srv/data/v1"],
    ]


def test_absent_refuses_while_a_process_holds_any_mount_of_the_version(host):
    host["mounts"] = [mount_of("/srv/data/v1"), mount_of("/srv/kept-old")]
    host["users"] = ["42 (reader)"]
    run = FakeHost(mounted="252:16 ext4 ro,noload")
    for check_mode in (True, False):
        with pytest.raises(
            ModuleFailure, match=r"mounted at /srv/data/v1, /srv/kept-old and in use by 42"
        ):
            change(run, state="absent").run(check_mode=check_mode)
    assert run.commands == []


def test_absent_never_reads_a_missing_disk_as_nothing_mounted(host, monkeypatch):
    monkeypatch.setattr(
        dataset_mount,
        "find_disk",
        lambda volume_id, device: {"path": None, "exists": False, "is_block_device": False},
    )
    run = FakeHost(mounted="252:32 ext4 ro,noload")
    with pytest.raises(
        ModuleFailure, match=r"is not on this server, yet ext4 is mounted on /srv/data/v1"
    ):
        change(run, state="absent").run(check_mode=False)
    assert run.commands == []
    assert change(FakeHost(), state="absent").run(check_mode=False)["changed"] is False
