# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The attributes every module of the collection documents. Their support and platforms
come from the fragments multiattach.cloud.openstack (CHANGES, INFO) and
multiattach.cloud.libvirt, or from the module, which adds its details."""

from __future__ import annotations


class ModuleDocFragment:
    DOCUMENTATION = r"""
options: {}
attributes:
  check_mode:
    description: Can run in check mode and report what would change without changing it.
  diff_mode:
    description: With C(--diff), returns what changed (or would change), before and after.
  platform:
    description: Where the module runs.
    support: full
"""
