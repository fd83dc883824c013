"""clustered_fs's fence device asks the real Nova whether a server was deleted in the fencing
user's own project (roles/clustered_fs/files/multiattach-fence-openstack): a deleted server of
that project counts as fenced; a live one, a UUID that never was, and another project's deleted
server do not, even to an admin's credentials, which can read it."""

import uuid

import pytest
from harness.fence_agent import load_fence_agent
from local_cloud import multiattach_probe, paths


@pytest.fixture(scope="module")
def servers(admin_cloud, member_cloud):
    """A live and a deleted server of the member's project, and a deleted one of admin's."""
    prefix = "fence-" + uuid.uuid4().hex[:6]
    ours, theirs = (
        multiattach_probe.Probe(member_cloud, prefix),
        multiattach_probe.Probe(admin_cloud, prefix),
    )
    try:
        live, gone = ours.create_server("live"), ours.create_server("gone")
        foreign = theirs.create_server("foreign")
        ours.wait_for_servers()
        theirs.wait_for_servers()
        for conn, server in ((member_cloud, gone), (admin_cloud, foreign)):
            conn.compute.delete_server(server)
            conn.compute.wait_for_delete(server, wait=120)
        yield {"live": live.id, "gone": gone.id, "foreign": foreign.id}
    finally:
        assert ours.cleanup() == [] and theirs.cleanup() == []


def test_only_a_server_deleted_in_the_fencing_users_project_counts_as_fenced(servers):
    agent = load_fence_agent()
    nova = agent.compute_adapter("local-member", clouds=str(paths.clouds_yaml()))
    assert agent.deleted_in_this_project(nova, servers["gone"]) is True
    assert agent.deleted_in_this_project(nova, servers["live"]) is False
    assert agent.deleted_in_this_project(nova, servers["foreign"]) is False
    assert agent.deleted_in_this_project(nova, str(uuid.uuid4())) is False
    # An admin's credentials read every project's deleted servers: only its own project's count.
    admin_nova = agent.compute_adapter("local-admin", clouds=str(paths.clouds_yaml()))
    assert agent.deleted_in_this_project(admin_nova, servers["foreign"]) is True
    assert agent.deleted_in_this_project(admin_nova, servers["gone"]) is False


def test_a_reboot_fence_is_novas_hard_reboot_reported_done_by_the_compute_host(
    servers, member_cloud
):
    agent = load_fence_agent()
    nova = agent.compute_adapter("local-member", clouds=str(paths.clouds_yaml()))
    code, said = agent.hard_reboot(nova, servers["live"])
    assert code == 0, said
    request = said.split("(request ")[1].split(")")[0]
    action = member_cloud.compute.get_server_action(request, servers["live"])
    assert action.action == "reboot"
    assert any(e["event"] == agent.REBOOTED and e["result"] == "Success" for e in action.events)
    # A server Nova no longer knows: no fence here; the deleted check decides (above).
    assert agent.hard_reboot(nova, servers["gone"])[0] is None
    assert agent.hard_reboot(nova, str(uuid.uuid4()))[0] is None


def test_a_status_reads_the_server_and_its_actions_as_the_fence_does(servers):
    agent = load_fence_agent()
    nova = agent.compute_adapter("local-member", clouds=str(paths.clouds_yaml()))
    assert agent.fence_path_fails(nova, servers["live"]) is None
    assert "Nova answers 404 for the server" in agent.fence_path_fails(nova, servers["gone"])
    # A project member's credential (as an operator might give in clustered_fs_fencing_cloud):
    # the check names the role, read from the real token.
    assert "holds role member" in agent.roles_too_wide(agent.token_roles(nova))
