"""Clean-up of the volumes a test made."""

from local_cloud import multiattach_probe

from harness.ansible_runner import run_module


def delete_and_wait(cloud, volume, wait=60):
    """Delete VOLUME and wait until Cinder no longer lists it."""
    cloud.block_storage.delete_volume(volume)
    cloud.block_storage.wait_for_delete(volume, interval=multiattach_probe.POLL_SECONDS, wait=wait)


def detach_and_delete(name, cloud="local-admin"):
    """Detach the volume NAME from every server and delete it, with the collection's own
    modules (Cinder takes one detach of a volume at a time: the module paces them); a volume
    that was never made is fine."""
    detached = run_module(
        "multiattach.cloud.volume_attachments",
        {"cloud": cloud, "volume": name, "servers": [], "exclusive": True},
    )
    if detached.get("failed") and "does not exist" not in detached["msg"]:
        raise AssertionError(detached["msg"])
    deleted = run_module(
        "multiattach.cloud.volume", {"cloud": cloud, "name": name, "state": "absent"}
    )
    assert not deleted.get("failed"), deleted.get("msg")
