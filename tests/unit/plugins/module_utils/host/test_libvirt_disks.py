"""Shareable disk XML: what is built, found and refused (no libvirt needed)."""

import pytest

from ansible_collections.multiattach.cloud.plugins.module_utils.host import libvirt_disks

DOMAIN = """<domain type='qemu'><name>g1</name><devices>
<disk type='file' device='disk'><driver name='qemu' type='qcow2'/>
<source file='/images/root.qcow2'/><target dev='vda' bus='virtio'/></disk>
<disk type='file' device='disk'><driver name='qemu' type='raw' cache='writeback'/>
<source file='/images/shared.raw'/><target dev='vdb' bus='virtio'/></disk>
</devices></domain>"""


def test_the_disk_built_is_raw_uncached_and_shareable():
    disk = libvirt_disks.disk_xml("/images/s.raw", "file", "vdc", "virtio")
    assert disk == (
        '<disk type="file" device="disk"><driver name="qemu" type="raw" cache="none" />'
        '<source file="/images/s.raw" /><target dev="vdc" bus="virtio" /><shareable />'
        '</disk>'
    )
    block = libvirt_disks.disk_xml("/dev/sdb", "block", "vdc", "virtio")
    assert '<source dev="/dev/sdb" />' in block and 'type="block"' in block


def test_a_disk_is_found_by_its_source_and_compared():
    found = libvirt_disks.find_disk(DOMAIN, "/images/shared.raw")
    described = libvirt_disks.describe(found)
    assert described["target"] == "vdb" and described["shareable"] is False
    problems = libvirt_disks.differences(
        described,
        {
            "target": "vdb",
            "bus": "virtio",
            "format": "raw",
            "cache": "none",
            "shareable": True,
            "readonly": False,
        },
    )
    assert problems == ["cache is writeback, wanted none", "shareable is False, wanted True"]
    assert libvirt_disks.find_disk(DOMAIN, "/images/other.raw") is None
    assert libvirt_disks.disk_on_target(DOMAIN, "vda") is not None


def test_qcow2_is_refused_by_option_and_by_content(tmp_path):
    image = tmp_path / "disk.img"
    image.write_bytes(b"QFI\xfb" + b"\0" * 508)
    with pytest.raises(libvirt_disks.DiskError, match="only raw disks can be attached"):
        libvirt_disks.refuse_unshareable_format(str(image), "qcow2")
    with pytest.raises(libvirt_disks.DiskError, match="is a qcow2 image, not raw"):
        libvirt_disks.refuse_unshareable_format(str(image), "raw")
    raw = tmp_path / "disk.raw"
    raw.write_bytes(b"\0" * 512)
    libvirt_disks.refuse_unshareable_format(str(raw), "raw")


def test_a_missing_or_odd_source_is_named(tmp_path):
    with pytest.raises(libvirt_disks.DiskError, match="cannot be read"):
        libvirt_disks.source_kind(str(tmp_path / "missing.raw"))
    with pytest.raises(libvirt_disks.DiskError, match="neither a regular file nor a block device"):
        libvirt_disks.source_kind(str(tmp_path))
