"""The seeds' mechanism itself: Nova's libvirt driver gives one Cinder RBD volume to two QEMU
guests as a shareable disk, and takes it from one while the other keeps it.

The servers run on the full profile's libvirt compute host (QEMU TCG). Until the profile has
Glance and a guest image, each boots from a blank RBD volume whose image metadata asks for
a virtio-scsi bus: QEMU takes a SCSI disk out of a running guest without the guest's help,
where a virtio-blk unplug waits for an OS to answer ACPI (Nova gives up after ~200 s).
Domains are read through libvirt-python, watchers from Ceph.
"""
import re
import uuid

import libvirt
import pytest

from harness.ansible_runner import run_module
from harness.ceph import watchers
from harness.volumes import delete_and_wait

LIBVIRT_HOST = "localcloud-libvirt"
POOL = "volumes"
SHARED_TYPE = "multiattach-rbd-1"
DISK_XML = re.compile(r"<disk .*?</disk>", re.S)


@pytest.fixture(scope="module")
def boot_type(admin_cloud):
    volume_type = admin_cloud.block_storage.create_type(
        name="full-boot-" + uuid.uuid4().hex[:8], extra_specs={"volume_backend_name": "rbd-1"})
    yield volume_type
    admin_cloud.block_storage.delete_type(volume_type, ignore_missing=True)


@pytest.fixture(scope="module")
def servers(admin_cloud, boot_type):
    """Two servers on the libvirt host, each booted from a blank RBD volume."""
    flavor = admin_cloud.compute.find_flavor("m1.tiny")
    prefix = "full-node-" + uuid.uuid4().hex[:6]
    made = []
    try:
        for index in (1, 2):
            boot = admin_cloud.block_storage.create_volume(
                name="%s-%d-boot" % (prefix, index), size=1, volume_type=boot_type.name)
            admin_cloud.block_storage.wait_for_status(boot, "available", wait=60)
            admin_cloud.block_storage.set_volume_bootable_status(boot, True)
            admin_cloud.block_storage.set_volume_image_metadata(
                boot, hw_disk_bus="scsi", hw_scsi_model="virtio-scsi")
            made.append(admin_cloud.compute.create_server(
                name="%s-%d" % (prefix, index), flavor_id=flavor.id, networks="none",
                availability_zone="nova:" + LIBVIRT_HOST,
                block_device_mapping=[{"boot_index": 0, "uuid": boot.id, "source_type": "volume",
                                       "destination_type": "volume",
                                       "delete_on_termination": True}]))
        yield [admin_cloud.compute.wait_for_server(server, wait=300) for server in made]
    finally:
        for server in made:
            admin_cloud.compute.delete_server(server, ignore_missing=True)
        for server in made:
            admin_cloud.compute.wait_for_delete(server, wait=120)


@pytest.fixture
def shared_volume(admin_cloud):
    name = "full-shared-" + uuid.uuid4().hex[:8]
    created = run_module("multiattach.cloud.volume",
                         {"cloud": "local-member", "name": name, "size": 1,
                          "volume_type": SHARED_TYPE})
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
    return [disk for disk in DISK_XML.findall(domain.XMLDesc(flags))
            if "volume-%s'" % volume_id in disk]


LIVE, PERSISTENT = 0, libvirt.VIR_DOMAIN_XML_INACTIVE


def test_the_servers_run_in_qemu_on_the_libvirt_host(servers, hypervisor):
    for server in servers:
        assert server.compute_host == LIBVIRT_HOST
        assert hypervisor.lookupByUUIDString(server.id).isActive()


def test_two_guests_share_the_rbd_volume_and_one_lets_go(
        admin_cloud, servers, hypervisor, shared_volume):
    first, second = servers
    attached = run_module("multiattach.cloud.volume_attachments",
                          {"cloud": "local-admin", "volume": shared_volume["id"],
                           "servers": [first.id, second.id]})
    assert attached["changed"] is True, attached.get("msg")

    for server in servers:
        for flags in (LIVE, PERSISTENT):
            [disk] = shared_disks(hypervisor, server.id, shared_volume["id"], flags)
            assert "type='network'" in disk and "protocol='rbd'" in disk
            assert "name='%s/volume-%s'" % (POOL, shared_volume["id"]) in disk
            assert "<shareable/>" in disk
            assert re.search(r"<driver name='qemu' type='raw' cache='none'", disk), disk
    assert len(watchers(POOL, "volume-" + shared_volume["id"])) == 2

    detached = run_module("multiattach.cloud.server_volume",
                          {"cloud": "local-admin", "volume": shared_volume["id"],
                           "server": first.id, "state": "absent"})

    assert detached["changed"] is True, detached.get("msg")
    assert shared_disks(hypervisor, first.id, shared_volume["id"], LIVE) == []
    assert shared_disks(hypervisor, first.id, shared_volume["id"], PERSISTENT) == []
    for flags in (LIVE, PERSISTENT):
        assert len(shared_disks(hypervisor, second.id, shared_volume["id"], flags)) == 1
    volume = admin_cloud.block_storage.get_volume(shared_volume["id"])
    assert volume.status == "in-use"
    assert [a["server_id"] for a in volume.attachments] == [second.id]
    assert len(watchers(POOL, "volume-" + shared_volume["id"])) == 1
