"""Smoke test of the local cloud: one multiattach volume on two servers; what a user expects of
a small cloud besides (servers from an image, resize, a snapshot of a volume-backed server)."""

import json
import uuid

import openstack
import pytest
from local_cloud import multiattach_probe


@pytest.fixture(scope="module")
def probe(admin_cloud):
    return multiattach_probe.run(
        admin_cloud, server_count=2, prefix="smoke-" + uuid.uuid4().hex[:8]
    )


def test_volume_of_a_multiattach_type_is_multiattach(probe):
    report = probe
    assert report["volume_type"]["extra_specs"] == {"multiattach": "<is> True"}
    assert report["created"] == {"status": "available", "multiattach": True, "attached_servers": []}


def test_two_servers_hold_the_volume_at_compute_api_2_60(probe):
    report = probe
    assert len(report["server_ids"]) == 2
    assert report["after_attach"]["status"] == "in-use"
    assert report["after_attach"]["attached_servers"] == report["server_ids"]


def test_detach_removes_only_that_servers_attachment(probe):
    report = probe
    remaining = [s for s in report["server_ids"] if s != report["detached_server"]]
    assert len(remaining) == 1
    assert report["after_detach"] == {
        "status": "in-use",
        "multiattach": True,
        "attached_servers": remaining,
    }


def test_attach_of_a_multiattach_volume_below_2_60_is_refused(probe):
    report = probe
    assert report["first_attach_2_59_status"] == 400
    assert "2.60" in report["first_attach_2_59_error"]


def test_probe_leaves_nothing_behind(probe, admin_cloud):
    report = probe
    prefix = report["prefix"]
    assert report["cleanup_problems"] == []
    assert [v.name for v in admin_cloud.block_storage.volumes() if v.name.startswith(prefix)] == []
    assert [s.name for s in admin_cloud.compute.servers() if s.name.startswith(prefix)] == []
    assert admin_cloud.block_storage.find_type(prefix + "-type") is None


def test_member_cloud_is_a_non_admin_in_another_project(member_cloud, admin_cloud):
    assert member_cloud.current_project_id != admin_cloud.current_project_id
    with pytest.raises(openstack.exceptions.ForbiddenException):
        list(member_cloud.block_storage.services())
    assert list(admin_cloud.block_storage.services())


def test_a_member_boots_a_server_the_standard_way_from_the_glance_image(member_cloud):
    image = member_cloud.image.find_image(multiattach_probe.SERVER_IMAGE, ignore_missing=False)
    flavor = member_cloud.compute.find_flavor(multiattach_probe.SERVER_FLAVOR, ignore_missing=False)
    assert image.status == "active" and image.visibility == "public" and image.disk_format == "raw"
    server = member_cloud.compute.create_server(
        name="smoke-image-" + uuid.uuid4().hex[:8],
        image_id=image.id,
        flavor_id=flavor.id,
        networks="none",
    )
    try:
        server = member_cloud.compute.wait_for_server(server, wait=120)
        assert server.image.id == image.id and server.flavor.original_name == flavor.name
        assert not server.attached_volumes, "booted from the image, not from a volume"
    finally:
        member_cloud.compute.delete_server(server)
        member_cloud.compute.wait_for_delete(server, wait=120)


def test_a_server_is_resized_to_another_flavor_on_the_one_host(member_cloud):
    image = member_cloud.image.find_image(multiattach_probe.SERVER_IMAGE, ignore_missing=False)
    small = member_cloud.compute.find_flavor(multiattach_probe.SERVER_FLAVOR, ignore_missing=False)
    large = member_cloud.compute.find_flavor("m1.image.2", ignore_missing=False)
    server = member_cloud.compute.create_server(
        name="smoke-resize-" + uuid.uuid4().hex[:8],
        image_id=image.id,
        flavor_id=small.id,
        networks="none",
    )
    try:
        server = member_cloud.compute.wait_for_server(server, wait=120)
        member_cloud.compute.resize_server(server, large.id)
        server = member_cloud.compute.wait_for_server(server, status="VERIFY_RESIZE", wait=120)
        member_cloud.compute.confirm_server_resize(server)
        server = member_cloud.compute.wait_for_server(server, wait=120)
        assert server.flavor.original_name == "m1.image.2" and server.flavor.vcpus == 2
    finally:
        member_cloud.compute.delete_server(server)
        member_cloud.compute.wait_for_delete(server, wait=120)


def test_a_snapshot_of_a_volume_backed_server_is_an_image_with_a_volume_snapshot(member_cloud):
    prefix = "smoke-snap-" + uuid.uuid4().hex[:8]
    flavor = member_cloud.compute.find_flavor("m1.tiny", ignore_missing=False)
    boot = member_cloud.block_storage.create_volume(name=prefix + "-boot", size=1)
    server = image = None
    snapshots = []
    try:
        boot = member_cloud.block_storage.wait_for_status(boot, "available", wait=60)
        member_cloud.block_storage.set_volume_bootable_status(boot, True)
        server = member_cloud.compute.create_server(
            name=prefix,
            flavor_id=flavor.id,
            networks="none",
            block_device_mapping=[
                {
                    "boot_index": 0,
                    "uuid": boot.id,
                    "source_type": "volume",
                    "destination_type": "volume",
                    "delete_on_termination": False,
                }
            ],
        )
        server = member_cloud.compute.wait_for_server(server, wait=120)

        image = member_cloud.compute.create_server_image(
            server, prefix + "-image", wait=True, timeout=120
        )

        image = member_cloud.image.get_image(image.id)
        assert image.status == "active" and image.size in (0, None)
        mappings = json.loads(image.properties["block_device_mapping"])
        snapshots = [m["snapshot_id"] for m in mappings if m.get("snapshot_id")]
        assert len(snapshots) == 1, mappings
        snapshot = member_cloud.block_storage.wait_for_status(
            member_cloud.block_storage.get_snapshot(snapshots[0]), "available", wait=60
        )
        assert snapshot.volume_id == boot.id
    finally:
        if image:
            member_cloud.image.delete_image(image, ignore_missing=True)
        if server:
            member_cloud.compute.delete_server(server)
            member_cloud.compute.wait_for_delete(server, wait=120)
        for snapshot_id in snapshots:
            snapshot = member_cloud.block_storage.find_snapshot(snapshot_id)
            if snapshot:
                member_cloud.block_storage.delete_snapshot(snapshot)
                member_cloud.block_storage.wait_for_delete(snapshot, wait=60)
        boot = member_cloud.block_storage.wait_for_status(boot, "available", wait=60)
        member_cloud.block_storage.delete_volume(boot)
