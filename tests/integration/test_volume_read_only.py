"""The read-only flag against the local cloud: volume sets and clears it while the volume is at
rest and refuses it while servers hold the volume; volume_attachments and volume_info report the
mode each server was given; a copy (source_volume) is made from a volume that is attached."""

import pytest
from harness.ansible_runner import run_module
from harness.volumes import delete_and_wait

VOLUME = "multiattach.cloud.volume"
ATTACHMENTS = "multiattach.cloud.volume_attachments"
INFO = "multiattach.cloud.volume_info"


@pytest.fixture
def dataset(admin_cloud, lab, volume_name):
    """A new multiattach volume of the lab's type, deleted afterwards with its copies."""
    made = []
    yield {"name": volume_name, "made": made}
    for volume in made:
        volume = admin_cloud.block_storage.find_volume(volume, ignore_missing=True)
        if volume is None:
            continue
        for attachment in volume.attachments:
            admin_cloud.compute.delete_volume_attachment(attachment["server_id"], volume.id)
        admin_cloud.block_storage.wait_for_status(volume, "available", wait=120)
        delete_and_wait(admin_cloud, volume)


def modes(result):
    return sorted((a["server_name"], a["attach_mode"]) for a in result["attachments"])


def test_a_read_only_volume_is_flagged_at_rest_attached_read_only_and_refused_a_change_while_held(
    admin_cloud, lab, dataset
):
    base = {"cloud": "local-admin", "name": dataset["name"], "volume_type": lab["type"]}
    checked = run_module(VOLUME, dict(base, size=1, read_only=True), check=True, diff=True)
    assert checked["changed"] is True and checked["diff"]["after"]["read_only"] is True
    assert admin_cloud.block_storage.find_volume(dataset["name"], ignore_missing=True) is None

    created = run_module(VOLUME, dict(base, size=1, read_only=True))
    assert created["changed"] is True, created.get("msg")
    dataset["made"].append(created["volume"]["id"])
    assert created["volume"]["read_only"] is True and created["volume"]["status"] == "available"
    assert (
        admin_cloud.block_storage.get_volume(created["volume"]["id"]).metadata["readonly"] == "True"
    )
    assert run_module(VOLUME, dict(base, read_only=True))["changed"] is False

    readers = lab["names"][:2]
    attached = run_module(
        ATTACHMENTS, {"cloud": "local-admin", "volume": dataset["name"], "servers": readers}
    )
    assert attached["changed"] is True, attached.get("msg")
    assert modes(attached["volume"]) == [(name, "ro") for name in sorted(readers)]
    [info] = run_module(INFO, {"cloud": "local-admin", "name": dataset["name"]})["volumes"]
    assert info["read_only"] is True and modes(info) == [(name, "ro") for name in sorted(readers)]

    for check in (True, False):
        refused = run_module(VOLUME, dict(base, read_only=False), check=check)
        assert refused.get("failed") is True
        assert (
            "is in-use and Cinder sets or clears the read-only flag only while a volume is "
            "available, held by %s. Detach it from every server first"
            % ", ".join(sorted(readers))
            in refused["msg"]
        ), refused["msg"]
    assert (
        admin_cloud.block_storage.get_volume(created["volume"]["id"]).metadata["readonly"] == "True"
    )


def test_a_cleared_flag_gives_read_write_attachments_though_cinders_record_says_ro(
    admin_cloud, lab, dataset
):
    base = {"cloud": "local-admin", "name": dataset["name"], "volume_type": lab["type"]}
    created = run_module(VOLUME, dict(base, size=1, read_only=True))
    dataset["made"].append(created["volume"]["id"])
    cleared = run_module(VOLUME, dict(base, read_only=False), diff=True)
    assert cleared["changed"] is True, cleared.get("msg")
    assert (cleared["diff"]["before"]["read_only"], cleared["diff"]["after"]["read_only"]) == (
        True,
        False,
    )
    assert cleared["volume"]["read_only"] is False
    assert run_module(VOLUME, dict(base, read_only=False))["changed"] is False

    writer = lab["names"][0]
    attached = run_module(
        ATTACHMENTS, {"cloud": "local-admin", "volume": dataset["name"], "servers": [writer]}
    )
    assert modes(attached["volume"]) == [(writer, "rw")]
    # Cinder's own record still says ro (the cleared flag reads 'False', a true string): the
    # modules report the connection's access mode, what Nova gives the guest.
    [record] = admin_cloud.block_storage.get(
        "/attachments/detail?volume_id=%s" % created["volume"]["id"], microversion="3.27"
    ).json()["attachments"]
    assert record["attach_mode"] == "ro"
    assert record["connection_info"]["access_mode"] == "rw"


def test_a_copy_of_an_attached_read_only_volume_is_made_unflagged_unless_asked(
    admin_cloud, lab, dataset
):
    base = {"cloud": "local-admin", "volume_type": lab["type"]}
    source = run_module(VOLUME, dict(base, name=dataset["name"], size=2, read_only=True))
    dataset["made"].append(source["volume"]["id"])
    run_module(
        ATTACHMENTS,
        {"cloud": "local-admin", "volume": dataset["name"], "servers": lab["names"][:1]},
    )

    copy_name = dataset["name"] + "-v2"
    checked = run_module(
        VOLUME, dict(base, name=copy_name, source_volume=dataset["name"]), check=True
    )
    assert checked["changed"] is True and checked["volume"]["size"] == 2
    copied = run_module(VOLUME, dict(base, name=copy_name, source_volume=dataset["name"]))
    assert copied["changed"] is True, copied.get("msg")
    dataset["made"].append(copied["volume"]["id"])
    assert copied["volume"]["size"] == 2 and copied["volume"]["status"] == "available"
    assert copied["volume"]["read_only"] is False
    copy = admin_cloud.block_storage.get_volume(copied["volume"]["id"])
    assert copy.source_volume_id == source["volume"]["id"]

    smaller = run_module(
        VOLUME, dict(base, name=dataset["name"] + "-v3", source_volume=dataset["name"], size=1)
    )
    assert smaller.get("failed") is True and "give a size of at least 2 or none" in smaller["msg"]
    assert (
        admin_cloud.block_storage.find_volume(dataset["name"] + "-v3", ignore_missing=True) is None
    )
