"""The nova_fencing_policy role on Nova's policy file: the fencing role's clause added to the
rules a fence calls, every other rule kept, a rerun unchanged. The local cloud's own file (made
by multiattach_switch.yml at cloud-up) is what test_fencing_least_privilege.py runs against."""

import stat

import pytest
import yaml
from harness.ansible_runner import run_playbook

ROLE_TASK = "Write the fencing role's clause into the rules a fence calls, keeping every other rule"
CLAUSE = "(role:multiattach_fencer and project_id:%(project_id)s)"
RULES = {
    "os_compute_api:servers:show": "rule:project_reader_or_admin",
    "os_compute_api:servers:start": "rule:project_member_or_admin",
    "os_compute_api:servers:stop": "rule:project_member_or_admin",
    "os_compute_api:servers:reboot": "rule:project_member_or_admin",
    "os_compute_api:os-instance-actions:list": "rule:project_reader_or_admin",
    "os_compute_api:os-instance-actions:show": "rule:project_reader_or_admin",
}


def apply(policy, check=False, **role_vars):
    task = {
        "name": "the role",
        "ansible.builtin.include_role": {"name": "multiattach.cloud.nova_fencing_policy"},
        "vars": dict(nova_fencing_policy_file=str(policy), **role_vars),
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
    assert stat.S_IMODE(policy.stat().st_mode) == 0o640
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

    results, _completed = apply(policy, nova_fencing_policy_role=role)

    [failed] = [r for r in results.values() if r.get("failed")]
    assert "nova_fencing_policy_role is '%s'" % role in failed["msg"]
    assert ROLE_TASK not in results and not policy.exists()
