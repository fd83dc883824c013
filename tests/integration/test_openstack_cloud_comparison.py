"""Side by side: openstack.cloud.server_volume cannot share a volume; this collection can.

openstack.cloud 2.5.0 runs in its own venv (.venv-oscloud) with openstacksdk 4.14.0:
with openstacksdk >= 4.15 it fails before any API call.
"""
from ansible_runner import ROOT, run_module


def holders(admin_cloud, lab):
    names = {v: k for k, v in lab["ids"].items()}
    return sorted(names[a["server_id"]]
                  for a in admin_cloud.block_storage.get_volume(lab["shared"].id).attachments)


def openstack_cloud_server_volume(server, volume):
    return run_module("openstack.cloud.server_volume",
                      {"cloud": "local-admin", "server": server, "volume": volume, "timeout": 60},
                      venv=ROOT / ".venv-oscloud",
                      extra_env={"ANSIBLE_COLLECTIONS_SCAN_SYS_PATH": "true"})


def multiattach_server_volume(server, volume, state="present"):
    return run_module("multiattach.cloud.server_volume",
                      {"cloud": "local-admin", "server": server, "volume": volume,
                       "state": state})


def test_only_multiattach_cloud_attaches_a_second_server_and_detaches_one(admin_cloud, lab):
    first, second = lab["names"][:2]
    volume = lab["shared"].name

    oscloud_first = openstack_cloud_server_volume(first, volume)
    assert oscloud_first["changed"] is True, oscloud_first.get("msg")
    assert holders(admin_cloud, lab) == [first]

    oscloud_second = openstack_cloud_server_volume(second, volume)
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
