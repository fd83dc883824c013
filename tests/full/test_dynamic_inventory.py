"""The cluster's members taken from the cloud: openstack.cloud's `openstack` inventory plugin
groups the servers by their metadata, and the collection's playbooks and modules work on that
group as on a static one (docs/playbooks.md, "Inventory from the cloud")."""

import json
import subprocess
import uuid

import pytest
import yaml
from harness import guests
from harness.ansible_runner import (
    LOCALHOST_VARS,
    MODULE_VENV,
    OPENSTACK_CLOUD_COLLECTIONS,
    ROOT,
    ansible_env,
    run_playbook_file,
)
from harness.volumes import detach_and_delete
from local_cloud import paths

CLOUD = "local-admin"
SHARED_TYPE = "multiattach-rbd-1"
# The example of docs/playbooks.md, with this lab's SSH key.
PLUGIN_CONFIG = """\
plugin: openstack.cloud.openstack
only_clouds: [local-admin]
fail_on_errors: true
legacy_groups: false
# The servers an operator tagged with `--property cluster=NAME` form group cluster_NAME.
keyed_groups:
  - key: openstack.metadata.cluster
    prefix: cluster
    separator: "_"
compose:
  ansible_user: "'root'"
  ansible_ssh_private_key_file: "'{key}'"
  ansible_ssh_common_args: "'-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null'"
  ansible_python_interpreter: "'/usr/bin/python3'"
  ansible_pipelining: "True"
"""


@pytest.fixture
def tagged(admin_cloud, full_guests):
    """Two guests tagged as members of a new cluster, the third as another's; untagged after."""
    cluster = "dyn" + uuid.uuid4().hex[:6]
    members, other = full_guests[:2], full_guests[2]
    for server in members:
        admin_cloud.compute.set_server_metadata(server, cluster=cluster)
    admin_cloud.compute.set_server_metadata(other, cluster=cluster + "x")
    yield cluster, members, other
    for server in full_guests:
        admin_cloud.compute.delete_server_metadata(server, ["cluster"])


@pytest.fixture
def inventory(tmp_path):
    """An inventory directory: the plugin's file beside a static one for localhost."""
    directory = tmp_path / "inventory"
    directory.mkdir()
    (directory / "openstack.yml").write_text(PLUGIN_CONFIG.format(key=guests.KEY))
    (directory / "localhost.yml").write_text(
        yaml.safe_dump({"all": {"hosts": {"localhost": dict(LOCALHOST_VARS)}}})
    )
    return directory


def with_openstack_cloud():
    # An inventory source that fails to parse fails the run, as docs/playbooks.md advises:
    # Ansible's default is a warning and an inventory without those hosts.
    return {
        "ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED": "true",
        "ANSIBLE_COLLECTIONS_PATH": OPENSTACK_CLOUD_COLLECTIONS,
        "OS_CLIENT_CONFIG_FILE": str(paths.clouds_yaml()),
    }


@pytest.fixture
def volume_name(admin_cloud):
    name = "it-dyn-" + uuid.uuid4().hex[:8]
    yield name
    detach_and_delete(name, CLOUD)


def test_the_playbooks_take_the_clusters_members_from_the_cloud(
    admin_cloud, tagged, inventory, volume_name
):
    cluster, members, other = tagged
    listed = subprocess.run(
        [str(MODULE_VENV / "bin" / "ansible-inventory"), "-i", str(inventory), "--list"],
        env=ansible_env(with_openstack_cloud()),
        capture_output=True,
        text=True,
        check=True,
        cwd=str(ROOT),
    )
    found = json.loads(listed.stdout)
    group = "cluster_" + cluster
    assert group in found, "no group %s: %s; %s" % (
        group,
        {k: v for k, v in found.items() if k != "_meta"},
        listed.stderr[-2000:],
    )
    assert sorted(found[group]["hosts"]) == sorted(s.name for s in members), found.get(group)
    assert found["cluster_" + cluster + "x"]["hosts"] == [other.name]
    for server in members:
        shown = found["_meta"]["hostvars"][server.name]["ansible_host"]
        # ansible-inventory --list marks values from a plugin as unsafe (not templated).
        assert shown in (guests.address(server), {"__ansible_unsafe": guests.address(server)})

    provision = run_playbook_file(
        ROOT / "playbooks" / "provision_shared_volume.yml",
        inventory,
        {
            "shared_volume_name": volume_name,
            "shared_volume_type": SHARED_TYPE,
            "shared_volume_group": group,
            "multiattach_cloud": CLOUD,
        },
        extra_env=with_openstack_cloud(),
    )
    assert not provision.failures, provision.failure_message
    volume = admin_cloud.block_storage.find_volume(volume_name, ignore_missing=False)
    assert sorted(a["server_id"] for a in volume.attachments) == sorted(s.id for s in members)

    # The members are reached over SSH as the plugin describes them: each finds the volume.
    play = inventory.parent / "read.yml"
    play.write_text(
        yaml.safe_dump(
            [
                {
                    "name": "read the shared disk on the cluster's members",
                    "hosts": group,
                    "gather_facts": False,
                    "tasks": [
                        {
                            "name": "read",
                            "multiattach.cloud.clustered_fs_info": {
                                "volume_id": volume.id,
                                "filesystem": "ocfs2",
                                "mount_point": "/srv/unused",
                            },
                        }
                    ],
                }
            ]
        )
    )
    read = run_playbook_file(play, inventory, extra_env=with_openstack_cloud())
    assert not read.failures, read.failure_message
    on = {r["_host"]: r for r in read.results if r["_task"] == "read"}
    assert sorted(on) == sorted(s.name for s in members)
    for server in members:
        disk = on[server.name]["disk"]
        assert disk["path"] == "/dev/disk/by-id/virtio-" + volume.id[:20], disk
        assert disk["exists"] and disk["is_block_device"], disk
        assert guests.disk_by_volume(server, volume.id) is not None
