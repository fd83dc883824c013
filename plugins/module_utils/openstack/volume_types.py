# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Multiattach volume types: the specs they must carry and how to find them."""

from __future__ import annotations

from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.sdk import sdk_exceptions
from ansible_collections.multiattach.cloud.plugins.module_utils.compare import changed_fields, dict_changes, diff, set_changes
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.module import ResourceChange


MULTIATTACH_SPEC = "<is> True"
BACKEND_SPEC_KEY = "volume_backend_name"


def desired_extra_specs(extra_specs, backend):
    """The type's extra specs: the given ones, the backend pin, and multiattach always."""
    specs = {str(key): str(value) for key, value in (extra_specs or {}).items()}
    if "multiattach" in specs and specs["multiattach"] != MULTIATTACH_SPEC:
        raise ModuleFailure(
            "extra_specs sets multiattach to %r, but a type of this collection always has "
            "multiattach: %r. Leave multiattach out of extra_specs (it is set for you)"
            % (specs["multiattach"], MULTIATTACH_SPEC))
    if backend is not None:
        if specs.get(BACKEND_SPEC_KEY, backend) != backend:
            raise ModuleFailure(
                "backend is %r but extra_specs sets %s to %r: give the backend once, in backend"
                % (backend, BACKEND_SPEC_KEY, specs[BACKEND_SPEC_KEY]))
        specs[BACKEND_SPEC_KEY] = backend
    specs["multiattach"] = MULTIATTACH_SPEC
    return specs


def is_multiattach_type(volume_type):
    return (volume_type.extra_specs or {}).get("multiattach") == MULTIATTACH_SPEC


def find_type(conn, name_or_id):
    """The volume type with this name or ID, private types included (admin sees all)."""
    # is_public=None lists public and private types alike for an admin.
    for volume_type in conn.block_storage.types(is_public="None"):
        if name_or_id in (volume_type.id, volume_type.name):
            return volume_type
    return None


def encryption_of(conn, volume_type):
    """The type's encryption spec, or None."""
    encryption = conn.block_storage.get_type_encryption(volume_type)
    if encryption is None or not getattr(encryption, "encryption_id", None):
        return None
    return encryption


def readable_encryption_of(conn, volume_type):
    """The type's encryption spec, or None, also when these credentials may not read it
    (Cinder then refuses an encrypted multiattach volume itself)."""
    try:
        return encryption_of(conn, volume_type)
    except sdk_exceptions.ForbiddenException:
        return None


def describe_type(volume_type, projects=None):
    return {
        "id": volume_type.id,
        "name": volume_type.name,
        "description": volume_type.description,
        "is_public": bool(volume_type.is_public),
        "extra_specs": dict(volume_type.extra_specs or {}),
        "projects": sorted(projects) if projects is not None else None,
    }


def update_type_fields(conn, volume_type, fields):
    """Change the type's name, description or is_public in one PUT.

    Cinder's update schema takes is_public under that name; openstacksdk would
    send it as os-volume-type-access:is_public, the create-time name, which the
    update schema refuses with HTTP 400 (additional properties).
    """
    response = conn.block_storage.put("/types/%s" % volume_type.id,
                                      json={"volume_type": dict(fields)})
    sdk_exceptions.raise_from_response(response)


class VolumeTypeChange(ResourceChange):
    """One volume type toward the volume_type module's options: find, compare, act."""

    def result(self):
        """Carry the options out (not in check mode); the module's result."""
        current = find_type(self.conn, self.params["name"])
        if self.params["state"] == "absent":
            return self.absent(current)
        specs = desired_extra_specs(self.params["extra_specs"], self.params["backend"])
        if self.params["projects"] is not None and self.params["is_public"] is not False:
            raise ModuleFailure("projects gives the access list of a private type: set "
                                "is_public: false as well, or leave projects out")
        projects = self.project_ids(self.params["projects"])
        if current is None:
            return self.create(specs, projects)
        return self.update(current, specs, projects)

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
        return dict(changed=True, diff=diff(None, after), volume_type=after)

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
        return dict(changed=changed, diff=diff(before, after), volume_type=after)

    def type_access(self, volume_type):
        return sorted(entry["project_id"]
                      for entry in self.conn.block_storage.get_type_access(volume_type))

    def absent(self, current):
        if current is None:
            return dict(changed=False, diff=diff(None, None), volume_type=None)
        users = [v for v in self.conn.block_storage.volumes(all_projects=True)
                 if v.volume_type in (current.name, current.id)]
        if users:
            raise ModuleFailure(
                "volume type %r is still used by %d volume(s): %s. Delete or retype them first"
                % (current.name, len(users),
                   ", ".join(sorted("%s (%s)" % (v.name or "-", v.id) for v in users))))
        if not self.check_mode:
            self.conn.block_storage.delete_type(current)
        return dict(changed=True, diff=diff(describe_type(current), None), volume_type=None)
