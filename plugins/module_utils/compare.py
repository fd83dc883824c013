# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Compare what is with what is wanted: the fields, keys and members a plan changes."""

from __future__ import annotations


def changed_fields(current, desired):
    """Names of the fields whose desired value is given (not None) and differs."""
    return sorted(
        name for name, value in desired.items() if value is not None and current.get(name) != value
    )


def dict_changes(current, desired, purge=False):
    """(keys to set {key: value}, keys to remove [key]) to turn CURRENT into DESIRED.

    Keys of CURRENT that DESIRED does not name are removed only with PURGE.
    """
    to_set = {key: value for key, value in desired.items() if current.get(key) != value}
    to_remove = sorted(key for key in current if key not in desired) if purge else []
    return to_set, to_remove


def set_changes(current, desired):
    """(members to add, members to remove), both sorted, to turn CURRENT into DESIRED."""
    current, desired = set(current), set(desired)
    return sorted(desired - current), sorted(current - desired)
