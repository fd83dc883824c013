"""remove_node for a member whose host died (issue 49, point 6), against the local cloud.

Nova's view decides: a server it reports SHUTOFF, or deleted by this project and terminated by
its compute host, has no guest to leave the filesystem; the leave is skipped and its attachment
goes (Nova's detach; Cinder's record for a deleted server, which Nova no longer knows). A server
Nova reports running must leave first, whatever the inventory says. The inventory's hosts are
unreachable here (a closed port): a run that tried to reach a lost server would fail. Everything
runs as the project's member (an admin's credentials read other projects' deleted servers).

The lost server's attachment goes only once another member of its cluster showed that the
cluster no longer counts it: with the others in clustered_fs's group (out of reach here), or
with none in its group while other servers hold the volume, the run is refused and nothing is
detached. The detach itself (server_volume with require_powered_off) is shown here on the
module; the whole playbook on Nova's guests (molecule/shared_disk/lost_member.yml).
"""

import uuid

import pytest
import yaml
from harness.ansible_runner import LOCAL_INVENTORY, ROOT, run_module, run_playbook_file
from local_cloud import multiattach_probe

PLAYBOOK = ROOT / "playbooks" / "remove_node.yml"
# Cinder's attachments API with attachment complete (os-complete).
ATTACHMENT_COMPLETE = "3.44"
UNREACHABLE = {"ansible_host": "127.0.0.1", "ansible_port": 9, "ansible_user": "nobody"}


def orphan_attachment(conn, volume_id, server_id):
    """A Cinder attachment of VOLUME to SERVER that Nova has no record of (as a delete leaves
    when Cinder did not answer it): Nova's delete of the server leaves it behind."""
    made = conn.block_storage.post(
        "/attachments",
        json={
            "attachment": {
                "volume_uuid": volume_id,
                "instance_uuid": server_id,
                "connector": {"host": "dead-host", "ip": "192.0.2.1", "initiator": "iqn.dead"},
            }
        },
        microversion=ATTACHMENT_COMPLETE,
    )
    assert made.status_code == 200, made.text
    attachment_id = made.json()["attachment"]["id"]
    completed = conn.block_storage.post(
        "/attachments/%s/action" % attachment_id,
        json={"os-complete": None},
        microversion=ATTACHMENT_COMPLETE,
    )
    assert completed.status_code == 204, completed.text
    return attachment_id


def holders(conn, volume_id):
    volume = conn.block_storage.get_volume(volume_id)
    return volume.status, sorted(a["server_id"] for a in volume.attachments)


@pytest.fixture
def lost(admin_cloud, member_cloud, tmp_path):
    """A multiattach volume of the member's project held by three servers: one stopped, one
    deleted (its attachment an orphan in Cinder), one running; an inventory that reaches none of
    them, in which the stopped one is also a member of a cluster with the running one."""
    prefix = "it-lost-" + uuid.uuid4().hex[:6]
    types, probe = (
        multiattach_probe.Probe(admin_cloud, prefix),
        multiattach_probe.Probe(member_cloud, prefix),
    )
    orphans = []
    try:
        volume = probe.create_volume("shared", volume_type=types.create_type().name)
        stopped, deleted, running = (
            probe.create_server(n) for n in ("stopped", "deleted", "running")
        )
        probe.wait_for_servers()
        for count, server in enumerate((stopped, running), start=1):
            # Cinder takes one attach of a volume at a time.
            assert multiattach_probe.attach(member_cloud, server.id, volume.id).status_code == 200
            multiattach_probe.wait_until(
                "%d attachment(s)" % count,
                lambda n=count: (
                    holders(member_cloud, volume.id)[0] == "in-use"
                    and len(holders(member_cloud, volume.id)[1]) == n
                ),
                multiattach_probe.VOLUME_TIMEOUT,
            )
        orphans.append(orphan_attachment(member_cloud, volume.id, deleted.id))
        member_cloud.compute.stop_server(stopped)
        member_cloud.compute.wait_for_server(stopped, status="SHUTOFF", interval=0.5, wait=120)
        member_cloud.compute.delete_server(deleted)
        member_cloud.compute.wait_for_delete(deleted, interval=0.5, wait=120)
        assert holders(member_cloud, volume.id) == (
            "in-use",
            sorted([stopped.id, deleted.id, running.id]),
        ), "the deleted server's Cinder attachment outlived it"

        inventory = tmp_path / "inventory"
        inventory.mkdir()
        (inventory / "group_vars").symlink_to(LOCAL_INVENTORY.parent / "group_vars")
        alone = {
            "db-stopped": dict(
                UNREACHABLE, openstack_server_name=stopped.name, clustered_fs_group="alone_stopped"
            ),
            "db-deleted": dict(
                UNREACHABLE, openstack_server_name=deleted.name, clustered_fs_group="alone_deleted"
            ),
            "db-running": dict(UNREACHABLE, openstack_server_name=running.name),
        }
        clustered = {
            "db-stopped": dict(UNREACHABLE, openstack_server_name=stopped.name),
            "db-running": dict(UNREACHABLE, openstack_server_name=running.name),
        }
        inventories = {}
        for name, hosts, groups in (
            (
                "alone",
                alone,
                {
                    "alone_stopped": {"hosts": {"db-stopped": {}}},
                    "alone_deleted": {"hosts": {"db-deleted": {}}},
                },
            ),
            (
                "clustered",
                clustered,
                {"clustered_fs_nodes": {"hosts": {host: {} for host in clustered}}},
            ),
        ):
            (inventory / (name + ".yml")).write_text(
                yaml.safe_dump({"all": {"hosts": hosts, "children": groups}})
            )
            inventories[name] = inventory / (name + ".yml")
        yield {
            "inventory": inventories["alone"],
            "clustered": inventories["clustered"],
            "volume": volume,
            "ids": {"stopped": stopped.id, "deleted": deleted.id, "running": running.id},
            "names": {"stopped": stopped.name, "deleted": deleted.name, "running": running.name},
            "vars": {"shared_volume_name": volume.name, "multiattach_cloud": "local-member"},
        }
    finally:
        for attachment_id in orphans:
            member_cloud.block_storage.delete(
                "/attachments/%s" % attachment_id, microversion=ATTACHMENT_COMPLETE
            )
        assert probe.cleanup() == [] and types.cleanup() == []


def test_a_running_server_out_of_reach_is_refused_and_keeps_the_volume(member_cloud, lost):
    before = holders(member_cloud, lost["volume"].id)
    refused = run_playbook_file(PLAYBOOK, lost["inventory"], dict(lost["vars"], node="db-running"))
    assert refused.failures, "\n".join(
        str((r["_task"], r["_status"], r.get("msg"))) for r in refused.results
    ) + "rc=%s %s" % (refused.completed.returncode, refused.completed.stderr[-2000:])
    assert "did not leave the shared filesystem" in refused.failure_message
    assert "ACTIVE (power state running)" in refused.failure_message
    assert "Nova reports server %s ACTIVE" % lost["ids"]["running"] in refused.failure_message
    assert "(openstack server stop, or delete the server" in refused.failure_message
    assert holders(member_cloud, lost["volume"].id) == before


def test_a_lost_server_stays_attached_while_no_other_member_shows_it_fenced(member_cloud, lost):
    """db-stopped's cluster has db-running as its other member, out of reach: nothing shows
    that the cluster fenced db-stopped, so its disk stays (its journal is not recovered yet)."""
    before = holders(member_cloud, lost["volume"].id)
    refused = run_playbook_file(PLAYBOOK, lost["clustered"], dict(lost["vars"], node="db-stopped"))
    assert refused.failures
    assert "no other member of its cluster showed that" in refused.failure_message
    assert "Nothing was changed and the volume stays attached" in refused.failure_message
    assert holders(member_cloud, lost["volume"].id) == before


def test_a_lost_server_alone_in_its_group_while_others_hold_the_volume_is_refused(
    member_cloud, lost
):
    """db-stopped's group names no other member, yet two other servers hold the volume: they
    may be members the inventory does not list, so nothing shows its cluster fenced it."""
    before = holders(member_cloud, lost["volume"].id)
    for check in (True, False):
        refused = run_playbook_file(
            PLAYBOOK, lost["inventory"], dict(lost["vars"], node="db-stopped"), check=check
        )
        assert refused.failures
        assert "names no other member in the inventory" in refused.failure_message
        assert lost["names"]["running"] in refused.failure_message
    assert holders(member_cloud, lost["volume"].id) == before


def test_a_stopped_and_a_deleted_server_let_go_of_the_volume_through_server_volume(
    member_cloud, lost
):
    """What remove_node's detach does for a lost server once the others showed it fenced (the
    VM scenario shows the whole playbook): Nova's detach while Nova still reports the server
    off, and Cinder's attachment record for a deleted one; --check changes nothing, a second
    run changes nothing."""
    volume_id, ids = lost["volume"].id, lost["ids"]
    before = holders(member_cloud, volume_id)

    def detach(server, check=False):
        return run_module(
            "multiattach.cloud.server_volume",
            dict(
                cloud="local-member",
                server=server,
                volume=volume_id,
                state="absent",
                require_powered_off=True,
            ),
            check=check,
        )

    for server in (ids["stopped"], ids["deleted"]):
        checked = detach(server, check=True)
        assert checked["changed"] is True and not checked.get("failed"), checked.get("msg")
        assert checked["server_state"]["powered_off"] is True
    assert holders(member_cloud, volume_id) == before

    stopped = detach(ids["stopped"])
    assert stopped["changed"] is True and not stopped.get("failed"), stopped.get("msg")
    assert holders(member_cloud, volume_id) == ("in-use", sorted([ids["deleted"], ids["running"]]))
    deleted = detach(ids["deleted"])
    assert deleted["changed"] is True and not deleted.get("failed"), deleted.get("msg")
    assert deleted["server_state"]["deleted"] is True
    assert holders(member_cloud, volume_id) == ("in-use", [ids["running"]])
    for server in (ids["stopped"], ids["deleted"]):
        assert detach(server)["changed"] is False

    refused = detach(ids["running"])
    assert refused.get("failed") and "is not powered off now" in refused["msg"]
    assert holders(member_cloud, volume_id) == ("in-use", [ids["running"]])


def test_an_attachment_of_a_server_nova_never_showed_is_refused(member_cloud, lost):
    """An ID that Nova never deleted here (another project's server, a typo'd record) is no
    proof that nothing runs: the module refuses and removes nothing."""
    volume_id = lost["volume"].id
    stranger = str(uuid.uuid4())
    orphan = orphan_attachment(member_cloud, volume_id, stranger)
    try:
        refused = run_module(
            "multiattach.cloud.server_volume",
            dict(cloud="local-member", server=stranger, volume=volume_id, state="absent"),
        )
        assert refused.get("failed"), refused
        assert "Nova shows no delete of it in this project" in refused["msg"]
        assert stranger in holders(member_cloud, volume_id)[1]
    finally:
        member_cloud.block_storage.delete(
            "/attachments/%s" % orphan, microversion=ATTACHMENT_COMPLETE
        )
