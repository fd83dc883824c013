"""The fencing_policy role on Nova's and Keystone's policy files: the fencing role's clause added
to the rules a fence calls (Nova) and to the rules that make other ways in (Keystone), every
other rule kept, a rerun unchanged. The local cloud's own files (made by multiattach_switch.yml
at cloud-up) are what test_fencing_least_privilege.py runs against."""

import stat

import pytest
import yaml
from harness.ansible_runner import run_playbook

ROLE_TASK = "Write the fencing role's clause into the rules, keeping every other rule"
CLAUSE = "(role:multiattach_fencer and project_id:%(project_id)s)"
RULES = {
    "os_compute_api:servers:show": "rule:project_reader_or_admin",
    "os_compute_api:servers:start": "rule:project_member_or_admin",
    "os_compute_api:servers:stop": "rule:project_member_or_admin",
    "os_compute_api:servers:reboot": "rule:project_member_or_admin",
    "os_compute_api:os-instance-actions:list": "rule:project_reader_or_admin",
    "os_compute_api:os-instance-actions:show": "rule:project_reader_or_admin",
}


KEYSTONE_RULES = {
    "identity:create_application_credential": "user_id:%(user_id)s",
    "identity:create_trust": (
        "user_id:%(target.trust.trustor_user_id)s or user_id:%(trust.trustor_user_id)s"
    ),
    "identity:create_credential": "(rule:admin_required) or user_id:%(target.credential.user_id)s",
    "identity:ec2_create_credential": (
        "(rule:admin_required) or (role:member and user_id:%(target.credential.user_id)s)"
    ),
}


def apply(policy, check=False, service="nova", **role_vars):
    task = {
        "name": "the role",
        "ansible.builtin.include_role": {"name": "multiattach.cloud.fencing_policy"},
        "vars": dict(
            {"fencing_policy_service": service, "fencing_policy_%s_file" % service: str(policy)},
            **role_vars,
        ),
    }
    results, completed = run_playbook([task], check=check, diff=True)
    return {r["_task"]: r for r in results}, completed


def test_a_missing_file_gets_the_clause_in_each_rule_and_a_rerun_changes_nothing(tmp_path):
    policy = tmp_path / "policy.yaml"

    first, completed = apply(policy)
    again, _completed = apply(policy)

    assert first[ROLE_TASK]["changed"] is True, completed.stdout[-2000:]
    assert yaml.safe_load(policy.read_text()) == {
        rule: "(%s) or %s" % (default, CLAUSE) for rule, default in RULES.items()
    }
    assert stat.S_IMODE(policy.stat().st_mode) == 0o644
    assert again[ROLE_TASK]["changed"] is False


def test_other_rules_are_kept_and_a_rule_the_file_sets_keeps_its_check_string(tmp_path):
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        '"os_compute_api:servers:stop": "role:admin"\n'
        '"os_compute_api:servers:delete": "role:admin"\n'
        '"os_compute_api:servers:show": ""\n'
    )

    apply(policy)

    written = yaml.safe_load(policy.read_text())
    assert written["os_compute_api:servers:stop"] == "(role:admin) or %s" % CLAUSE
    assert written["os_compute_api:servers:delete"] == "role:admin"
    # an empty check string allows everyone already: left as it is
    assert written["os_compute_api:servers:show"] == ""
    assert apply(policy)[0][ROLE_TASK]["changed"] is False


def test_check_mode_shows_the_change_and_writes_nothing(tmp_path):
    policy = tmp_path / "policy.yaml"
    policy.write_text('"os_compute_api:servers:delete": "role:admin"\n')
    before = policy.read_text()

    results, _completed = apply(policy, check=True)

    assert results[ROLE_TASK]["changed"] is True
    assert CLAUSE in results[ROLE_TASK]["diff"][0]["after"]
    assert policy.read_text() == before


@pytest.mark.parametrize("role", ["member", "admin", "reader", "bad role"])
def test_a_default_role_or_a_bad_name_is_refused_and_nothing_written(tmp_path, role):
    policy = tmp_path / "policy.yaml"

    results, _completed = apply(policy, fencing_policy_role=role)

    [failed] = [r for r in results.values() if r.get("failed")]
    assert "fencing_policy_role is '%s'" % role in failed["msg"]
    assert ROLE_TASK not in results and not policy.exists()


def test_keystone_keeps_the_fencing_role_out_of_the_rules_that_make_other_ways_in(tmp_path):
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        '"identity:create_trust": "rule:admin_required"\n'
        '"identity:list_projects": "rule:admin_required"\n'
    )

    first, completed = apply(policy, service="keystone")
    again, _completed = apply(policy, service="keystone")

    assert first[ROLE_TASK]["changed"] is True, completed.stdout[-2000:]
    written = yaml.safe_load(policy.read_text())
    deny = "not role:multiattach_fencer"
    assert written == dict(
        {rule: "(%s) and %s" % (default, deny) for rule, default in KEYSTONE_RULES.items()},
        **{
            "identity:create_trust": "(rule:admin_required) and %s" % deny,
            "identity:list_projects": "rule:admin_required",
        },
    )
    assert again[ROLE_TASK]["changed"] is False


def test_a_service_not_known_is_refused_naming_the_two(tmp_path):
    policy = tmp_path / "policy.yaml"

    results, _completed = apply(policy, service="glance")

    [failed] = [r for r in results.values() if r.get("failed")]
    assert "fencing_policy_service" in failed["msg"] and "glance" in failed["msg"]
    assert "nova" in failed["msg"] and "keystone" in failed["msg"]
    assert not policy.exists()


def test_cinder_lets_the_fencing_role_read_its_projects_volumes_and_keeps_the_rest(tmp_path):
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        '"volume:multiattach": "role:admin or (role:member and project_id:%(project_id)s)"\n'
    )

    first, completed = apply(policy, service="cinder")

    assert first[ROLE_TASK]["changed"] is True, completed.stdout[-2000:]
    assert yaml.safe_load(policy.read_text()) == {
        "volume:multiattach": "role:admin or (role:member and project_id:%(project_id)s)",
        "volume:get": "((role:admin) or (role:reader and project_id:%%(project_id)s)) or %s"
        % CLAUSE,
    }
    assert apply(policy, service="cinder")[0][ROLE_TASK]["changed"] is False


def test_a_role_whose_name_extends_the_fencing_roles_is_not_taken_for_its_clause(tmp_path):
    """The clause is found whole: "not role:multiattach_fencer2" is another role's."""
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        '"identity:create_trust": "rule:admin_required and not role:multiattach_fencer2"\n'
    )

    apply(policy, service="keystone")

    written = yaml.safe_load(policy.read_text())["identity:create_trust"]
    assert written == (
        "(rule:admin_required and not role:multiattach_fencer2) and not role:multiattach_fencer"
    )
