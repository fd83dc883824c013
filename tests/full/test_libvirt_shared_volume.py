"""The seeds' mechanism itself: Nova's libvirt driver gives one Cinder RBD volume to two QEMU
guests as a shareable disk, and takes it from one while the other keeps it.

The servers are real guests on the full profile's libvirt compute host (QEMU TCG): booted from
the Glance guest image in the macvtap guest network, reached over SSH. Domains are read
through libvirt-python, watchers from Ceph, the guests' view of the disk from inside them.
"""

import re
import uuid

import libvirt
import pytest
import yaml
from harness import guests
from harness.ansible_runner import LOCALHOST_VARS, run_ansible_playbook, run_module
from harness.ceph import watchers
from harness.volumes import delete_and_wait

POOL = "volumes"
SHARED_TYPE = "multiattach-rbd-1"
DISK_XML = re.compile(r"<disk .*?</disk>", re.DOTALL)


@pytest.fixture(scope="module")
def servers(full_guests):
    """Two of the session's guests on the libvirt host."""
    return full_guests[:2]


@pytest.fixture
def shared_volume(admin_cloud):
    name = "full-shared-" + uuid.uuid4().hex[:8]
    created = run_module(
        "multiattach.cloud.volume",
        {"cloud": "local-member", "name": name, "size": 1, "volume_type": SHARED_TYPE},
    )
    assert created["changed"] is True, created.get("msg")
    yield created["volume"]
    volume = admin_cloud.block_storage.get_volume(created["volume"]["id"])
    for attachment in volume.attachments:
        admin_cloud.compute.delete_volume_attachment(attachment["server_id"], volume.id)
    admin_cloud.block_storage.wait_for_status(volume, "available", wait=120)
    delete_and_wait(admin_cloud, volume)


@pytest.fixture(scope="module")
def hypervisor():
    conn = libvirt.open("qemu:///system")
    yield conn
    conn.close()


def shared_disks(hypervisor, server_id, volume_id, flags=0):
    """The <disk> elements of the server's domain that are this volume."""
    domain = hypervisor.lookupByUUIDString(server_id)
    return [
        disk for disk in DISK_XML.findall(domain.XMLDesc(flags)) if "volume-%s'" % volume_id in disk
    ]


LIVE, PERSISTENT = 0, libvirt.VIR_DOMAIN_XML_INACTIVE


def test_the_servers_are_guests_booted_from_the_glance_image_in_the_guest_network(
    servers, hypervisor
):
    for server in servers:
        assert server.compute_host == guests.LIBVIRT_HOST
        assert hypervisor.lookupByUUIDString(server.id).isActive()
        # The config drive gave the guest its name and its Neutron address.
        answer = guests.ssh(server, "hostname; ip -o -4 addr show scope global")
        assert answer.returncode == 0, answer.stderr
        assert answer.stdout.split()[0] == server.name
        assert " %s/" % guests.address(server) in answer.stdout
    first, second = servers
    # The guests reach each other over the macvtap network (the cluster stack needs that).
    answer = guests.ssh(first, "timeout 5 bash -c '</dev/tcp/%s/22'" % guests.address(second))
    assert answer.returncode == 0, answer.stderr


def shared_dataset_writer(server, volume_id, tmp_path):
    """The shared_dataset role as a writer that would make ext4, on SERVER; its failed result."""
    inventory = tmp_path / "inventory.yml"
    inventory.write_text(
        yaml.safe_dump(
            {
                "all": {
                    "hosts": {
                        "localhost": dict(LOCALHOST_VARS),
                        server.name: {
                            "ansible_host": guests.address(server),
                            "ansible_user": "root",
                            "ansible_ssh_private_key_file": str(guests.KEY),
                            "ansible_pipelining": True,
                            "ansible_ssh_common_args": "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null",
                        },
                    }
                }
            }
        )
    )
    playbook = tmp_path / "writer.yml"
    playbook.write_text(
        yaml.safe_dump(
            [
                {
                    "hosts": server.name,
                    "gather_facts": False,
                    "roles": [
                        {
                            "role": "multiattach.cloud.shared_dataset",
                            "shared_dataset_volume_id": volume_id,
                            "shared_dataset_mount_point": "/mnt/writer",
                            "shared_dataset_mode": "rw",
                            "shared_dataset_make_filesystem": True,
                            "shared_dataset_cloud": "local-admin",
                        }
                    ],
                }
            ]
        )
    )
    results = run_ansible_playbook(["-i", str(inventory), str(playbook)])[0]
    [failed] = [result for result in results if result.get("failed")]
    return failed


def test_two_guests_share_the_rbd_volume_and_one_lets_go(
    admin_cloud, servers, hypervisor, shared_volume, tmp_path
):
    first, second = servers
    attached = run_module(
        "multiattach.cloud.volume_attachments",
        {"cloud": "local-admin", "volume": shared_volume["id"], "servers": [first.id, second.id]},
    )
    assert attached["changed"] is True, attached.get("msg")

    for server in servers:
        for flags in (LIVE, PERSISTENT):
            [disk] = shared_disks(hypervisor, server.id, shared_volume["id"], flags)
            assert "type='network'" in disk and "protocol='rbd'" in disk
            assert "name='%s/volume-%s'" % (POOL, shared_volume["id"]) in disk
            assert "<shareable/>" in disk
            assert re.search(r"<driver name='qemu' type='raw' cache='none'", disk), disk
    assert len(watchers(POOL, "volume-" + shared_volume["id"])) == 2

    # Inside, each guest finds the disk by the volume's ID, and a block one writes (O_DIRECT,
    # no filesystem) the other reads: the same RBD image under both.
    devices = [guests.disk_by_volume(server, shared_volume["id"]) for server in servers]
    assert None not in devices, devices
    marker = "multiattach-" + uuid.uuid4().hex
    written = guests.ssh(
        first,
        "printf %%-4096s %s | dd of=%s bs=4096 seek=7 oflag=direct "
        "conv=notrunc status=none" % (marker, devices[0]),
    )
    assert written.returncode == 0, written.stderr
    read = guests.ssh(
        second, "dd if=%s bs=4096 skip=7 count=1 iflag=direct status=none" % devices[1]
    )
    assert read.stdout.strip() == marker

    # The shared_dataset role never writes an ordinary filesystem on a disk two servers hold:
    # refused before mkfs or mount, the block written above still there.
    refused = shared_dataset_writer(first, shared_volume["id"], tmp_path)
    assert "is held by 2 servers, and an ordinary ext4 written by one of them" in refused["msg"], (
        refused
    )
    assert guests.ssh(first, "findmnt /mnt/writer").returncode != 0
    read = guests.ssh(
        second, "dd if=%s bs=4096 skip=7 count=1 iflag=direct status=none" % devices[1]
    )
    assert read.stdout.strip() == marker

    detached = run_module(
        "multiattach.cloud.server_volume",
        {
            "cloud": "local-admin",
            "volume": shared_volume["id"],
            "server": first.id,
            "state": "absent",
        },
    )

    assert detached["changed"] is True, detached.get("msg")
    assert shared_disks(hypervisor, first.id, shared_volume["id"], LIVE) == []
    assert shared_disks(hypervisor, first.id, shared_volume["id"], PERSISTENT) == []
    for flags in (LIVE, PERSISTENT):
        assert len(shared_disks(hypervisor, second.id, shared_volume["id"], flags)) == 1
    volume = admin_cloud.block_storage.get_volume(shared_volume["id"])
    assert volume.status == "in-use"
    assert [a["server_id"] for a in volume.attachments] == [second.id]
    assert len(watchers(POOL, "volume-" + shared_volume["id"])) == 1
    # The guest that let go has no such disk; the other still reads the block.
    assert guests.disk_by_volume(first, shared_volume["id"]) is None
    read = guests.ssh(
        second, "dd if=%s bs=4096 skip=7 count=1 iflag=direct status=none" % devices[1]
    )
    assert read.stdout.strip() == marker
