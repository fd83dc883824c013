"""Smoke test of the local cloud: one multiattach volume on two servers."""
import uuid

import openstack
import pytest

from local_cloud import multiattach_probe


@pytest.fixture(scope="module")
def probe(admin_cloud):
    return multiattach_probe.run(admin_cloud, server_count=2, prefix="smoke-" + uuid.uuid4().hex[:8])


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
    assert report["after_detach"] == {"status": "in-use", "multiattach": True,
                                      "attached_servers": remaining}


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
