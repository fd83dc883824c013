"""volume: a new volume that fails while Cinder still creates it is named with its ID (no cloud)."""

from types import SimpleNamespace

import pytest
from openstack import exceptions as sdk_exceptions

from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack import (
    volume_change,
    volumes,
)


class FakeStorage:
    def __init__(self, delete_refused):
        self.delete_refused = delete_refused
        self.deleted = []
        self.volume = SimpleNamespace(id="0f0e", name="data", status="creating")

    def create_volume(self, **fields):
        return self.volume

    def get_volume(self, volume_id):
        return self.volume

    def delete_volume(self, volume, ignore_missing=True):
        if self.delete_refused:
            raise sdk_exceptions.HttpException(
                message="x",
                http_status=400,
                details="Invalid volume: Volume status must be available or error or error_restoring or "
                "error_extending or error_managing and must not be migrating, attached, belong to "
                "a group, have snapshots, awaiting a transfer, or be disassociated from snapshots "
                "after volume transfer.",
            )
        self.deleted.append(volume.id)


def change(storage, monkeypatch):
    monkeypatch.setattr(volumes.time, "sleep", lambda seconds: None)
    options = {
        "name": "data",
        "size": 1,
        "volume_type": "multiattach",
        "description": None,
        "metadata": None,
        "bootable": False,
        "read_only": None,
        "source_volume": None,
        "availability_zone": None,
        "state": "present",
        "wait": True,
        "timeout": 0,
    }
    return volume_change.VolumeChange(SimpleNamespace(block_storage=storage), **options)


def test_a_volume_still_creating_at_the_timeout_is_named_with_its_id_and_the_timeout_kept(
    monkeypatch,
):
    storage = FakeStorage(delete_refused=True)
    with pytest.raises(ModuleFailure) as failure:
        change(storage, monkeypatch).create(SimpleNamespace(id="t", name="multiattach"), 1, None)
    message = failure.value.msg
    assert message.startswith(
        "timed out after 0 s waiting for the new volume to become available "
        "(volume status creating)"
    )
    assert (
        "data (ID 0f0e), is left in status creating: Cinder refused to delete it (Invalid volume"
        in message
    )
    assert message.endswith("Delete it once it has left creating: openstack volume delete 0f0e")


def test_a_half_made_volume_cinder_deletes_is_gone_and_the_failure_unchanged(monkeypatch):
    storage = FakeStorage(delete_refused=False)
    with pytest.raises(ModuleFailure) as failure:
        change(storage, monkeypatch).create(SimpleNamespace(id="t", name="multiattach"), 1, None)
    assert storage.deleted == ["0f0e"]
    assert "left in status" not in failure.value.msg and failure.value.msg.startswith(
        "timed out after 0 s"
    )
