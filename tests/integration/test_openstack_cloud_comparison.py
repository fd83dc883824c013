"""Side by side: openstack.cloud.server_volume cannot share a volume; this collection can.

openstack.cloud is the newest release (2.6.0, as the `ansible` package 13.8.0 ships it,
taken out by `make integration` into .cache/openstack-cloud). It runs with the newest
openstacksdk (.venv) and with the oldest this collection declares (4.14.0, .venv-oscloud).
"""

import json

import pytest
from harness.ansible_runner import OPENSTACK_CLOUD_COLLECTIONS, ROOT, run_module, run_playbook

OPENSTACK_CLOUD_VERSION = "2.6.0"
TASK_TIMEOUT = 20
SDK_VENVS = {"newest openstacksdk": ROOT / ".venv", "openstacksdk 4.14.0": ROOT / ".venv-oscloud"}


def holders(admin_cloud, lab):
    names = {v: k for k, v in lab["ids"].items()}
    return sorted(
        names[a["server_id"]]
        for a in admin_cloud.block_storage.get_volume(lab["shared"].id).attachments
    )


def openstack_cloud_server_volume(venv, server, volume, state="present", timeout=60):
    return run_module(
        "openstack.cloud.server_volume",
        {
            "cloud": "local-admin",
            "server": server,
            "volume": volume,
            "state": state,
            "timeout": timeout,
        },
        venv=venv,
        extra_env={"ANSIBLE_COLLECTIONS_PATH": OPENSTACK_CLOUD_COLLECTIONS},
    )


def multiattach_server_volume(server, volume, state="present"):
    return run_module(
        "multiattach.cloud.server_volume",
        {"cloud": "local-admin", "server": server, "volume": volume, "state": state},
    )


def test_the_compared_openstack_cloud_is_the_newest_release():
    manifest = (
        ROOT
        / ".cache"
        / "openstack-cloud"
        / "ansible_collections"
        / "openstack"
        / "cloud"
        / "MANIFEST.json"
    )
    assert json.loads(manifest.read_text())["collection_info"]["version"] == OPENSTACK_CLOUD_VERSION


@pytest.mark.parametrize("sdk", list(SDK_VENVS))
def test_only_multiattach_cloud_attaches_a_second_server_and_detaches_one(admin_cloud, lab, sdk):
    first, second = lab["names"][:2]
    volume = lab["shared"].name
    venv = SDK_VENVS[sdk]

    oscloud_first = openstack_cloud_server_volume(venv, first, volume)
    assert oscloud_first["changed"] is True, oscloud_first.get("msg")
    assert holders(admin_cloud, lab) == [first]

    oscloud_second = openstack_cloud_server_volume(venv, second, volume)
    assert oscloud_second["failed"] is True
    assert "is not available" in oscloud_second["msg"] and "in-use" in oscloud_second["msg"]
    assert holders(admin_cloud, lab) == [first]

    ours_second = multiattach_server_volume(second, volume)
    assert ours_second["changed"] is True, ours_second.get("msg")
    assert holders(admin_cloud, lab) == sorted([first, second])

    ours_detach = multiattach_server_volume(first, volume, state="absent")
    assert ours_detach["changed"] is True, ours_detach.get("msg")
    assert holders(admin_cloud, lab) == [second]
    assert admin_cloud.block_storage.get_volume(lab["shared"].id).status == "in-use"
    multiattach_server_volume(second, volume, state="absent")


def test_openstack_cloud_detach_waits_for_available_while_another_server_holds_it(admin_cloud, lab):
    first, second = lab["names"][:2]
    volume = lab["shared"].name
    for server in (first, second):
        assert not multiattach_server_volume(server, volume).get("failed")

    # Its own timeout (10 s) does not end the wait: Ansible's task timeout has to.
    task = {
        "name": "detach",
        "timeout": TASK_TIMEOUT,
        "ignore_errors": True,
        "openstack.cloud.server_volume": {
            "cloud": "local-admin",
            "server": first,
            "volume": volume,
            "state": "absent",
            "timeout": 10,
        },
    }
    results, _completed = run_playbook(
        [task],
        venv=SDK_VENVS["newest openstacksdk"],
        extra_env={"ANSIBLE_COLLECTIONS_PATH": OPENSTACK_CLOUD_COLLECTIONS},
    )
    detach = results[0]

    # Nova detached it, but the module waited for the volume to become available,
    # which it never does while the second server holds it.
    assert detach["failed"] is True, detach
    assert "Timed out after %d second" % TASK_TIMEOUT in detach["msg"], detach["msg"]
    assert holders(admin_cloud, lab) == [second]
    assert admin_cloud.block_storage.get_volume(lab["shared"].id).status == "in-use"
    assert not multiattach_server_volume(second, volume, state="absent").get("failed")
