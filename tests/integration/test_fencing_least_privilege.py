"""The fencing credential as a cluster node holds it, against the local cloud's Nova, Cinder and
Keystone (issue 50, point 1): the fencing user that fencing_identity makes, with only its own
role, which the policy of role fencing_policy (applied by the local cloud's
multiattach_switch.yml) lets read, stop, start and reboot the project's servers and read their
actions; everything else a project member may do is refused, in Keystone too, and nothing
changes."""

import uuid

import openstack
import pytest
import requests
import yaml
from harness import keystone_user
from harness.ansible_runner import run_module
from harness.fence_agent import load_fence_agent
from local_cloud import multiattach_probe

PROJECT = "demo"
FORBIDDEN = openstack.exceptions.ForbiddenException


@pytest.fixture
def fencer(admin_cloud):
    """A connection as a fencing user made by fencing_identity, as a node would sign in."""
    name = "it-fencer-" + uuid.uuid4().hex[:8]
    password = "pw-" + uuid.uuid4().hex
    made = run_module(
        "multiattach.cloud.fencing_identity",
        {"cloud": "local-admin", "name": name, "password": password, "project": PROJECT},
    )
    assert not made.get("failed"), made.get("msg")
    auth = keystone_user.password_auth(admin_cloud, name, password, PROJECT)
    connection = openstack.connect(auth=auth, auth_type="password")
    connection.fencer_auth = auth
    yield connection
    user = admin_cloud.identity.find_user(name, ignore_missing=True)
    if user is not None:
        admin_cloud.identity.delete_user(user)


@pytest.fixture
def a_member(member_cloud):
    """A server and a volume of the project, as a cluster's would be."""
    probe = multiattach_probe.Probe(member_cloud, "it-fence-lp-" + uuid.uuid4().hex[:6])
    try:
        server = probe.create_server("node")
        volume = probe.create_volume("disk")
        probe.wait_for_servers()
        yield server, volume
    finally:
        assert probe.cleanup() == []


@pytest.fixture
def elsewhere(admin_cloud):
    """A server of another project (the admin's): another cluster given a project of its own."""
    probe = multiattach_probe.Probe(admin_cloud, "it-fence-other-" + uuid.uuid4().hex[:6])
    try:
        server = probe.create_server("node")
        probe.wait_for_servers()
        yield server
    finally:
        assert probe.cleanup() == []


def settled(conn, server, status):
    shown = conn.compute.get_server(server.id)
    return shown.status == status and not shown.task_state


def wait_for(conn, server, status):
    """Until Nova shows STATUS with no task under way (a reboot shows ACTIVE until it starts)."""
    multiattach_probe.wait_until(
        "server %s %s" % (server.id, status), lambda: settled(conn, server, status), 120
    )


def status_of(call):
    """403 or 404 for a refusal, else what the call answered."""
    try:
        response = call()
    except FORBIDDEN:
        return 403
    except openstack.exceptions.NotFoundException:
        return 404
    status = getattr(response, "status_code", None)
    if status is None:
        return "done"
    return status if status >= 400 else "%s %s" % (status, response.text[:200])


def test_the_fencing_credential_fences_and_is_refused_everything_else(
    fencer, a_member, elsewhere, member_cloud, admin_cloud
):
    server, volume = a_member
    image_id = member_cloud.compute.get_server(server).image["id"]

    # What a fence calls: the power state, off, on, a hard reboot, and the server's actions.
    assert fencer.compute.get_server(server.id).status == "ACTIVE"
    fencer.compute.stop_server(server.id)
    wait_for(fencer, server, "SHUTOFF")
    fencer.compute.start_server(server.id)
    wait_for(fencer, server, "ACTIVE")
    fencer.compute.reboot_server(server.id, "HARD")
    wait_for(fencer, server, "ACTIVE")
    assert {action.action for action in fencer.compute.server_actions(server.id)} >= {
        "stop",
        "start",
        "reboot",
    }
    # What Nova's compute host asks of Cinder with the fencer's token when a hard reboot tears
    # down a domain that holds a multiattach volume: the volume's attachments.
    assert fencer.block_storage.get_volume(volume.id).id == volume.id

    # Everything else a project member may do is refused, by Nova's and Cinder's policy.
    refused = {
        "delete the server": lambda: fencer.compute.delete_server(server.id),
        "rebuild it": lambda: fencer.compute.rebuild_server(server.id, image=image_id),
        "snapshot it (createImage)": lambda: fencer.compute.create_server_image(
            server.id, name="it-fencer-snapshot"
        ),
        "open a console": lambda: fencer.compute.create_console(server.id, console_type="novnc"),
        "lock it": lambda: fencer.compute.lock_server(server.id),
        "delete the volume": lambda: fencer.block_storage.delete("/volumes/%s" % volume.id),
        "transfer the volume": lambda: fencer.block_storage.post(
            "/os-volume-transfer",
            json={"transfer": {"volume_id": volume.id, "name": "it-fencer-transfer"}},
        ),
    }
    # Keystone: ways in that would outlive a new password (fencing_policy's Keystone rules).
    user_id, project_id = fencer.current_user_id, fencer.current_project_id
    refused.update(
        {
            "make an application credential": lambda: fencer.identity.create_application_credential(
                user_id, name="it-fencer-appcred"
            ),
            "make a trust": lambda: fencer.identity.create_trust(
                trustor_user_id=user_id,
                trustee_user_id=admin_cloud.current_user_id,
                project_id=project_id,
                roles=[{"name": "multiattach_fencer"}],
                impersonation=True,
            ),
            "make an EC2 credential": lambda: fencer.identity.create_credential(
                type="ec2",
                user_id=user_id,
                project_id=project_id,
                blob='{"access": "%s", "secret": "s"}' % uuid.uuid4().hex,
            ),
            "stop another project's server": lambda: fencer.compute.stop_server(elsewhere.id),
            "reboot another project's server": lambda: fencer.compute.reboot_server(
                elsewhere.id, "HARD"
            ),
        }
    )
    answers = {what: status_of(call) for what, call in refused.items()}
    # Nova shows nothing of another project's server to it.
    not_shown = (
        "stop another project's server",
        "reboot another project's server",
    )
    assert answers == {what: 404 if what in not_shown else 403 for what in refused}, answers
    assert list(admin_cloud.identity.application_credentials(user_id)) == []
    assert list(admin_cloud.identity.credentials(user_id=user_id)) == []
    assert list(admin_cloud.identity.trusts(trustor_user_id=user_id)) == []
    other = admin_cloud.compute.get_server(elsewhere.id)
    assert (other.status, other.task_state) == ("ACTIVE", None)

    # And nothing changed.
    kept = member_cloud.compute.get_server(server.id)
    assert (kept.status, kept.image["id"], kept.is_locked) == ("ACTIVE", image_id, False)
    assert member_cloud.block_storage.get_volume(volume.id).status == "available"
    assert list(member_cloud.block_storage.transfers()) == []
    assert member_cloud.image.find_image("it-fencer-snapshot") is None


def test_the_fence_wrapper_reads_a_deleted_servers_actions_with_it(fencer, member_cloud, tmp_path):
    """The wrapper counts a server this project deleted as fenced: it reads the server's
    instance actions and their events (compute 2.51) with the fencing credential alone."""
    probe = multiattach_probe.Probe(member_cloud, "it-fence-gone-" + uuid.uuid4().hex[:6])
    try:
        live, gone = probe.create_server("live"), probe.create_server("gone")
        probe.wait_for_servers()
        member_cloud.compute.delete_server(gone)
        member_cloud.compute.wait_for_delete(gone, wait=120)
        clouds = tmp_path / "clouds.yaml"
        clouds.write_text(yaml.safe_dump({"clouds": {"fencing": {"auth": fencer.fencer_auth}}}))
        agent = load_fence_agent()
        nova = agent.compute_adapter("fencing", clouds=str(clouds))

        assert agent.deleted_in_this_project(nova, gone.id) is True
        assert agent.deleted_in_this_project(nova, live.id) is False
    finally:
        assert probe.cleanup() == []


def test_the_converge_check_reads_the_attached_volume_as_the_hard_reboot_does(
    fencer, a_member, member_cloud, tmp_path
):
    """The fence device's status (the role's check on every converge) reads each volume attached
    to the server with the fencing credential, as Nova's hard reboot does: on this cloud, with
    fencing_policy's Cinder rule, it passes through the real catalog's block-storage endpoint."""
    server, volume = a_member
    attached = multiattach_probe.attach(member_cloud, server.id, volume.id)
    assert attached.status_code == 200, attached.text
    multiattach_probe.wait_until(
        "volume %s in-use" % volume.id,
        lambda: member_cloud.block_storage.get_volume(volume.id).status == "in-use",
        60,
    )
    clouds = tmp_path / "clouds.yaml"
    clouds.write_text(yaml.safe_dump({"clouds": {"fencing": {"auth": fencer.fencer_auth}}}))
    agent = load_fence_agent()
    nova = agent.compute_adapter("fencing", clouds=str(clouds))
    read = []

    def block_storage_for(compute):
        cinder = agent.block_storage_adapter(compute)
        read.append(cinder)
        return cinder

    assert agent.fence_path_fails(nova, server.id, block_storage_for) is None
    assert len(read) == 1, "the server's attached volume was not read"
    # The converge's check also reads the token's roles: the fencing role alone.
    assert agent.token_roles(nova) == ["multiattach_fencer"]
    assert agent.roles_too_wide(agent.token_roles(nova)) is None
    # The same read, refused, is named: a volume this project does not have.
    missing = str(uuid.uuid4())
    answer = agent.block_storage_adapter(nova).get("/volumes/%s" % missing, raise_exc=False)
    assert answer.status_code == 404


def identity_url(fencer):
    """Keystone's v3 API, from the auth URL a node's clouds.yaml holds (with /v3 or without)."""
    url = fencer.fencer_auth["auth_url"].rstrip("/")
    return url if url.endswith("/v3") else url + "/v3"


def unscoped_token(fencer):
    """A token the fencing user asks for with Keystone's explicit "unscoped": it carries no
    roles, so a policy clause `not role:...` cannot see the fencing role in it."""
    auth = fencer.fencer_auth
    asked = requests.post(
        identity_url(fencer) + "/auth/tokens",
        json={
            "auth": {
                "identity": {
                    "methods": ["password"],
                    "password": {
                        "user": {
                            "name": auth["username"],
                            "domain": {"name": "Default"},
                            "password": auth["password"],
                        }
                    },
                },
                "scope": "unscoped",
            }
        },
        timeout=60,
    )
    assert asked.status_code == 201, asked.text
    assert "project" not in asked.json()["token"], "Keystone scoped the token anyway"
    return asked.headers["X-Subject-Token"]


def test_an_unscoped_token_gets_past_keystones_clauses_and_the_next_run_revokes_it(
    fencer, admin_cloud
):
    """Keystone's deny clauses rest on the roles in the caller's token, and the fencing user's
    unscoped token has none: with it the user can make an application credential, a trust and a
    credential (Keystone 30 on the local cloud). What closes that way is fencing_identity, which
    the role runs on every converge: it revokes whatever the user made."""
    token = unscoped_token(fencer)
    identity = identity_url(fencer)
    user_id, project_id = fencer.current_user_id, fencer.current_project_id
    headers = {"X-Auth-Token": token}
    tried = {
        "application credential": requests.post(
            "%s/users/%s/application_credentials" % (identity, user_id),
            json={"application_credential": {"name": "it-unscoped-appcred"}},
            headers=headers,
            timeout=60,
        ),
        "trust": requests.post(
            "%s/OS-TRUST/trusts" % identity,
            json={
                "trust": {
                    "trustor_user_id": user_id,
                    "trustee_user_id": admin_cloud.current_user_id,
                    "project_id": project_id,
                    "roles": [{"name": "multiattach_fencer"}],
                    "impersonation": True,
                }
            },
            headers=headers,
            timeout=60,
        ),
        "credential": requests.post(
            "%s/credentials" % identity,
            json={
                "credential": {
                    "type": "ec2",
                    "user_id": user_id,
                    "project_id": project_id,
                    "blob": '{"access": "%s", "secret": "s"}' % uuid.uuid4().hex,
                }
            },
            headers=headers,
            timeout=60,
        ),
        "EC2 credential": requests.post(
            "%s/users/%s/credentials/OS-EC2" % (identity, user_id),
            json={"tenant_id": project_id},
            headers=headers,
            timeout=60,
        ),
    }
    answers = {what: answer.status_code for what, answer in tried.items()}
    # What Keystone 30 does today (a change here means the docs' limit changed too).
    assert answers == {
        "application credential": 201,
        "trust": 201,
        "credential": 201,
        "EC2 credential": 403,
    }, answers
    assert list(admin_cloud.identity.application_credentials(user_id)) != []

    again = run_module(
        "multiattach.cloud.fencing_identity",
        {
            "cloud": "local-admin",
            "name": fencer.fencer_auth["username"],
            "password": fencer.fencer_auth["password"],
            "project": PROJECT,
        },
        diff=True,
    )

    assert again["changed"] is True and not again.get("failed"), again.get("msg")
    assert list(admin_cloud.identity.application_credentials(user_id)) == []
    assert list(admin_cloud.identity.credentials(user_id=user_id)) == []
    assert list(admin_cloud.identity.trusts(trustor_user_id=user_id)) == []
