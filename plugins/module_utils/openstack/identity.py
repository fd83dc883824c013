# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Keystone identity a cluster's nodes fence each other with (module fencing_identity).

One user per cluster, with one role on the project that holds the cluster's servers and no
other role anywhere. That role is one of its own (multiattach_fencer by default, made here when
missing), never one of Keystone's default roles nor one that implies another: the policy the
role fencing_policy writes lets it read a server, stop, start or reboot it and read its actions
in Nova, read its project's volumes in Cinder (Nova's hard reboot does, with its token), and
refuses it application credentials, trusts and credentials in Keystone; Nova's, Cinder's and
Glance's defaults give it nothing else. Its password is its only way in: an application
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
    its password, and outlives a new one; and each group it is in, whose roles it holds. The role makes none; a root on a member that knew the
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
    # A group's role assignments are the user's too, and the user's own list does not show them.
    found += [
        (
            "membership of group %s" % group.id,
            lambda group=group: identity.remove_user_from_group(user, group.id),
        )
        for group in identity.user_groups(user)
    ]
    return sorted(found, key=lambda way: way[0])


# Keystone's default roles: each holds a fence's rights already, and far more (every node holds
# the fencing password, so root on any one of them would hold these rights too).
DEFAULT_ROLES = ("admin", "manager", "member", "reader", "service")
OWN_ROLE = "multiattach_fencer"
ROLE_DESCRIPTION = "multiattach.cloud: fences a cluster's servers, nothing else"


def implied_by(identity, role):
    """The names of the roles ROLE implies (Keystone's implied roles), sorted."""
    response = identity.get("/roles/%s/implies" % role.id)
    if response.status_code == 404:
        return []
    sdk_exceptions.raise_from_response(response)
    implies = (response.json().get("role_inference") or {}).get("implies") or []
    return sorted(implied.get("name") or implied.get("id") for implied in implies)


def fencing_role(identity, name):
    """The role NAME, or None when Keystone has none yet; refused when it is one of Keystone's
    default roles or implies another."""
    if name.lower() in DEFAULT_ROLES:
        raise ModuleFailure(
            "role %r is one of Keystone's default roles, which may do far more than fence (delete, "
            "rebuild or snapshot servers, delete or transfer volumes, make application "
            "credentials): every cluster node holds the fencing user's password. Give a role of "
            "its own (default %s) and run the role multiattach.cloud.fencing_policy on the Nova "
            "and Keystone API hosts, which lets it read, stop, start and reboot the project's "
            "servers and nothing else" % (name, OWN_ROLE)
        )
    role = identity.find_role(name, ignore_missing=True)
    if role is not None:
        implied = implied_by(identity, role)
        if implied:
            raise ModuleFailure(
                "role %r implies %s in Keystone: a fencing user holding it holds those too. Give a "
                "role that implies nothing (default %s)" % (name, ", ".join(implied), OWN_ROLE)
            )
    return role


class _NewRole:
    """A role this run makes: its ID once made."""

    def __init__(self, name):
        self.name = name
        self.id = None

    def create(self, identity):
        self.id = identity.create_role(name=self.name, description=ROLE_DESCRIPTION).id


# The user's description names the cluster it fences (module option cluster: the shared
# volume's ID), so a second cluster that names the same user is refused, not given it; and the
# servers that hold its password (option holders), so that a later run can tell that one of them
# is gone, whichever way it went, and renew the password.
FENCES = "multiattach.cloud: fences the servers of cluster "
UNNAMED = "multiattach.cloud: fences the cluster's servers"
HELD = "; password held by servers "


# Keystone's user options for an account no person signs in with (its security_compliance
# settings): a password that expires, a lockout after failed sign-ins, or a user disabled after
# days without a sign-in would stop every fence of the cluster without a word, and a password
# to change at first use would never be. lock_password keeps whoever holds the password (root
# on any member) from changing it through Keystone: only the role, as an admin, renews it.
SERVICE_ACCOUNT_OPTIONS = {
    "ignore_password_expiry": True,
    "ignore_lockout_failure_attempts": True,
    "ignore_change_password_upon_first_use": True,
    "ignore_user_inactivity": True,
    "lock_password": True,
}


def options_of(user):
    """The service-account options as USER holds them (missing ones as False)."""
    held = (getattr(user, "options", None) or {}) if user is not None else {}
    return {name: bool(held.get(name)) for name in SERVICE_ACCOUNT_OPTIONS}


def _password_refused(name, error):
    return ModuleFailure(
        "Keystone refused the password for user %s: %s. Its [security_compliance] password_regex "
        "(or minimum length) asks for more than the password given: give one it takes (the role "
        "clustered_fs generates 32 characters with lower and upper case letters, digits and "
        "symbols)" % (name, error.details or error.message)
    )


def describe(cluster, holders=None):
    described = FENCES + cluster if cluster else UNNAMED
    return described if holders is None else described + HELD + " ".join(sorted(set(holders)))


def _description(user):
    return (getattr(user, "description", None) or "") if user is not None else ""


def cluster_of(user):
    """The cluster USER's description says it fences, or None (a user made without one)."""
    description = _description(user).split(HELD, 1)[0]
    return description[len(FENCES) :].strip() or None if description.startswith(FENCES) else None


def holders_of(user):
    """The servers USER's description says hold its password (sorted), or None when it records
    none (a user made before the record, or by someone else)."""
    description = _description(user)
    if HELD not in description or not description.startswith((FENCES, UNNAMED)):
        return None
    return sorted(description.split(HELD, 1)[1].split())


def _raise_unless_removed(response):
    """Raise Keystone's error for a DELETE that neither removed the assignment nor found it gone."""
    if response.status_code != 404:
        sdk_exceptions.raise_from_response(response)


class FencingIdentityChange(Change):
    """The fencing user toward the module's options: one role on the project, no other."""

    def __init__(
        self, conn, *, name, password, project, domain, role, state, cluster=None, holders=None
    ):
        self.conn = conn
        self.cluster = cluster
        self.holders = holders
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
        fences = cluster_of(user)
        if self.state == "absent":
            # Named by the cluster it fences, a user of another cluster is never deleted.
            if self.cluster and fences and fences != self.cluster:
                raise ModuleFailure(
                    "user %s fences cluster %s, not %s: not deleted"
                    % (self.name, fences, self.cluster)
                )
            return self.plan_absent(user)
        identity = self.conn.identity
        project = _found(identity.find_project, "project", self.project, domain_id=domain.id)
        role = fencing_role(identity, self.role)
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
        steps = []
        if role is None:
            # made in the run, before the user that gets it; its ID is known only then
            role = _NewRole(self.role)
            steps.append(Step("create role %s" % self.role, lambda: role.create(identity)))
        wanted = [["project", project.id, role.id or role.name]]
        unfit = [h for h in self.holders or [] if not h or h != h.strip() or len(h.split()) != 1]
        if unfit:
            raise ModuleFailure(
                "holders %s: give each server by its Nova UUID, without spaces" % unfit
            )
        recorded = holders_of(user)
        holders = recorded if self.holders is None else sorted(set(self.holders))
        description = describe(self.cluster or fences, holders)
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
            holders=holders,
        )
        records = self.cluster or self.holders is not None
        if user is not None and records and _description(user) != description:
            steps.append(
                Step(
                    self.says_recorded(fences, recorded, holders),
                    lambda: identity.update_user(user, description=description),
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
                    lambda: self.update_password(user, project),
                )
            )
        # A disabled user signs nobody in: every fence would fail, and a password reset would
        # not mend it.
        if user is not None and not getattr(user, "is_enabled", True):
            steps.append(
                Step(
                    "enable user %s" % self.name,
                    lambda: identity.update_user(user, is_enabled=True),
                )
            )
        if user is not None and options_of(user) != SERVICE_ACCOUNT_OPTIONS:
            steps.append(
                Step(
                    "keep the password of %s from expiring or locking out" % self.name,
                    lambda: identity.update_user(user, options=dict(SERVICE_ACCOUNT_OPTIONS)),
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
                    "give role %s on project %s" % (role.name, scope_id),
                    lambda scope_id=scope_id: identity.assign_project_role_to_user(
                        scope_id, user, role.id
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
                "holders": recorded,
                "options": options_of(user) if user is not None else None,
                "enabled": getattr(user, "is_enabled", True) if user is not None else None,
            },
            {
                "user": self.name,
                "assignments": wanted,
                "password": "as given",
                "other_ways_in": [],
                "holders": holders,
                "options": dict(SERVICE_ACCOUNT_OPTIONS),
                "enabled": True,
            },
            steps,
            result=dict(
                identity=described,
                holders_recorded=recorded,
                password_taken=None if user is None else not password_differs,
            ),
        )

    def says_recorded(self, fences, recorded, holders):
        if self.cluster and not fences:
            return "record that %s fences cluster %s" % (self.name, self.cluster)
        return "record that servers %s hold the password of %s (recorded: %s)" % (
            ", ".join(holders or []) or "none",
            self.name,
            "none" if recorded is None else ", ".join(recorded) or "none",
        )

    def update_password(self, user, project):
        try:
            self.conn.identity.update_user(
                user, password=self.password, default_project_id=project.id
            )
        except sdk_exceptions.BadRequestException as error:
            raise _password_refused(self.name, error)

    def create(self, domain, project, role):
        """The new user's ID."""
        identity = self.conn.identity
        try:
            user = identity.create_user(
                name=self.name,
                domain_id=domain.id,
                password=self.password,
                default_project_id=project.id,
                enabled=True,
                description=describe(self.cluster, self.holders),
                options=dict(SERVICE_ACCOUNT_OPTIONS),
            )
        except sdk_exceptions.BadRequestException as error:
            raise _password_refused(self.name, error)
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
            {"user": self.name if user else None},
            {"user": None},
            steps,
            result=dict(identity=None, holders_recorded=holders_of(user)),
        )

    def delete(self, user):
        try:
            self.conn.identity.delete_user(user)
        except sdk_exceptions.NotFoundException:
            pass
