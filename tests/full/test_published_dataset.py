"""A dataset published to three of Nova's guests (full profile): playbooks/publish_dataset.yml
writes a version from one server alone, flags it read-only and hands it to the readers, which
mount it read-only; a write from a reader fails and the disk stays byte-identical; a new
version is published two readers at a time while a process on one reader still reads the old
one, which stays attached to that reader alone until a re-run, and every reader ends on it. The domains are read through libvirt-python,
the guests' view from inside them. The figures go to .cache/bench/dataset.json."""

import hashlib
import json
import os
import re
import time
import uuid

import libvirt
import pytest
import yaml
from harness import guests
from harness.ansible_runner import LOCALHOST_VARS, ROOT, run_ansible_playbook, run_module
from harness.ceph import image_digest

DATASET_TYPE = "multiattach-rbd-1"
POOL = "volumes"
DISK_XML = re.compile(r"<disk .*?</disk>", re.DOTALL)
FIGURES = ROOT / ".cache" / "bench" / "dataset.json"


@pytest.fixture(scope="module")
def readers(full_guests):
    return full_guests


@pytest.fixture(scope="module")
def dataset(admin_cloud):
    name = "ds" + uuid.uuid4().hex[:6]
    yield name
    for volume in list(admin_cloud.block_storage.volumes()):
        if (volume.metadata or {}).get("dataset") != name:
            continue
        detached = run_module(
            "multiattach.cloud.volume_attachments",
            {
                "cloud": "local-admin",
                "volume": volume.id,
                "servers": [],
                "exclusive": True,
                "timeout": 300,
            },
        )
        assert not detached.get("failed"), detached.get("msg")
        admin_cloud.block_storage.delete_volume(volume)


@pytest.fixture(scope="module")
def hypervisor():
    conn = libvirt.open("qemu:///system")
    yield conn
    conn.close()


def inventory(tmp_path, readers):
    hosts = {
        server.name: {
            "ansible_host": guests.address(server),
            "ansible_user": "root",
            "ansible_ssh_private_key_file": str(guests.KEY),
            "ansible_ssh_common_args": "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null",
            "ansible_python_interpreter": "/usr/bin/python3",
            # One SSH round trip per task, as docs/playbooks.md advises.
            "ansible_pipelining": True,
        }
        for server in readers
    }
    path = tmp_path / "inventory.yml"
    path.write_text(
        yaml.safe_dump(
            {
                "all": {
                    "hosts": {"localhost": dict(LOCALHOST_VARS)},
                    "children": {"dataset_readers": {"hosts": hosts}},
                }
            }
        )
    )
    return path


def content(directory, version):
    """A version's files (random bytes, text, a subdirectory): {relative path: sha256}."""
    files = {
        "weights.bin": os.urandom(3 << 20),
        "README": ("version %s\n" % version).encode(),
        "tables/index.csv": ("id,version\n1,%s\n" % version).encode(),
    }
    for relative, data in files.items():
        (directory / relative).parent.mkdir(parents=True, exist_ok=True)
        (directory / relative).write_bytes(data)
    return {relative: hashlib.sha256(data).hexdigest() for relative, data in files.items()}


def publish(
    tmp_path,
    readers,
    name,
    version,
    check=False,
    serial=1,
    source_volume=None,
    fails_on=None,
    cloud_from_env=False,
):
    """Run the playbook for VERSION: written from a new directory by the first reader, or a copy
    of SOURCE_VOLUME; (the files' sums, its seconds, its task results). FAILS_ON: the one host
    whose failure the run must end with (the others succeed). CLOUD_FROM_ENV: the cloud named by
    OS_CLOUD, as an operator's environment does, not by multiattach_cloud."""
    variables = {
        "dataset_name": name,
        "dataset_version": version,
        "dataset_volume_type": DATASET_TYPE,
        "dataset_serial": serial,
    }
    if not cloud_from_env:
        variables["multiattach_cloud"] = "local-admin"
    sums = None
    if source_volume:
        variables["dataset_source_volume"] = source_volume
    else:
        directory = tmp_path / version
        directory.mkdir(exist_ok=True)
        sums = content(directory, version) if not any(directory.iterdir()) else None
        variables.update(dataset_content_dir=str(directory), dataset_writer=readers[0].name)
    started = time.monotonic()
    results, completed = run_ansible_playbook(
        [
            "-i",
            str(inventory(tmp_path, readers)),
            "playbooks/publish_dataset.yml",
            "-e",
            json.dumps(variables),
        ],
        check=check,
        extra_env={"OS_CLOUD": "local-admin"} if cloud_from_env else None,
    )
    seconds = time.monotonic() - started
    failed = [r for r in results if r.get("failed")]
    if fails_on:
        assert completed.returncode != 0 and {r["_host"] for r in failed} == {fails_on}, (
            failed or completed.stdout[-3000:]
        )
        return sums, seconds, results
    assert completed.returncode == 0 and not failed, (
        failed or completed.stdout[-3000:],
        completed.stderr[-3000:],
    )
    return sums, seconds, results


def reader_sums(server, name):
    """sha256 of every file under the reader's current version, and of the whole disk behind it."""
    answer = guests.ssh(
        server,
        "cd /srv/datasets/%s/current && find . -type f -printf '%%P\\n' | sort | "
        "xargs sha256sum && readlink -f /srv/datasets/%s/current" % (name, name),
    )
    assert answer.returncode == 0, answer.stderr
    lines = answer.stdout.strip().splitlines()
    return {path: digest for digest, path in (line.split(None, 1) for line in lines[:-1])}, lines[
        -1
    ]


def volume_of(admin_cloud, name, version):
    [volume] = [
        v for v in admin_cloud.block_storage.volumes() if v.name == "%s-%s" % (name, version)
    ]
    return volume


def test_a_dataset_is_read_only_on_three_readers_and_a_new_version_replaces_it_on_every_one(
    admin_cloud, readers, dataset, hypervisor, tmp_path
):
    figures = {}
    # The first version goes to every reader at once; the second moves them one by one.
    sums, figures["publish_v1_all_readers_at_once_seconds"], unused = publish(
        tmp_path, readers, dataset, "v1", serial=len(readers)
    )
    v1 = volume_of(admin_cloud, dataset, "v1")
    assert v1.metadata["readonly"] == "True"
    assert sorted(a["server_id"] for a in v1.attachments) == sorted(s.id for s in readers)

    disk_before = image_digest(POOL, "volume-" + v1.id)
    for server in readers:
        [disk] = [
            d
            for d in DISK_XML.findall(hypervisor.lookupByUUIDString(server.id).XMLDesc(0))
            if "volume-%s'" % v1.id in d
        ]
        assert "<readonly/>" in disk and "<shareable/>" in disk, disk
        files, where = reader_sums(server, dataset)
        assert files == sums and where == "/srv/datasets/%s/v1" % dataset

    # A reader's writes fail: through the filesystem (mounted ro) and on the disk itself
    # (the kernel holds Nova's <readonly/> disk read-only), and the disk is unchanged.
    for server in readers:
        touched = guests.ssh(server, "touch /srv/datasets/%s/current/intruder" % dataset)
        assert touched.returncode != 0 and "Read-only file system" in touched.stderr, touched
        raw = guests.ssh(
            server,
            "dd if=/dev/zero of=/dev/disk/by-id/virtio-%s bs=4096 count=1 oflag=direct "
            "conv=notrunc" % v1.id[:20],
        )
        assert raw.returncode != 0 and re.search("Operation not permitted|Read-only", raw.stderr), (
            raw
        )
        # blockdev --setrw lifts the guest kernel's flag; QEMU's read-only disk still refuses.
        forced = guests.ssh(
            server,
            f"blockdev --setrw /dev/disk/by-id/virtio-{v1.id[:20]} && dd if=/dev/zero "
            f"of=/dev/disk/by-id/virtio-{v1.id[:20]} bs=4096 count=1 oflag=direct conv=notrunc; "
            f"rc=$?; blockdev --setro /dev/disk/by-id/virtio-{v1.id[:20]}; exit $rc",
        )
        assert forced.returncode != 0, forced
    # Every byte of the volume (read from Ceph, what every reader reads) and every reader's files.
    assert image_digest(POOL, "volume-" + v1.id) == disk_before
    for server in readers:
        assert reader_sums(server, dataset)[0] == sums

    # The role refuses a read-write mount of the flagged volume, before anything is mounted.
    writer = tmp_path / "writer.yml"
    writer.write_text(
        yaml.safe_dump(
            [
                {
                    "hosts": readers[0].name,
                    "gather_facts": False,
                    "roles": [
                        {
                            "role": "multiattach.cloud.shared_dataset",
                            "shared_dataset_volume_id": v1.id,
                            "shared_dataset_mount_point": "/mnt/intruder",
                            "shared_dataset_mode": "rw",
                            "shared_dataset_cloud": "local-admin",
                        }
                    ],
                }
            ]
        )
    )
    results, unused = run_ansible_playbook(["-i", str(inventory(tmp_path, readers)), str(writer)])
    [refusal] = [r for r in results if r.get("failed")]
    assert (
        "is read-only (Cinder's read-only flag): it is never mounted read-write" in refusal["msg"]
    )
    assert guests.ssh(readers[0], "findmnt /mnt/intruder").returncode != 0

    # v2 goes to two readers at a time while a process on reader 1 still reads v1: that reader
    # cannot let v1 go, and v1 must stay attached to it (a detach under its mount would fail
    # every read), while the others are moved and let go of v1.
    busy = readers[1]
    holder = guests.ssh(
        busy,
        "cd /srv/datasets/%s/v1 && (setsid sleep 900 </dev/null >/dev/null 2>&1 &) && "
        "sleep 0.5 && readlink /proc/$(pgrep -xf 'sleep 900')/cwd" % dataset,
    )
    assert holder.stdout.strip() == "/srv/datasets/%s/v1" % dataset, holder
    # Reader 2 also holds v1 through a bind mount elsewhere (b613a3e let go of the mount point
    # alone, then detached v1 under the bind mount).
    bound = readers[2]
    assert (
        guests.ssh(
            bound,
            "mkdir -p /mnt/v1-elsewhere && mount --bind /srv/datasets/%s/v1 /mnt/v1-elsewhere"
            % dataset,
        ).returncode
        == 0
    )
    # Named by OS_CLOUD alone (b613a3e made v2 and attached the writer, then failed in its mount).
    sums2, figures["publish_v2_two_readers_at_a_time_one_busy_seconds"], moved = publish(
        tmp_path, readers, dataset, "v2", serial=2, fails_on=busy.name, cloud_from_env=True
    )
    assert guests.ssh(bound, "findmnt /mnt/v1-elsewhere").returncode != 0, "the bind mount stayed"
    [refused] = [r for r in moved if r.get("failed")]
    # Refused before any unmount, naming the mount and the process (b613a3e failed at its umount).
    assert "mounted at /srv/datasets/%s/v1 and in use by" % dataset in refused["msg"], refused[
        "msg"
    ]
    assert "(sleep); nothing was unmounted" in refused["msg"], refused["msg"]
    [kept] = [
        r for r in moved if r["_task"] == "Warn of the earlier versions that servers still hold"
    ]
    assert "%s-v1 by %s" % (dataset, busy.name) in kept["msg"], kept["msg"]
    v2 = volume_of(admin_cloud, dataset, "v2")
    assert [a["server_id"] for a in admin_cloud.block_storage.get_volume(v1.id).attachments] == [
        busy.id
    ]
    assert guests.ssh(busy, "findmnt /srv/datasets/%s/v1" % dataset).returncode == 0
    assert guests.ssh(busy, "pkill -xf 'sleep 900'").returncode == 0

    # A re-run finishes it: only the busy reader and the detach of v1 change anything.
    unused, figures["rerun_v2_after_the_busy_reader_seconds"], rerun = publish(
        tmp_path, readers, dataset, "v2"
    )
    changed = {(r["_host"], r["_task"]) for r in rerun if r.get("changed")}
    assert {host for host, unused in changed} == {busy.name, "localhost"}, changed
    assert ("localhost", "Detach each earlier version from the readers that let it go") in changed
    for server in readers:
        files, where = reader_sums(server, dataset)
        assert files == sums2 and where == "/srv/datasets/%s/v2" % dataset
        mounted = guests.ssh(
            server,
            "findmnt -n -o OPTIONS /srv/datasets/%s/v2; findmnt /srv/datasets/%s/v1 "
            "|| echo v1-gone" % (dataset, dataset),
        )
        # The kernel shows ext4's noload by its other name.
        assert mounted.stdout.split()[0].startswith("ro,") and "norecovery" in mounted.stdout
        assert mounted.stdout.strip().endswith("v1-gone")
    assert admin_cloud.block_storage.get_volume(v1.id).attachments == []
    assert len(admin_cloud.block_storage.get_volume(v2.id).attachments) == 3

    # A volume whose name is "<dataset>-v1-2" but which is version 2 of dataset "<dataset>-v1":
    # version v1-2 of this dataset is refused, not taken for it (b613a3e found versions by name).
    decoy = admin_cloud.block_storage.create_volume(
        size=1,
        name="%s-v1-2" % dataset,
        volume_type=DATASET_TYPE,
        metadata={"dataset": "%s-v1" % dataset, "dataset_version": "2"},
    )
    try:
        admin_cloud.block_storage.wait_for_status(decoy, "available", wait=120)
        refused = publish(tmp_path, readers, dataset, "v1-2", fails_on="localhost")[2]
        [failure] = [r for r in refused if r.get("failed")]
        assert "is not version v1-2 of dataset %s" % dataset in failure["msg"], failure["msg"]
        decoy = admin_cloud.block_storage.get_volume(decoy.id)
        assert decoy.attachments == [] and decoy.metadata["dataset"] == "%s-v1" % dataset
    finally:
        admin_cloud.block_storage.delete_volume(decoy.id)

    # Check mode of a version not made yet: says what it would make, makes nothing.
    checked = publish(tmp_path, readers, dataset, "v3", check=True)[2]
    assert any("would be made" in str(r.get("msg")) for r in checked)
    assert [v for v in admin_cloud.block_storage.volumes() if v.name == "%s-v3" % dataset] == []
    for server in readers:
        assert reader_sums(server, dataset)[1] == "/srv/datasets/%s/v2" % dataset

    # A version that is a copy of another volume (no writer): v3 from v2, every reader moved.
    figures["publish_v3_copy_of_v2_seconds"] = publish(
        tmp_path, readers, dataset, "v3", source_volume="%s-v2" % dataset
    )[1]
    v3 = volume_of(admin_cloud, dataset, "v3")
    assert v3.source_volume_id == v2.id and v3.metadata["readonly"] == "True"
    for server in readers:
        assert reader_sums(server, dataset) == (sums2, "/srv/datasets/%s/v3" % dataset)
    assert admin_cloud.block_storage.get_volume(v2.id).attachments == []
    FIGURES.parent.mkdir(parents=True, exist_ok=True)
    FIGURES.write_text(json.dumps(dict(figures, readers=len(readers)), indent=1))
