"""A day-2 playbook's node, named by inventory name, OpenStack server name or server ID, ends at
one inventory host (plugins/module_utils/inventory_node.py)."""

import pytest

from ansible_collections.multiattach.cloud.plugins.module_utils.inventory_node import (
    InventoryNodeError,
    inventory_node,
)

HOSTVARS = {
    "db-a": {"openstack_server_name": "prod-db-1"},
    "db-b": {"openstack_server_id": "id-b"},
    "db-c": {},
}
HOSTS = list(HOSTVARS)
ATTACHMENTS = [
    {"server_id": "id-a", "server_name": "prod-db-1"},
    {"server_id": "id-b", "server_name": "db-b"},
    {"server_id": "id-c", "server_name": "db-c"},
]


@pytest.mark.parametrize("node", ["db-a", "prod-db-1", "id-a"])
def test_every_documented_name_of_a_server_finds_the_same_host(node):
    assert inventory_node(HOSTVARS, HOSTS, node, ATTACHMENTS) == dict(
        host="db-a", server="id-a", server_id="id-a", attached=True
    )


def test_a_server_id_recorded_in_the_inventory_finds_its_host_before_it_is_attached():
    assert inventory_node(HOSTVARS, HOSTS, "id-b", []) == dict(
        host="db-b", server="id-b", server_id="id-b", attached=False
    )
    assert inventory_node(HOSTVARS, HOSTS, "db-c", []) == dict(
        host="db-c", server="db-c", server_id=None, attached=False
    )


def test_an_unknown_server_is_refused_and_says_when_the_volume_is_attached_to_it():
    with pytest.raises(InventoryNodeError, match="is no inventory host.*the volume IS attached"):
        inventory_node(
            HOSTVARS, HOSTS, "id-x", ATTACHMENTS + [{"server_id": "id-x", "server_name": "stray"}]
        )
    assert inventory_node(HOSTVARS, HOSTS, "id-x", [], required=False) is None
    with pytest.raises(InventoryNodeError, match="say which server"):
        inventory_node(HOSTVARS, HOSTS, " ", ATTACHMENTS)


def test_an_id_that_an_earlier_run_detached_says_to_name_the_host_instead():
    detached = "5e0c5a52-3b8e-4a43-9d0c-0b1f0c6f9e11"
    with pytest.raises(InventoryNodeError) as refused:
        inventory_node(HOSTVARS, HOSTS, detached.upper(), ATTACHMENTS)
    assert "no server the volume is attached to" in str(refused.value)
    assert "When an earlier run already detached it, name it by its inventory name" in str(
        refused.value
    )
    assert "openstack_server_id=%s" % detached in str(refused.value)


def test_a_name_that_matches_two_hosts_is_refused():
    hostvars = {"a": {"openstack_server_name": "b"}, "b": {}}
    with pytest.raises(InventoryNodeError, match="names 2 inventory hosts"):
        inventory_node(hostvars, ["a", "b"], "b", [])


TWINS = [
    {"server_id": "id-a", "server_name": "web"},
    {"server_id": "id-b", "server_name": "web"},
]


@pytest.mark.parametrize(
    ("node", "refusal"),
    [
        ("web-a", r"shared by 2 servers that hold the volume \(id-a, id-b\)"),
        ("web-b", r"shared by 2 servers that hold the volume \(id-a, id-b\)"),
        ("web", r"names 2 inventory hosts \(web-a, web-b\)"),
    ],
)
def test_a_name_two_attached_servers_share_is_refused_naming_both(node, refusal):
    """b613a3e gave web-b the first attachment named web: web-a's, detached under its mount."""
    hostvars = {
        "web-a": {"openstack_server_name": "web"},
        "web-b": {"openstack_server_name": "web"},
    }
    with pytest.raises(InventoryNodeError, match=refusal):
        inventory_node(hostvars, list(hostvars), node, TWINS)


def test_a_recorded_id_beats_the_name_and_the_other_host_keeps_the_other_server():
    """b613a3e: remove_node -e node=web-b (or its ID) detached id-a, web-a's."""
    hostvars = {
        "web-a": {"openstack_server_name": "web"},
        "web-b": {"openstack_server_name": "web", "openstack_server_id": "id-b"},
    }
    hosts = list(hostvars)
    for node in ("web-b", "id-b"):
        assert inventory_node(hostvars, hosts, node, TWINS) == dict(
            host="web-b", server="id-b", server_id="id-b", attached=True
        )
    assert inventory_node(hostvars, hosts, "web-a", TWINS) == dict(
        host="web-a", server="id-a", server_id="id-a", attached=True
    )


def test_one_host_of_a_shared_name_named_by_id_is_that_server_which_the_guest_then_confirms():
    hostvars = {"web-b": {"openstack_server_name": "web"}}
    assert inventory_node(hostvars, ["web-b"], "id-b", TWINS)["server_id"] == "id-b"
    with pytest.raises(InventoryNodeError, match="shared by 2 servers"):
        inventory_node(hostvars, ["web-b"], "web-b", TWINS)
