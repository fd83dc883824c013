"""The cinder_multiattach role changes the local cloud's Cinder for real."""

import time
import uuid

import pytest
import yaml
from harness.ansible_runner import run_playbook_file
from harness.local_cloud_state import (
    CINDER_CONF,
    CINDER_POLICY,
    SWITCH_PLAYBOOK,
    digest,
    pids,
    wait_for_pool_capability,
)
from openstack import exceptions as sdk_exceptions

# Switches multiattach and the policy of the whole cloud: make test runs it alone.
pytestmark = pytest.mark.serial

CINDER_SERVICES = ("cinder-api", "cinder-scheduler", "cinder-volume")
TYPE = "multiattach-fake-1"
RESTART_TASK = "Restart the Cinder volume services by command"


def switch(**extra_vars):
    return run_playbook_file(SWITCH_PLAYBOOK, extra_vars=extra_vars)


@pytest.fixture(scope="module", autouse=True)
def leave_multiattach_on_with_default_policy(admin_cloud):
    yield
    run = switch(local_cloud_multiattach=True)
    assert not run.failures, run.failure_message
    wait_for_pool_capability(admin_cloud, True)


def volume_outcome(conn, volume_type=TYPE):
    """Create a 1 GiB volume of VOLUME_TYPE; its final status (deleted again)."""
    volume = conn.block_storage.create_volume(
        name="it-role-" + uuid.uuid4().hex[:8], size=1, volume_type=volume_type
    )
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            volume = conn.block_storage.get_volume(volume)
            if volume.status in ("available", "error"):
                return volume.status, volume.is_multiattach
            time.sleep(0.5)
        raise AssertionError("volume stuck in %s" % volume.status)
    finally:
        conn.block_storage.delete_volume(volume, ignore_missing=True)


def test_multiattach_volumes_fail_before_the_role_and_work_after(admin_cloud, member_cloud):
    foreign = "\n# An operator's own comment, not the role's.\n[oslo_messaging_notifications]\ndriver = noop\n"
    with CINDER_CONF.open("a") as conf:
        conf.write(foreign)
    before = pids(*CINDER_SERVICES)

    off = switch(local_cloud_multiattach=False)

    assert not off.failures, off.failure_message
    assert RESTART_TASK in off.changed_tasks
    after_off = pids(*CINDER_SERVICES)
    assert after_off["cinder-volume"] != before["cinder-volume"]
    assert after_off["cinder-api"] == before["cinder-api"]
    assert after_off["cinder-scheduler"] == before["cinder-scheduler"]
    wait_for_pool_capability(admin_cloud, False)
    assert volume_outcome(member_cloud) == ("error", True), (
        "without a multiattach-capable backend the scheduler must find no host"
    )

    on = switch(local_cloud_multiattach=True)

    assert not on.failures, on.failure_message
    assert RESTART_TASK in on.changed_tasks
    assert volume_outcome(member_cloud) == ("available", True)
    assert foreign in CINDER_CONF.read_text(), "settings the role does not own must stay"


def test_admin_only_policy_refuses_the_member_and_needs_no_restart(admin_cloud, member_cloud):
    before = pids(*CINDER_SERVICES)

    admin_only = switch(cinder_multiattach_policy_multiattach="role:admin")

    assert not admin_only.failures, admin_only.failure_message
    assert admin_only.changed_tasks == [
        "Write the multiattach and volume type rules, keeping every other rule"
    ]
    assert pids(*CINDER_SERVICES) == before, "a policy change must restart nothing"
    with pytest.raises(sdk_exceptions.ForbiddenException, match="volume:multiattach"):
        member_cloud.block_storage.create_volume(name="it-role-refused", size=1, volume_type=TYPE)
    assert volume_outcome(admin_cloud) == ("available", True)

    time.sleep(1.1)  # oslo.policy notices a change by mtime, in whole seconds
    default = switch()

    assert not default.failures, default.failure_message
    assert volume_outcome(member_cloud) == ("available", True)


def test_other_policy_rules_in_the_file_are_kept():
    original = CINDER_POLICY.read_text()
    CINDER_POLICY.write_text(original + '"volume:get_all": ""\n')
    try:
        run = switch()

        assert not run.failures, run.failure_message
        assert "volume:get_all: ''" in CINDER_POLICY.read_text()
        written = yaml.safe_load(CINDER_POLICY.read_text())
        assert (
            written["volume:multiattach"]
            == "role:admin or (role:member and project_id:%(project_id)s)"
        )
        assert not [rule for rule, check in written.items() if "rule:xena_" in str(check)], written
    finally:
        CINDER_POLICY.write_text(original)


def test_a_rerun_changes_nothing_and_restarts_nothing():
    switch()
    before = pids(*CINDER_SERVICES)
    conf, policy = digest(CINDER_CONF), digest(CINDER_POLICY)

    rerun = switch()

    assert not rerun.failures, rerun.failure_message
    assert rerun.changed_tasks == []
    assert pids(*CINDER_SERVICES) == before
    assert (digest(CINDER_CONF), digest(CINDER_POLICY)) == (conf, policy)


def test_check_mode_shows_a_policy_change_with_a_diff_and_writes_nothing():
    policy = digest(CINDER_POLICY)

    run = run_playbook_file(
        SWITCH_PLAYBOOK,
        check=True,
        diff=True,
        extra_vars={"cinder_multiattach_policy_multiattach": "!"},
    )

    assert not run.failures, run.failure_message
    write = run.result("Write the multiattach and volume type rules, keeping every other rule")
    assert write["changed"] and "volume:multiattach: '!'" in write["diff"][0]["after"]
    assert digest(CINDER_POLICY) == policy


def test_check_mode_on_a_cinder_not_yet_configured_reports_every_change_and_waits_for_nothing(
    admin_cloud,
):
    """A fresh target: the backend reports no multiattach, the policy file is empty, no
    multiattach volume type. Check mode says what a run would change (the backend section,
    the policy rules, the volume type), does not wait out the pools' timeout (nothing was
    restarted), and writes nothing."""
    off = switch(local_cloud_multiattach=False)
    assert not off.failures, off.failure_message
    wait_for_pool_capability(admin_cloud, False)
    original = CINDER_POLICY.read_text()
    CINDER_POLICY.write_text("")
    try:
        conf, policy, before = digest(CINDER_CONF), digest(CINDER_POLICY), pids(*CINDER_SERVICES)
        started = time.monotonic()

        run = run_playbook_file(
            SWITCH_PLAYBOOK,
            check=True,
            diff=True,
            extra_vars={
                "local_cloud_multiattach": True,
                "cinder_multiattach_volume_type_prefix": "fresh-",
            },
        )

        seconds = time.monotonic() - started
        assert not run.failures, run.failure_message
        assert seconds < 60, "check mode waited %.0f s" % seconds
        assert {
            "Write the backend sections and enabled_backends into cinder.conf",
            "Write the multiattach and volume type rules, keeping every other rule",
            "Create one multiattach volume type per backend",
        } <= set(run.changed_tasks)
        said = run.result(
            "Say which backends do not report the multiattach capability yet (check mode)"
        )
        assert "fake-1" in said["msg"] and "waits up to 120 s" in said["msg"], said
        assert (digest(CINDER_CONF), digest(CINDER_POLICY), pids(*CINDER_SERVICES)) == (
            conf,
            policy,
            before,
        )
        assert admin_cloud.block_storage.find_type("fresh-fake-1") is None
    finally:
        CINDER_POLICY.write_text(original)


@pytest.mark.parametrize(
    "backends,expected",
    [
        (
            {"broken": {"volume_backend_name": "broken"}},
            "Backend 'broken' in cinder_multiattach_backends has no volume_driver",
        ),
        ({"broken": {"volume_driver": "x.Driver"}}, "has no volume_backend_name"),
        ({"broken": {}}, "has no volume_driver and no volume_backend_name"),
        ({"broken": "lvm"}, "is not a dict of cinder.conf options"),
        ({"bad name": {"volume_driver": "d", "volume_backend_name": "b"}}, "letters, digits"),
        ("lvm", "cinder_multiattach_backends"),
    ],
)
def test_bad_backends_fail_with_the_fix_and_change_nothing(backends, expected):
    conf, policy = digest(CINDER_CONF), digest(CINDER_POLICY)

    run = switch(cinder_multiattach_backends=backends)

    assert run.failures and expected in run.failure_message, run.failure_message
    assert "Traceback" not in run.failure_message
    assert (digest(CINDER_CONF), digest(CINDER_POLICY)) == (conf, policy)


def test_the_command_mechanism_without_a_command_is_refused():
    run = switch(cinder_multiattach_restart_command="")
    assert run.failures and "cinder_multiattach_restart_command is empty" in run.failure_message
