"""multiattach.cloud.preflight against the local cloud (multiattach on)."""

import uuid

import pytest
from harness.ansible_runner import run_module


@pytest.fixture
def multiattach_type(admin_cloud):
    volume_type = admin_cloud.block_storage.create_type(
        name="pf-" + uuid.uuid4().hex[:8], extra_specs={"multiattach": "<is> True"}
    )
    yield volume_type.name
    admin_cloud.block_storage.delete_type(volume_type)


def by_name(result):
    return {c["name"]: c for c in result["checks"]}


def test_as_admin_every_check_passes_on_a_capable_cloud(multiattach_type):
    result = run_module("multiattach.cloud.preflight", {"cloud": "local-admin"})
    checks = by_name(result)
    assert result["ready"] is True, result["checks"]
    assert result["changed"] is False
    assert set(checks) == {
        "compute_api_microversion",
        "block_storage_api_microversion",
        "multiattach_volume_types",
        "backend_pools_multiattach",
        "compute_nodes_multiattach_trait",
        "compute_nodes_hypervisor",
    }
    assert multiattach_type in checks["multiattach_volume_types"]["detail"]
    assert "localcloud@fake-1#fake" in checks["backend_pools_multiattach"]["detail"]
    assert "localcloud (fake)" in checks["compute_nodes_hypervisor"]["detail"]


def test_as_member_the_admin_only_checks_are_unknown_not_failed(multiattach_type):
    result = run_module("multiattach.cloud.preflight", {"cloud": "local-member"})
    checks = by_name(result)
    assert not result.get("failed")
    assert checks["backend_pools_multiattach"]["status"] == "unknown"
    assert checks["compute_nodes_multiattach_trait"]["status"] == "unknown"
    assert checks["compute_nodes_hypervisor"]["status"] == "unknown"
    assert checks["compute_api_microversion"]["status"] == "ok"
    assert checks["multiattach_volume_types"]["status"] == "ok"
    assert result["ready"] is False and result["failed_checks"] == []
    assert sorted(result["unknown_checks"]) == [
        "backend_pools_multiattach",
        "compute_nodes_hypervisor",
        "compute_nodes_multiattach_trait",
    ]
