# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Versions as tuples, and as people read them."""

from __future__ import annotations


def version_text(version):
    """(3, 10, 0) as 3.10.0; none for no version."""
    return ".".join(str(part) for part in version) if version else "none"
