# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The connection options and the other pieces of the OpenStack modules' docs, and the fragment
each kind of OpenStack module lists: INFO (reads only), CHANGES, CHANGES_WITH_WAIT (changes,
and waits for them)."""

from __future__ import annotations

from ansible_collections.multiattach.cloud.plugins.doc_fragments.attributes import (
    ModuleDocFragment as Attributes,
)
from ansible_collections.multiattach.cloud.plugins.doc_fragments.attributes import joined


class ModuleDocFragment:
    # The connection options of openstack.cloud, with the same names, aliases and meaning,
    # so that module_defaults and clouds.yaml habits carry over.
    DOCUMENTATION = r"""
options:
  cloud:
    description:
      - Named cloud from C(clouds.yaml), or a dict of connection settings
        (as openstacksdk's C(openstack.connect()) takes them) to use instead
        of C(clouds.yaml).
      - When a dict is given, the other connection options must not be set.
      - Without O(cloud) and O(auth), openstacksdk reads the C(OS_*)
        environment variables.
    type: raw
  auth:
    description:
      - Authentication settings (C(auth_url), C(username), C(password),
        C(project_name), C(user_domain_name), C(project_domain_name) and so on)
        that override or replace those of O(cloud).
      - Never logged.
    type: dict
  auth_type:
    description:
      - Keystone authentication plugin, C(password) when not set.
    type: str
  region_name:
    description:
      - Region of the cloud to use.
    type: str
  interface:
    description:
      - Which endpoint of the service catalog to use.
    type: str
    choices: [admin, internal, public]
    default: public
    aliases: [endpoint_type]
  validate_certs:
    description:
      - Whether to verify TLS certificates. openstacksdk's default when not set
        (verify).
    type: bool
    aliases: [verify]
  ca_cert:
    description:
      - Path to a CA bundle to verify the endpoints' TLS certificates.
    type: str
    aliases: [cacert]
  client_cert:
    description:
      - Path to a client TLS certificate.
    type: str
    aliases: [cert]
  client_key:
    description:
      - Path to the key of O(client_cert).
    type: str
    aliases: [key]
  api_timeout:
    description:
      - Timeout in seconds of one API request.
    type: int
requirements:
  - python >= 3.9
  - openstacksdk >= 4.14.0 (tested with 4.14.0 and 4.22.0)
notes:
  - The connection is made by openstacksdk (C(openstack.connect)), which also
    reads C(clouds.yaml) and the C(OS_*) environment variables.
  - C(module_defaults) can set these options once for every module of this
    collection with the group C(group/multiattach.cloud.openstack).
attributes:
  platform:
    platforms: all
    details: Talks to the OpenStack APIs from wherever the module runs.
"""

    # What a module that changes resources supports.
    CHANGE_SUPPORT = r"""
options: {}
attributes:
  check_mode:
    support: full
    details: Reports what would change and changes nothing.
  diff_mode:
    support: full
"""

    # What a module that only reads supports.
    INFO_SUPPORT = r"""
options: {}
attributes:
  check_mode:
    support: full
    details: Reads only; check mode makes the same reads.
  diff_mode:
    support: none
    details: Nothing is changed, so there is no diff.
"""

    WAIT = r"""
options:
  wait:
    description:
      - Wait until the change has taken effect in the cloud before returning.
    type: bool
    default: true
  timeout:
    description:
      - How many seconds to wait when O(wait=true). The module fails with a
        message naming what it waited for when the time is up.
    type: int
    default: 180
"""


ModuleDocFragment.INFO = joined(
    Attributes.DOCUMENTATION, ModuleDocFragment.DOCUMENTATION, ModuleDocFragment.INFO_SUPPORT
)
ModuleDocFragment.CHANGES = joined(
    Attributes.DOCUMENTATION, ModuleDocFragment.DOCUMENTATION, ModuleDocFragment.CHANGE_SUPPORT
)
ModuleDocFragment.CHANGES_WITH_WAIT = joined(
    Attributes.DOCUMENTATION,
    ModuleDocFragment.DOCUMENTATION,
    ModuleDocFragment.CHANGE_SUPPORT,
    ModuleDocFragment.WAIT,
)
