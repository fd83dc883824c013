"""multiattach.cloud.volume_type against the local cloud."""

import uuid

import pytest
from harness.ansible_runner import run_module
from harness.volumes import delete_and_wait
from local_cloud import multiattach_probe

MODULE = "multiattach.cloud.volume_type"


@pytest.fixture
def type_name(admin_cloud):
    name = "it-type-" + uuid.uuid4().hex[:8]
    yield name
    for volume_type in admin_cloud.block_storage.types(is_public="None"):
        if volume_type.name == name:
            admin_cloud.block_storage.delete_type(volume_type)


def cloud_type(admin_cloud, name):
    return next(
        (t for t in admin_cloud.block_storage.types(is_public="None") if t.name == name), None
    )


def test_create_then_rerun_is_unchanged(admin_cloud, type_name):
    args = {
        "cloud": "local-admin",
        "name": type_name,
        "backend": "fake-1",
        "description": "shared",
        "extra_specs": {"custom:x": "1"},
    }

    first = run_module(MODULE, args)
    second = run_module(MODULE, args)

    assert first["changed"] is True and not first.get("failed"), first.get("msg")
    assert cloud_type(admin_cloud, type_name).extra_specs == {
        "multiattach": "<is> True",
        "volume_backend_name": "fake-1",
        "custom:x": "1",
    }
    assert second["changed"] is False
    assert second["volume_type"]["id"] == first["volume_type"]["id"]


def test_check_mode_reports_a_creation_and_creates_nothing(admin_cloud, type_name):
    result = run_module(MODULE, {"cloud": "local-admin", "name": type_name}, check=True, diff=True)

    assert result["changed"] is True
    assert result["diff"]["before"] == {}
    assert result["diff"]["after"]["extra_specs"] == {"multiattach": "<is> True"}
    assert cloud_type(admin_cloud, type_name) is None


def test_a_changed_spec_is_updated_and_shown_in_the_diff(admin_cloud, type_name):
    run_module(MODULE, {"cloud": "local-admin", "name": type_name, "extra_specs": {"k": "1"}})

    checked = run_module(
        MODULE,
        {"cloud": "local-admin", "name": type_name, "extra_specs": {"k": "2"}},
        check=True,
        diff=True,
    )
    assert checked["changed"] is True
    assert cloud_type(admin_cloud, type_name).extra_specs["k"] == "1"
    assert checked["diff"]["before"]["extra_specs"]["k"] == "1"
    assert checked["diff"]["after"]["extra_specs"]["k"] == "2"

    applied = run_module(
        MODULE, {"cloud": "local-admin", "name": type_name, "extra_specs": {"k": "2"}}
    )
    assert applied["changed"] is True
    assert cloud_type(admin_cloud, type_name).extra_specs["k"] == "2"


def test_specs_set_elsewhere_stay_unless_purged(admin_cloud, type_name):
    run_module(MODULE, {"cloud": "local-admin", "name": type_name})
    admin_cloud.block_storage.update_type_extra_specs(cloud_type(admin_cloud, type_name), other="x")

    kept = run_module(MODULE, {"cloud": "local-admin", "name": type_name})
    assert kept["changed"] is False
    purged = run_module(
        MODULE, {"cloud": "local-admin", "name": type_name, "purge_extra_specs": True}
    )
    assert purged["changed"] is True
    assert cloud_type(admin_cloud, type_name).extra_specs == {"multiattach": "<is> True"}


def test_a_private_types_access_list_is_converged_exactly(admin_cloud, member_cloud, type_name):
    admin_project = admin_cloud.current_project_id
    member_project = member_cloud.current_project_id
    run_module(
        MODULE,
        {
            "cloud": "local-admin",
            "name": type_name,
            "is_public": False,
            "projects": ["admin", "demo"],
        },
    )
    access = sorted(
        a["project_id"]
        for a in admin_cloud.block_storage.get_type_access(cloud_type(admin_cloud, type_name))
    )
    assert access == sorted([admin_project, member_project])

    narrowed = run_module(
        MODULE,
        {
            "cloud": "local-admin",
            "name": type_name,
            "is_public": False,
            "projects": [admin_project],
        },
    )
    assert narrowed["changed"] is True and narrowed["volume_type"]["projects"] == [admin_project]
    access = [
        a["project_id"]
        for a in admin_cloud.block_storage.get_type_access(cloud_type(admin_cloud, type_name))
    ]
    assert access == [admin_project]
    again = run_module(
        MODULE,
        {"cloud": "local-admin", "name": type_name, "is_public": False, "projects": ["admin"]},
    )
    assert again["changed"] is False


def test_absent_deletes_and_is_idempotent(admin_cloud, type_name):
    run_module(MODULE, {"cloud": "local-admin", "name": type_name})
    checked = run_module(
        MODULE, {"cloud": "local-admin", "name": type_name, "state": "absent"}, check=True
    )
    assert checked["changed"] is True and cloud_type(admin_cloud, type_name) is not None
    deleted = run_module(MODULE, {"cloud": "local-admin", "name": type_name, "state": "absent"})
    assert deleted["changed"] is True and cloud_type(admin_cloud, type_name) is None
    again = run_module(MODULE, {"cloud": "local-admin", "name": type_name, "state": "absent"})
    assert again["changed"] is False


def test_absent_refuses_while_a_volume_uses_the_type_and_names_it(admin_cloud, type_name):
    run_module(MODULE, {"cloud": "local-admin", "name": type_name})
    volume = admin_cloud.block_storage.create_volume(
        name=type_name + "-vol", size=1, volume_type=type_name
    )
    try:
        admin_cloud.block_storage.wait_for_status(
            volume,
            "available",
            failures=["error"],
            interval=multiattach_probe.POLL_SECONDS,
            wait=60,
        )
        result = run_module(MODULE, {"cloud": "local-admin", "name": type_name, "state": "absent"})
        assert result["failed"] is True
        assert "still used by 1 volume" in result["msg"] and volume.id in result["msg"]
        assert cloud_type(admin_cloud, type_name) is not None
    finally:
        delete_and_wait(admin_cloud, volume)


def test_a_type_with_encryption_is_refused(admin_cloud, type_name):
    created = admin_cloud.block_storage.create_type(name=type_name)
    admin_cloud.block_storage.create_type_encryption(
        created,
        provider="luks",
        control_location="front-end",
        cipher="aes-xts-plain64",
        key_size=256,
    )
    result = run_module(MODULE, {"cloud": "local-admin", "name": type_name})
    assert result["failed"] is True and "encryption" in result["msg"]
    assert "multiattach" not in (cloud_type(admin_cloud, type_name).extra_specs or {})
    admin_cloud.block_storage.delete_type_encryption(
        admin_cloud.block_storage.get_type_encryption(created)
    )


@pytest.mark.parametrize(
    "args,expected",
    [
        ({"extra_specs": {"multiattach": "<is> False"}}, "Leave multiattach out of extra_specs"),
        ({"projects": ["admin"]}, "set is_public: false"),
        ({"is_public": False, "projects": ["no-such-project"]}, "'no-such-project' does not exist"),
    ],
)
def test_bad_input_is_refused_and_nothing_is_created(admin_cloud, type_name, args, expected):
    result = run_module(MODULE, dict({"cloud": "local-admin", "name": type_name}, **args))
    assert result["failed"] is True and expected in result["msg"]
    assert "Traceback" not in result["msg"]
    assert cloud_type(admin_cloud, type_name) is None


def test_a_member_may_not_create_a_type_and_is_told_why(admin_cloud, type_name):
    result = run_module(MODULE, {"cloud": "local-member", "name": type_name})
    assert result["failed"] is True
    assert "HTTP 403" in result["msg"] and "policy" in result["msg"]
    assert cloud_type(admin_cloud, type_name) is None


def test_an_existing_type_is_made_private_and_public_again(admin_cloud, member_cloud, type_name):
    member_project = member_cloud.current_project_id
    created = run_module(MODULE, {"cloud": "local-admin", "name": type_name})
    assert created["changed"] and created["volume_type"]["is_public"] is True

    private = run_module(
        MODULE,
        {
            "cloud": "local-admin",
            "name": type_name,
            "is_public": False,
            "projects": ["demo"],
            "description": "now private",
        },
    )
    assert not private.get("failed"), private.get("msg")
    assert private["changed"] is True and private["volume_type"]["is_public"] is False
    found = cloud_type(admin_cloud, type_name)
    assert found.is_public is False and found.description == "now private"
    assert [a["project_id"] for a in admin_cloud.block_storage.get_type_access(found)] == [
        member_project
    ]
    assert (
        run_module(
            MODULE,
            {"cloud": "local-admin", "name": type_name, "is_public": False, "projects": ["demo"]},
        )["changed"]
        is False
    )

    public = run_module(MODULE, {"cloud": "local-admin", "name": type_name, "is_public": True})
    assert not public.get("failed"), public.get("msg")
    assert public["changed"] is True and public["volume_type"]["projects"] is None
    assert cloud_type(admin_cloud, type_name).is_public is True
    assert (
        run_module(MODULE, {"cloud": "local-admin", "name": type_name, "is_public": True})[
            "changed"
        ]
        is False
    )
