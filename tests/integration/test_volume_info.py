"""multiattach.cloud.volume_info against the local cloud."""

import uuid

import pytest
from harness.ansible_runner import run_module
from local_cloud import multiattach_probe


@pytest.fixture(scope="module")
def shared_volume(lab, admin_cloud):
    """The lab's multiattach volume attached to two of its servers; its plain volume beside."""
    servers = lab["servers"][:2]
    shared = lab["shared"]
    for server in servers:
        multiattach_probe.wait_until(
            "volume to settle",
            lambda: (
                multiattach_probe.volume_state(admin_cloud, shared.id)["status"]
                in ("available", "in-use")
            ),
            60,
        )
        response = multiattach_probe.attach(admin_cloud, server.id, shared.id)
        assert response.status_code == 200, response.text
    multiattach_probe.wait_until(
        "two attachments",
        lambda: (
            len(multiattach_probe.volume_state(admin_cloud, shared.id)["attached_servers"]) == 2
        ),
        60,
    )
    yield dict(lab, servers=servers)
    for server in servers:
        multiattach_probe.detach(admin_cloud, server.id, shared.id)


def test_a_volume_by_name_shows_every_attachment(shared_volume):
    result = run_module(
        "multiattach.cloud.volume_info",
        {"cloud": "local-admin", "name": shared_volume["shared"].name},
    )

    assert not result.get("failed"), result.get("msg")
    assert result["changed"] is False
    [volume] = result["volumes"]
    assert volume["id"] == shared_volume["shared"].id
    assert volume["multiattach"] is True and volume["status"] == "in-use"
    assert volume["volume_type"] == shared_volume["type"]
    by_server = {a["server_id"]: a for a in volume["attachments"]}
    assert sorted(by_server) == sorted(s.id for s in shared_volume["servers"])
    for server in shared_volume["servers"]:
        attachment = by_server[server.id]
        assert attachment["server_name"] == server.name
        assert attachment["attachment_id"]
        assert attachment["attach_mode"] == "rw"
        assert attachment["host_name"] and attachment["attached_at"]


def test_a_volume_by_id_is_found_too(shared_volume):
    result = run_module(
        "multiattach.cloud.volume_info",
        {"cloud": "local-admin", "name": shared_volume["shared"].id},
    )
    assert [v["name"] for v in result["volumes"]] == [shared_volume["shared"].name]


def test_multiattach_only_leaves_out_ordinary_volumes(shared_volume):
    result = run_module(
        "multiattach.cloud.volume_info", {"cloud": "local-admin", "multiattach_only": True}
    )
    names = [v["name"] for v in result["volumes"]]
    assert shared_volume["shared"].name in names
    assert shared_volume["plain"].name not in names
    assert all(v["multiattach"] for v in result["volumes"])


def test_an_unknown_volume_gives_an_empty_list(shared_volume):
    result = run_module(
        "multiattach.cloud.volume_info",
        {"cloud": "local-admin", "name": "no-such-volume-" + uuid.uuid4().hex},
    )
    assert result["volumes"] == [] and not result.get("failed")


def test_a_member_does_not_see_the_admin_projects_volume(shared_volume):
    result = run_module(
        "multiattach.cloud.volume_info",
        {"cloud": "local-member", "name": shared_volume["shared"].name},
    )
    assert result["volumes"] == []


def test_check_mode_reads_the_same(shared_volume):
    result = run_module(
        "multiattach.cloud.volume_info",
        {"cloud": "local-admin", "name": shared_volume["shared"].name},
        check=True,
    )
    assert len(result["volumes"]) == 1 and result["changed"] is False


def test_wrong_password_fails_with_a_message_and_no_traceback():
    result = run_module(
        "multiattach.cloud.volume_info",
        {"cloud": "local-admin", "auth": {"password": "wrong-" + uuid.uuid4().hex}},
    )
    assert result["failed"] is True
    assert "authentication failed" in result["msg"]
    assert "Traceback" not in result["msg"]


def test_an_unknown_cloud_name_fails_with_a_message():
    result = run_module("multiattach.cloud.volume_info", {"cloud": "no-such-cloud"})
    assert result["failed"] is True
    assert "no-such-cloud" in result["msg"] and "clouds.yaml" in result["msg"]


def test_an_unreachable_endpoint_fails_with_a_message():
    result = run_module(
        "multiattach.cloud.volume_info",
        {
            "cloud": {
                "auth": {
                    "auth_url": "http://127.0.0.1:9/v3",
                    "username": "u",
                    "password": "p",
                    "project_name": "p",
                    "user_domain_name": "Default",
                    "project_domain_name": "Default",
                },
                "api_timeout": 5,
            }
        },
    )
    assert result["failed"] is True
    assert "cannot reach the cloud" in result["msg"] and "127.0.0.1:9" in result["msg"]


def test_a_cloud_dict_with_other_connection_options_is_refused():
    result = run_module(
        "multiattach.cloud.volume_info", {"cloud": {"auth": {}}, "region_name": "RegionOne"}
    )
    assert result["failed"] is True
    assert "region_name must not be set" in result["msg"]
