#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: ini_settings
short_description: Set options in an OpenStack service's INI configuration, leave the rest alone
version_added: 0.1.0
description:
  - Sets or removes the given options in an oslo.config style INI file such as
    C(cinder.conf). Only the lines of those options change; comments, other
    options, other sections and their order stay as they were.
  - "The file is read as oslo.config reads it: C(name = value) and C(name: value)
    lines, quotes around a whole value dropped, the blocks of a repeated
    C([section]) header merged, and of an option given more than once the last
    line counts. That line gets the wanted value and the option's other lines
    are removed; a run reports no change only when oslo.config already reads
    the wanted value from a single line."
  - A missing section is added at the end of the file; a missing option after
    the last option of its section's last block.
  - Secrets are masked in the result, the diff and Ansible's output and logs,
    C(-vvv) included, also when the arguments fail Ansible's own check. Masked
    are the whole value of an option whose name looks secret (containing
    C(passw), C(pwd), C(passcode), C(passphrase), C(secret), C(token),
    C(credential), C(apikey), C(kek), or ending in C(_key) or C(_keys)), set or
    commented out, and the password inside any URL - its credentials (a password
    may hold C(@), C(/), C(,) or spaces) and query parameters named like a
    secret - such as C(transport_url = rabbit://user:PASSWORD@host) or
    C(connection = mysql+pymysql://user:PASSWORD@host/cinder), in every form
    oslo.config and oslo.messaging take (several hosts, with or without
    credentials each; IPv6 hosts with a zone; percent-encoded names) - and the
    value of a C(name:value) pair whose name looks secret, such as oslo.cache's
    C(backend_argument = password:PASSWORD).
  - Used by the R(multiattach.cloud.cinder_multiattach,ansible_collections.multiattach.cloud.cinder_multiattach_role)
    role; it needs no openstacksdk.
author:
  - multiattach.cloud developers (@multiattach)
options:
  path:
    description:
      - The INI file.
    type: path
    required: true
  settings:
    description:
      - "C({section: {option: value}}). Booleans are written as V(true)/V(false),
        lists joined with commas, dicts as C(key:value) pairs. A value of
        V(null) removes the option. Use C(DEFAULT) for the C([DEFAULT]) section."
    type: dict
    required: true
  create:
    description:
      - Create the file when it does not exist, with O(mode) (V(0640) when not
        given), O(owner) and O(group) set before it appears under its name, so it
        is never readable by others, not even for a moment. Without it a missing
        file is an error.
    type: bool
    default: true
seealso:
  - {name: "oslo.config", link: "https://docs.openstack.org/oslo.config/latest/", description: "how OpenStack services read their INI files"}
  - {module: "community.general.ini_file", description: "a general INI editor that does not read the file as oslo.config does"}
extends_documentation_fragment:
  - ansible.builtin.files
  - multiattach.cloud.attributes
attributes:
  check_mode:
    support: full
    details: Reports what would change without writing, owner and mode changes included.
  diff_mode:
    support: full
    details: Shows the file before and after, secret-looking values masked.
  platform:
    platforms: posix
    details: Edits a file on the managed host.
"""

EXAMPLES = r"""
- name: Configure a Cinder backend and enable it
  multiattach.cloud.ini_settings:
    path: /etc/cinder/cinder.conf
    settings:
      DEFAULT:
        enabled_backends: [lvm-1]
      lvm-1:
        volume_backend_name: lvm-1
        volume_driver: cinder.volume.drivers.lvm.LVMVolumeDriver
        volume_group: cinder-volumes
  notify: Restart cinder-volume

- name: Remove an option
  multiattach.cloud.ini_settings:
    path: /etc/cinder/cinder.conf
    settings:
      DEFAULT:
        debug: null
"""

RETURN = r"""
changes:
  description: One entry per option that changed (or would in check mode).
  returned: always
  type: list
  elements: dict
  sample:
    - section: DEFAULT
      option: enabled_backends
      before: lvm-1
      after: lvm-1,rbd-1
    - section: rbd-1
      option: rbd_secret_uuid
      before: null
      after: '********'
  contains:
    section:
      description: The section.
      type: str
      returned: always
    option:
      description: The option.
      type: str
      returned: always
    before:
      description: The value before; null when the option was not set.
      type: str
      returned: always
    after:
      description: The value after; null when the option was removed.
      type: str
      returned: always
path:
  description: The file.
  returned: always
  type: str
  sample: /etc/cinder/cinder.conf
"""

from ansible.module_utils.common.text.converters import to_native

from ansible_collections.multiattach.cloud.plugins.module_utils.host.files import ModuleFiles
from ansible_collections.multiattach.cloud.plugins.module_utils.host.ini_file import (
    IniSettingsChange,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.module import CollectionModule


class IniSettingsModule(CollectionModule):
    argument_spec = dict(
        path=dict(type="path", required=True),
        settings=dict(type="dict", required=True),
        create=dict(type="bool", default=True),
    )
    module_kwargs = dict(add_file_common_args=True)
    # Passwords of secret-looking options and inside URLs are masked everywhere.
    masked_options = ("settings",)
    job = IniSettingsChange

    def context(self):
        return ModuleFiles(self.ansible)

    def describe(self, error):
        if isinstance(error, OSError):
            return "cannot write %s: %s" % (self.params["path"], to_native(error))
        return None


def main():
    IniSettingsModule()()


if __name__ == "__main__":
    main()
