"""clustered_fs's variables that stand for what a module does: the role tells a node that needs
no mount run by the fstab entry clustered_fs_mount would write, so the two must agree."""

import jinja2
import pytest
import yaml
from ansible.module_utils.parsing.convert_bool import boolean
from local_cloud import paths

from ansible_collections.multiattach.cloud.plugins.module_utils.host.cluster_mount import (
    cluster_fstab_entry,
)

VARS = yaml.safe_load((paths.ROOT / "roles" / "clustered_fs" / "vars" / "main.yml").read_text())
DISK = "/dev/disk/by-id/virtio-5bd8c3a0-8e4b-4c2b-9"


@pytest.mark.parametrize("filesystem", ["ocfs2", "gfs2"])
@pytest.mark.parametrize("options", ["_netdev,noatime", "_netdev"])
def test_the_roles_fstab_entry_is_the_one_the_mount_module_writes(filesystem, options):
    role_entry = (
        jinja2.Environment(undefined=jinja2.StrictUndefined)
        .from_string(VARS["clustered_fs_fstab_entry"])
        .render(
            clustered_fs_disk=DISK,
            clustered_fs_mount_point="/srv/shared",
            clustered_fs_type=filesystem,
            clustered_fs_mount_options=options,
        )
    )
    assert role_entry == cluster_fstab_entry(DISK, "/srv/shared", filesystem, options)
    assert ("x-systemd.requires=dlm.service" in role_entry) == (filesystem == "gfs2")


@pytest.mark.parametrize(
    "check_mode,flag,disk_exists,pending",
    [
        (True, True, False, True),
        # A real run never goes on without the disk, whatever the flag says.
        (False, True, False, False),
        # Once the disk is there it is read and checked as on any node.
        (True, True, True, False),
        (True, False, False, False),
        (True, "false", False, False),
    ],
)
def test_a_disk_counts_as_pending_only_in_check_mode_with_the_flag_and_no_disk(
    check_mode, flag, disk_exists, pending
):
    environment = jinja2.Environment(undefined=jinja2.StrictUndefined)
    environment.filters["bool"] = boolean
    rendered = environment.from_string(VARS["clustered_fs_disk_pending"]).render(
        ansible_check_mode=check_mode,
        clustered_fs_disk_attach_pending=flag,
        clustered_fs_node={"disk": {"exists": disk_exists}},
    )
    assert rendered == str(pending)


@pytest.mark.parametrize(
    "volume_id,device,named",
    [
        ("5bd8c3a0-8e4b", "", "volume 5bd8c3a0-8e4b"),
        (
            "",
            "/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_x",
            "/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_x",
        ),
    ],
)
def test_the_disk_is_named_in_messages_as_the_operator_named_it(volume_id, device, named):
    rendered = (
        jinja2.Environment(undefined=jinja2.StrictUndefined)
        .from_string(VARS["clustered_fs_disk_named"])
        .render(clustered_fs_volume_id=volume_id, clustered_fs_device=device)
    )
    assert rendered == named
