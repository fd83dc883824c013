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
  - A missing section is added at the end of the file; a missing option after
    the last option of its section. Repeated lines of one option are merged
    into one.
  - Values of options whose names look secret (containing C(password),
    C(secret), C(token) or ending in C(_key)) are masked in the result and the diff.
  - Used by the M(multiattach.cloud.cinder_multiattach) role; it needs no
    openstacksdk.
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
      - "C({section: {option: value}}). Booleans are written as C(true)/C(false),
        lists joined with commas, dicts as C(key:value) pairs. A value of
        C(null) removes the option. Use C(DEFAULT) for the C([DEFAULT]) section."
    type: dict
    required: true
  create:
    description:
      - Create the file (mode C(0640)) when it does not exist. Without it a
        missing file is an error.
    type: bool
    default: true
extends_documentation_fragment:
  - ansible.builtin.files
attributes:
  check_mode:
    support: full
    description: Reports what would change without writing.
  diff_mode:
    support: full
    description: Shows the file before and after, secret-looking values masked.
  platform:
    support: full
    platforms: posix
    description: Edits a file on the managed host.
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
"""

import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_native

from ansible_collections.multiattach.cloud.plugins.module_utils.ini_file import (
    SECRET_OPTION, IniError, apply_settings, masked_text, render_value)


def read_text(module, path):
    if not os.path.exists(path):
        if not module.params["create"]:
            module.fail_json(msg="%s does not exist; create it first or set create=true" % path)
        return None
    if not os.path.isfile(path):
        module.fail_json(msg="%s is not a regular file; point path at the INI file" % path)
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as error:
        module.fail_json(msg="cannot read %s: %s" % (path, to_native(error)))
    return None


def write_text(module, path, text):
    directory = os.path.dirname(path) or "."
    if not os.path.isdir(directory):
        module.fail_json(msg="the directory of %s does not exist; create it first" % path)
    temporary = os.path.join(module.tmpdir, "ini_settings.tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
    module.atomic_move(temporary, path, unsafe_writes=module.params["unsafe_writes"])


def main():
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type="path", required=True),
            settings=dict(type="dict", required=True),
            create=dict(type="bool", default=True),
        ),
        add_file_common_args=True,
        supports_check_mode=True,
    )
    path = module.params["path"]
    for section, options in module.params["settings"].items():
        if options is not None and not isinstance(options, dict):
            module.fail_json(msg="settings[%r] must be a dict of option: value, got %r"
                                 % (section, options))
    for options in module.params["settings"].values():
        for option, value in (options or {}).items():
            if value is not None and SECRET_OPTION.search(str(option)):
                # Masks the value everywhere in the result, module arguments included.
                module.no_log_values.add(render_value(value))
    before = read_text(module, path)
    try:
        after, changes = apply_settings(before or "", module.params["settings"])
    except IniError as error:
        module.fail_json(msg=str(error))

    changed = bool(changes) or before is None
    if changed and not module.check_mode:
        created = before is None
        write_text(module, path, after)
        if created and module.params["mode"] is None:
            os.chmod(path, 0o640)
    file_args = module.load_file_common_arguments(module.params)
    if os.path.exists(path) and not module.check_mode:
        changed = module.set_fs_attributes_if_different(file_args, changed)

    result = dict(changed=changed, changes=changes, path=path)
    if module._diff:
        result["diff"] = dict(before=masked_text(before or ""), after=masked_text(after),
                              before_header=path, after_header=path)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
