"""The policy files cinder_multiattach and fencing_policy both write: each keeps the other's
rules and writes the file the same way, so neither undoes the other (a rerun of both changes
nothing), and the fencing clause is added once."""

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.multiattach.cloud.plugins.filter.fencing_clause import (
    fencing_clause as clause_filter,
)
from ansible_collections.multiattach.cloud.plugins.filter.policy_file import (
    policy_file as file_filter,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.policy_rules import (
    HEADER,
    policy_file,
    with_fencing_clause,
)

CINDER_GET = {"volume:get": "(role:admin) or (role:reader and project_id:%(project_id)s)"}
MULTIATTACH = {"volume:multiattach": "role:admin or (role:member and project_id:%(project_id)s)"}
FENCER = "(role:multiattach_fencer and project_id:%(project_id)s)"


def rules(text):
    return yaml.safe_load(text) or {}


def test_the_two_roles_write_cinders_file_alike_so_neither_undoes_the_other():
    by_cinder_role = policy_file({}, MULTIATTACH)
    fencing = with_fencing_clause(rules(by_cinder_role), CINDER_GET, "multiattach_fencer", "allow")
    by_fencing_role = policy_file(rules(by_cinder_role), fencing)

    cinder_again = policy_file(rules(by_fencing_role), MULTIATTACH)
    fencing_again = with_fencing_clause(
        rules(cinder_again), CINDER_GET, "multiattach_fencer", "allow"
    )

    assert cinder_again == by_fencing_role
    assert policy_file(rules(cinder_again), fencing_again) == by_fencing_role
    assert rules(by_fencing_role) == {
        **MULTIATTACH,
        "volume:get": "((role:admin) or (role:reader and project_id:%(project_id)s)) or " + FENCER,
    }
    assert by_fencing_role.startswith(HEADER)


def test_every_other_rule_is_kept_and_the_rules_are_sorted():
    text = policy_file({"z:rule": "", "a:rule": "role:admin", "n": 3}, {"m:rule": "!"})

    assert rules(text) == {"z:rule": "", "a:rule": "role:admin", "n": 3, "m:rule": "!"}
    assert [line.split(":")[0] for line in text.splitlines() if not line.startswith("#")] == [
        "a",
        "m",
        "n",
        "z",
    ]


def test_a_str_subclass_as_ansible_hands_it_is_written_as_a_plain_string():
    class Tagged(str):
        pass

    text = policy_file({Tagged("volume:get"): Tagged("rule:x")}, {})

    assert "!!" not in text
    assert rules(text) == {"volume:get": "rule:x"}


@pytest.mark.parametrize(
    "current, how, expected",
    [
        # Absent from the file: the service's default, the clause added.
        ({}, "allow", "(rule:project_member_or_admin) or " + FENCER),
        # Set by the operator: kept, the clause added.
        ({"r": "role:admin"}, "allow", "(role:admin) or " + FENCER),
        # Already holds the clause: kept as it is (a rerun).
        ({"r": "(role:admin) or " + FENCER}, "allow", "(role:admin) or " + FENCER),
        # Empty lets everyone in: nothing to add to allow; deny needs the clause alone.
        ({"r": ""}, "allow", ""),
        ({"r": ""}, "deny", "not role:multiattach_fencer"),
        (
            {"r": "user_id:%(user_id)s"},
            "deny",
            "(user_id:%(user_id)s) and not role:multiattach_fencer",
        ),
        # A longer role name that starts with the fencing role's is not the clause.
        (
            {"r": "not role:multiattach_fencer2"},
            "deny",
            "(not role:multiattach_fencer2) and not role:multiattach_fencer",
        ),
    ],
)
def test_the_clause_is_added_once(current, how, expected):
    wanted = with_fencing_clause(
        current, {"r": "rule:project_member_or_admin"}, "multiattach_fencer", how
    )

    assert wanted == {"r": expected}
    assert with_fencing_clause(wanted, {"r": "x"}, "multiattach_fencer", how) == wanted


def test_the_filters_refuse_what_is_not_a_mapping_and_a_wrong_how():
    with pytest.raises(AnsibleFilterError, match="mapping of rule to check string"):
        file_filter(["volume:get"], {})
    with pytest.raises(AnsibleFilterError, match="give allow or deny"):
        clause_filter({}, {}, "multiattach_fencer", "permit")
    assert file_filter(None, {"a": "b"}) == HEADER + "a: b\n"
