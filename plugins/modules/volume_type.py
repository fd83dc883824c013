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
        capability, or volumes of the type go to C(error).
    type: str
  extra_specs:
    description:
      - Extra specs of the type, merged with C(multiattach=<is> True).
      - Values are compared as strings.
    type: dict
    default: {}
  purge_extra_specs:
    description:
      - Remove extra specs of an existing type that neither I(extra_specs) nor
        I(backend) name. Without it, specs set elsewhere are left alone.
    type: bool
    default: false
  is_public:
    description:
      - Whether every project may use the type. C(true) when a type is created
        without it; an existing type keeps its setting when not given.
    type: bool
  projects:
    description:
      - Projects (names or IDs) that may use a private type (I(is_public=false)).
        The access list is converged exactly, so projects not named lose access.
      - Not allowed with I(is_public=true).
    type: list
    elements: str
  state:
    description:
      - C(absent) deletes the type; it fails with the names of the volumes that
        still use it.
    type: str
    choices: [present, absent]
    default: present
extends_documentation_fragment:
  - multiattach.cloud.openstack
attributes:
  check_mode:
    support: full
    description: Reports what would change and changes nothing.
  diff_mode:
    support: full
    description: Shows the type before and after (name, description, is_public, extra_specs, projects).
  platform:
    support: full
    platforms: all
    description: Talks to the OpenStack APIs from wherever the module runs.
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
      returned: when present
    projects:
      description: "Project IDs with access to a private type; null for a public type."
      type: list
      elements: str
      returned: when present
"""

from ansible_collections.multiattach.cloud.plugins.module_utils.base import MultiattachModule
from ansible_collections.multiattach.cloud.plugins.module_utils.compare import (
    changed_fields, dict_changes, diff, set_changes)
from ansible_collections.multiattach.cloud.plugins.module_utils.errors import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.volume_types import (
    describe_type, desired_extra_specs, encryption_of, find_type, update_type_fields)


class VolumeTypeModule(MultiattachModule):
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
    module_kwargs = dict(supports_check_mode=True)

    def run(self):
        current = find_type(self.conn, self.params["name"])
        if self.params["state"] == "absent":
            self.absent(current)
        specs = desired_extra_specs(self.params["extra_specs"], self.params["backend"])
        if self.params["projects"] is not None and self.params["is_public"] is not False:
            raise ModuleFailure("projects gives the access list of a private type: set "
                                "is_public: false as well, or leave projects out")
        projects = self.project_ids(self.params["projects"])
        if current is None:
            self.create(specs, projects)
        self.update(current, specs, projects)

    def project_ids(self, names_or_ids):
        if names_or_ids is None:
            return None
        ids = []
        for name_or_id in names_or_ids:
            project = self.conn.identity.find_project(name_or_id, ignore_missing=True)
            if project is None:
                raise ModuleFailure("project %r does not exist: check the name or ID in projects"
                                    % name_or_id)
            ids.append(project.id)
        return sorted(set(ids))

    def create(self, specs, projects):
        is_public = self.params["is_public"] is not False
        after = {"id": None, "name": self.params["name"], "description": self.params["description"],
                 "is_public": is_public, "extra_specs": specs,
                 "projects": None if is_public else (projects or [])}
        if not self.check_mode:
            created = self.conn.block_storage.create_type(
                name=self.params["name"], description=self.params["description"],
                is_public=is_public, extra_specs=specs)
            try:
                for project_id in projects or []:
                    self.conn.block_storage.add_type_access(created, project_id)
            except Exception:
                # No half-made type is left behind.
                self.conn.block_storage.delete_type(created, ignore_missing=True)
                raise
            after = describe_type(created, None if is_public else (projects or []))
        self.exit(changed=True, diff=diff(None, after), volume_type=after)

    def update(self, current, specs, projects):
        if encryption_of(self.conn, current) is not None:
            raise ModuleFailure(
                "volume type %r has an encryption spec, and Cinder cannot multiattach encrypted "
                "volumes: use another name for the multiattach type" % current.name)
        current_projects = None if current.is_public else self.type_access(current)
        before = describe_type(current, current_projects)
        specs_to_set, specs_to_remove = dict_changes(
            before["extra_specs"], specs, purge=self.params["purge_extra_specs"])
        fields = changed_fields(before, {"description": self.params["description"],
                                         "is_public": self.params["is_public"]})
        will_be_public = before["is_public"] if self.params["is_public"] is None \
            else self.params["is_public"]
        projects_to_add, projects_to_remove = [], []
        if not will_be_public and projects is not None:
            projects_to_add, projects_to_remove = set_changes(current_projects or [], projects)

        after = dict(before)
        after.update({name: self.params[name] for name in fields})
        after["extra_specs"] = {k: v for k, v in dict(before["extra_specs"], **specs_to_set).items()
                                if k not in specs_to_remove}
        if will_be_public:
            after["projects"] = None
        elif projects is not None:
            after["projects"] = projects
        else:
            after["projects"] = current_projects or []
        changed = bool(fields or specs_to_set or specs_to_remove
                       or projects_to_add or projects_to_remove)
        if changed and not self.check_mode:
            storage = self.conn.block_storage
            if fields:
                update_type_fields(self.conn, current,
                                   {name: self.params[name] for name in fields})
            if specs_to_set:
                storage.update_type_extra_specs(current, **specs_to_set)
            for key in specs_to_remove:
                storage.delete_type_extra_specs(current, [key])
            for project_id in projects_to_add:
                storage.add_type_access(current, project_id)
            for project_id in projects_to_remove:
                storage.remove_type_access(current, project_id)
        self.exit(changed=changed, diff=diff(before, after), volume_type=after)

    def type_access(self, volume_type):
        return sorted(entry["project_id"]
                      for entry in self.conn.block_storage.get_type_access(volume_type))

    def absent(self, current):
        if current is None:
            self.exit(changed=False, diff=diff(None, None), volume_type=None)
        users = [v for v in self.conn.block_storage.volumes(all_projects=True)
                 if v.volume_type in (current.name, current.id)]
        if users:
            raise ModuleFailure(
                "volume type %r is still used by %d volume(s): %s. Delete or retype them first"
                % (current.name, len(users),
                   ", ".join(sorted("%s (%s)" % (v.name or "-", v.id) for v in users))))
        if not self.check_mode:
            self.conn.block_storage.delete_type(current)
        self.exit(changed=True, diff=diff(describe_type(current), None), volume_type=None)


def main():
    VolumeTypeModule()()


if __name__ == "__main__":
    main()
