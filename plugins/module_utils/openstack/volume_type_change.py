# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One multiattach volume type toward the volume_type module's options."""

from __future__ import annotations

from ansible_collections.multiattach.cloud.plugins.module_utils.change import Change, Plan, Step
from ansible_collections.multiattach.cloud.plugins.module_utils.compare import (
    changed_fields,
    dict_changes,
    set_changes,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volume_types import (
    describe_type,
    desired_extra_specs,
    encryption_of,
    find_type,
    update_type_fields,
)


class VolumeTypeChange(Change):
    """Create, update or delete one volume type that always carries multiattach."""

    def __init__(
        self,
        conn,
        *,
        name,
        description,
        backend,
        extra_specs,
        purge_extra_specs,
        is_public,
        projects,
        state,
    ):
        self.conn = conn
        self.name = name
        self.description = description
        self.backend = backend
        self.extra_specs = extra_specs
        self.purge_extra_specs = purge_extra_specs
        self.is_public = is_public
        self.projects = projects
        self.state = state

    def read(self):
        return find_type(self.conn, self.name)

    def plan(self, current):
        if self.state == "absent":
            return self.plan_absent(current)
        specs = desired_extra_specs(self.extra_specs, self.backend)
        if self.projects is not None and self.is_public is not False:
            raise ModuleFailure(
                "projects gives the access list of a private type: set "
                "is_public: false as well, or leave projects out"
            )
        projects = self.project_ids(self.projects)
        if current is None:
            return self.plan_create(specs, projects)
        return self.plan_update(current, specs, projects)

    def project_ids(self, names_or_ids):
        if names_or_ids is None:
            return None
        ids = []
        for name_or_id in names_or_ids:
            project = self.conn.identity.find_project(name_or_id, ignore_missing=True)
            if project is None:
                raise ModuleFailure(
                    "project %r does not exist: check the name or ID in projects" % name_or_id
                )
            ids.append(project.id)
        return sorted(set(ids))

    def plan_create(self, specs, projects):
        is_public = self.is_public is not False
        after = {
            "id": None,
            "name": self.name,
            "description": self.description,
            "is_public": is_public,
            "extra_specs": specs,
            "projects": None if is_public else (projects or []),
        }
        return Plan(
            None,
            after,
            [
                Step(
                    "create volume type %s" % self.name,
                    lambda: self.create(specs, projects, is_public),
                )
            ],
            result=dict(volume_type=after),
        )

    def create(self, specs, projects, is_public):
        storage = self.conn.block_storage
        created = storage.create_type(
            name=self.name, description=self.description, is_public=is_public, extra_specs=specs
        )
        try:
            for project_id in projects or []:
                storage.add_type_access(created, project_id)
        except Exception:
            # No half-made type is left behind.
            storage.delete_type(created, ignore_missing=True)
            raise
        return dict(volume_type=describe_type(created, None if is_public else (projects or [])))

    def plan_update(self, current, specs, projects):
        if encryption_of(self.conn, current) is not None:
            raise ModuleFailure(
                "volume type %r has an encryption spec, and Cinder cannot multiattach encrypted "
                "volumes: use another name for the multiattach type" % current.name
            )
        current_projects = None if current.is_public else self.type_access(current)
        before = describe_type(current, current_projects)
        specs_to_set, specs_to_remove = dict_changes(
            before["extra_specs"], specs, purge=self.purge_extra_specs
        )
        wanted_fields = {"description": self.description, "is_public": self.is_public}
        fields = changed_fields(before, wanted_fields)
        will_be_public = before["is_public"] if self.is_public is None else self.is_public
        projects_to_add, projects_to_remove = [], []
        if not will_be_public and projects is not None:
            projects_to_add, projects_to_remove = set_changes(current_projects or [], projects)

        after = dict(before)
        after.update({name: wanted_fields[name] for name in fields})
        after["extra_specs"] = {
            k: v
            for k, v in dict(before["extra_specs"], **specs_to_set).items()
            if k not in specs_to_remove
        }
        if will_be_public:
            after["projects"] = None
        elif projects is not None:
            after["projects"] = projects
        else:
            after["projects"] = current_projects or []
        storage = self.conn.block_storage
        steps = []
        if fields:
            steps.append(
                Step(
                    "set %s" % ", ".join(fields),
                    lambda: update_type_fields(
                        self.conn, current, {name: wanted_fields[name] for name in fields}
                    ),
                )
            )
        if specs_to_set:
            steps.append(
                Step(
                    "set extra specs %s" % ", ".join(sorted(specs_to_set)),
                    lambda: storage.update_type_extra_specs(current, **specs_to_set),
                )
            )
        steps += [
            Step(
                "remove extra spec %s" % key,
                lambda key=key: storage.delete_type_extra_specs(current, [key]),
            )
            for key in specs_to_remove
        ]
        steps += [
            Step(
                "give project %s access" % project_id,
                lambda project_id=project_id: storage.add_type_access(current, project_id),
            )
            for project_id in projects_to_add
        ]
        steps += [
            Step(
                "take access from project %s" % project_id,
                lambda project_id=project_id: storage.remove_type_access(current, project_id),
            )
            for project_id in projects_to_remove
        ]
        return Plan(before, after, steps, result=dict(volume_type=after))

    def type_access(self, volume_type):
        return sorted(
            entry["project_id"] for entry in self.conn.block_storage.get_type_access(volume_type)
        )

    def plan_absent(self, current):
        if current is None:
            return Plan(None, None, result=dict(volume_type=None))
        users = [
            v
            for v in self.conn.block_storage.volumes(all_projects=True)
            if v.volume_type in (current.name, current.id)
        ]
        if users:
            raise ModuleFailure(
                "volume type %r is still used by %d volume(s): %s. Delete or retype them first"
                % (
                    current.name,
                    len(users),
                    ", ".join(sorted("%s (%s)" % (v.name or "-", v.id) for v in users)),
                )
            )
        return Plan(
            describe_type(current),
            None,
            [
                Step(
                    "delete volume type %s" % current.name,
                    lambda: self.conn.block_storage.delete_type(current),
                )
            ],
            result=dict(volume_type=None),
        )
