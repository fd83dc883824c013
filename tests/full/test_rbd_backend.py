"""The full profile's Ceph RBD backend, as the collection's role configured it.

Run by `make integration-full` (the local cloud in CLOUD_PROFILE=full). The backend
section was written by the cinder_multiattach role from the inventory's group_vars;
Ceph itself is asked (`rbd`, `ceph`) what Cinder made there.
"""

from harness.ansible_runner import run_module
from harness.ceph import ceph_json

BACKEND = "rbd-1"
POOL = "volumes"
TYPE = "multiattach-" + BACKEND
# Cinder's RBD driver strips these from a multiattach volume's image: they let one
# client at a time write (librbd's exclusive lock) and keep per-client state.
SINGLE_WRITER_FEATURES = {"exclusive-lock", "object-map", "fast-diff", "journaling"}


def test_ceph_is_healthy_with_one_osd():
    status = ceph_json("ceph", "status")
    assert status["health"]["status"] == "HEALTH_OK", status["health"]
    assert status["osdmap"]["num_up_osds"] == 1 and status["osdmap"]["num_in_osds"] == 1


def test_the_rbd_pool_reports_multiattach_and_has_its_type(admin_cloud):
    [pool] = [
        pool
        for pool in admin_cloud.block_storage.backend_pools()
        if pool.name.split("#")[0].endswith("@" + BACKEND)
    ]
    assert pool.capabilities["multiattach"] is True
    assert pool.capabilities["storage_protocol"].lower() == "ceph"
    volume_type = admin_cloud.block_storage.find_type(TYPE)
    assert volume_type.extra_specs == {"multiattach": "<is> True", "volume_backend_name": BACKEND}


def test_the_volume_module_makes_a_shareable_rbd_image(admin_cloud, volume_name):
    created = run_module(
        "multiattach.cloud.volume",
        {"cloud": "local-member", "name": volume_name, "size": 1, "volume_type": TYPE},
    )

    assert created["changed"] is True, created.get("msg")
    volume = admin_cloud.block_storage.get_volume(created["volume"]["id"])
    assert volume.is_multiattach and volume.host.endswith("@%s#%s" % (BACKEND, BACKEND))
    image = "volume-" + volume.id
    assert image in ceph_json("rbd", "ls", POOL)
    info = ceph_json("rbd", "info", "%s/%s" % (POOL, image))
    assert info["size"] == 2**30
    assert not SINGLE_WRITER_FEATURES & set(info["features"]), info["features"]


def test_deleting_the_volume_removes_its_image(volume_name):
    args = {"cloud": "local-member", "name": volume_name, "size": 1, "volume_type": TYPE}
    volume_id = run_module("multiattach.cloud.volume", args)["volume"]["id"]

    deleted = run_module("multiattach.cloud.volume", dict(args, state="absent"))

    assert deleted["changed"] is True, deleted.get("msg")
    assert "volume-" + volume_id not in ceph_json("rbd", "ls", POOL)
