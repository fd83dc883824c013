"""Clean-up of the volumes a test made."""

from local_cloud import multiattach_probe


def delete_and_wait(cloud, volume, wait=60):
    """Delete VOLUME and wait until Cinder no longer lists it."""
    cloud.block_storage.delete_volume(volume)
    cloud.block_storage.wait_for_delete(volume, interval=multiattach_probe.POLL_SECONDS, wait=wait)
