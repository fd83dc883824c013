# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Set options in an oslo.config style INI file, line by line.

Only the lines of the options being set change: comments, blank lines, the
order of sections and every other option stay as they were. configparser is
not used because writing back through it drops comments and reorders.
"""

from __future__ import annotations

import os
import re

from ansible.module_utils.common.text.converters import to_native

from ansible_collections.multiattach.cloud.plugins.module_utils.change import Change, Plan, Step
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.secrets import (
    MASK,
    is_secret_name,
    mask_url_passwords,
    masked_value,
)

SECTION_LINE = re.compile(r"^\s*\[(?P<name>[^\]]+)\]\s*$")
# oslo.config splits an option line at its first "=" or ":".
OPTION_LINE = re.compile(r"^(?P<name>[^\s=:#;\[][^=:]*?)\s*[=:]\s*(?P<value>.*?)\s*$")


class IniError(ModuleFailure):
    """An option or section name that cannot be written safely."""


def render_value(value):
    """The text oslo.config reads back as VALUE (bool, number, list or string)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(render_value(item) for item in value)
    if isinstance(value, dict):
        # oslo.config DictOpt: key:value pairs separated by commas.
        return ",".join("%s:%s" % (key, render_value(item)) for key, item in value.items())
    return str(value)


def validate_name(kind, name):
    text = str(name)
    if not text or text != text.strip() or any(c in text for c in "\n\r[]=#;"):
        raise IniError(
            "%s name %r cannot be written to an INI file: use a name without "
            "leading or trailing spaces, newlines, '[', ']', '=', '#' or ';'" % (kind, text)
        )
    if kind == "option" and ":" in text:
        raise IniError(
            "option name %r cannot be written to an INI file: oslo.config ends a "
            "name at its first ':' (use a name without ':')" % text
        )
    return text


def section_blocks(lines):
    """{section: [(first line index after a header, end index), ...]}: every block under
    each header, in file order ('' is before any header). oslo.config merges the blocks of
    a repeated header."""
    blocks = {}
    current, start = "", 0
    for index, line in enumerate(lines):
        match = SECTION_LINE.match(line)
        if match:
            blocks.setdefault(current, []).append((start, index))
            current, start = match.group("name").strip(), index + 1
    blocks.setdefault(current, []).append((start, len(lines)))
    return blocks


def read_value(text):
    """A value as oslo.config reads it: quotes around the whole value dropped."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def option_lines(lines, blocks, option):
    """[(line index, value as read)] of OPTION in BLOCKS, in file order."""
    found = []
    for start, end in blocks:
        for index in range(start, end):
            match = OPTION_LINE.match(lines[index])
            if match and match.group("name").strip() == option:
                found.append((index, read_value(match.group("value"))))
    return found


def apply_settings(text, settings):
    """Return (new text, changes) with SETTINGS = {section: {option: value or None}}.

    The file is read as oslo.config reads it: "name = value" and "name: value", the
    blocks of a repeated [section] merged, and of an option given more than once the
    last line counts. That line gets the wanted value and the option's other lines go;
    a missing option is added after the last option line of the section's last block, a
    missing section appended at the end. None removes an option.
    """
    lines = text.splitlines()
    changes = []
    for section, options in settings.items():
        section = validate_name("section", section)
        for option, value in (options or {}).items():
            option = validate_name("option", option)
            wanted = None if value is None else render_value(value)
            if wanted is not None and ("\n" in wanted or "\r" in wanted):
                raise IniError(
                    "value of [%s] %s holds a line break; oslo.config options "
                    "are one line" % (section, option)
                )
            blocks = section_blocks(lines)
            if section not in blocks:
                if wanted is None:
                    continue
                if lines and lines[-1].strip():
                    lines.append("")
                lines.extend(["[%s]" % section, "%s = %s" % (option, wanted)])
                changes.append(change(section, option, None, wanted))
                continue
            existing = option_lines(lines, blocks[section], option)
            before = existing[-1][1] if existing else None
            if before == wanted and len(existing) <= 1:
                continue
            kept = existing[-1][0] if existing and wanted is not None else None
            for index, unused_value in reversed(existing):
                if index != kept:
                    del lines[index]
            if kept is not None:
                kept -= sum(1 for index, unused_value in existing if index < kept)
                lines[kept] = "%s = %s" % (option, wanted)
            elif wanted is not None:
                start, end = blocks[section][-1]
                insert_at = end
                while insert_at > start and not lines[insert_at - 1].strip():
                    insert_at -= 1
                lines.insert(insert_at, "%s = %s" % (option, wanted))
            changes.append(change(section, option, before, wanted))
    new_text = "\n".join(lines) + "\n" if lines else ""
    return new_text, changes


def change(section, option, before, after):
    return {
        "section": section,
        "option": option,
        "before": masked_value(option, before),
        "after": masked_value(option, after),
    }


# An option as a diff may show it: "name = value" or "name: value" (oslo.config reads
# both), also commented out ("#password = ...", "; token: ...").
SHOWN_OPTION_LINE = re.compile(
    r"^(?P<lead>\s*(?:[#;]+\s*)?)(?P<name>[^\s=:#;\[][^=:]*?)\s*[=:]\s*(?P<value>.*?)\s*$"
)


def masked_text(text):
    """TEXT as a diff may show it: values of secret-looking options (set or commented
    out, either separator) and passwords inside URLs masked, every other byte as it was."""
    masked = []
    for line in text.splitlines():
        match = SHOWN_OPTION_LINE.match(line)
        if match and match.group("value") and is_secret_name(match.group("name").strip()):
            line = line[: match.start("value")] + MASK + line[match.end("value") :]
        elif match and match.group("value"):
            # a value may be a "secret-name:value" pair or hold a URL with a real password
            line = (
                line[: match.start("value")]
                + masked_value("", match.group("value"))
                + line[match.end("value") :]
            )
        else:  # a comment may hold a URL with a real password
            line = mask_url_passwords(line)
        masked.append(line)
    return "\n".join(masked) + ("\n" if masked else "")


def check_settings(settings):
    for section, options in settings.items():
        if options is not None and not isinstance(options, dict):
            raise IniError(
                "settings[%r] must be a dict of option: value, got %r" % (section, options)
            )


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


class IniSettingsChange(Change):
    """The ini_settings module: set options in an INI file, as oslo.config reads it, created
    when missing and allowed; the text before and after, masked, as the diff."""

    def __init__(self, files, *, path, settings, create):
        check_settings(settings)
        self.files = files
        self.path = path
        self.settings = settings
        self.create = create

    def read(self):
        return read_text(self.path, self.create)

    def plan(self, current):
        after, changes = apply_settings(current or "", self.settings)
        steps = []
        if current is None:
            steps.append(Step("create %s" % self.path, lambda: self.files.create(self.path, after)))
        else:
            if changes:
                steps.append(
                    Step(
                        "write %d option(s) into %s" % (len(changes), self.path),
                        lambda: self.files.replace(self.path, after),
                    )
                )
            if self.files.attributes_differ(self.path):
                steps.append(
                    Step(
                        "set the owner, group or mode of %s" % self.path,
                        lambda: self.files.set_attributes(self.path),
                    )
                )
        return Plan(
            masked_text(current or ""),
            masked_text(after),
            steps,
            result=dict(changes=changes, path=self.path),
            header=self.path,
        )
