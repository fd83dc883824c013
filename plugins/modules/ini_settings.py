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
  - Secrets are masked in the result, the diff and Ansible's output and logs,
    C(-vvv) included. Masked are the whole value of an option whose name looks secret
    (containing C(password), C(secret), C(token), C(passcode) or ending in
    C(_key)), and the password inside any URL-shaped value, such as
    C(transport_url = rabbit://user:PASSWORD@host) or
    C(connection = mysql+pymysql://user:PASSWORD@host/cinder).
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
      - "C({section: {option: value}}). Booleans are written as C(true)/C(false),
        lists joined with commas, dicts as C(key:value) pairs. A value of
        C(null) removes the option. Use C(DEFAULT) for the C([DEFAULT]) section."
    type: dict
    required: true
  create:
    description:
      - Create the file when it does not exist, with I(mode) (C(0640) when not
        given), I(owner) and I(group) set before it appears under its name, so it
        is never readable by others, not even for a moment. Without it a missing
        file is an error.
    type: bool
    default: true
extends_documentation_fragment:
  - ansible.builtin.files
attributes:
  check_mode:
    support: full
    description: Reports what would change without writing, owner and mode changes included.
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
import tempfile

from ansible.module_utils.common.text.converters import to_native

from ansible_collections.multiattach.cloud.plugins.module_utils.ini_file import (
    IniError, apply_settings, masked_text)
from ansible_collections.multiattach.cloud.plugins.module_utils.secrets import SecretMaskingModule

NEW_FILE_MODE = "0640"


def check_settings(settings):
    for section, options in settings.items():
        if options is not None and not isinstance(options, dict):
            raise IniError("settings[%r] must be a dict of option: value, got %r"
                           % (section, options))


def read_text(path, create):
    """The file's text; None when it does not exist and may be created."""
    if not os.path.exists(path):
        if not create:
            raise IniError("%s does not exist; create it first or set create=true" % path)
        return None
    if not os.path.isfile(path):
        raise IniError("%s is not a regular file; point path at the INI file" % path)
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise IniError("cannot read %s: %s" % (path, to_native(error))) from None


def replace_text(module, path, text):
    """Write TEXT over the existing file PATH; it keeps its mode and owner."""
    temporary = os.path.join(module.tmpdir, "ini_settings.tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
    module.atomic_move(temporary, path, unsafe_writes=module.params["unsafe_writes"])


def create_file(module, path, text):
    """Create PATH holding TEXT with its final mode, owner and group from the start.

    The file is written under a private name (mode 0600) in the same directory,
    given its attributes, then renamed into place: at no moment does PATH exist
    with a wider mode than asked (atomic_move would create it 0644 first).
    """
    directory = os.path.dirname(path) or "."
    if not os.path.isdir(directory):
        raise IniError("the directory of %s does not exist; create it first" % path)
    descriptor, temporary = tempfile.mkstemp(prefix=".ini_settings.", dir=directory)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
        file_args = module.load_file_common_arguments(module.params, path=temporary)
        if file_args["mode"] is None:
            file_args["mode"] = NEW_FILE_MODE
        module.set_fs_attributes_if_different(file_args, True)
        os.rename(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def run(module):
    params = module.params
    path = params["path"]
    check_settings(params["settings"])
    before = read_text(path, params["create"])
    after, changes = apply_settings(before or "", params["settings"])
    created = before is None
    changed = bool(changes) or created
    if created:
        if not module.check_mode:
            create_file(module, path, after)
    else:
        if changes and not module.check_mode:
            replace_text(module, path, after)
        # In check mode Ansible reports an owner or mode change without making it.
        changed = module.set_fs_attributes_if_different(
            module.load_file_common_arguments(params), changed)
    result = dict(changed=changed, changes=changes, path=path)
    if module._diff:
        result["diff"] = dict(before=masked_text(before or ""), after=masked_text(after),
                              before_header=path, after_header=path)
    return result


def main():
    module = SecretMaskingModule(
        argument_spec=dict(
            path=dict(type="path", required=True),
            settings=dict(type="dict", required=True),
            create=dict(type="bool", default=True),
        ),
        add_file_common_args=True,
        supports_check_mode=True,
        # Passwords of secret-looking options and inside URLs are masked everywhere.
        masked_options=("settings",),
    )
    try:
        result = run(module)
    except IniError as error:
        module.fail_json(msg=str(error))
    except OSError as error:
        module.fail_json(msg="cannot write %s: %s" % (module.params["path"], to_native(error)))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
