"""clustered_fs_leave's plan: what it drops from fstab, what it stops, what it refuses (no node)."""

import os
import time

import pytest

from ansible_collections.multiattach.cloud.plugins.module_utils.host import cluster_leave
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure

FSTAB = """# static
UUID=abc / ext4 defaults 0 1
/dev/disk/by-id/virtio-5bd8c3a0-8e4b-4c2b-9 /srv/shared ocfs2 _netdev,noatime 0 0
/dev/vdb /mnt/elsewhere ocfs2 defaults 0 0
/dev/vdc /srv/shared-not ext4 defaults 0 0
"""


def test_only_the_lines_of_the_mount_point_or_the_disk_are_dropped():
    dropped = cluster_leave.fstab_lines_to_drop(
        FSTAB, "/srv/shared", ["/dev/disk/by-id/virtio-5bd8c3a0-8e4b-4c2b-9", "/dev/vdb"]
    )
    assert dropped == FSTAB.splitlines()[2:4]


def change(tmp_path, member=True):
    fstab = tmp_path / "fstab"
    fstab.write_text(FSTAB)
    return cluster_leave.ClusterLeaveChange(
        None,
        volume_id=None,
        device="/dev/vdb",
        filesystem="ocfs2",
        cluster_name="lab",
        mount_point="/srv/shared",
        member=member,
        fstab=str(fstab),
        stack_files=[str(tmp_path / "cluster.conf"), str(tmp_path / "o2cb")],
    )


def state(mounts=(), users=(), services=None, kept=("cluster.conf",), member=True):
    return dict(
        disk={"path": "/dev/vdb", "exists": True, "is_block_device": True},
        mounts=[{"target": t, "source": "/dev/vdb", "fstype": "ocfs2"} for t in mounts],
        users=list(users),
        member=member,
        fstab=FSTAB,
        services=services or {},
        files_kept=list(kept),
    )


def test_a_held_filesystem_is_refused_naming_the_processes_before_any_step(tmp_path):
    with pytest.raises(ModuleFailure, match=r"in use by 42 \(sleep\); nothing was unmounted"):
        change(tmp_path).plan(state(["/srv/shared"], users=["42 (sleep)"]))


def test_a_member_unmounts_the_last_mount_first_then_stops_what_runs_and_sets_aside(tmp_path):
    services = {
        "ocfs2": {"active": True, "enabled": True},
        "o2cb": {"active": True, "enabled": False},
    }
    plan = change(tmp_path).plan(state(["/srv/shared", "/mnt/elsewhere"], services=services))
    assert plan.says() == [
        "unmount /mnt/elsewhere, /srv/shared",
        "drop 2 fstab lines",
        "stop ocfs2, o2cb; disable none; systemctl daemon-reload started",
        "set aside cluster.conf",
    ]
    assert "/srv/shared ocfs2" not in plan.after["fstab"] and "UUID=abc" in plan.after["fstab"]


def test_a_node_outside_the_cluster_keeps_its_stack_and_its_configuration(tmp_path):
    plan = change(tmp_path, member=False).plan(state(["/srv/shared"], member=False))
    assert plan.says() == [
        "unmount /srv/shared",
        "drop 2 fstab lines",
        "systemctl daemon-reload started",
    ]
    assert plan.result["set_aside"] == []


def test_a_node_that_left_already_has_nothing_to_do(tmp_path):
    left = state(kept=())
    left["fstab"] = "UUID=abc / ext4 defaults 0 1\n"
    assert change(tmp_path).plan(left).steps == []


class FakeSystemctl:
    """Answers systemctl as a node whose o2cb and ocfs2 run and start at boot."""

    def __init__(self):
        self.ran = []

    def __call__(self, argv):
        self.ran.append(argv)
        if argv[:2] == ["systemctl", "show"]:
            return (
                0,
                "Id=o2cb.service\nActiveState=active\nUnitFileState=generated\n\n"
                "Id=ocfs2.service\nActiveState=active\nUnitFileState=generated\n",
                "",
            )
        return 0, "", ""


def test_the_steps_run_in_order_and_leave_the_files_as_planned(tmp_path):
    systemctl = FakeSystemctl()
    leave = change(tmp_path)
    leave.run_command = systemctl
    leave.device = str(tmp_path / "no-disk")
    (tmp_path / "cluster.conf").write_text("cluster:\n")
    (tmp_path / "o2cb").write_text("O2CB_ENABLED=true\n")

    done = leave.run(check_mode=False)

    assert done["changed"] and done["stopped"] == ["ocfs2", "o2cb"]
    # OCFS2's SysV units stay enabled: o2cb's boot switch is set aside instead.
    assert [argv for argv in systemctl.ran if argv[1] in ("stop", "disable")] == [
        ["systemctl", "stop", "ocfs2", "o2cb"],
    ]
    assert "/srv/shared " not in (tmp_path / "fstab").read_text()
    assert "/mnt/elsewhere" in (tmp_path / "fstab").read_text(), "another device's line stays"
    assert (tmp_path / "cluster.conf.left").exists() and not (tmp_path / "cluster.conf").exists()
    assert (tmp_path / "o2cb.left").exists() and not (tmp_path / "o2cb").exists()
    assert set(done["seconds"]) == {"fstab", "stack", "set_aside", "reload"}


def test_gfs2_units_are_stopped_and_disabled(tmp_path):
    leave = change(tmp_path)
    leave.filesystem = "gfs2"
    services = {u: {"active": True, "enabled": True} for u in ("corosync", "dlm")}
    plan = leave.plan(state(services=services))
    assert "stop dlm, corosync; disable dlm, corosync; systemctl daemon-reload started" in (
        plan.says()
    )


class SlowStop(FakeSystemctl):
    """A stop that takes a while, as on an emulated guest; records when each call began and ended."""

    def __init__(self):
        super().__init__()
        self.spans = {}

    def __call__(self, argv):
        started = time.monotonic()
        verb = argv[argv.index("systemctl") + 1]
        if verb in ("stop", "daemon-reload"):
            time.sleep(0.3)
        answer = super().__call__(argv)
        self.spans[verb] = (started, time.monotonic())
        return answer


def test_gfs2_units_are_disabled_then_stopped_then_systemd_rereads_them_unwaited(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(cluster_leave.os.path, "isdir", lambda path: True)
    systemctl = SlowStop()
    leave = change(tmp_path)
    leave.filesystem = "gfs2"
    leave.run_command = systemctl
    services = {u: {"active": True, "enabled": True} for u in ("corosync", "dlm")}

    for step in leave.plan(state(services=services, kept=())).steps:
        step.do()

    ran = [argv for argv in systemctl.ran if argv[1] != "show"]
    # systemd's links only: update-rc.d for the shadowed SysV scripts costs seconds a unit.
    # The reload after the stop (systemd answers nothing while it reloads), in a transient
    # unit that the run does not wait for.
    assert ran == [
        ["env", "SYSTEMCTL_SKIP_SYSV=1", "systemctl", "disable", "--quiet", "--no-reload", "dlm",
         "corosync"],
        ["systemctl", "stop", "dlm", "corosync"],
        ["systemd-run", "--no-block", "--quiet", "--collect", "systemctl", "daemon-reload"],
    ]  # fmt: skip
    assert set(leave.seconds) >= {"stack", "reload"}


FENCING_FILE = """clouds:
  multiattach-fencing-lab:
    auth:
      auth_url: http://192.0.2.1:5000/v3
      password: not-this-one
      username: multiattach-fencing-lab
    identity_api_version: 3
"""


def gfs2_leave(tmp_path, systemctl, fencing_text=FENCING_FILE, member=True):
    """A GFS2 member's leave over files in TMP_PATH, with its stack files and fencing file."""
    stack = {name: tmp_path / name for name in ("corosync.conf", "dlm.conf", "ring-wait")}
    drop_in = tmp_path / "dlm.service.d" / "multiattach-ring-wait.conf"
    drop_in.parent.mkdir()
    for path in list(stack.values()) + [drop_in]:
        path.write_text("# Written by multiattach.cloud.clustered_fs\n")
    fencing = tmp_path / "clouds.yaml"
    fencing.write_text(fencing_text)
    (tmp_path / "fstab").write_text(FSTAB)
    leave = cluster_leave.ClusterLeaveChange(
        systemctl,
        volume_id=None,
        device=str(tmp_path / "no-disk"),
        filesystem="gfs2",
        cluster_name="lab",
        mount_point="/srv/shared",
        member=member,
        fencing_cloud="multiattach-fencing-lab",
        fstab=str(tmp_path / "fstab"),
        stack_files=[str(p) for p in stack.values()] + [str(drop_in)],
        unit_files=(str(drop_in),),
        fencing_clouds=(str(fencing), str(tmp_path / "former-clouds.yaml")),
    )
    return leave, stack, drop_in, fencing


class GFS2Systemctl(FakeSystemctl):
    """A node whose corosync and dlm run and start at boot; records whether the drop-in was
    still in place when systemd was told to read its units again."""

    def __init__(self, drop_in=None):
        super().__init__()
        self.drop_in = drop_in
        self.drop_in_at_reload = None

    def __call__(self, argv):
        if argv[:2] == ["systemctl", "show"]:
            self.ran.append(argv)
            return (
                0,
                "Id=corosync.service\nActiveState=active\n\nId=dlm.service\nActiveState=active\n",
                "",
            )
        if argv[-1] == "daemon-reload":
            self.drop_in_at_reload = self.drop_in.exists()
        return super().__call__(argv)


def test_a_gfs2_member_sets_aside_all_its_stack_files_and_removes_the_fencing_password(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(cluster_leave.os.path, "isdir", lambda path: True)
    systemctl = GFS2Systemctl()
    leave, stack, drop_in, fencing = gfs2_leave(tmp_path, systemctl)
    systemctl.drop_in = drop_in

    done = leave.run(check_mode=False)

    assert done["changed"] and done["removed"] == [str(fencing)]
    assert not fencing.exists(), "no copy of the fencing password stays, not even set aside"
    assert not list(tmp_path.glob("clouds.yaml*"))
    for path in list(stack.values()) + [drop_in]:
        assert not path.exists() and path.with_name(path.name + ".left").exists(), path
    assert systemctl.drop_in_at_reload is False, "systemd forgets the drop-in in the same reload"
    assert sorted(done["set_aside"]) == sorted(
        str(p) + ".left" for p in list(stack.values()) + [drop_in]
    )
    assert "credentials" in done["seconds"] and not done.get("warnings")


def test_a_gfs2_leave_in_check_mode_names_the_password_file_and_touches_nothing(tmp_path):
    systemctl = GFS2Systemctl()
    leave, stack, drop_in, fencing = gfs2_leave(tmp_path, systemctl)

    done = leave.run(check_mode=True)

    assert done["changed"] and done["removed"] == [str(fencing)]
    assert fencing.read_text() == FENCING_FILE and drop_in.exists()
    assert all(path.exists() for path in stack.values())
    assert not any(
        argv[1] in ("stop", "disable", "daemon-reload") for argv in systemctl.ran if len(argv) > 1
    )


def test_a_fencing_file_that_holds_other_clouds_is_kept_with_a_warning(tmp_path, monkeypatch):
    monkeypatch.setattr(cluster_leave.os.path, "isdir", lambda path: True)
    shared = FENCING_FILE + "  operators-own:\n    auth:\n      password: theirs\n"
    systemctl = GFS2Systemctl()
    leave, unused, drop_in, fencing = gfs2_leave(tmp_path, systemctl, fencing_text=shared)
    systemctl.drop_in = drop_in

    done = leave.run(check_mode=False)

    assert done["removed"] == [] and fencing.read_text() == shared
    assert len(done["warnings"]) == 1
    warning = done["warnings"][0]
    assert "multiattach-fencing-lab" in warning and "operators-own" in warning
    assert "not-this-one" not in warning and "theirs" not in warning


def test_a_node_outside_the_cluster_keeps_the_fencing_file(tmp_path, monkeypatch):
    monkeypatch.setattr(cluster_leave.os.path, "isdir", lambda path: True)
    systemctl = GFS2Systemctl()
    leave, _stack, drop_in, fencing = gfs2_leave(tmp_path, systemctl, member=False)
    systemctl.drop_in = drop_in

    done = leave.run(check_mode=False)

    assert done["removed"] == [] and fencing.exists() and drop_in.exists()


def test_a_gfs2_node_that_left_already_has_nothing_to_do(tmp_path):
    systemctl = GFS2Systemctl()
    leave, _stack, _drop_in, fencing = gfs2_leave(tmp_path, systemctl)
    fencing.unlink()
    gone = state(kept=())
    gone["fstab"] = "UUID=abc / ext4 defaults 0 1\n"
    gone["fencing_clouds"] = leave.read_fencing_clouds()
    assert gone["fencing_clouds"] == {} and leave.plan(gone).steps == []


def test_a_node_its_stack_records_is_a_member_whatever_its_groups_and_held_the_password(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(cluster_leave.os.path, "isdir", lambda path: True)
    systemctl = GFS2Systemctl()
    leave, _stack, drop_in, fencing = gfs2_leave(tmp_path, systemctl, member=False)
    systemctl.drop_in = drop_in
    monkeypatch.setattr(leave, "recorded_nodes", lambda: {os.uname()[1]: {"id": 3}})

    done = leave.run(check_mode=True)

    assert done["member"] is True and done["held_fencing_credentials"] is True
    assert done["removed"] == [str(fencing)] and fencing.exists()
    assert done["stopped"] == ["corosync", "dlm"][::-1]


def test_a_node_outside_the_cluster_is_no_member_and_held_no_password(tmp_path, monkeypatch):
    systemctl = GFS2Systemctl()
    leave, _stack, _drop_in, _fencing = gfs2_leave(tmp_path, systemctl, member=False)
    monkeypatch.setattr(leave, "recorded_nodes", lambda: {"another-node": {"id": 3}})

    done = leave.run(check_mode=True)

    assert done["member"] is False and done["held_fencing_credentials"] is False
    assert done["stopped"] == [] and done["removed"] == []


def identified(tmp_path, **options):
    fstab = tmp_path / "fstab"
    fstab.write_text(FSTAB)
    values = dict(
        volume_id="5bd8c3a0-8e4b-4c2b-9a53-2d7d0e1f6a11",
        device=None,
        filesystem="gfs2",
        cluster_name="lab",
        mount_point="/srv/shared",
        member=True,
        fstab=str(fstab),
        stack_files=[str(tmp_path / "corosync.conf")],
    )
    values.update(options)
    return cluster_leave.ClusterLeaveChange(None, **values)


MISSING = {"path": None, "exists": False, "is_block_device": False}
MOUNTED_GFS2 = dict(mounts=["/srv/shared (gfs2 on /dev/vdb)"], lockspaces=["shared"], heartbeats=[])


def test_a_host_that_is_another_server_is_refused_before_any_step(tmp_path):
    """b613a3e unmounted the guest it reached and detached the server the cloud named."""
    leave = identified(tmp_path, server_id="ID-B")
    with pytest.raises(
        ModuleFailure, match=r"this host is Nova server id-a .*not id-b.*Nothing was done"
    ):
        leave.plan(dict(state(["/srv/shared"]), server_uuid="id-a"))
    plan = leave.plan(dict(state(["/srv/shared"]), server_uuid="id-b"))
    assert plan.result["server_id"] == "id-b" and plan.says()[0] == "unmount /srv/shared"


def test_a_host_that_cannot_tell_its_server_needs_the_operators_word(tmp_path):
    with pytest.raises(
        ModuleFailure, match=r"cannot tell.*cannot be confirmed to be server id-b.*dmidecode"
    ):
        identified(tmp_path, server_id="id-b").plan(dict(state(), server_uuid=None))
    confirmed = identified(tmp_path, server_id="id-b", server_id_confirmed=True)
    assert confirmed.plan(dict(state(), server_uuid=None)).result["server_id"] == "id-b"
    # The operator's word never overrides what the node reads.
    with pytest.raises(ModuleFailure, match="this host is Nova server id-a"):
        confirmed.plan(dict(state(), server_uuid="id-a"))


def test_a_disk_the_cloud_says_is_attached_must_be_found(tmp_path):
    current = dict(state(), disk=MISSING, traces=dict(mounts=[], lockspaces=[], heartbeats=[]))
    with pytest.raises(
        ModuleFailure, match=r"the cloud says volume 5bd8.* is attached.*no such disk"
    ):
        identified(tmp_path, attached=True).plan(current)


def test_a_disk_not_found_is_never_nothing_mounted_while_a_cluster_filesystem_is_in_use(tmp_path):
    """The wrong shared_volume_name: b613a3e dropped the fstab line and stopped dlm and corosync
    under the mounted GFS2."""
    services = {
        "dlm": {"active": True, "enabled": True},
        "corosync": {"active": True, "enabled": True},
    }
    current = dict(state(services=services), disk=MISSING, traces=MOUNTED_GFS2)
    with pytest.raises(
        ModuleFailure,
        match=r"volume 5bd8.* is not on this server, yet a cluster filesystem is in use here "
        r"\(cluster filesystem mounts: /srv/shared \(gfs2 on /dev/vdb\); DLM lockspaces: shared\)",
    ):
        identified(tmp_path, attached=False).plan(current)
    heartbeat = dict(mounts=[], lockspaces=[], heartbeats=["lab/0C4F"])
    with pytest.raises(ModuleFailure, match=r"o2cb heartbeat regions: lab/0C4F"):
        identified(tmp_path).plan(dict(current, traces=heartbeat))
    idle = dict(mounts=[], lockspaces=[], heartbeats=[])
    assert identified(tmp_path).plan(dict(current, traces=idle)).says()[0].startswith("drop")


def test_a_leave_also_removes_the_copy_the_role_wrote_before_where_it_is_alone(tmp_path):
    """Before the role had a file of its own it wrote the fencing entry into
    /etc/openstack/clouds.yaml: a member that leaves keeps neither copy."""
    systemctl = GFS2Systemctl()
    leave, _stack, _drop_in, fencing = gfs2_leave(tmp_path, systemctl)
    former = tmp_path / "former-clouds.yaml"
    former.write_text(FENCING_FILE)

    done = leave.apply(leave.plan(leave.read()), check_mode=False)

    assert sorted(done["removed"]) == sorted([str(fencing), str(former)])
    assert not fencing.exists() and not former.exists()
    assert done["held_fencing_credentials"] is True
