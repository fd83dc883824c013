"""The planning of ini_settings, clustered_fs_mkfs, libvirt_shareable_disk and libvirt_host_info
with fakes of the file helpers, run_command and libvirt: what each plans, what it refuses, and
that check mode writes nothing."""

from types import SimpleNamespace
from xml.etree import ElementTree

import pytest

from ansible_collections.multiattach.cloud.plugins.module_utils.host import libvirt_disks, mkfs
from ansible_collections.multiattach.cloud.plugins.module_utils.host.ini_file import (
    IniSettingsChange,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.host.libvirt_host import (
    LibvirtHostReading,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure


class FakeFiles:
    def __init__(self, attributes_differ=False):
        self.differ = attributes_differ
        self.writes = []

    def attributes_differ(self, path):
        return self.differ

    def create(self, path, text):
        self.writes.append(("create", path))

    def replace(self, path, text):
        self.writes.append(("replace", path))

    def set_attributes(self, path):
        self.writes.append(("attributes", path))


def test_ini_settings_plans_a_new_file_the_changed_options_and_the_attributes(tmp_path):
    path = tmp_path / "cinder.conf"
    files = FakeFiles()
    new = IniSettingsChange(
        files, path=str(path), settings={"DEFAULT": {"debug": True}}, create=True
    )
    assert new.plan(new.read()).says() == ["create %s" % path]
    assert new.run(check_mode=True)["changed"] and files.writes == []

    path.write_text("[DEFAULT]\ndebug = true\npassword = s3cret\n")
    same = IniSettingsChange(
        FakeFiles(), path=str(path), settings={"DEFAULT": {"debug": True}}, create=True
    )
    assert same.plan(same.read()).steps == []
    owner = IniSettingsChange(
        FakeFiles(attributes_differ=True),
        path=str(path),
        settings={"DEFAULT": {"debug": False}},
        create=True,
    )
    plan = owner.plan(owner.read())
    assert plan.says() == [
        "write 1 option(s) into %s" % path,
        "set the owner, group or mode of %s" % path,
    ]
    assert "s3cret" not in plan.before + plan.after
    with pytest.raises(ModuleFailure, match="must be a dict of option: value"):
        IniSettingsChange(files, path=str(path), settings={"DEFAULT": "debug"}, create=True)


def mkfs_change(monkeypatch, signatures, mounts=()):
    monkeypatch.setattr(
        mkfs,
        "find_disk",
        lambda volume_id, device: {"path": "/dev/vdb", "exists": True, "is_block_device": True},
    )
    monkeypatch.setattr(mkfs, "probe_signatures", lambda run, path: list(signatures))
    monkeypatch.setattr(mkfs, "device_mounts", lambda path: (list(mounts), []))
    ran = []
    monkeypatch.setattr(mkfs, "run_on_terminal", lambda command: ran.append(command) or (0, "", []))
    return mkfs.MkfsChange(
        None,
        volume_id=None,
        device="/dev/vdb",
        filesystem="gfs2",
        cluster_name="db",
        slots=2,
        label="shared",
    ), ran


def test_mkfs_is_planned_only_on_a_disk_without_any_signature(monkeypatch):
    change, ran = mkfs_change(monkeypatch, [])
    plan = change.plan(change.read())
    assert plan.says() == ["make gfs2 on /dev/vdb"]
    assert plan.result["command"][:2] == ["mkfs.gfs2", "-p"] and "-O" not in plan.result["command"]
    assert change.run(check_mode=True)["changed"] and ran == []
    done, _ran = mkfs_change(monkeypatch, ["TYPE=gfs2"])
    assert done.plan(done.read()).steps == []
    for signatures, mounts, refusal in (
        (["TYPE=ext4"], (), "carries TYPE=ext4 and is never formatted"),
        ([], [{"target": "/mnt"}], "is mounted on this node"),
    ):
        refused, ran = mkfs_change(monkeypatch, signatures, mounts)
        with pytest.raises(ModuleFailure, match=refusal):
            refused.run(check_mode=False)
        assert ran == []


class FakeDomain:
    def __init__(self, disks_xml=""):
        self.xml = "<domain><name>g1</name><devices>%s</devices></domain>" % disks_xml
        self.calls = []

    def XMLDesc(self, flags=0):  # pylint: disable=invalid-name
        return self.xml

    def isActive(self):  # pylint: disable=invalid-name
        return True

    def isPersistent(self):  # pylint: disable=invalid-name
        return True

    def name(self):
        return "g1"

    def attachDeviceFlags(self, xml, flags):  # pylint: disable=invalid-name
        self.calls.append("attach")

    def detachDeviceFlags(self, xml, flags):  # pylint: disable=invalid-name
        self.calls.append("detach")


def disk_change(domain, source, state="present", target="vdb"):
    conn = SimpleNamespace(
        lookupByName=lambda name: domain, lookupByUUIDString=lambda name: domain, close=lambda: None
    )
    return libvirt_disks.ShareableDiskChange(
        lambda read_only: conn,
        domain="g1",
        source=source,
        target=target,
        bus="virtio",
        format="raw",
        state=state,
        live=True,
        config=True,
        timeout=5,
    )


def test_a_shareable_disk_is_planned_in_each_scope_that_lacks_it_and_check_mode_attaches_nothing(
    tmp_path,
):
    source = tmp_path / "shared.raw"
    source.write_bytes(b"\0" * 4096)
    domain = FakeDomain()
    result = disk_change(domain, str(source)).run(check_mode=True)
    assert result["changed"] and result["scopes"] == ["live", "config"] and domain.calls == []
    assert result["disk"]["shareable"] is True and result["disk"]["cache"] == "none"
    wanted = ElementTree.tostring(
        libvirt_disks.ElementTree.fromstring(
            libvirt_disks.disk_xml(str(source), "file", "vdb", "virtio")
        ),
        encoding="unicode",
    )
    attached = FakeDomain(wanted)
    assert disk_change(attached, str(source)).run(check_mode=False)["changed"] is False
    assert attached.calls == []
    with pytest.raises(ModuleFailure, match="target is needed to attach a disk"):
        disk_change(domain, str(source), target=None)


def test_libvirt_host_info_reads_and_judges_the_versions_without_writing_in_check_mode():
    opened = []
    conn = SimpleNamespace(
        getLibVersion=lambda: 9000000,
        getType=lambda: "QEMU",
        getVersion=lambda: 2009000,
        getCapabilities=lambda: "<capabilities><host></host></capabilities>",
        close=lambda: opened.append("closed"),
    )
    reading = LibvirtHostReading(
        lambda: opened.append("opened") or conn,
        instances_path="/nonexistent",
        probe_o_direct=False,
        min_libvirt_version="3.10.0",
        min_qemu_version="2.10.0",
        fail_when_unsupported=False,
    )
    result = reading.run(check_mode=True)
    assert (
        result["supported"] is False and "QEMU 2.9.0 is older than 2.10.0" in result["problems"][0]
    )
    assert opened == ["opened", "closed"] and result["changed"] is False
    with pytest.raises(ModuleFailure, match="min_libvirt_version/min_qemu_version"):
        LibvirtHostReading(
            lambda: conn,
            instances_path="/",
            probe_o_direct=False,
            min_libvirt_version="three",
            min_qemu_version="2.10.0",
            fail_when_unsupported=False,
        )
