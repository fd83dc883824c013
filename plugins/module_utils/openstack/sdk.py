# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""openstacksdk and keystoneauth, imported once for the OpenStack side.

Without them every name here is None and SDK_IMPORT_ERROR holds the traceback:
OpenStackModule.prepare() fails naming the package before any of them is used.
"""

from __future__ import annotations

import traceback

try:
    from importlib.metadata import version as _distribution_version

    from keystoneauth1 import exceptions as ksa_exceptions  # pylint: disable=unused-import
    from keystoneauth1 import session as ksa_session  # pylint: disable=unused-import
    from keystoneauth1.identity import v3 as ksa_identity  # pylint: disable=unused-import

    import openstack  # pylint: disable=unused-import
    from openstack import exceptions as sdk_exceptions

    SDK_IMPORT_ERROR = None
except ImportError:
    openstack = None
    ksa_exceptions = ksa_session = ksa_identity = None
    sdk_exceptions = None
    SDK_IMPORT_ERROR = traceback.format_exc()

MIN_SDK_VERSION = (4, 14, 0)


def sdk_version():
    return tuple(
        int(part) for part in _distribution_version("openstacksdk").split(".")[:3] if part.isdigit()
    )
