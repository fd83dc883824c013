"""What any operator who boots servers from volumes needs of the full profile: Cinder makes an
RBD volume from the Glance guest image (qcow2, converted by cinder-volume through its privileged
helper), and Nova boots a server from it on the libvirt host, which answers SSH with the volume
as its root disk. The volume is of the multiattach type, as tempest's
boot_from_multiattach_volume has it (policy volume:multiattach_bootable_volume)."""

import math
import uuid

import pytest
from harness import guests
from local_cloud import guests as lab_guests

VOLUME_TYPE = "multiattach-rbd-1"


@pytest.fixture
def image_volume(admin_cloud):
    image = admin_cloud.image.find_image(lab_guests.IMAGE, ignore_missing=False)
    size = max(math.ceil(int(image.virtual_size or image.size) / 2**30), 1)
    volume = admin_cloud.block_storage.create_volume(
        name="from-image-" + uuid.uuid4().hex[:6],
        size=size,
        image_id=image.id,
        volume_type=VOLUME_TYPE,
    )
    try:
        yield admin_cloud.block_storage.wait_for_status(
            volume, "available", failures=["error"], wait=600
        )
    finally:
        admin_cloud.block_storage.wait_for_status(volume, "available", failures=["error"], wait=300)
        admin_cloud.block_storage.delete_volume(volume)


def test_a_volume_made_from_the_guest_image_boots_a_server_that_answers_ssh(
    admin_cloud, image_volume
):
    assert image_volume.is_bootable in (True, "true")
    assert image_volume.volume_image_metadata["image_name"] == lab_guests.IMAGE
    key_name = "from-image-" + uuid.uuid4().hex[:6]
    admin_cloud.compute.create_keypair(
        name=key_name, public_key=guests.KEY.with_suffix(".pub").read_text().strip()
    )
    network = admin_cloud.network.find_network(lab_guests.NETWORK, ignore_missing=False)
    flavor = admin_cloud.compute.find_flavor(lab_guests.FLAVOR, ignore_missing=False)
    server = admin_cloud.compute.create_server(
        name=key_name,
        flavor_id=flavor.id,
        networks=[{"uuid": network.id}],
        key_name=key_name,
        block_device_mapping=[
            {
                "uuid": image_volume.id,
                "source_type": "volume",
                "destination_type": "volume",
                "boot_index": 0,
                "delete_on_termination": False,
            }
        ],
    )
    try:
        server = admin_cloud.compute.wait_for_server(server, wait=lab_guests.ACTIVE_SECONDS)
        assert server.compute_host == guests.LIBVIRT_HOST
        guests.wait_for_ssh(server, 300)
        root = guests.ssh(
            server,
            "readlink -f /dev/disk/by-id/virtio-%s; findmnt -n -o SOURCE /" % image_volume.id[:20],
        )
        device, mounted = root.stdout.split()
        assert mounted.startswith(device), root.stdout
    finally:
        admin_cloud.compute.delete_server(server)
        admin_cloud.compute.wait_for_delete(server, wait=lab_guests.DELETE_SECONDS)
        admin_cloud.compute.delete_keypair(key_name)
