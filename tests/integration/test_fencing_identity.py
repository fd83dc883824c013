"""multiattach.cloud.fencing_identity against the local cloud's Keystone: one user per cluster,
one role of its own (multiattach_fencer) on the servers' project, nothing else, the password
checked by logging in with it; Keystone's default roles refused."""

import uuid

import openstack
import pytest
from harness import keystone_user
from harness.ansible_runner import run_module

MODULE = "multiattach.cloud.fencing_identity"
PROJECT = "demo"


@pytest.fixture
def fence_user(admin_cloud):
    name = "it-fence-" + uuid.uuid4().hex[:8]
    yield name
    user = admin_cloud.identity.find_user(name, ignore_missing=True)
    if user is not None:
        admin_cloud.identity.delete_user(user)


def connect_as(admin_cloud, name, password):
    return keystone_user.connect_as(admin_cloud, name, password, PROJECT)


def logs_in(admin_cloud, name, password):
    try:
        connect_as(admin_cloud, name, password).authorize()
    except openstack.exceptions.SDKException:
        return False
    return True


def module_args(name, password):
    return {"cloud": "local-admin", "name": name, "password": password, "project": PROJECT}


def roles_of(admin_cloud, name):
    user = admin_cloud.identity.find_user(name, ignore_missing=False)
    return sorted(
        (next(iter(a.scope)), a.role["id"])
        for a in admin_cloud.identity.role_assignments(user_id=user.id)
    )


def test_made_once_logs_in_and_a_rerun_changes_nothing(admin_cloud, fence_user):
    password = "p/@ ,%s?" % uuid.uuid4().hex
    args = module_args(fence_user, password)

    checked = run_module(MODULE, args, check=True)
    assert (
        checked["changed"] is True
        and admin_cloud.identity.find_user(fence_user, ignore_missing=True) is None
    )

    first = run_module(MODULE, args)
    second = run_module(MODULE, args)

    assert first["changed"] is True and not first.get("failed"), first.get("msg")
    assert second["changed"] is False, second
    fencer = admin_cloud.identity.find_role("multiattach_fencer", ignore_missing=False)
    assert roles_of(admin_cloud, fence_user) == [("project", fencer.id)]
    assert logs_in(admin_cloud, fence_user, password)
    assert password not in str(first) + str(second)


def test_another_password_and_an_extra_role_are_set_right(admin_cloud, fence_user):
    args = module_args(fence_user, "first-" + uuid.uuid4().hex)
    assert not run_module(MODULE, args).get("failed")
    user = admin_cloud.identity.find_user(fence_user, ignore_missing=False)
    project = admin_cloud.identity.find_project(PROJECT, ignore_missing=False)
    admin_cloud.identity.assign_project_role_to_user(
        project, user, admin_cloud.identity.find_role("admin")
    )

    again = run_module(MODULE, dict(args, password="second-" + uuid.uuid4().hex), diff=True)

    assert again["changed"] is True, again
    fencer = admin_cloud.identity.find_role("multiattach_fencer", ignore_missing=False)
    assert roles_of(admin_cloud, fence_user) == [("project", fencer.id)], (
        "the admin role is taken away"
    )
    assert not logs_in(admin_cloud, fence_user, args["password"])


def test_a_disabled_user_is_enabled_and_taken_out_of_a_group_with_roles(admin_cloud, fence_user):
    """A disabled fencing user fences nothing; a group's roles are the user's too, and its own
    role assignments do not show them (issue 50's review)."""
    args = module_args(fence_user, "pw-" + uuid.uuid4().hex)
    assert not run_module(MODULE, args).get("failed")
    user = admin_cloud.identity.find_user(fence_user, ignore_missing=False)
    project = admin_cloud.identity.find_project(PROJECT, ignore_missing=False)
    group = admin_cloud.identity.create_group(name="it-fence-group-" + uuid.uuid4().hex[:8])
    try:
        admin_cloud.identity.assign_project_role_to_group(
            project, group, admin_cloud.identity.find_role("admin", ignore_missing=False)
        )
        admin_cloud.identity.add_user_to_group(user, group)
        admin_cloud.identity.update_user(user, is_enabled=False)
        assert not logs_in(admin_cloud, fence_user, args["password"])

        again = run_module(MODULE, args, diff=True)

        assert again["changed"] is True, again
        assert admin_cloud.identity.get_user(user.id).is_enabled is True
        assert not admin_cloud.identity.check_user_in_group(user, group)
        assert logs_in(admin_cloud, fence_user, args["password"])
        assert run_module(MODULE, args)["changed"] is False
    finally:
        admin_cloud.identity.delete_group(group)


def test_an_inherited_and_a_system_role_are_taken_from_it(admin_cloud, fence_user):
    """Issue 50: an inherited assignment crashed the module; a system role was taken as a
    domain role of domain None."""
    args = module_args(fence_user, "pw-" + uuid.uuid4().hex)
    assert not run_module(MODULE, args).get("failed")
    identity = admin_cloud.identity
    user = identity.find_user(fence_user, ignore_missing=False)
    reader = identity.find_role("reader", ignore_missing=False)
    domain = identity.find_domain("Default", ignore_missing=False)
    identity.assign_domain_role_to_user(domain, user, reader, inherited=True)
    identity.assign_system_role_to_user(user, reader, "all")
    assert len(roles_of(admin_cloud, fence_user)) == 3

    again = run_module(MODULE, args, diff=True)

    assert again["changed"] is True and not again.get("failed"), again.get("msg")
    fencer = identity.find_role("multiattach_fencer", ignore_missing=False)
    assert roles_of(admin_cloud, fence_user) == [("project", fencer.id)]
    assert run_module(MODULE, args)["changed"] is False


def test_absent_removes_the_user_and_bad_input_names_the_problem(admin_cloud, fence_user):
    args = module_args(fence_user, "x-" + uuid.uuid4().hex)
    assert not run_module(MODULE, args).get("failed")

    gone = run_module(MODULE, {"cloud": "local-admin", "name": fence_user, "state": "absent"})
    again = run_module(MODULE, {"cloud": "local-admin", "name": fence_user, "state": "absent"})
    missing = run_module(MODULE, dict(args, project="no-such-project"))
    no_password = run_module(
        MODULE, {"cloud": "local-admin", "name": fence_user, "project": PROJECT}
    )

    assert gone["changed"] is True and again["changed"] is False
    assert admin_cloud.identity.find_user(fence_user, ignore_missing=True) is None
    assert missing.get("failed") and "project 'no-such-project' does not exist" in missing["msg"]
    assert no_password.get("failed") and "password" in no_password["msg"]
    assert "Traceback" not in missing["msg"] + no_password["msg"]


def test_what_the_user_made_with_its_password_is_revoked(admin_cloud, fence_user):
    """A user made when fencing users held member (before fencing_policy kept its role out of
    Keystone's create rules), or on a cloud without that policy, may have made an application
    credential or an EC2 credential with its password: each outlives a new password, so the
    module revokes them and gives back its own role."""
    args = module_args(fence_user, "pw-" + uuid.uuid4().hex)
    assert not run_module(MODULE, args).get("failed")
    identity = admin_cloud.identity
    user = identity.find_user(fence_user, ignore_missing=False)
    project = identity.find_project(PROJECT, ignore_missing=False)
    fencer = identity.find_role("multiattach_fencer", ignore_missing=False)
    member = identity.find_role("member", ignore_missing=False)
    identity.assign_project_role_to_user(project, user, member)
    identity.unassign_project_role_from_user(project, user, fencer)
    thief = connect_as(admin_cloud, fence_user, args["password"])
    user_id, project_id = thief.current_user_id, thief.current_project_id
    thief.identity.create_application_credential(user_id, name="kept-" + uuid.uuid4().hex[:6])
    thief.identity.create_credential(
        type="ec2",
        user_id=user_id,
        project_id=project_id,
        blob='{"access": "%s", "secret": "s"}' % uuid.uuid4().hex,
    )
    assert len(list(identity.application_credentials(user_id))) == 1
    assert len(list(identity.credentials(user_id=user_id))) == 1

    checked = run_module(MODULE, args, check=True, diff=True)
    assert checked["changed"] is True and len(list(identity.credentials(user_id=user_id))) == 1
    revoked = run_module(MODULE, args, diff=True)

    assert revoked["changed"] is True and not revoked.get("failed"), revoked.get("msg")
    assert list(identity.application_credentials(user_id)) == []
    assert list(identity.credentials(user_id=user_id)) == []
    assert roles_of(admin_cloud, fence_user) == [("project", fencer.id)]
    assert run_module(MODULE, args)["changed"] is False
    assert args["password"] not in str(checked) + str(revoked)


@pytest.mark.parametrize("role", ["admin", "member", "reader"])
def test_a_default_role_is_refused_and_nothing_is_made(admin_cloud, fence_user, role):
    password = "never-" + uuid.uuid4().hex
    result = run_module(MODULE, dict(module_args(fence_user, password), role=role))
    assert result.get("failed"), result
    assert "role %r is one of Keystone's default roles" % role in result["msg"]
    assert "multiattach_fencer" in result["msg"]
    assert admin_cloud.identity.find_user(fence_user, ignore_missing=True) is None
    assert password not in str(result)


def test_a_second_cluster_naming_the_user_is_refused_and_the_first_keeps_its_password(
    admin_cloud, fence_user
):
    first_password = "first-" + uuid.uuid4().hex
    made = run_module(MODULE, dict(module_args(fence_user, first_password), cluster="vol-a"))
    assert made["changed"] and not made.get("failed"), made.get("msg")
    user = admin_cloud.identity.find_user(fence_user, ignore_missing=False)
    assert user.description.endswith("cluster vol-a")

    for check in (True, False):
        other = run_module(
            MODULE,
            dict(module_args(fence_user, "second-" + uuid.uuid4().hex), cluster="vol-b"),
            check=check,
        )
        assert other.get("failed") and "already fences cluster vol-a, not vol-b" in other["msg"]
    assert logs_in(admin_cloud, fence_user, first_password)
    again = run_module(MODULE, dict(module_args(fence_user, first_password), cluster="vol-a"))
    assert again["changed"] is False and not again.get("failed"), again


def token_answer(admin_cloud, token):
    """Keystone's answer (HTTP status) to validating TOKEN."""
    return admin_cloud.identity.get(
        "/auth/tokens", headers={"X-Subject-Token": token}, raise_exc=False
    ).status_code


def test_the_holders_are_recorded_and_a_new_password_ends_what_the_old_one_got(
    admin_cloud, fence_user
):
    """Issue 50 point 2: Keystone keeps which servers held the password, so a later run can tell
    one is gone; and a renewal leaves nothing the old password got (a token) working."""
    args = dict(module_args(fence_user, "pw-" + uuid.uuid4().hex), cluster="vol-it-holders")
    made = run_module(MODULE, dict(args, holders=["server-b", "server-a"]))
    assert not made.get("failed"), made.get("msg")
    assert made["holders_recorded"] is None and made["identity"]["holders"] == [
        "server-a",
        "server-b",
    ]

    # A later run (check mode, as the role's pre-check) reads them back.
    read = run_module(MODULE, dict(args, holders=["server-b"]), check=True, diff=True)
    assert read["holders_recorded"] == ["server-a", "server-b"] and read["changed"] is True
    assert read["diff"]["before"]["holders"] == ["server-a", "server-b"]
    assert run_module(MODULE, dict(args, holders=["server-a", "server-b"]))["changed"] is False

    # What whoever left may have kept: a token got with the old password.
    old_token = connect_as(admin_cloud, fence_user, args["password"]).auth_token
    assert token_answer(admin_cloud, old_token) == 200
    renewed = run_module(
        MODULE, dict(args, password="pw2-" + uuid.uuid4().hex, holders=["server-b"])
    )
    assert renewed["changed"] is True and not renewed.get("failed"), renewed.get("msg")
    assert token_answer(admin_cloud, old_token) == 404
    assert not logs_in(admin_cloud, fence_user, args["password"])
    user = admin_cloud.identity.find_user(fence_user, ignore_missing=False)
    assert user.description.endswith("password held by servers server-b")


def test_failed_sign_ins_never_lock_the_fencing_user_out(admin_cloud, fence_user):
    """Issue 50 point 4: the local Keystone locks a user out after 5 failed sign-ins
    (keystone.conf [security_compliance]); a locked-out fencing user would stop every fence.
    fencing_identity sets the user's options that exempt it; a user made without them locks."""
    password = "pw-" + uuid.uuid4().hex
    made = run_module(MODULE, module_args(fence_user, password))
    assert not made.get("failed"), made.get("msg")
    user = admin_cloud.identity.find_user(fence_user, ignore_missing=False)
    options = (
        "ignore_password_expiry",
        "ignore_lockout_failure_attempts",
        "ignore_change_password_upon_first_use",
        "ignore_user_inactivity",
        "lock_password",
    )
    assert {name: user.options.get(name) for name in options} == dict.fromkeys(options, True)

    # Without the options, the same Keystone locks a user out: the fault strikes.
    plain_name = fence_user + "-plain"
    project = admin_cloud.identity.find_project(PROJECT, ignore_missing=False)
    plain = admin_cloud.identity.create_user(
        name=plain_name, password=password, default_project_id=project.id, domain_id="default"
    )
    try:
        reader = admin_cloud.identity.find_role("reader", ignore_missing=False)
        admin_cloud.identity.assign_project_role_to_user(project, plain, reader)
        for name in (fence_user, plain_name):
            for unused in range(6):
                assert not logs_in(admin_cloud, name, "wrong-" + uuid.uuid4().hex)
        assert not logs_in(admin_cloud, plain_name, password), "the lockout did not strike"
        assert logs_in(admin_cloud, fence_user, password)
    finally:
        admin_cloud.identity.delete_user(plain)
