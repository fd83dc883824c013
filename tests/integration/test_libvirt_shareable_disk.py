"""multiattach.cloud.libvirt_shareable_disk on real libvirt domains (QEMU TCG, no guest OS).

The domains boot into SeaBIOS only: enough for QEMU to open the disks (its
share-rw locking is what makes a second writer fail without <shareable/>),
not for a guest to acknowledge a hot unplug, so live detach is tested for its
timeout message and detach itself on the persistent definition.
"""

import subprocess
import uuid
from pathlib import Path

import libvirt
import pytest
from harness.ansible_runner import run_module, run_playbook_file

MODULE = "multiattach.cloud.libvirt_shareable_disk"
COMPUTE_PLAYBOOK = Path(__file__).resolve().parent / "playbooks" / "compute_shareable_disks.yml"
DOMAIN_XML = """<domain type='qemu'>
  <name>{name}</name>
  <memory unit='MiB'>32</memory>
  <vcpu>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type></os>
  <features><acpi/><tcg><tb-cache unit='MiB'>16</tb-cache></tcg></features>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    {disks}
    <memballoon model='none'/>
  </devices>
</domain>"""


@pytest.fixture(scope="module")
def libvirt_conn():
    """libvirt from the compute_shareable_disks role (installed and started on this machine)."""
    run = run_playbook_file(COMPUTE_PLAYBOOK)
    assert not run.failures, run.failure_message
    conn = libvirt.open("qemu:///system")
    yield conn
    conn.close()


@pytest.fixture
def lab(libvirt_conn, tmp_path_factory):
    """Two running persistent domains and a 64 MiB raw file; all removed after."""
    work = tmp_path_factory.mktemp("shared-disk")
    shared = work / "shared.raw"
    with shared.open("wb") as handle:
        handle.truncate(64 * 2**20)
    prefix = "it-disk-" + uuid.uuid4().hex[:6]
    domains = []

    def make(suffix, disks="", start=True):
        domain = libvirt_conn.defineXML(DOMAIN_XML.format(name=prefix + suffix, disks=disks))
        domains.append(domain)
        if start:
            domain.create()
        return domain

    yield {"shared": str(shared), "work": work, "make": make}
    for domain in domains:
        if domain.isActive():
            domain.destroy()
        domain.undefine()


def disk_of(domain, source, inactive=False):
    xml = domain.XMLDesc(libvirt.VIR_DOMAIN_XML_INACTIVE if inactive else 0)
    start = xml.find("<source file='%s'" % source)
    if start < 0:
        return None
    return xml[xml.rfind("<disk", 0, start) : xml.find("</disk>", start)]


def test_two_running_domains_share_one_raw_disk_idempotently(lab):
    first, second = lab["make"]("-a"), lab["make"]("-b")
    args = {"source": lab["shared"], "target": "vdb"}

    attached = [run_module(MODULE, dict(args, domain=d.name())) for d in (first, second)]
    again = [run_module(MODULE, dict(args, domain=d.name())) for d in (first, second)]

    for result in attached:
        assert result["changed"] is True and not result.get("failed"), result.get("msg")
        assert result["scopes"] == ["live", "config"]
    assert [r["changed"] for r in again] == [False, False]
    for domain in (first, second):
        for inactive in (False, True):
            disk = disk_of(domain, lab["shared"], inactive)
            assert (
                disk and "<shareable/>" in disk and "cache='none'" in disk and "type='raw'" in disk
            )
    assert first.isActive() and second.isActive(), "QEMU must accept the second writer"


def test_check_mode_shows_the_disk_xml_and_attaches_nothing(lab):
    domain = lab["make"]("-c")
    result = run_module(
        MODULE,
        {"domain": domain.name(), "source": lab["shared"], "target": "vdb"},
        check=True,
        diff=True,
    )
    assert result["changed"] is True and "<shareable />" in result["diff"]["after"]
    assert result["diff"]["before"] == ""
    assert disk_of(domain, lab["shared"]) is None


def test_only_raw_can_be_shared(lab):
    domain = lab["make"]("-d")
    qcow2 = lab["work"] / "disk.qcow2"
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", str(qcow2), "64M"], check=True)

    by_option = run_module(
        MODULE,
        {"domain": domain.name(), "source": lab["shared"], "target": "vdb", "format": "qcow2"},
    )
    by_content = run_module(
        MODULE, {"domain": domain.name(), "source": str(qcow2), "target": "vdb"}
    )

    assert by_option["failed"] and "only raw disks can be attached" in by_option["msg"]
    assert by_content["failed"] and "is a qcow2 image, not raw" in by_content["msg"]
    assert "<source file" not in domain.XMLDesc(0)


def test_a_disk_attached_differently_is_reported_not_rewritten(lab):
    cached = (
        "<disk type='file' device='disk'><driver name='qemu' type='raw' cache='writeback'/>"
        "<source file='%s'/><target dev='vdb' bus='virtio'/></disk>" % lab["shared"]
    )
    domain = lab["make"]("-e", disks=cached)

    result = run_module(MODULE, {"domain": domain.name(), "source": lab["shared"], "target": "vdb"})

    assert result["failed"]
    assert "cache is writeback, wanted none" in result["msg"]
    assert "shareable is False, wanted True" in result["msg"] and "state=absent" in result["msg"]
    assert "cache='writeback'" in disk_of(domain, lab["shared"])


def test_a_busy_target_and_an_unknown_domain_are_named(lab):
    other = lab["work"] / "other.raw"
    other.write_bytes(b"\0" * 4096)
    busy = (
        "<disk type='file' device='disk'><driver name='qemu' type='raw'/>"
        "<source file='%s'/><target dev='vdb' bus='virtio'/></disk>" % other
    )
    domain = lab["make"]("-f", disks=busy)

    taken = run_module(MODULE, {"domain": domain.name(), "source": lab["shared"], "target": "vdb"})
    unknown = run_module(
        MODULE, {"domain": "no-such-domain", "source": lab["shared"], "target": "vdb"}
    )

    assert (
        taken["failed"]
        and "target vdb of the live domain already holds another disk" in taken["msg"]
    )
    assert unknown["failed"] and "libvirt has no domain named no-such-domain" in unknown["msg"]


def test_detach_removes_only_this_domains_disk(lab):
    stopped, running = lab["make"]("-g", start=False), lab["make"]("-h")
    for domain in (stopped, running):
        run_module(MODULE, {"domain": domain.name(), "source": lab["shared"], "target": "vdb"})

    detached = run_module(
        MODULE, {"domain": stopped.name(), "source": lab["shared"], "state": "absent"}
    )
    again = run_module(
        MODULE, {"domain": stopped.name(), "source": lab["shared"], "state": "absent"}
    )

    assert detached["changed"] is True and detached["scopes"] == ["config"]
    assert again["changed"] is False
    assert disk_of(stopped, lab["shared"], inactive=True) is None
    assert disk_of(running, lab["shared"]) is not None, "the other domain keeps the disk"


def test_a_guest_that_does_not_release_the_disk_times_out_with_the_reason(lab):
    domain = lab["make"]("-i")
    run_module(MODULE, {"domain": domain.name(), "source": lab["shared"], "target": "vdb"})

    result = run_module(
        MODULE, {"domain": domain.name(), "source": lab["shared"], "state": "absent", "timeout": 3}
    )

    assert result["failed"] and "did not release" in result["msg"]
    assert "unmount the filesystem in the guest" in result["msg"]
    # The persistent definition lost the disk before the wait: that is a change.
    assert result["changed"] is True and result["scopes"] == ["config"], result
    assert "persistent definition no longer has the disk" in result["msg"]
    assert disk_of(domain, lab["shared"], inactive=True) is None
    assert disk_of(domain, lab["shared"]) is not None, "the live guest still holds it"
