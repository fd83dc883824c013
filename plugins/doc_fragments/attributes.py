# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The attributes every module of the collection documents, and `joined()`, which makes the
one fragment a module of a kind lists (multiattach.cloud.openstack.INFO, .CHANGES,
.CHANGES_WITH_WAIT, multiattach.cloud.attachments, multiattach.cloud.libvirt) out of these
descriptions and the kind's options, notes and support levels.

The pieces are string literals in the fragment classes, where ansible-test's yamllint reads
them; the kinds are joined after each class, as ansible-doc reads attributes at run time."""

from __future__ import annotations

import yaml


def joined(*fragments):
    """One fragment of several, merged as ansible-doc merges the fragments a module lists:
    options and attributes entry by entry, notes and requirements in order."""
    doc = {}
    for fragment in fragments:
        for section, value in yaml.safe_load(fragment).items():
            if isinstance(value, dict):
                entries = doc.setdefault(section, {})
                for name, entry in value.items():
                    entries.setdefault(name, {}).update(entry)
            else:
                doc.setdefault(section, []).extend(value)
    return yaml.safe_dump(doc, sort_keys=False, width=100)


class ModuleDocFragment:
    DOCUMENTATION = r"""
options: {}
attributes:
  check_mode:
    description: Can run in check mode and report what would change without changing it.
  diff_mode:
    description: With C(--diff), returns what changed (or would change), before and after.
  platform:
    description: Where the module runs.
    support: full
"""
