# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Keystone identity a cluster's nodes fence each other with (module fencing_identity).

One user per cluster, with one role on the project that holds the cluster's servers and no
other role anywhere: what the fence agent needs (read a server, stop or hard-reboot it) and,
within Keystone's roles, nothing more. Its password is checked by authenticating with it, so
a run with the same password changes nothing and is never shown.
"""

from __future__ import annotations

from ansible_collections.multiattach.cloud.plugins.module_utils.compare import diff
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.module import ResourceChange
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.sdk import ksa_exceptions, ksa_identity, ksa_session
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.sdk import sdk_exceptions


def _found(finder, what, name, **query):
    found = finder(name, ignore_missing=True, **query)
    if found is None:
        raise ModuleFailure("%s %r does not exist: check the name (these credentials must see it)" % (what, name))
    return found


def password_works(conn, user, project, password):
    """Whether USER can get a token for PROJECT with PASSWORD (from Keystone itself)."""
    auth = ksa_identity.Password(auth_url=conn.config.auth["auth_url"], user_id=user.id, password=password,
                                 project_id=project.id)
    session = ksa_session.Session(auth=auth, verify=conn.session.verify)
    try:
        session.get_token()
    except ksa_exceptions.Unauthorized:
        return False
    return True


def assignments_of(conn, user):
    """The user's role assignments as (scope kind, scope ID, role ID)."""
    found = []
    for assignment in conn.identity.role_assignments(user_id=user.id):
        for kind, scope in (assignment.scope or {}).items():
            found.append([kind, scope.get("id"), (assignment.role or {}).get("id")])
    return sorted(found)


class FencingIdentityChange(ResourceChange):
    """The fencing user toward the module's options: find, compare, act."""

    def result(self):
        params = self.params
        domain = _found(self.conn.identity.find_domain, "domain", params["domain"])
        user = self.conn.identity.find_user(params["name"], ignore_missing=True, domain_id=domain.id)
        if params["state"] == "absent":
            return self._absent(user)
        project = _found(self.conn.identity.find_project, "project", params["project"], domain_id=domain.id)
        role = _found(self.conn.identity.find_role, "role", params["role"])
        wanted = [["project", project.id, role.id]]
        before = assignments_of(self.conn, user) if user else None
        steps = []
        if user is None:
            steps.append("create")
        elif not password_works(self.conn, user, project, params["password"]):
            steps.append("password")
        if user is not None and user.default_project_id != project.id:
            steps.append("default project")
        extra = [a for a in before or [] if a not in wanted]
        missing = [a for a in wanted if a not in (before or [])]
        if not self.check_mode:
            user = self._apply(user, domain, project, role, steps, extra, missing)
        changed = bool(steps or extra or missing)
        return dict(
            changed=changed,
            identity=dict(user_id=user.id if user else None, name=params["name"], domain_id=domain.id,
                          project_id=project.id, project_name=project.name, role=role.name),
            diff=diff({"user": params["name"] if before is not None else None, "assignments": before or [],
                       "password": None if before is None else ("another" if "password" in steps else "as given")},
                      {"user": params["name"], "assignments": wanted, "password": "as given"}))

    def _apply(self, user, domain, project, role, steps, extra, missing):
        identity = self.conn.identity
        if "create" in steps:
            user = identity.create_user(name=self.params["name"], domain_id=domain.id, password=self.params["password"],
                                        default_project_id=project.id, enabled=True,
                                        description="multiattach.cloud: fences the cluster's servers")
            missing = [["project", project.id, role.id]]
        elif "password" in steps or "default project" in steps:
            user = identity.update_user(user, password=self.params["password"], default_project_id=project.id)
        for kind, scope_id, role_id in extra:
            if kind == "project":
                identity.unassign_project_role_from_user(scope_id, user, role_id)
            else:
                identity.unassign_domain_role_from_user(scope_id, user, role_id)
        for unused, scope_id, role_id in missing:
            identity.assign_project_role_to_user(scope_id, user, role_id)
        return user

    def _absent(self, user):
        if user is not None and not self.check_mode:
            try:
                self.conn.identity.delete_user(user)
            except sdk_exceptions.NotFoundException:
                pass
        return dict(changed=user is not None, identity=None,
                    diff=diff({"user": self.params["name"] if user else None}, {"user": None}))
