"""preflight's verdicts on clouds that cannot multiattach (openstacksdk mocked)."""

from types import SimpleNamespace

from keystoneauth1 import exceptions as ksa_exceptions
from openstack import exceptions as sdk_exceptions

from ansible_collections.multiattach.cloud.plugins.module_utils.openstack import preflight


def proxy(max_version=None, **calls):
    data = SimpleNamespace(max_microversion=max_version)
    return SimpleNamespace(get_endpoint_data=lambda: data, **calls)


def forbidden(*_args, **_kwargs):
    raise sdk_exceptions.ForbiddenException(message="Forbidden", http_status=403)


def hypervisor(name, kind="QEMU", version=7002022, state="up", status="enabled", reason=None):
    return SimpleNamespace(
        name=name,
        hypervisor_type=kind,
        hypervisor_version=version,
        state=state,
        status=status,
        service_details={"host": name, "disabled_reason": reason},
    )


def old_cloud():
    return SimpleNamespace(
        compute=proxy((2, 53), hypervisors=lambda details: [hypervisor("n1", version=2009000)]),
        block_storage=proxy(
            (3, 0),
            types=lambda: [SimpleNamespace(name="t", extra_specs={})],
            backend_pools=lambda: [SimpleNamespace(name="p", capabilities={})],
        ),
        placement=SimpleNamespace(
            resource_providers=lambda **query: [] if query else [SimpleNamespace(name="n1")]
        ),
    )


def test_an_old_cloud_fails_every_check_with_a_fix():
    results = preflight.run_checks(old_cloud())
    assert [r["status"] for r in results] == ["failed"] * 6
    assert all(r["fix"] for r in results)
    assert "2.53" in results[0]["detail"] and "2.60" in results[0]["detail"]
    assert results[5]["detail"] == (
        "n1: QEMU 2.9.0; a shareable disk needs QEMU 2.10.0 (and libvirt 3.10)"
    )
    assert preflight.summary(results) == {
        "ready": False,
        "unknown_checks": [],
        "failed_checks": [
            "compute_api_microversion",
            "block_storage_api_microversion",
            "multiattach_volume_types",
            "backend_pools_multiattach",
            "compute_nodes_multiattach_trait",
            "compute_nodes_hypervisor",
        ],
    }


def test_forbidden_admin_checks_are_unknown():
    cloud = old_cloud()
    cloud.block_storage.backend_pools = forbidden
    cloud.placement.resource_providers = forbidden
    cloud.compute.hypervisors = forbidden
    results = {r["name"]: r["status"] for r in preflight.run_checks(cloud)}
    assert results["backend_pools_multiattach"] == "unknown"
    assert results["compute_nodes_multiattach_trait"] == "unknown"
    assert results["compute_nodes_hypervisor"] == "unknown"


def test_a_server_error_fails_that_check_and_the_others_run():
    cloud = old_cloud()

    def server_error():
        raise sdk_exceptions.HttpException(message="boom", http_status=500)

    cloud.block_storage.types = server_error
    results = {r["name"]: r for r in preflight.run_checks(cloud)}
    assert results["multiattach_volume_types"]["status"] == "failed"
    assert "HTTP 500" in results["multiattach_volume_types"]["detail"]
    assert "runs" in results["multiattach_volume_types"]["fix"]
    assert len(results) == 6


def test_an_unreachable_service_fails_its_check_not_the_whole_module():
    cloud = mixed_cloud()

    def refused(**_query):
        raise ksa_exceptions.ConnectFailure(
            "Unable to establish connection to http://127.0.0.1:8778: Connection refused"
        )

    cloud.placement.resource_providers = refused
    results = {r["name"]: r for r in preflight.run_checks(cloud)}
    assert results["compute_nodes_multiattach_trait"]["status"] == "failed"
    assert "cannot reach the cloud" in results["compute_nodes_multiattach_trait"]["detail"]
    assert results["backend_pools_multiattach"]["status"] == "ok"
    assert preflight.summary(list(results.values()))["ready"] is False


def mixed_cloud():
    cloud = old_cloud()
    cloud.block_storage.backend_pools = lambda: [
        SimpleNamespace(
            name="h@lvm#lvm", capabilities={"volume_backend_name": "lvm", "multiattach": True}
        ),
        SimpleNamespace(name="h@nfs#nfs", capabilities={"volume_backend_name": "nfs"}),
    ]
    cloud.placement.resource_providers = lambda **query: (
        [SimpleNamespace(name="c1")]
        if query
        else [SimpleNamespace(name="c1"), SimpleNamespace(name="c2")]
    )
    cloud.compute.hypervisors = lambda details: [hypervisor("c1"), hypervisor("c2", state="down")]
    return cloud


def test_scoped_checks_need_every_named_backend_and_node_not_just_one():
    cloud = mixed_cloud()
    everything = {r["name"]: r["status"] for r in preflight.run_checks(cloud)}
    assert everything["backend_pools_multiattach"] == "ok"
    assert everything["compute_nodes_multiattach_trait"] == "ok"
    assert everything["compute_nodes_hypervisor"] == "ok"

    scoped = {
        r["name"]: r
        for r in preflight.run_checks(
            cloud, scope={"volume_backend_names": ["lvm", "nfs"], "compute_nodes": ["c1", "c2"]}
        )
    }
    assert scoped["backend_pools_multiattach"]["status"] == "failed"
    assert "h@nfs#nfs" in scoped["backend_pools_multiattach"]["detail"]
    assert scoped["compute_nodes_multiattach_trait"]["status"] == "failed"
    assert "c2" in scoped["compute_nodes_multiattach_trait"]["detail"]
    assert scoped["compute_nodes_hypervisor"]["detail"] == "c2: its nova-compute is down"
    assert "start nova-compute on c2" in scoped["compute_nodes_hypervisor"]["fix"]

    only_capable = {
        r["name"]: r["status"]
        for r in preflight.run_checks(
            cloud, scope={"volume_backend_names": ["lvm"], "compute_nodes": ["c1"]}
        )
    }
    assert only_capable["backend_pools_multiattach"] == "ok"
    assert only_capable["compute_nodes_multiattach_trait"] == "ok"
    assert only_capable["compute_nodes_hypervisor"] == "ok"


def test_a_named_backend_or_node_that_does_not_exist_fails_and_says_so():
    results = {
        r["name"]: r
        for r in preflight.run_checks(
            mixed_cloud(), scope={"volume_backend_names": ["ceph"], "compute_nodes": ["c9"]}
        )
    }
    assert "ceph" in results["backend_pools_multiattach"]["detail"]
    assert results["backend_pools_multiattach"]["status"] == "failed"
    assert "no compute node named c9" in results["compute_nodes_multiattach_trait"]["detail"]
    assert results["compute_nodes_hypervisor"]["detail"] == (
        "Nova knows no compute node named c9 (it knows: c1, c2)"
    )


def test_only_the_named_checks_run():
    results = preflight.run_checks(old_cloud(), names=["compute_api_microversion"])
    assert [r["name"] for r in results] == ["compute_api_microversion"]


def test_the_hypervisor_check_names_each_unfit_node_and_passes_other_drivers():
    cloud = old_cloud()
    cloud.compute.hypervisors = lambda details: [
        hypervisor("kvm1", kind="QEMU", version=8002002),
        hypervisor("kvm2", status="disabled", reason="maintenance"),
        hypervisor("fake1", kind="fake", version=1000),
    ]
    unscoped = preflight.check_compute_hypervisors(cloud, {})
    assert unscoped["status"] == "ok"
    assert unscoped["detail"] == (
        "compute nodes up, enabled, QEMU 2.10.0 or later where libvirt: fake1 (fake), "
        "kvm1 (QEMU 8.2.2); not fit: kvm2: its nova-compute is disabled (maintenance)"
    )
    scoped = preflight.check_compute_hypervisors(cloud, {"compute_nodes": ["kvm1", "kvm2"]})
    assert scoped["status"] == "failed"
    assert scoped["detail"] == "kvm2: its nova-compute is disabled (maintenance)"
    assert "openstack compute service set --enable" in scoped["fix"]


def test_no_fit_hypervisor_fails_even_unscoped():
    cloud = old_cloud()
    cloud.compute.hypervisors = lambda details: [hypervisor("c1", state="down")]
    assert preflight.check_compute_hypervisors(cloud, {})["status"] == "failed"
    cloud.compute.hypervisors = lambda details: []
    empty = preflight.check_compute_hypervisors(cloud, {})
    assert empty["status"] == "failed" and "discover_hosts" in empty["fix"]
