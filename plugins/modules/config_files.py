#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: config_files
short_description: Write several whole files on a host in one run, each only where it differs
version_added: 0.2.0
description:
  - Makes each file of O(files) hold its content with its mode. A file whose content and mode
    are already as wanted is not touched; one whose content differs is written whole (under a
    private name in its directory, synced, then renamed into place, so never half-written and never
    with a wider mode than asked); one whose mode alone differs is given its mode.
  - One module run for all the files a role keeps (a cluster stack's configuration), where
    M(ansible.builtin.copy) costs a run, a status read and a transfer per file. On an emulated
    guest each run costs seconds.
  - Files only; not owners, not SELinux contexts. A file with secrets in it goes in
    O(secret_files), written the same way and in the same run, but its content is never shown
    (not in the diff, not in the arguments Ansible echoes), so the task needs no C(no_log) and
    the other files' diffs stay visible.
author:
  - multiattach.cloud developers (@multiattach)
options:
  files:
    description: The files. Their diff shows their content.
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: Absolute path of the file; each path once.
        type: path
        required: true
      content:
        description: What the file holds, the whole of it.
        type: str
        required: true
      mode:
        description: Its mode, in octal as a string (V('0644')).
        type: str
        required: true
      directory_mode:
        description:
          - Mode of the file's directory when it is missing and must be made (its parents too).
            Without it, a missing directory fails the run, naming it.
        type: str
      read_sha256:
        description:
          - The file's sha256 when the run read it (M(multiattach.cloud.clustered_fs_info)'s
            RV(multiattach.cloud.clustered_fs_info#module:files)), or V(absent) when it did not
            exist. When given and the file is no longer so, nothing is written and the run fails
            naming it - what was planned came from the old content.
        type: str
  secret_files:
    description:
      - Files that hold a secret (a password in a C(clouds.yaml)), with the same suboptions as
        O(files). Each is written, or given its mode, only where it differs, in the same run as
        O(files). Their content is a C(no_log) option, and their diff says only that the secret
        content changed; their paths and modes are shown as any file's.
      - A path may appear once in O(files) and O(secret_files) together.
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: Absolute path of the file; each path once.
        type: path
        required: true
      content:
        description: What the file holds, the whole of it; never shown.
        type: str
        required: true
      mode:
        description: Its mode, in octal as a string (V('0600')).
        type: str
        required: true
      directory_mode:
        description:
          - Mode of the file's directory when it is missing and must be made (its parents too).
            Without it, a missing directory fails the run, naming it.
        type: str
      read_sha256:
        description:
          - The file's sha256 when the run read it (M(multiattach.cloud.clustered_fs_info)'s
            RV(multiattach.cloud.clustered_fs_info#module:files)), or V(absent) when it did not
            exist. When given and the file is no longer so, nothing is written and the run fails
            naming it - what was planned came from the old content.
        type: str
  run_after_write:
    description:
      - A command (its arguments as a list, no shell) run once after the files, only when any of
        them (O(files) or O(secret_files)) was written or given its mode; never in check mode. It makes a running service read
        them (C(corosync-cfgtool -R)) in the same module run, where a handler costs another one.
      - Its failure fails the run, naming the files written and the command. Those files stay
        written, so the next run finds them as wanted and does not run the command again; run it
        by hand once the cause is mended.
    type: list
    elements: str
seealso:
  - {module: "multiattach.cloud.clustered_fs_info", description: "reads the files' sha256 and mode, so that nothing runs where they are as wanted"}
  - {module: "ansible.builtin.copy", description: "one file a run, with owners, backups and validation"}
  - {name: "rename(2)", link: "https://man7.org/linux/man-pages/man2/rename.2.html", description: "why a file renamed into place is never seen half-written"}
extends_documentation_fragment:
  - multiattach.cloud.attributes
attributes:
  check_mode:
    support: full
    details: Reports the files that would be written, and writes nothing.
  diff_mode:
    support: full
    details: >-
      One diff per file written, named by its path (a mode change shows the modes); a file of
      O(secret_files) shows that its content changed, never the content.
  platform:
    platforms: posix
"""

EXAMPLES = r"""
- name: Write the cluster stack's configuration where it differs
  multiattach.cloud.config_files:
    files:
      - path: /etc/default/o2cb
        content: |
          O2CB_ENABLED=true
          O2CB_BOOTCLUSTER=shared
        mode: "0644"
      - path: /etc/dlm/dlm.conf
        content: "enable_fencing=1\n"
        mode: "0644"
        directory_mode: "0755"
  register: written

- name: Write a cluster's configuration and its fence agent's password in one run
  multiattach.cloud.config_files:
    files:
      - path: /etc/corosync/corosync.conf
        content: "{{ corosync_conf }}"
        mode: "0644"
    secret_files:
      - path: /etc/openstack/clouds.yaml
        content: "{{ {'clouds': {'fencing': fencing_entry}} | to_nice_yaml }}"
        mode: "0600"
        directory_mode: "0700"
"""

RETURN = r"""
written:
  description: The paths written (or given their mode), in the order of O(files); in check mode, those that would be.
  returned: always
  type: list
  elements: str
  sample: [/etc/default/o2cb]
ran:
  description: O(run_after_write) when it ran (in check mode, when it would); else null.
  returned: always
  type: list
  elements: str
  sample: [corosync-cfgtool, -R]
"""

from ansible_collections.multiattach.cloud.plugins.module_utils.host.config_files import (
    FILE_OPTIONS,
    ConfigFilesChange,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.module import CollectionModule


class ConfigFilesModule(CollectionModule):
    argument_spec = dict(
        files=dict(type="list", elements="dict", default=[], options=FILE_OPTIONS),
        # Their paths and modes are shown; their content is the secret.
        secret_files=dict(
            type="list",
            elements="dict",
            default=[],
            no_log=False,
            options=dict(FILE_OPTIONS, content=dict(type="str", required=True, no_log=True)),
        ),
        run_after_write=dict(type="list", elements="str"),
    )
    job = ConfigFilesChange

    def describe(self, error):
        if isinstance(error, OSError):
            return "cannot write %s: %s" % (error.filename or "a file", error.strerror or error)
        return None


def main():
    ConfigFilesModule()()


if __name__ == "__main__":
    main()
