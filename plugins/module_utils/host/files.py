# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A file module's writes through AnsibleModule: its temporary directory, atomic moves, and the
owner, group and mode options it takes (add_file_common_args)."""

from __future__ import annotations

import os
import tempfile

from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure

NEW_FILE_MODE = "0640"


class ModuleFiles:
    """Writes files as the module's common file options say; nothing here decides whether."""

    def __init__(self, module):
        self.module = module

    def file_args(self, path):
        return self.module.load_file_common_arguments(self.module.params, path=path)

    def attributes_differ(self, path):
        """Whether PATH's owner, group, mode or SELinux context differ from the options.
        AnsibleModule answers that only as its check mode, which it is made for the question."""
        check_mode = self.module.check_mode
        self.module.check_mode = True
        try:
            return self.module.set_fs_attributes_if_different(self.file_args(path), False)
        finally:
            self.module.check_mode = check_mode

    def set_attributes(self, path):
        self.module.set_fs_attributes_if_different(self.file_args(path), False)

    def replace(self, path, text):
        """Write TEXT over the existing file PATH; it keeps its mode and owner."""
        temporary = os.path.join(self.module.tmpdir, "ini_settings.tmp")
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(text)
        self.module.atomic_move(
            temporary, path, unsafe_writes=self.file_args(path).get("unsafe_writes", False)
        )

    def create(self, path, text):
        """Create PATH holding TEXT with its final mode, owner and group from the start.

        The file is written under a private name (mode 0600) in the same directory,
        given its attributes, then renamed into place: at no moment does PATH exist
        with a wider mode than asked (atomic_move would create it 0644 first).
        """
        directory = os.path.dirname(path) or "."
        if not os.path.isdir(directory):
            raise ModuleFailure("the directory of %s does not exist; create it first" % path)
        descriptor, temporary = tempfile.mkstemp(prefix=".ini_settings.", dir=directory)
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                handle.write(text)
            file_args = self.file_args(temporary)
            if file_args["mode"] is None:
                file_args["mode"] = NEW_FILE_MODE
            self.module.set_fs_attributes_if_different(file_args, True)
            os.rename(temporary, path)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise
