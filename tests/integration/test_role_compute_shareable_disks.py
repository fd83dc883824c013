"""compute_shareable_disks on this machine: libvirt and QEMU from Debian, the local cloud's Placement."""

from pathlib import Path

import pytest
from harness.ansible_runner import run_module, run_playbook_file
from harness.file_events import DirectoryEvents
from harness.local_cloud_state import STATE, pids

PLAYBOOK = Path(__file__).resolve().parent / "playbooks" / "compute_shareable_disks.yml"
INFO = "multiattach.cloud.libvirt_host_info"
READ_TASK = "Read libvirt's and QEMU's versions, probe O_DIRECT and the security modules"


@pytest.fixture(scope="module")
def prepared_host():
    """The role installs and starts libvirt (process-managed by the local cloud)."""
    run = run_playbook_file(PLAYBOOK)
    assert not run.failures, run.failure_message
    return run


def test_the_host_is_prepared_and_its_versions_reported(prepared_host):
    host = prepared_host.result(READ_TASK)
    assert host["supported"] is True and host["problems"] == []
    assert tuple(int(p) for p in host["libvirt_version"].split(".")) >= (3, 10, 0)
    assert host["hypervisor"] == "QEMU"
    assert tuple(int(p) for p in host["hypervisor_version"].split(".")) >= (2, 10, 0)
    assert host["o_direct"]["supported"] is True
    assert host["isolation"]
    assert set(pids("virtlogd", "libvirtd")), "libvirt runs under the local cloud's process helper"


def test_a_rerun_changes_nothing_and_restarts_nothing(prepared_host):
    before = pids("virtlogd", "libvirtd")

    rerun = run_playbook_file(PLAYBOOK)

    assert not rerun.failures, rerun.failure_message
    assert rerun.changed_tasks == []
    assert pids("virtlogd", "libvirtd") == before


def test_too_old_libvirt_fails_with_the_versions_found(prepared_host):
    run = run_playbook_file(
        PLAYBOOK,
        extra_vars={
            "compute_shareable_disks_min_libvirt_version": "99.0",
            "compute_shareable_disks_min_qemu_version": "99.1",
        },
    )
    assert run.failures
    found = prepared_host.result(READ_TASK)
    assert "libvirt %s is older than 99.0.0" % found["libvirt_version"] in run.failure_message
    assert "QEMU %s is older than 99.1.0" % found["hypervisor_version"] in run.failure_message


def test_an_instances_directory_that_is_missing_fails_and_says_so(prepared_host, tmp_path):
    run = run_playbook_file(
        PLAYBOOK, extra_vars={"compute_shareable_disks_instances_path": str(tmp_path / "missing")}
    )
    assert run.failures and "does not exist" in run.failure_message


def test_the_node_is_checked_through_placement_and_nova(prepared_host):
    node = prepared_host.result(
        "Ask Nova and Placement about the compute node (multiattach trait; up, enabled, QEMU version)"
    )
    assert node["ready"] is True
    checks = {c["name"]: c for c in node["checks"]}
    assert set(checks) == {"compute_nodes_multiattach_trait", "compute_nodes_hypervisor"}
    assert "localcloud" in checks["compute_nodes_multiattach_trait"]["detail"]
    assert "localcloud (fake)" in checks["compute_nodes_hypervisor"]["detail"]

    unknown = run_playbook_file(
        PLAYBOOK, extra_vars={"compute_shareable_disks_compute_node": "no-such-node"}
    )
    assert unknown.failures
    assert "Placement knows no compute node named no-such-node" in unknown.failure_message
    assert "Nova knows no compute node named no-such-node" in unknown.failure_message


def test_a_cloud_missing_from_clouds_yaml_is_a_warning_not_a_failure(prepared_host):
    run = run_playbook_file(PLAYBOOK, extra_vars={"compute_shareable_disks_cloud": "no-such-cloud"})
    assert not run.failures, run.failure_message
    warning = run.result(
        "Warn that the compute node was not checked through the cloud because it could not be asked"
    )
    assert "no-such-cloud" in warning["msg"]


def test_libvirt_host_info_names_an_unreachable_libvirt(prepared_host):
    result = run_module(
        "multiattach.cloud.libvirt_host_info",
        {"uri": "qemu:///system?socket=%s/no-such-socket" % STATE},
    )
    assert result["failed"] and "cannot connect to libvirt at qemu:///system" in result["msg"]
    assert "Start libvirtd" in result["msg"] and "Traceback" not in result["msg"]


def test_libvirt_host_info_fails_on_request_naming_each_problem(prepared_host, tmp_path):
    result = run_module(
        "multiattach.cloud.libvirt_host_info",
        {
            "instances_path": str(tmp_path / "nope"),
            "min_qemu_version": "50",
            "fail_when_unsupported": True,
        },
    )
    assert result["failed"]
    assert "does not exist" in result["msg"] and "older than 50.0.0" in result["msg"]
    assert result["libvirt_version"], "the facts found are still returned"


def test_libvirt_host_info_refuses_a_malformed_version():
    result = run_module("multiattach.cloud.libvirt_host_info", {"min_libvirt_version": "three"})
    assert result["failed"] and "'three' is not a version" in result["msg"]


def test_libvirt_host_info_in_check_mode_writes_nothing(prepared_host, tmp_path):
    instances = tmp_path / "instances"
    (instances / "instance-1").mkdir(parents=True)
    (instances / "instance-1" / "disk").write_bytes(b"\0" * 8192)
    empty = tmp_path / "empty"
    empty.mkdir()
    with DirectoryEvents(instances) as in_instances, DirectoryEvents(empty) as in_empty:
        reading = run_module(INFO, {"instances_path": str(instances)}, check=True)
        skipped = run_module(INFO, {"instances_path": str(empty)}, check=True)
        events = in_instances.read() + in_empty.read()

    assert events == [], "check mode wrote into the instances directory: %s" % events
    assert reading["o_direct"]["supported"] is True, reading
    assert "O_DIRECT read" in reading["o_direct"]["detail"]
    assert (
        skipped["o_direct"]["supported"] is None and "not probed" in skipped["o_direct"]["detail"]
    )
    assert not reading.get("failed") and not skipped.get("failed")


def test_libvirt_host_info_never_writes_its_probe_into_the_root_directory(prepared_host):
    refused = run_module(INFO, {"instances_path": "/"})
    versions_only = run_module(INFO, {"instances_path": "/", "probe_o_direct": False})

    assert refused["failed"] and "instances_path is /" in refused["msg"], refused
    assert "probe_o_direct: false" in refused["msg"]
    assert versions_only["o_direct"]["supported"] is None and versions_only["libvirt_version"]


def test_the_role_waits_for_libvirtd_without_probing(prepared_host):
    tasks = (
        Path(__file__).resolve().parents[2]
        / "roles"
        / "compute_shareable_disks"
        / "tasks"
        / "install.yml"
    ).read_text()
    assert "instances_path: /\n" not in tasks and "probe_o_direct: false" in tasks
