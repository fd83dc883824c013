# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Keystone identity a cluster's nodes fence each other with (module fencing_identity).

One user per cluster, with one role on the project that holds the cluster's servers and no
other role anywhere: what the fence agent needs (read a server, stop or hard-reboot it) and,
within Keystone's roles, nothing more. Its password is its only way in: an application
credential, a credential (EC2 and others) or a trust that it holds or gave is revoked (each
would outlive a new password). Its password is checked by authenticating with it, so a run
with the same password changes nothing and is never shown.
"""

from __future__ import annotations

from ansible_collections.multiattach.cloud.plugins.module_utils.change import Change, Plan, Step
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.sdk import (
    ksa_exceptions,
    ksa_identity,
    ksa_session,
    sdk_exceptions,
)


def _found(finder, what, name, **query):
    found = finder(name, ignore_missing=True, **query)
    if found is None:
        raise ModuleFailure(
            "%s %r does not exist: check the name (these credentials must see it)" % (what, name)
        )
    return found


def password_works(conn, user, project, password):
    """Whether USER can get a token for PROJECT with PASSWORD (from Keystone itself)."""
    auth = ksa_identity.Password(
        auth_url=conn.config.auth["auth_url"],
        user_id=user.id,
        password=password,
        project_id=project.id,
    )
    session = ksa_session.Session(auth=auth, verify=conn.session.verify)
    try:
        session.get_token()
    except ksa_exceptions.Unauthorized:
        return False
    return True


# Keystone marks an assignment inherited to the projects below its domain or project so.
INHERITED = "OS-INHERIT:inherited_to"
INHERITED_KIND = " (inherited)"


def assignments_of(conn, user):
    """The user's role assignments as [scope kind, scope ID, role ID]: kind project, domain
    or system (scope ID "all"), with INHERITED_KIND appended for one inherited below it."""
    found = []
    for assignment in conn.identity.role_assignments(user_id=user.id):
        scope = assignment.scope or {}
        role_id = (assignment.role or {}).get("id")
        suffix = INHERITED_KIND if INHERITED in scope else ""
        for kind, target in scope.items():
            if kind == INHERITED:
                continue
            scope_id = "all" if kind == "system" else (target or {}).get("id")
            found.append([kind + suffix, scope_id, role_id])
    return sorted(found)


def other_ways_in(conn, user):
    """[(label, revoke)] for each application credential and credential (EC2 and others) the
    fencing user holds and each trust it gave: each lets whoever made it act as the user without
    its password, and outlives a new one. The role makes none; a root on a member that knew the
    password could have. Keystone refusing the list fails the run (never read as "none")."""
    try:
        return _other_ways_in(conn.identity, user)
    except sdk_exceptions.ForbiddenException as error:
        raise ModuleFailure(
            "Keystone refused to list what user %s made with its password (%s): without that list a "
            "new password may leave a way in. The module's cloud must sign in with a password as an "
            "admin (a token from an application credential may not list or revoke trusts and "
            "credentials)" % (user.name, error.details or error.message)
        )


def _other_ways_in(identity, user):
    found = [
        (
            "application credential %s" % held.id,
            lambda held=held: identity.delete_application_credential(user, held),
        )
        for held in identity.application_credentials(user)
    ]
    found += [
        (
            "%s credential %s" % (held.type or "a", held.id),
            lambda held=held: identity.delete_credential(held),
        )
        for held in identity.credentials(user_id=user.id)
    ]
    found += [
        ("trust %s" % held.id, lambda held=held: identity.delete_trust(held))
        for held in identity.trusts(trustor_user_id=user.id)
    ]
    return sorted(found, key=lambda way: way[0])


# Keystone's default roles that give more than a project member may do: every node holds the
# fencing password, so root on any one of them would hold these rights too.
TOO_STRONG = ("admin", "manager", "service")


def refuse_a_role_too_strong(identity, role):
    """Fail when ROLE is one of TOO_STRONG or implies one (Keystone's implied roles, followed
    to their end): the fencing user must be able to fence and no more."""
    seen, todo = {}, [role]
    while todo:
        current = todo.pop()
        if current.id in seen:
            continue
        seen[current.id] = current
        if current.name.lower() in TOO_STRONG:
            how = "is" if current.id == role.id else "implies %r, which is" % current.name
            raise ModuleFailure(
                "role %r %s stronger than fencing needs: every cluster node holds the fencing "
                "user's password, so root on any of them would hold it too. Use member (the "
                "default), or a role your Nova policy grants server show, stop, start and "
                "reboot alone" % (role.name, how)
            )
        response = identity.get("/roles/%s/implies" % current.id)
        if response.status_code == 404:
            continue
        sdk_exceptions.raise_from_response(response)
        for implied in response.json().get("role_inference", {}).get("implies", []):
            todo.append(identity.get_role(implied["id"]))


# The user's description names the cluster it fences (module option cluster: the shared
# volume's ID), so a second cluster that names the same user is refused, not given it.
FENCES = "multiattach.cloud: fences the servers of cluster "


def describe(cluster):
    return FENCES + cluster if cluster else "multiattach.cloud: fences the cluster's servers"


def cluster_of(user):
    """The cluster USER's description says it fences, or None (a user made without one)."""
    description = (getattr(user, "description", None) or "") if user is not None else ""
    return description[len(FENCES) :].strip() or None if description.startswith(FENCES) else None


def _raise_unless_removed(response):
    """Raise Keystone's error for a DELETE that neither removed the assignment nor found it gone."""
    if response.status_code != 404:
        sdk_exceptions.raise_from_response(response)


class FencingIdentityChange(Change):
    """The fencing user toward the module's options: one role on the project, no other."""

    def __init__(self, conn, *, name, password, project, domain, role, state, cluster=None):
        self.conn = conn
        self.cluster = cluster
        self.name = name
        self.password = password
        self.project = project
        self.domain = domain
        self.role = role
        self.state = state

    def read(self):
        domain = _found(self.conn.identity.find_domain, "domain", self.domain)
        user = self.conn.identity.find_user(self.name, ignore_missing=True, domain_id=domain.id)
        return domain, user

    def plan(self, current):
        domain, user = current
        if self.state == "absent":
            return self.plan_absent(user)
        identity = self.conn.identity
        project = _found(identity.find_project, "project", self.project, domain_id=domain.id)
        role = _found(identity.find_role, "role", self.role)
        refuse_a_role_too_strong(identity, role)
        fences = cluster_of(user)
        if user is not None and fences and fences != self.cluster:
            raise ModuleFailure(
                "user %s already fences cluster %s, not %s: two clusters must never share a "
                "fencing identity (a converge of one would give it a new password and the other's "
                "fencing would fail). Give this cluster a user of its own "
                "(clustered_fs_fencing_user, or another clustered_fs_cluster_name); if cluster "
                "%s is gone for good, delete user %s first"
                % (
                    self.name,
                    fences,
                    self.cluster
                    or "this one (named by its device alone: give clustered_fs_volume_id)",
                    fences,
                    self.name,
                )
            )
        wanted = [["project", project.id, role.id]]
        before = assignments_of(self.conn, user) if user else None
        ways_in = other_ways_in(self.conn, user) if user else []
        password_differs = user is not None and not password_works(
            self.conn, user, project, self.password
        )
        described = dict(
            user_id=user.id if user else None,
            name=self.name,
            domain_id=domain.id,
            project_id=project.id,
            project_name=project.name,
            role=role.name,
        )
        steps = []
        if user is not None and self.cluster and not fences:
            steps.append(
                Step(
                    "record that %s fences cluster %s" % (self.name, self.cluster),
                    lambda: identity.update_user(user, description=describe(self.cluster)),
                )
            )
        if user is None:
            steps.append(
                Step(
                    "create user %s with its project role" % self.name,
                    lambda: dict(
                        identity=dict(described, user_id=self.create(domain, project, role))
                    ),
                )
            )
        elif password_differs or user.default_project_id != project.id:
            steps.append(
                Step(
                    "set the password and the default project of %s" % self.name,
                    lambda: identity.update_user(
                        user, password=self.password, default_project_id=project.id
                    ),
                )
            )
        for kind, scope_id, role_id in [a for a in before or [] if a not in wanted]:
            steps.append(
                Step(
                    "take role %s on %s %s" % (role_id, kind, scope_id),
                    lambda kind=kind, scope_id=scope_id, role_id=role_id: self.unassign(
                        user, kind, scope_id, role_id
                    ),
                )
            )
        steps += [Step("revoke the %s" % label, revoke) for label, revoke in ways_in]
        if user is not None:
            steps += [
                Step(
                    "give role %s on project %s" % (role_id, scope_id),
                    lambda scope_id=scope_id, role_id=role_id: identity.assign_project_role_to_user(
                        scope_id, user, role_id
                    ),
                )
                for unused, scope_id, role_id in wanted
                if [unused, scope_id, role_id] not in before
            ]
        return Plan(
            {
                "user": self.name if before is not None else None,
                "assignments": before or [],
                "password": None
                if before is None
                else ("another" if password_differs else "as given"),
                "other_ways_in": [label for label, unused in ways_in],
            },
            {"user": self.name, "assignments": wanted, "password": "as given", "other_ways_in": []},
            steps,
            result=dict(identity=described),
        )

    def create(self, domain, project, role):
        """The new user's ID."""
        identity = self.conn.identity
        user = identity.create_user(
            name=self.name,
            domain_id=domain.id,
            password=self.password,
            default_project_id=project.id,
            enabled=True,
            description=describe(self.cluster),
        )
        identity.assign_project_role_to_user(project.id, user, role.id)
        return user.id

    def unassign(self, user, kind, scope_id, role_id):
        identity = self.conn.identity
        if kind.endswith(INHERITED_KIND):
            _raise_unless_removed(
                identity.delete(
                    "/OS-INHERIT/%ss/%s/users/%s/roles/%s/inherited_to_projects"
                    % (kind[: -len(INHERITED_KIND)], scope_id, user.id, role_id)
                )
            )
        elif kind == "system":
            _raise_unless_removed(identity.delete("/system/users/%s/roles/%s" % (user.id, role_id)))
        elif kind == "project":
            identity.unassign_project_role_from_user(scope_id, user, role_id)
        else:
            identity.unassign_domain_role_from_user(scope_id, user, role_id)

    def plan_absent(self, user):
        steps = [Step("delete user %s" % self.name, lambda: self.delete(user))] if user else []
        return Plan(
            {"user": self.name if user else None}, {"user": None}, steps, result=dict(identity=None)
        )

    def delete(self, user):
        try:
            self.conn.identity.delete_user(user)
        except sdk_exceptions.NotFoundException:
            pass
