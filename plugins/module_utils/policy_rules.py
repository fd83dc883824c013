# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Rules in an oslo.policy file (roles cinder_multiattach and fencing_policy, filter policy_rules).

Two roles write Cinder's policy file: cinder_multiattach its multiattach and volume type rules,
fencing_policy the fencing role's clause in volume:get. Each keeps every rule it does not own,
and both write the file the same way (one header, the rules sorted), so neither sees the other's
write as a change to undo.
"""

from __future__ import annotations

import re

HEADER = (
    "# Policy overrides. multiattach.cloud's roles cinder_multiattach and fencing_policy set the\n"
    "# rules their docs name; every other rule is kept as found.\n"
)

ALLOW = "allow"
DENY = "deny"


def _plain(value):
    """VALUE as built-in types, so the safe YAML dumper writes it (Ansible hands filters
    subclasses of str and dict)."""
    if isinstance(value, dict):
        return {_plain(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return str(value)


def policy_file(current, wanted):
    """The policy file's text: the rules CURRENT, those in WANTED set to WANTED's check strings."""
    # Imported here: module_utils must import without PyYAML (a filter's caller, the controller,
    # always has it).
    import yaml

    rules = dict(_plain(current or {}))
    rules.update(_plain(wanted or {}))
    body = yaml.safe_dump(
        rules, default_flow_style=False, sort_keys=True, indent=2, width=1000, allow_unicode=True
    )
    return HEADER + body


def fencing_clause(role, how):
    """The clause that lets ROLE in on its own project's resources (ALLOW) or keeps it out (DENY)."""
    if how == ALLOW:
        return "(role:%s and project_id:%%(project_id)s)" % role
    return "not role:%s" % role


def with_fencing_clause(current, defaults, role, how):
    """{rule: check string} for the rules DEFAULTS names ({rule: the service's default check
    string}), each with ROLE's clause added to the check string CURRENT sets (the default where
    CURRENT has none). A check string that already holds the clause is kept as it is."""
    clause = fencing_clause(role, how)
    holds_clause = re.compile(re.escape(clause) + r"(?![A-Za-z0-9_.-])")
    wanted = {}
    for rule, default in defaults.items():
        found = (current or {}).get(rule)
        base = str(default if found is None else found)
        if holds_clause.search(base):
            wanted[rule] = base
        elif not base.strip():
            # An empty check string lets everyone in: nothing to add for ALLOW; for DENY the
            # clause alone still lets everyone else in.
            wanted[rule] = base if how == ALLOW else clause
        else:
            joiner = "or" if how == ALLOW else "and"
            wanted[rule] = "(%s) %s %s" % (base, joiner, clause)
    return wanted
