"""clustered_fs judges the shared disk before it formats anything: real loop devices here.

The whole role (cluster stack, mkfs, mount on two nodes) runs in molecule/shared_disk.
"""

import hashlib
import os
import subprocess
from pathlib import Path

import pytest
import yaml
from harness.ansible_runner import LOCALHOST_VARS, ROOT, run_module, run_playbook, run_playbook_file

PLAYBOOK = ROOT / "tests" / "integration" / "playbooks" / "clustered_fs_disk_checks.yml"
MKFS_TASK = "Create the filesystem on the first node only, of type "
DISK_MIB = 64


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@pytest.fixture
def inventory(tmp_path):
    path = tmp_path / "hosts.yml"
    path.write_text(
        yaml.safe_dump({"clustered_fs_nodes": {"hosts": {"localhost": dict(LOCALHOST_VARS)}}})
    )
    return path


@pytest.fixture
def loop_disk(tmp_path):
    """Return a function that backs a loop device with IMAGE and yields (device, image)."""
    devices = []

    def attach(prepare=None):
        image = tmp_path / ("disk-%d.raw" % len(devices))
        with open(image, "wb") as handle:
            handle.truncate(DISK_MIB << 20)
        if prepare:
            prepare(image)
        device = subprocess.run(
            ["losetup", "--find", "--show", str(image)], check=True, capture_output=True, text=True
        ).stdout.strip()
        devices.append(device)
        return device, image

    yield attach
    for device in devices:
        subprocess.run(["losetup", "--detach", device], check=False)


def ext4_with_data(image):
    content = image.parent / "content"
    content.mkdir()
    (content / "database.dump").write_bytes(b"rows that must survive\n" * 1000)
    subprocess.run(["mkfs.ext4", "-q", "-d", str(content), str(image)], check=True)


def dos_partition_table(image):
    """One Linux partition in an MBR, written by hand (no fdisk on a minimal host)."""
    first_sector, sectors = 2048, (DISK_MIB << 11) - 2048
    entry = (
        bytes([0x00, 0, 0, 0, 0x83, 0, 0, 0])
        + first_sector.to_bytes(4, "little")
        + sectors.to_bytes(4, "little")
    )
    with open(image, "r+b") as handle:
        handle.seek(446)
        handle.write(entry + bytes(48) + b"\x55\xaa")


def ocfs2_with_two_slots(image):
    # -M local: no cluster stack on this machine; the slot count is the same on-disk field.
    subprocess.run(
        ["mkfs.ocfs2", "-q", "-M", "local", "-N", "2", "-L", "shared", str(image)], check=True
    )


def gfs2_with_two_journals(image):
    subprocess.run(
        ["mkfs.gfs2", "-O", "-p", "lock_dlm", "-t", "lab:shared", "-j", "2", str(image)],
        check=True,
        capture_output=True,
    )


def run(inventory, device, **options):
    extra = {"clustered_fs_device": device}
    extra.update(options.pop("extra_vars", {}))
    return run_playbook_file(PLAYBOOK, inventory=inventory, extra_vars=extra, **options)


def mkfs_results(result):
    return [r for r in result.results if r["_task"].startswith(MKFS_TASK)]


def assert_clean_failure(result):
    assert result.failures, "the play should have failed"
    output = result.completed.stdout + result.completed.stderr
    assert "Traceback" not in output


@pytest.mark.parametrize("fs_type", ["ocfs2", "gfs2"])
def test_a_disk_holding_ext4_is_refused_and_left_byte_identical(inventory, loop_disk, fs_type):
    device, image = loop_disk(ext4_with_data)
    before = sha256(image)

    result = run(inventory, device, extra_vars={"clustered_fs_type": fs_type})

    assert_clean_failure(result)
    assert "already carries a signature that is not %s" % fs_type in result.failure_message
    assert "TYPE=ext4" in result.failure_message
    assert "never formats a disk that holds data" in result.failure_message
    assert all(r["_status"] == "skipped" for r in mkfs_results(result))
    subprocess.run(["blockdev", "--flushbufs", device], check=True)
    assert sha256(image) == before


def test_a_disk_with_a_partition_table_is_refused(inventory, loop_disk):
    device, image = loop_disk(dos_partition_table)
    before = sha256(image)

    result = run(inventory, device)

    assert_clean_failure(result)
    assert "PTTYPE=dos" in result.failure_message
    assert sha256(image) == before


def test_an_empty_disk_in_check_mode_would_be_formatted_and_is_not_written(inventory, loop_disk):
    device, image = loop_disk()
    before = sha256(image)

    result = run(inventory, device, check=True)

    assert not result.failures, result.failure_message
    [mkfs] = mkfs_results(result)
    assert mkfs["changed"] is True and mkfs["command"][0] == "mkfs.ocfs2", mkfs
    assert sha256(image) == before


def test_a_missing_device_names_the_fix(inventory, tmp_path):
    result = run(inventory, str(tmp_path / "vdz"))

    assert_clean_failure(result)
    assert "does not exist on localhost" in result.failure_message
    assert "volume_attachments" in result.failure_message


def test_a_regular_file_is_not_taken_for_the_shared_disk(inventory, tmp_path):
    image = tmp_path / "plain-file.raw"
    image.write_bytes(b"\0" * 4096)

    result = run(inventory, str(image))

    assert_clean_failure(result)
    assert "is not a block device" in result.failure_message


@pytest.mark.parametrize(
    "fs_type,make,fix",
    [
        ("ocfs2", ocfs2_with_two_slots, "add 1 more node slots first (tunefs.ocfs2 -N 3 "),
        ("gfs2", gfs2_with_two_journals, "add 1 more journals first (gfs2_jadd -j 1 /srv/shared "),
    ],
)
def test_a_cluster_larger_than_the_filesystems_slots_fails_naming_both_numbers_and_the_fix(
    inventory, loop_disk, fs_type, make, fix
):
    device, image = loop_disk(make)
    before = sha256(image)

    result = run(
        inventory,
        device,
        extra_vars={
            "clustered_fs_type": fs_type,
            "clustered_fs_members": ["localhost", "node-2", "node-3"],
        },
    )

    assert_clean_failure(result)
    assert (
        "has 2 %s and the cluster now has 3 nodes"
        % ("node slots" if fs_type == "ocfs2" else "journals")
        in result.failure_message
    )
    assert fix in result.failure_message
    assert sha256(image) == before


@pytest.mark.parametrize(
    "fs_type,make", [("ocfs2", ocfs2_with_two_slots), ("gfs2", gfs2_with_two_journals)]
)
def test_a_filesystem_with_a_slot_for_every_node_is_kept_as_it_is(
    inventory, loop_disk, fs_type, make
):
    device, image = loop_disk(make)
    before = sha256(image)

    result = run(
        inventory,
        device,
        extra_vars={"clustered_fs_type": fs_type, "clustered_fs_members": ["localhost", "node-2"]},
    )

    assert not result.failures, result.failure_message
    assert all(r["_status"] == "skipped" for r in mkfs_results(result))
    assert sha256(image) == before


@pytest.mark.parametrize(
    "variable,value",
    [
        ("clustered_fs_cluster_name", "a-cluster-name-too-long"),
        ("clustered_fs_label", "bad label"),
        ("clustered_fs_group", "no_such_group"),
    ],
)
def test_bad_cluster_settings_fail_before_the_disk_is_touched(
    inventory, loop_disk, variable, value
):
    device, _image = loop_disk()

    result = run(inventory, device, extra_vars={variable: value})

    assert_clean_failure(result)
    assert "clustered_fs_group" in result.failure_message
    assert "clustered_fs_cluster_name (max 15)" in result.failure_message
    assert not mkfs_results(result)


@pytest.mark.parametrize("value", [0, -5])
def test_a_gfs2_ring_wait_without_a_limit_fails_naming_the_variable_before_the_disk_is_touched(
    inventory, loop_disk, value
):
    device, image = loop_disk()
    before = sha256(image)

    result = run(
        inventory,
        device,
        extra_vars={"clustered_fs_type": "gfs2", "clustered_fs_gfs2_ring_wait_seconds": value},
    )

    assert_clean_failure(result)
    assert "clustered_fs_gfs2_ring_wait_seconds is '%s'" % value in result.failure_message
    assert "1 or more" in result.failure_message
    assert not mkfs_results(result)
    assert sha256(image) == before


# Issue 50: timing values the stack would take but that undo the cluster's safety.
@pytest.mark.parametrize(
    "filesystem, variable, value, says, also",
    [
        ("gfs2", "clustered_fs_fencing_delay", 0, "both sides fence each other", {}),
        ("gfs2", "clustered_fs_fencing_delay", -3, "1 or more seconds", {}),
        # Off is Nova's clean stop: the delay must outlast the shutdown it allows.
        (
            "gfs2",
            "clustered_fs_fencing_delay",
            15,
            "more seconds than",
            {"clustered_fs_fencing_action": "off"},
        ),
        (
            "gfs2",
            "clustered_fs_fencing_delay",
            40,
            "clustered_fs_fencing_shutdown_timeout (45",
            {"clustered_fs_fencing_action": "off", "clustered_fs_fencing_shutdown_timeout": 45},
        ),
        ("gfs2", "clustered_fs_fencing_role", "admin", "one of Keystone's default roles", {}),
        ("gfs2", "clustered_fs_fencing_role", "member", "one of Keystone's default roles", {}),
        ("gfs2", "clustered_fs_corosync_token_ms", 0, "1000 ms or more", {}),
        ("ocfs2", "clustered_fs_ocfs2_dead_threshold", 1, "3 or more", {}),
        ("ocfs2", "clustered_fs_ocfs2_idle_timeout_ms", 2000, "more milliseconds than", {}),
        ("ocfs2", "clustered_fs_ocfs2_reconnect_delay_ms", 0, "1 or more milliseconds", {}),
        ("ocfs2", "clustered_fs_kernel_panic_seconds", 0, "kernel.panic 0", {}),
    ],
)
def test_a_timing_that_undoes_the_clusters_safety_fails_naming_it_before_the_disk_is_touched(
    inventory, loop_disk, filesystem, variable, value, says, also
):
    device, image = loop_disk()
    before = sha256(image)

    result = run(
        inventory, device, extra_vars={"clustered_fs_type": filesystem, variable: value, **also}
    )

    assert_clean_failure(result)
    assert "%s is '%s'" % (variable, value) in result.failure_message
    assert says in result.failure_message
    assert not mkfs_results(result)
    assert sha256(image) == before


@pytest.mark.parametrize("verify", [False, "no", "yes"])
def test_fencing_without_tls_verification_is_refused_before_the_disk_is_touched(
    inventory, loop_disk, verify
):
    device, image = loop_disk()
    before = sha256(image)
    cloud = {
        "auth": {
            "auth_url": "https://keystone.example:5000/v3",
            "username": "u",
            "password": "never-shown",
        }
    }

    result = run(
        inventory,
        device,
        extra_vars={
            "clustered_fs_type": "gfs2",
            "clustered_fs_fencing_cloud": dict(cloud, verify=verify),
        },
    )

    assert_clean_failure(result)
    assert "clustered_fs_fencing_cloud.verify is '%s'" % verify in result.failure_message
    assert "without verifying its TLS certificate" in result.failure_message
    assert "never-shown" not in result.completed.stdout + result.completed.stderr
    assert not mkfs_results(result)
    assert sha256(image) == before


def test_clustered_fs_info_reads_a_real_disk_its_signature_and_the_mount_in_one_run(
    loop_disk, tmp_path
):
    device, image = loop_disk(ext4_with_data)
    before = sha256(image)
    mount_point = tmp_path / "not-mounted"

    result = run_module(
        "multiattach.cloud.clustered_fs_info",
        {
            "device": device,
            "filesystem": "ocfs2",
            "mount_point": str(mount_point),
            "packages": ["util-linux", "no-such-package-here"],
        },
        check=True,
    )

    assert not result.get("failed"), result.get("msg")
    assert result["changed"] is False
    assert result["disk"] == {"path": device, "exists": True, "is_block_device": True}
    assert result["signature_type"] == "ext4" and "TYPE=ext4" in result["signatures"]
    assert (
        result["slots"] is None and result["o2cb_nodes"] == {} and result["stack_in_use"] is False
    )
    assert result["missing_packages"] == ["no-such-package-here"]
    assert result["mount_point_is_dir"] is False and result["mounted_type"] == ""
    assert result["fstab_entry"] is None
    assert sha256(image) == before


def test_clustered_fs_info_without_the_volume_reports_it_missing_and_probes_nothing(tmp_path):
    result = run_module(
        "multiattach.cloud.clustered_fs_info",
        {"volume_id": "5bd8c3a0-8e4b-4c2b-9a53-2d7d0e1f6a11", "mount_point": str(tmp_path)},
    )

    assert not result.get("failed"), result.get("msg")
    assert result["disk"] == {"path": None, "exists": False, "is_block_device": False}
    assert result["signatures"] == [] and result["mount_point_is_dir"] is True


def test_clustered_fs_info_refuses_both_a_volume_and_a_device(tmp_path):
    result = run_module(
        "multiattach.cloud.clustered_fs_info",
        {
            "volume_id": "5bd8c3a0-8e4b-4c2b-9a53-2d7d0e1f6a11",
            "device": "/dev/vdb",
            "mount_point": str(tmp_path),
        },
    )

    assert result.get("failed") and "mutually exclusive" in result["msg"]


def test_clustered_fs_info_counts_a_real_gfs2_journals(loop_disk, tmp_path):
    device, unused = loop_disk(gfs2_with_two_journals)

    result = run_module(
        "multiattach.cloud.clustered_fs_info",
        {"device": device, "filesystem": "gfs2", "mount_point": str(tmp_path)},
    )

    assert not result.get("failed"), result.get("msg")
    assert result["signature_type"] == "gfs2" and result["slots"] == 2
    assert result["dlm_lockspaces"] == [] and result["stack_in_use"] is False


LEAVE_PLAYBOOK = ROOT / "tests" / "integration" / "playbooks" / "clustered_fs_leave.yml"


@pytest.fixture
def mounted_elsewhere(loop_disk, tmp_path):
    """A loop disk holding ext4, mounted at a directory the role was not told of and bind-mounted
    once more, with an fstab entry by the device; fstab and mounts restored afterwards."""
    device, _image = loop_disk(ext4_with_data)
    first, second = tmp_path / "mounted elsewhere", tmp_path / "bound"
    first.mkdir()
    second.mkdir()
    subprocess.run(["mount", device, str(first)], check=True)
    subprocess.run(["mount", "--bind", str(first), str(second)], check=True)
    fstab = Path("/etc/fstab")
    kept = fstab.read_text() if fstab.exists() else None
    with open(fstab, "a") as lines:
        lines.write("%s /srv/leave-test ext4 defaults 0 0\n" % device)
    yield device, [str(first), str(second)]
    subprocess.run(["umount", "-R", str(second)], check=False, capture_output=True)
    subprocess.run(["umount", "-R", str(first)], check=False, capture_output=True)
    if kept is None:
        fstab.unlink()
    else:
        fstab.write_text(kept)


def mounts_of(device):
    number = os.stat(device).st_rdev
    wanted = "%d:%d" % (os.major(number), os.minor(number))
    return [
        line.split()[4].replace("\\040", " ")
        for line in Path("/proc/self/mountinfo").read_text().splitlines()
        if line.split()[2] == wanted
    ]


def leave(inventory, device, check=False):
    # gfs2: this machine runs no systemd and has no corosync or dlm unit, so the stack's stop is
    # skipped as on a node whose stack is down; o2cb's SysV script would be found and fail.
    return run_playbook_file(
        LEAVE_PLAYBOOK,
        inventory=inventory,
        check=check,
        extra_vars={
            "clustered_fs_device": device,
            "clustered_fs_mount_point": "/srv/leave-test",
            "clustered_fs_type": "gfs2",
        },
    )


@pytest.mark.parametrize("check", [False, True])
def test_leave_refuses_while_a_process_holds_the_disk_mounted_where_the_role_was_not_told(
    inventory, mounted_elsewhere, check
):
    device, targets = mounted_elsewhere
    holder = subprocess.Popen(["sleep", "300"], cwd=targets[1])
    try:
        result = leave(inventory, device, check=check)
    finally:
        holder.kill()
        holder.wait()

    assert_clean_failure(result)
    assert "in use by %d (sleep)" % holder.pid in result.failure_message
    assert targets[0] in result.failure_message and targets[1] in result.failure_message
    assert sorted(mounts_of(device)) == sorted(targets)
    assert device in Path("/etc/fstab").read_text()
    assert not any(r.get("ansible_facts", {}).get("clustered_fs_left") for r in result.results)


def test_leave_unmounts_every_mount_of_the_disk_and_drops_its_fstab_entries(
    inventory, mounted_elsewhere
):
    device, targets = mounted_elsewhere

    checked = leave(inventory, device, check=True)
    assert not checked.failures, checked.failure_message
    assert sorted(mounts_of(device)) == sorted(targets)

    result = leave(inventory, device)

    assert not result.failures, result.failure_message
    assert mounts_of(device) == []
    assert device not in Path("/etc/fstab").read_text()
    assert any(r.get("ansible_facts", {}).get("clustered_fs_left") for r in result.results)


def test_clustered_fs_mkfs_makes_gfs2_once_keeps_mkfs_own_question_and_never_writes_over_data(
    loop_disk,
):
    empty, _empty_image = loop_disk()
    options = {
        "device": empty,
        "filesystem": "gfs2",
        "slots": 2,
        "cluster_name": "lab",
        "label": "shared",
    }

    checked = run_module("multiattach.cloud.clustered_fs_mkfs", options, check=True)
    assert checked["changed"] is True and checked["command"][0] == "mkfs.gfs2", checked
    assert "-O" not in checked["command"]
    assert subprocess.run(["blkid", "-p", empty], capture_output=True, check=False).returncode == 2

    made = run_module("multiattach.cloud.clustered_fs_mkfs", options)
    assert not made.get("failed"), made.get("msg")
    assert made["changed"] is True and made["signature_type"] == "gfs2"
    assert any("Are you sure you want to proceed" in line for line in made["mkfs_output"])
    again = run_module("multiattach.cloud.clustered_fs_mkfs", options)
    assert again["changed"] is False and again["command"] == []

    holding, image = loop_disk(ext4_with_data)
    before = sha256(image)
    refused = run_module("multiattach.cloud.clustered_fs_mkfs", dict(options, device=holding))
    assert (
        refused.get("failed")
        and "TYPE=ext4" in refused["msg"]
        and "never formatted" in refused["msg"]
    )
    subprocess.run(["blockdev", "--flushbufs", holding], check=True)
    assert sha256(image) == before


START_TASK = "Start corosync and dlm with their configuration, and keep them enabled"


def gfs2_start_task():
    tasks = yaml.safe_load(
        (ROOT / "roles" / "clustered_fs" / "tasks" / "stack_gfs2.yml").read_text()
    )
    return next(task for task in tasks if task["name"].startswith(START_TASK))


@pytest.mark.parametrize(
    "in_use,written,authkey_changed,restart",
    [
        (
            False,
            [
                "/etc/corosync/corosync.conf",
                "/etc/multiattach/fencing/.config/openstack/clouds.yaml",
            ],
            False,
            True,
        ),
        (False, ["/etc/multiattach/fencing/.config/openstack/clouds.yaml"], False, False),
        (False, [], True, True),
        (False, [], False, False),
        (True, ["/etc/corosync/corosync.conf"], False, False),
    ],
)
def test_gfs2_restarts_a_stack_not_in_use_only_for_its_own_files_and_decides_by_a_boolean(
    in_use, written, authkey_changed, restart
):
    """The role's own condition and restart decision (read from stack_gfs2.yml), evaluated by
    ansible-playbook: a node whose units are enabled and running, stack in use or not. New
    fencing credentials alone restart nothing; a `when` that is not a boolean fails the run."""
    task = gfs2_start_task()
    facts = {
        "clustered_fs_node": {
            "stack_in_use": in_use,
            "services": {"corosync": {"active": True}, "dlm": {"active": True}},
        },
        "clustered_fs_units_to_enable": [],
        "clustered_fs_fencing_clouds_path": "/etc/multiattach/fencing/.config/openstack/clouds.yaml",
        "clustered_fs_gfs2_written": {"changed": bool(written), "written": written},
        "clustered_fs_authkey_written": {"changed": authkey_changed},
    }
    results, completed = run_playbook(
        [
            {"name": "facts", "ansible.builtin.set_fact": facts},
            {
                "name": "decide",
                "ansible.builtin.debug": {"msg": "restart"},
                "vars": task["vars"],
                "when": task["when"],
            },
        ]
    )
    decided = results[-1]
    assert not decided.get("failed"), decided.get("msg")
    assert (decided["_status"] == "skipped") is not restart, completed.stdout[-2000:]


def test_a_lease_node_out_of_reach_at_the_end_stops_nothing_after_it():
    """remove_node's run with its lease node unreachable at the end (make fault-rotation-cut):
    ansible-core 2.19 ended the play on the delegated unreachable that ignore_unreachable
    "ignored", so the run's last message (which member missed what, and the run that mends it)
    was never shown. The tasks after the release must still run."""
    results, completed = run_playbook(
        [
            {
                "name": "release",
                "ansible.builtin.include_role": {
                    "name": "multiattach.cloud.clustered_fs",
                    "tasks_from": "lease_end.yml",
                },
                # The release's SSH to a name that does not resolve: unreachable at once.
                "vars": {
                    "clustered_fs_lease": {
                        "cluster": "lab",
                        "node": "lease-node.invalid",
                        "owner": "a run",
                    },
                    "ansible_connection": "ssh",
                },
            },
            {"name": "after the release", "ansible.builtin.debug": {"msg": "went on"}},
        ]
    )
    names = [r["_task"] for r in results]
    released = [r for r in results if r["_task"].startswith("Let go of the cluster's lease")]
    assert released and released[0].get("unreachable"), completed.stdout[-3000:]
    assert "after the release" in names, completed.stdout[-3000:]
