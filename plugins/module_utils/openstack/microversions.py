# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every API microversion the collection asks for, once: as sent, and as compared."""

from __future__ import annotations

# Attaching a volume that is already attached (compute API, Nova Queens).
COMPUTE_MULTIATTACH = "2.60"
# Cinder's attachments API (/attachments with attach_mode, Cinder Queens), Nova's multiattach flow.
BLOCK_STORAGE_ATTACHMENTS = "3.27"
# A deleted server's instance actions (2.21) with their events, which Nova shows the server's
# own project from 2.51: whether its compute host terminated it.
COMPUTE_ACTION_EVENTS = "2.51"


def as_tuple(microversion):
    """ "2.60" as (2, 60), to compare with an endpoint's maximum."""
    return tuple(int(part) for part in microversion.split("."))
