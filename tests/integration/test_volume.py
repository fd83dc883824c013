"""multiattach.cloud.volume against the local cloud."""

import uuid

import pytest
from harness.ansible_runner import run_module
from harness.api_requests import RequestCounter
from harness.volumes import delete_and_wait
from local_cloud import multiattach_probe

MODULE = "multiattach.cloud.volume"


@pytest.fixture(scope="module")
def types(admin_cloud):
    suffix = uuid.uuid4().hex[:8]
    shared = admin_cloud.block_storage.create_type(
        name="vol-ma-" + suffix, extra_specs={"multiattach": "<is> True"}
    )
    other = admin_cloud.block_storage.create_type(
        name="vol-ma2-" + suffix, extra_specs={"multiattach": "<is> True"}
    )
    plain = admin_cloud.block_storage.create_type(name="vol-plain-" + suffix)
    yield {"shared": shared.name, "other": other.name, "plain": plain.name}
    for volume_type in (shared, other, plain):
        admin_cloud.block_storage.delete_type(volume_type, ignore_missing=True)


@pytest.fixture
def name(volume_name):
    return volume_name


def volumes_named(cloud, volume_name):
    return [v for v in cloud.block_storage.volumes(name=volume_name) if v.name == volume_name]


def test_create_is_multiattach_and_a_rerun_is_unchanged(admin_cloud, types, name):
    args = {
        "cloud": "local-admin",
        "name": name,
        "size": 1,
        "volume_type": types["shared"],
        "metadata": {"role": "cluster"},
    }
    created = run_module(MODULE, args)
    again = run_module(MODULE, args)

    assert created["changed"] is True, created.get("msg")
    assert created["volume"]["multiattach"] is True and created["volume"]["status"] == "available"
    assert again["changed"] is False
    [volume] = volumes_named(admin_cloud, name)
    assert volume.is_multiattach and volume.metadata == {"role": "cluster"}


def test_check_mode_creates_nothing(admin_cloud, types, name):
    result = run_module(
        MODULE,
        {"cloud": "local-admin", "name": name, "size": 1, "volume_type": types["shared"]},
        check=True,
        diff=True,
    )
    assert result["changed"] is True and result["diff"]["after"]["size"] == 1
    assert volumes_named(admin_cloud, name) == []


def test_a_larger_size_extends_and_a_smaller_one_is_refused(admin_cloud, types, name):
    base = {"cloud": "local-admin", "name": name, "volume_type": types["shared"]}
    run_module(MODULE, dict(base, size=1))
    grown = run_module(MODULE, dict(base, size=2), diff=True)
    assert grown["changed"] is True, grown.get("msg")
    assert grown["diff"]["before"]["size"] == 1 and grown["diff"]["after"]["size"] == 2
    assert volumes_named(admin_cloud, name)[0].size == 2

    shrunk = run_module(MODULE, dict(base, size=1))
    assert shrunk["failed"] is True and "cannot shrink" in shrunk["msg"]
    assert volumes_named(admin_cloud, name)[0].size == 2


def test_a_type_without_multiattach_is_refused_and_nothing_is_made(admin_cloud, types, name):
    result = run_module(
        MODULE, {"cloud": "local-admin", "name": name, "size": 1, "volume_type": types["plain"]}
    )
    assert result["failed"] is True and "no extra spec multiattach" in result["msg"]
    assert volumes_named(admin_cloud, name) == []


def test_two_volumes_with_the_name_are_a_clear_failure(admin_cloud, name):
    made = [admin_cloud.block_storage.create_volume(name=name, size=1) for unused in range(2)]
    for volume in made:
        admin_cloud.block_storage.wait_for_status(
            volume, "available", interval=multiattach_probe.POLL_SECONDS, wait=60
        )
    result = run_module(MODULE, {"cloud": "local-admin", "name": name})
    assert result["failed"] is True and "2 volumes are named" in result["msg"]
    assert all(volume.id in result["msg"] for volume in made)


def test_an_available_volume_is_retyped_but_an_in_use_one_is_refused(admin_cloud, types, name):
    base = {"cloud": "local-admin", "name": name, "size": 1}
    run_module(MODULE, dict(base, volume_type=types["shared"]))
    retyped = run_module(MODULE, dict(base, volume_type=types["other"]))
    assert retyped["changed"] is True, retyped.get("msg")
    assert volumes_named(admin_cloud, name)[0].volume_type == types["other"]

    probe = multiattach_probe.Probe(admin_cloud, "rt-" + uuid.uuid4().hex[:8])
    try:
        server = probe.create_server("s")
        probe.wait_for_servers()
        volume = volumes_named(admin_cloud, name)[0]
        assert multiattach_probe.attach(admin_cloud, server.id, volume.id).status_code == 200
        multiattach_probe.wait_until(
            "in-use", lambda: admin_cloud.block_storage.get_volume(volume.id).status == "in-use", 60
        )

        refused = run_module(MODULE, dict(base, volume_type=types["shared"]))
        assert refused["failed"] is True and "cannot retype" in refused["msg"]
        assert admin_cloud.block_storage.get_volume(volume.id).volume_type == types["other"]

        absent = run_module(MODULE, {"cloud": "local-admin", "name": name, "state": "absent"})
        assert absent["failed"] is True and server.name in absent["msg"]
        assert volumes_named(admin_cloud, name)

        multiattach_probe.detach(admin_cloud, server.id, volume.id)
        multiattach_probe.wait_until(
            "available",
            lambda: admin_cloud.block_storage.get_volume(volume.id).status == "available",
            60,
        )
    finally:
        assert probe.cleanup() == []
    deleted = run_module(MODULE, {"cloud": "local-admin", "name": name, "state": "absent"})
    assert deleted["changed"] is True and volumes_named(admin_cloud, name) == []
    assert (
        run_module(MODULE, {"cloud": "local-admin", "name": name, "state": "absent"})["changed"]
        is False
    )


def test_a_member_creates_a_multiattach_volume_in_its_project(member_cloud, types, name):
    result = run_module(
        MODULE, {"cloud": "local-member", "name": name, "size": 1, "volume_type": types["shared"]}
    )
    try:
        assert result["changed"] is True, result.get("msg")
        assert [v.is_multiattach for v in volumes_named(member_cloud, name)] == [True]
    finally:
        for volume in volumes_named(member_cloud, name):
            delete_and_wait(member_cloud, volume)


def test_creating_needs_size_and_type(admin_cloud, name):
    result = run_module(MODULE, {"cloud": "local-admin", "name": name})
    assert result["failed"] is True and "needs size and volume_type" in result["msg"]


def volume_reads(counter):
    return counter.count()[("block-storage", "GET", "/v3/volumes/ID")]


@pytest.mark.serial  # counts the volume reads the whole cloud serves
def test_wait_false_returns_once_cinder_took_the_request(admin_cloud, types, name):
    base = {"cloud": "local-admin", "name": name, "volume_type": types["shared"], "wait": False}

    counter = RequestCounter().start()
    created = run_module(MODULE, dict(base, size=1))
    assert created["changed"] is True and created["volume"]["status"] == "creating", created
    assert volume_reads(counter) == 0, "wait: false polled the new volume"
    multiattach_probe.wait_until(
        "volume available", lambda: volumes_named(admin_cloud, name)[0].status == "available", 60
    )

    counter = RequestCounter().start()
    extended = run_module(MODULE, dict(base, size=2))
    assert extended["changed"] is True, extended.get("msg")
    assert volume_reads(counter) == 1, "only the final read, no polling"
    multiattach_probe.wait_until(
        "volume extended", lambda: volumes_named(admin_cloud, name)[0].size == 2, 60
    )

    counter = RequestCounter().start()
    retyped = run_module(MODULE, dict(base, volume_type=types["other"]))
    assert retyped["changed"] is True, retyped.get("msg")
    assert volume_reads(counter) == 1, "only the final read, no polling"
    multiattach_probe.wait_until(
        "volume retyped",
        lambda: volumes_named(admin_cloud, name)[0].volume_type == types["other"],
        60,
    )


def test_an_existing_plain_volume_without_a_type_is_refused(admin_cloud, types, name):
    plain = admin_cloud.block_storage.create_volume(name=name, size=1, volume_type=types["plain"])
    admin_cloud.block_storage.wait_for_status(
        plain, "available", interval=multiattach_probe.POLL_SECONDS, wait=60
    )

    result = run_module(
        MODULE, {"cloud": "local-admin", "name": name, "size": 2, "metadata": {"role": "cluster"}}
    )

    assert result["failed"] is True and "is not multiattach" in result["msg"], result
    assert "give volume_type" in result["msg"]
    after = admin_cloud.block_storage.get_volume(plain.id)
    assert after.size == 1 and after.metadata == {}
