"""Cinder's and Nova's new RBAC defaults, as the local cloud runs them: a project member does
the collection's everyday work, a project reader reads and is refused every change by the
policy it lacks, named in the failure."""

import configparser
import uuid

import pytest
from harness.ansible_runner import run_module
from local_cloud import multiattach_probe, paths

READER = {"cloud": "local-reader"}
MEMBER = {"cloud": "local-member"}
# Made by cloud-up with the cinder_multiattach role: public, usable by every project.
TYPE = "multiattach-fake-1"


@pytest.mark.parametrize("service", ["cinder", "nova"])
def test_the_services_enforce_only_the_new_defaults(service):
    conf = configparser.ConfigParser(interpolation=None, strict=False)
    conf.read(paths.etc_dir() / service / (service + ".conf"))
    assert conf.getboolean("oslo_policy", "enforce_new_defaults") is True


@pytest.fixture(scope="module")
def member_lab(member_cloud):
    """In the member's project: a multiattach volume held by one server, a second server, a
    volume no server holds."""
    lab = multiattach_probe.Probe(member_cloud, "rbac-" + uuid.uuid4().hex[:6])
    try:
        volume = lab.create_volume("shared", volume_type=TYPE)
        spare = lab.create_volume("spare", volume_type=TYPE)
        held, free = lab.create_server("held"), lab.create_server("free")
        lab.wait_for_servers()
        attached = run_module(
            "multiattach.cloud.server_volume", dict(MEMBER, volume=volume.id, server=held.id)
        )
        assert not attached.get("failed"), attached.get("msg")
        yield {
            "volume": volume.name,
            "spare": spare.name,
            "held": held.name,
            "free": free.name,
            "prefix": lab.prefix,
        }
    finally:
        for server in lab.servers:
            multiattach_probe.detach(member_cloud, server.id, lab.volumes[0].id)
        assert lab.cleanup() == []


def test_a_member_creates_attaches_and_detaches_in_its_project(member_lab, volume_name):
    made = run_module(
        "multiattach.cloud.volume", dict(MEMBER, name=volume_name, size=1, volume_type=TYPE)
    )
    assert made.get("changed") and not made.get("failed"), made.get("msg")
    both = run_module(
        "multiattach.cloud.volume_attachments",
        dict(MEMBER, volume=member_lab["volume"], servers=[member_lab["held"], member_lab["free"]]),
    )
    assert both.get("changed") and not both.get("failed"), both.get("msg")
    one = run_module(
        "multiattach.cloud.volume_attachments",
        dict(MEMBER, volume=member_lab["volume"], servers=[member_lab["held"]], exclusive=True),
    )
    assert one.get("changed") and not one.get("failed"), one.get("msg")


def test_a_reader_reads_the_volume_and_its_holders(member_lab):
    result = run_module("multiattach.cloud.volume_info", dict(READER, name=member_lab["volume"]))
    assert not result.get("failed"), result.get("msg")
    [volume] = result["volumes"]
    assert [a["server_name"] for a in volume["attachments"]] == [member_lab["held"]]


def test_a_reader_runs_preflight_and_learns_what_it_cannot_read():
    result = run_module("multiattach.cloud.preflight", READER)
    assert not result.get("failed"), result.get("msg")
    checks = {c["name"]: c["status"] for c in result["checks"]}
    assert checks["compute_api_microversion"] == "ok"
    assert checks["multiattach_volume_types"] == "ok"
    assert result["failed_checks"] == []
    assert "backend_pools_multiattach" in result["unknown_checks"]


CHANGES = [
    (
        "volume created",
        "volume",
        lambda lab: dict(name=lab["prefix"] + "-refused", size=1, volume_type=TYPE),
        "volume:create",
    ),
    ("volume extended", "volume", lambda lab: dict(name=lab["spare"], size=2), "volume:extend"),
    (
        "volume deleted",
        "volume",
        lambda lab: dict(name=lab["spare"], state="absent"),
        "volume:delete",
    ),
    (
        "server attached",
        "volume_attachments",
        lambda lab: dict(volume=lab["volume"], servers=[lab["held"], lab["free"]]),
        "os_compute_api:os-volumes-attachments:create",
    ),
    (
        "server detached",
        "server_volume",
        lambda lab: dict(volume=lab["volume"], server=lab["held"], state="absent"),
        "os_compute_api:os-volumes-attachments:delete",
    ),
    (
        "volume type created",
        "volume_type",
        lambda lab: dict(name="rbac-refused-" + uuid.uuid4().hex[:6]),
        "volume_extension:type_create",
    ),
]


@pytest.mark.parametrize(
    "module, args, policy", [c[1:] for c in CHANGES], ids=[c[0] for c in CHANGES]
)
def test_a_reader_is_refused_every_change_by_the_policy_named(
    member_cloud, member_lab, module, args, policy
):
    def state():
        return sorted(
            (v.name, v.status, v.size, tuple(sorted(a["server_id"] for a in v.attachments)))
            for v in member_cloud.block_storage.volumes()
            if v.name.startswith(member_lab["prefix"])
        )

    before = state()

    result = run_module("multiattach.cloud." + module, dict(READER, **args(member_lab)))

    assert result.get("failed"), result
    assert "HTTP 403" in result["msg"] and policy in result["msg"], result["msg"]
    assert "policy forbids this for these credentials" in result["msg"]
    assert "Traceback" not in str(result)
    assert state() == before
