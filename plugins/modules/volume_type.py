#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: volume_type
short_description: Create, update or delete a Cinder multiattach volume type
version_added: 0.1.0
description:
  - Manages a Cinder volume type whose volumes several servers may attach at
    once. The extra spec C(multiattach) is always C(<is> True); other extra
    specs are merged with it.
  - Refuses an extra spec that sets C(multiattach) to anything else, and an
    existing type with an encryption spec (Cinder cannot multiattach encrypted
    volumes).
  - "The Cinder policy rules it needs (admin by default):
    C(volume_extension:type_create), C(volume_extension:type_update) and
    C(volume_extension:type_delete) for the type itself;
    C(volume_extension:types_extra_specs:create), C(:update) and C(:delete)
    for its extra specs; C(volume_extension:volume_type_access:addProjectAccess)
    and C(:removeProjectAccess) for the access list of a private type.
    (They replace the deprecated C(volume_extension:types_manage).)
    Creating volumes of the type needs C(volume:multiattach)."
author:
  - multiattach.cloud developers (@multiattach)
options:
  name:
    description: Name of the volume type.
    type: str
    required: true
  description:
    description: Description of the type. Left as it is when not given.
    type: str
  backend:
    description:
      - Pin the type to one Cinder backend by setting the extra spec
        C(volume_backend_name). The backend must report the C(multiattach)
        capability, or volumes of the type go to V(error).
    type: str
  extra_specs:
    description:
      - Extra specs of the type, merged with C(multiattach=<is> True).
      - Values are compared as strings.
    type: dict
    default: {}
  purge_extra_specs:
    description:
      - Remove extra specs of an existing type that neither O(extra_specs) nor
        O(backend) name. Without it, specs set elsewhere are left alone.
    type: bool
    default: false
  is_public:
    description:
      - Whether every project may use the type. V(true) when a type is created
        without it; an existing type keeps its setting when not given.
    type: bool
  projects:
    description:
      - Projects (names or IDs) that may use a private type (O(is_public=false)).
        The access list is converged exactly, so projects not named lose access.
      - Not allowed with O(is_public=true).
    type: list
    elements: str
  state:
    description:
      - V(absent) deletes the type; it fails with the names of the volumes that
        still use it.
    type: str
    choices: [present, absent]
    default: present
seealso:
  - {module: "multiattach.cloud.volume", description: "a volume of this type"}
  - {module: "multiattach.cloud.preflight", description: "whether a backend reports the multiattach capability"}
  - {name: "Cinder", link: "https://docs.openstack.org/cinder/latest/admin/volume-multiattach.html", description: "volume multi-attach, enable and use"}
  - {name: "Cinder block storage API v3", link: "https://docs.openstack.org/api-ref/block-storage/v3/", description: "its reference"}
extends_documentation_fragment:
  - multiattach.cloud.openstack.CHANGES
attributes:
  diff_mode:
    details: Shows the type before and after (name, description, is_public, extra_specs, projects).
"""

EXAMPLES = r"""
- name: Create a multiattach volume type pinned to one backend
  multiattach.cloud.volume_type:
    cloud: mycloud-admin
    name: multiattach
    description: Volumes that several servers can attach at once
    backend: ceph-ssd

- name: A private multiattach type for two projects
  multiattach.cloud.volume_type:
    cloud: mycloud-admin
    name: shared-private
    is_public: false
    projects: [cluster-a, cluster-b]

- name: Delete the type (fails while volumes use it)
  multiattach.cloud.volume_type:
    cloud: mycloud-admin
    name: shared-private
    state: absent
"""

RETURN = r"""
volume_type:
  description: The type as it is (or, in check mode, would be) after the task; null when absent.
  returned: always
  type: dict
  sample:
    id: 3c0f2a9e-5d4b-4e1a-8f7c-6b5a4d3c2e1f
    name: multiattach-rbd-1
    description: Multiattach volumes on Cinder backend rbd-1
    is_public: true
    extra_specs:
      multiattach: <is> True
      volume_backend_name: rbd-1
    projects: null
  contains:
    id:
      description: "Type ID; null for a type that check mode would create."
      type: str
      returned: when present
    name:
      description: "Type name."
      type: str
      returned: when present
    description:
      description: "Type description."
      type: str
      returned: when present
    is_public:
      description: "Whether every project may use the type."
      type: bool
      returned: when present
    extra_specs:
      description: "The type's extra specs."
      type: dict
      sample: {"multiattach": "<is> True", "volume_backend_name": "rbd-1"}
      returned: when present
    projects:
      description: "Project IDs with access to a private type; null for a public type."
      type: list
      elements: str
      returned: when present
"""

from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.module import (
    OpenStackModule,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volume_type_change import (
    VolumeTypeChange,
)


class VolumeTypeModule(OpenStackModule):
    argument_spec = dict(
        name=dict(type="str", required=True),
        description=dict(type="str"),
        backend=dict(type="str"),
        extra_specs=dict(type="dict", default={}),
        purge_extra_specs=dict(type="bool", default=False),
        is_public=dict(type="bool"),
        projects=dict(type="list", elements="str"),
        state=dict(type="str", default="present", choices=["present", "absent"]),
    )
    job = VolumeTypeChange


def main():
    VolumeTypeModule()()


if __name__ == "__main__":
    main()
