"""preflight and the compute_shareable_disks role asking a real compute node: the full profile's
libvirt nova-compute, whose QEMU version Nova reports from libvirt."""

from pathlib import Path

import libvirt
import pytest
from harness.ansible_runner import run_module, run_playbook_file

LIBVIRT_HOST = "localcloud-libvirt"
NODE_CHECKS = ["compute_nodes_multiattach_trait", "compute_nodes_hypervisor"]
ROLE_PLAYBOOK = (
    Path(__file__).resolve().parents[1]
    / "integration"
    / "playbooks"
    / "compute_shareable_disks.yml"
)


@pytest.fixture(scope="module")
def libvirt_node(admin_cloud):
    """The libvirt host's compute node (its hypervisor hostname, this machine's name)."""
    nodes = [
        h
        for h in admin_cloud.compute.hypervisors(details=True)
        if (h.service_details or {}).get("host") == LIBVIRT_HOST
    ]
    assert len(nodes) == 1, nodes
    return nodes[0]


@pytest.fixture(scope="module")
def qemu_version():
    """QEMU's version as libvirt reports it on this machine, e.g. 7.2.22."""
    conn = libvirt.open("qemu:///system")
    try:
        number = conn.getVersion()
    finally:
        conn.close()
    return "%d.%d.%d" % (number // 1000000, number // 1000 % 1000, number % 1000)


def node_checks(node_name):
    result = run_module(
        "multiattach.cloud.preflight",
        {"cloud": "local-admin", "checks": NODE_CHECKS, "compute_nodes": [node_name]},
    )
    return result, {c["name"]: c for c in result["checks"]}


def test_preflight_reads_the_libvirt_node_through_nova_and_placement(libvirt_node, qemu_version):
    result, checks = node_checks(libvirt_node.name)

    assert result["ready"] is True, result["checks"]
    assert checks["compute_nodes_hypervisor"]["detail"].endswith(
        "%s (QEMU %s)" % (libvirt_node.name, qemu_version)
    )
    assert libvirt_node.name in checks["compute_nodes_multiattach_trait"]["detail"]


def test_a_disabled_libvirt_compute_fails_preflight_and_the_role(admin_cloud, libvirt_node):
    service = admin_cloud.compute.find_service(LIBVIRT_HOST, binary="nova-compute")
    admin_cloud.compute.disable_service(
        service, LIBVIRT_HOST, "nova-compute", disabled_reason="preflight test"
    )
    try:
        result, checks = node_checks(libvirt_node.name)
        role = run_playbook_file(
            ROLE_PLAYBOOK, extra_vars={"compute_shareable_disks_compute_node": libvirt_node.name}
        )
    finally:
        admin_cloud.compute.enable_service(service, LIBVIRT_HOST, "nova-compute")

    assert result["ready"] is False
    assert checks["compute_nodes_hypervisor"]["status"] == "failed"
    assert checks["compute_nodes_hypervisor"]["detail"] == (
        "%s: its nova-compute is disabled (preflight test)" % libvirt_node.name
    )
    assert checks["compute_nodes_multiattach_trait"]["status"] == "ok"
    assert role.failures
    assert "its nova-compute is disabled (preflight test)" in role.failure_message
    assert "openstack compute service set --enable" in role.failure_message
