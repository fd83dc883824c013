# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Set options in an oslo.config style INI file, line by line.

Only the lines of the options being set change: comments, blank lines, the
order of sections and every other option stay as they were. configparser is
not used because writing back through it drops comments and reorders.
"""

from __future__ import annotations

import re

from ansible_collections.multiattach.cloud.plugins.module_utils.secrets import (
    mask_url_passwords, masked_value)

SECTION_LINE = re.compile(r"^\s*\[(?P<name>[^\]]+)\]\s*$")
OPTION_LINE = re.compile(r"^(?P<name>[^\s=#;\[][^=]*?)\s*=\s*(?P<value>.*?)\s*$")


class IniError(ValueError):
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
        raise IniError("%s name %r cannot be written to an INI file: use a name without "
                       "leading or trailing spaces, newlines, '[', ']', '=', '#' or ';'"
                       % (kind, text))
    return text


def split_sections(lines):
    """{section: (first line index after the header, end index)}; '' is before any header."""
    bounds = {}
    current, start = "", 0
    for index, line in enumerate(lines):
        match = SECTION_LINE.match(line)
        if match:
            bounds.setdefault(current, (start, index))
            current, start = match.group("name").strip(), index + 1
    bounds.setdefault(current, (start, len(lines)))
    return bounds


def option_lines(lines, start, end, option):
    found = []
    for index in range(start, end):
        match = OPTION_LINE.match(lines[index])
        if match and match.group("name").strip() == option:
            found.append((index, match.group("value")))
    return found


def apply_settings(text, settings):
    """Return (new text, changes) with SETTINGS = {section: {option: value or None}}.

    None removes an option. A missing section is appended at the end; a missing
    option is added after the last option line of its section.
    """
    lines = text.splitlines()
    changes = []
    for section, options in settings.items():
        section = validate_name("section", section)
        for option, value in (options or {}).items():
            option = validate_name("option", option)
            wanted = None if value is None else render_value(value)
            if wanted is not None and ("\n" in wanted or "\r" in wanted):
                raise IniError("value of [%s] %s holds a line break; oslo.config options "
                               "are one line" % (section, option))
            bounds = split_sections(lines)
            if section not in bounds:
                if wanted is None:
                    continue
                if lines and lines[-1].strip():
                    lines.append("")
                lines.extend(["[%s]" % section, "%s = %s" % (option, wanted)])
                changes.append(change(section, option, None, wanted))
                continue
            start, end = bounds[section]
            existing = option_lines(lines, start, end, option)
            before = existing[0][1] if existing else None
            if before == wanted and len(existing) <= 1:
                continue
            for index, unused_value in reversed(existing[1:]):
                del lines[index]
            if wanted is None:
                if existing:
                    del lines[existing[0][0]]
            elif existing:
                lines[existing[0][0]] = "%s = %s" % (option, wanted)
            else:
                insert_at = end
                while insert_at > start and not lines[insert_at - 1].strip():
                    insert_at -= 1
                lines.insert(insert_at, "%s = %s" % (option, wanted))
            changes.append(change(section, option, before, wanted))
    new_text = "\n".join(lines) + "\n" if lines else ""
    return new_text, changes


def change(section, option, before, after):
    return {"section": section, "option": option,
            "before": masked_value(option, before), "after": masked_value(option, after)}


def masked_text(text):
    """TEXT as a diff may show it: values of secret-looking options and passwords
    inside URLs masked, every other byte as it was."""
    masked = []
    for line in text.splitlines():
        match = OPTION_LINE.match(line)
        if match:
            name = match.group("name").strip()
            shown = masked_value(name, match.group("value"))
            if shown != match.group("value"):
                line = "%s = %s" % (name, shown)
        else:  # a comment may hold an example URL with a real password
            line = mask_url_passwords(line)
        masked.append(line)
    return "\n".join(masked) + ("\n" if masked else "")
