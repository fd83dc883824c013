# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: files_to_write
short_description: The files whose content or mode differ from what a node's read found
version_added: 0.2.0
description:
  - Used by the R(multiattach.cloud.clustered_fs,role) role. Takes the files it wants on a node
    (as M(multiattach.cloud.config_files) takes them) and what
    M(multiattach.cloud.clustered_fs_info) read of them (its C(files)), and returns those whose
    sha256 or mode differ, or that were not read. An empty list means no write is needed, and
    the role then runs no module at all for them.
options:
  _input:
    description: The wanted files, each with C(path), C(content) and C(mode).
    type: list
    elements: dict
    required: true
  read:
    description: "C(files) of M(multiattach.cloud.clustered_fs_info): {path: {sha256, mode} or null}."
    type: dict
    required: true
author:
  - multiattach.cloud developers (@multiattach)
"""

EXAMPLES = r"""
- name: Write the files that differ
  multiattach.cloud.config_files:
    files: "{{ wanted_files | multiattach.cloud.files_to_write(node.files) }}"
  when: wanted_files | multiattach.cloud.files_to_write(node.files) | length > 0
"""

RETURN = r"""
_value:
  description:
    - The entries of the input that need a write, in their order, each with C(read_sha256) added
      (the sha256 the read found, or C(absent)), so that M(multiattach.cloud.config_files) refuses
      a file that changed since the read.
  type: list
  elements: dict
"""

import hashlib

from ansible.errors import AnsibleFilterError


def files_to_write(wanted, read):
    differing = []
    for entry in wanted:
        try:
            path, content, mode = entry["path"], entry["content"], entry["mode"]
            mode = "%04o" % int(str(mode), 8)
        except (KeyError, TypeError, ValueError) as error:
            raise AnsibleFilterError(
                "files_to_write: each file needs path, content and an octal mode: %s" % error
            ) from error
        have = (read or {}).get(path)
        wanted_sha = hashlib.sha256(str(content).encode("utf-8")).hexdigest()
        if not have or have.get("sha256") != wanted_sha or have.get("mode") != mode:
            # config_files refuses the write if the file changed since this read.
            differing.append(dict(entry, read_sha256=have["sha256"] if have else "absent"))
    return differing


class FilterModule:
    def filters(self):
        return {"files_to_write": files_to_write}
