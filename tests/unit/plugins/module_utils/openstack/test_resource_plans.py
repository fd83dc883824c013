"""The planning of volume, volume_type, fencing_identity and volume_info, with a fake
connection: what each plans (steps, diff, result) and what it refuses before any call. Check
mode makes no call that changes anything (the fakes record every call)."""

from types import SimpleNamespace

import pytest

from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack import identity, volumes
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.identity import (
    FencingIdentityChange,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.sdk import sdk_exceptions
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volume_change import (
    VolumeChange,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volume_type_change import (
    VolumeTypeChange,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volumes import (
    VolumesReading,
)

MULTIATTACH = SimpleNamespace(
    id="t1", name="ma", extra_specs={"multiattach": "<is> True"}, is_public=True, description=None
)
PLAIN = SimpleNamespace(id="t2", name="plain", extra_specs={}, is_public=True, description=None)


class Recorder:
    """A proxy whose reads answer from READS and whose other calls are recorded."""

    def __init__(self, **reads):
        self.reads = reads
        self.calls = []

    def __getattr__(self, name):
        if name in self.reads:
            value = self.reads[name]
            return value if callable(value) else (lambda *a, **k: value)

        def record(*args, **kwargs):
            self.calls.append(name)
            return SimpleNamespace(
                id="new", name="new", extra_specs={}, is_public=True, description=None
            )

        return record


def a_volume(**fields):
    values = dict(
        id="v1",
        name="data",
        status="available",
        size=1,
        is_multiattach=True,
        volume_type="ma",
        is_bootable="false",
        availability_zone="nova",
        description=None,
        metadata={},
        attachments=[],
    )
    values.update(fields)
    return SimpleNamespace(**values)


def volume_cloud(volume=None, types=(MULTIATTACH, PLAIN)):
    storage = Recorder(
        find_volume=volume,
        volumes=[volume] if volume else [],
        types=list(types),
        get_type_encryption=None,
        get_volume=volume,
    )
    return SimpleNamespace(block_storage=storage, compute=Recorder(servers=[]))


def volume_change(conn, **options):
    values = dict(
        name="data",
        size=None,
        volume_type=None,
        availability_zone=None,
        description=None,
        metadata=None,
        bootable=None,
        read_only=None,
        source_volume=None,
        state="present",
        wait=True,
        timeout=30,
    )
    values.update(options)
    return VolumeChange(conn, **values)


def test_a_new_volume_is_one_step_and_check_mode_calls_nothing():
    conn = volume_cloud()
    change = volume_change(conn, size=2, volume_type="ma")
    plan = change.plan(change.read())
    assert plan.says() == ["create volume data"]
    assert (plan.before, plan.after["size"], plan.after["volume_type"]) == (None, 2, "ma")
    result = change.run(check_mode=True)
    assert result["changed"] and result["volume"]["id"] is None
    assert conn.block_storage.calls == []


def test_an_update_plans_only_what_differs_and_a_shrink_or_a_retype_while_attached_is_refused():
    conn = volume_cloud(a_volume(size=5, description="old"))
    change = volume_change(conn, size=5, description="new", metadata={"k": "v"})
    plan = change.plan(change.read())
    assert plan.says() == ["update volume data: description, metadata"]
    assert plan.after["description"] == "new" and plan.after["metadata"] == {"k": "v"}
    with pytest.raises(ModuleFailure, match="cannot shrink"):
        volume_change(conn, size=1).plan(a_volume(size=5))
    attached = a_volume(status="in-use", volume_type="other")
    with pytest.raises(ModuleFailure, match="cannot retype a volume to or from multiattach while"):
        volume_change(volume_cloud(attached), volume_type="ma").plan(attached)


def test_a_volume_as_wanted_plans_no_step():
    conn = volume_cloud(a_volume(size=5))
    change = volume_change(conn, size=5)
    assert change.plan(change.read()).steps == []


@pytest.mark.parametrize(
    "options, refusal",
    [
        (dict(size=0), "size must be at least 1"),
        (dict(size=1, volume_type="plain"), "has no extra spec multiattach"),
        (dict(size=1, volume_type="ghost"), "volume type 'ghost' does not exist"),
        (dict(volume_type="ma"), "creating it needs size"),
    ],
)
def test_what_no_volume_may_be_is_refused_before_any_call(options, refusal):
    conn = volume_cloud()
    with pytest.raises(ModuleFailure, match=refusal):
        change = volume_change(conn, **options)
        change.plan(change.read())
    assert conn.block_storage.calls == []


def test_the_read_only_flag_is_set_and_cleared_only_at_rest_and_an_attached_change_names_holders():
    at_rest = a_volume(metadata={"readonly": "True"})
    conn = volume_cloud(at_rest)
    change = volume_change(conn, read_only=False)
    plan = change.plan(change.read())
    assert plan.says() == ["update volume data: read_only"]
    assert (plan.before["read_only"], plan.after["read_only"]) == (True, False)
    change.run(check_mode=True)
    assert conn.block_storage.calls == []
    change.run(check_mode=False)
    assert conn.block_storage.calls == ["set_volume_readonly"]
    # Cleared, Cinder reads 'False': as asked, nothing to do; unset leaves the flag alone.
    cleared = a_volume(metadata={"readonly": "False"})
    assert volume_change(volume_cloud(cleared), read_only=False).plan(cleared).steps == []
    assert volume_change(volume_cloud(at_rest)).plan(at_rest).steps == []
    held = a_volume(status="in-use", attachments=[{"server_id": "s1"}, {"server_id": "s2"}])
    conn = volume_cloud(held)
    conn.compute = Recorder(
        servers=[
            SimpleNamespace(id="s1", name="reader-1"),
            SimpleNamespace(id="s2", name="reader-2"),
        ]
    )
    with pytest.raises(
        ModuleFailure,
        match="only while a volume is available, held by reader-1, "
        "reader-2. Detach it from every server first",
    ):
        volume_change(conn, read_only=True).plan(held)
    assert conn.block_storage.calls == []


def test_a_new_read_only_volume_is_flagged_once_available_and_a_copy_is_planned_from_its_source():
    conn = volume_cloud()
    change = volume_change(conn, size=1, volume_type="ma", read_only=True)
    plan = change.plan(change.read())
    assert plan.after["read_only"] is True and plan.says() == ["create volume data"]
    source = a_volume(id="v0", name="data-v1", size=3, status="in-use")
    conn = volume_cloud(None)
    conn.block_storage.reads["find_volume"] = lambda name, **query: source if name == "v0" else None
    conn.block_storage.reads["volumes"] = lambda **query: [source]
    change = volume_change(conn, name="data", source_volume="data-v1", volume_type="ma")
    conn.block_storage.reads["find_volume"] = None
    plan = change.plan(None)
    assert plan.says() == ["create volume data from volume v0"] and plan.after["size"] == 3
    with pytest.raises(
        ModuleFailure, match="smaller than its source data-v1 .3 GiB.: give a size of at least 3"
    ):
        volume_change(conn, name="data", source_volume="data-v1", volume_type="ma", size=2).plan(
            None
        )
    with pytest.raises(ModuleFailure, match="source_volume 'ghost' does not exist"):
        volume_change(conn, name="data", source_volume="ghost", volume_type="ma").plan(None)


@pytest.mark.parametrize("key", ["readonly", "attached_mode"])
def test_metadata_may_not_write_cinders_own_flags(key):
    with pytest.raises(
        ModuleFailure, match="metadata may not set %s.*Use the option read_only" % key
    ):
        volume_change(volume_cloud(), metadata={key: "True"})


def test_an_attached_volume_is_never_planned_for_deletion():
    held = a_volume(status="in-use", attachments=[{"server_id": "s1"}])
    with pytest.raises(ModuleFailure, match="is attached to node-1: detach it first"):
        conn = volume_cloud(held)
        conn.compute = Recorder(servers=[SimpleNamespace(id="s1", name="node-1")])
        volume_change(conn, state="absent").plan(held)


def type_change(conn, **options):
    values = dict(
        name="ma",
        description=None,
        backend=None,
        extra_specs={},
        purge_extra_specs=False,
        is_public=None,
        projects=None,
        state="present",
    )
    values.update(options)
    return VolumeTypeChange(conn, **values)


def test_a_volume_type_always_carries_multiattach_and_plans_each_spec_it_sets():
    conn = volume_cloud(types=[])
    change = type_change(conn, backend="rbd-1")
    plan = change.plan(change.read())
    assert plan.says() == ["create volume type ma"]
    assert plan.after["extra_specs"] == {"volume_backend_name": "rbd-1", "multiattach": "<is> True"}
    existing = SimpleNamespace(
        id="t1",
        name="ma",
        extra_specs={"multiattach": "<is> True", "old": "x"},
        is_public=True,
        description=None,
    )
    conn = volume_cloud(types=[existing])
    plan = type_change(conn, extra_specs={"new": "y"}, purge_extra_specs=True).plan(existing)
    assert plan.says() == ["set extra specs new", "remove extra spec old"]
    with pytest.raises(ModuleFailure, match="a type of this collection always has multiattach"):
        type_change(conn, extra_specs={"multiattach": "False"}).plan(existing)


# Keystone's default roles and what each implies: admin > manager > member > reader.
DEFAULT_ROLES = {
    "r0": ("admin", ["r3"]),
    "r3": ("manager", ["rm"]),
    "rm": ("member", ["r2"]),
    "r2": ("reader", []),
    "r1": ("multiattach_fencer", []),
    "r9": ("fence-plus", ["r2"]),
}


def keystone_roles(roles):
    """get_role and the raw GET of /roles/ID/implies over ROLES (ID: name, implied IDs)."""

    def implies(url):
        role_id = url.split("/")[2]
        implied = [{"id": i, "name": roles[i][0]} for i in roles[role_id][1]]
        return SimpleNamespace(
            status_code=200, json=lambda: {"role_inference": {"implies": implied}}
        )

    return dict(
        get_role=lambda role_id: SimpleNamespace(id=role_id, name=roles[role_id][0]),
        get=implies,
    )


def fencing_cloud(user=None, works=True, assignments=(), role="r1", roles=None):
    project = SimpleNamespace(id="p1", name="demo")
    roles = roles or DEFAULT_ROLES
    conn = SimpleNamespace(
        identity=Recorder(
            find_domain=SimpleNamespace(id="d1"),
            find_user=user,
            find_project=project,
            find_role=SimpleNamespace(id=role, name=roles[role][0]),
            **keystone_roles(roles),
            role_assignments=[
                SimpleNamespace(scope={kind: {"id": scope}}, role={"id": role})
                for kind, scope, role in assignments
            ],
            application_credentials=[],
            credentials=[],
            trusts=[],
            user_groups=[],
        )
    )
    return conn, works


def fence_account(**fields):
    """A fencing user as Keystone shows it, with the service-account options already set."""
    return SimpleNamespace(**dict({"options": dict(identity.SERVICE_ACCOUNT_OPTIONS)}, **fields))


def fencing_change(conn, cluster=None, role="multiattach_fencer"):
    return FencingIdentityChange(
        conn,
        name="fence",
        password="pw",
        project="demo",
        domain="Default",
        role=role,
        state="present",
        cluster=cluster,
    )


@pytest.mark.parametrize(
    "user, works, assignments, says",
    [
        (None, True, (), ["create user fence with its project role"]),
        ("exists", True, [("project", "p1", "r1")], []),
        (
            "exists",
            False,
            [("project", "p1", "r1")],
            ["set the password and the default project of fence"],
        ),
        (
            "exists",
            True,
            [("project", "p1", "r1"), ("project", "p9", "admin")],
            ["take role admin on project p9"],
        ),
    ],
)
def test_the_fencing_user_gets_one_role_and_its_password_checked_by_logging_in(
    monkeypatch, user, works, assignments, says
):
    account = fence_account(id="u1", default_project_id="p1", is_enabled=True) if user else None
    conn, works = fencing_cloud(account, works, assignments)
    monkeypatch.setattr(identity, "password_works", lambda *args: works)
    change = fencing_change(conn)
    plan = change.plan(change.read())
    assert plan.says() == says
    assert "pw" not in str(plan.before) + str(plan.after) + str(plan.result)
    assert conn.identity.calls == []


def test_a_disabled_fencing_user_is_enabled_again(monkeypatch):
    """A disabled user fails every fence, and a new password would not mend it."""
    conn, _works = fencing_cloud(
        fence_account(id="u1", default_project_id="p1", is_enabled=False),
        assignments=[("project", "p1", "r1")],
    )
    monkeypatch.setattr(identity, "password_works", lambda *args: True)
    change = fencing_change(conn)
    plan = change.plan(change.read())
    assert plan.says() == ["enable user fence"]
    assert (plan.before["enabled"], plan.after["enabled"]) == (False, True)


# Issue 50: an inherited assignment crashed the plan; a system role was taken as a domain
# role of domain None.
@pytest.mark.parametrize(
    "scope, says, path",
    [
        (
            {"domain": {"id": "d1"}, "OS-INHERIT:inherited_to": "projects"},
            "take role admin on domain (inherited) d1",
            "/OS-INHERIT/domains/d1/users/u1/roles/admin/inherited_to_projects",
        ),
        (
            {"project": {"id": "p9"}, "OS-INHERIT:inherited_to": "projects"},
            "take role admin on project (inherited) p9",
            "/OS-INHERIT/projects/p9/users/u1/roles/admin/inherited_to_projects",
        ),
        (
            {"system": {"all": True}},
            "take role admin on system all",
            "/system/users/u1/roles/admin",
        ),
    ],
)
def test_an_inherited_or_system_role_of_the_fencing_user_is_taken_where_it_is(
    monkeypatch, scope, says, path
):
    deleted = []
    conn, _works = fencing_cloud(fence_account(id="u1", default_project_id="p1"))
    conn.identity.reads["role_assignments"] = [
        SimpleNamespace(scope={"project": {"id": "p1"}}, role={"id": "r1"}),
        SimpleNamespace(scope=scope, role={"id": "admin"}),
    ]
    conn.identity.reads["delete"] = lambda url: (
        deleted.append(url) or SimpleNamespace(status_code=204)
    )
    monkeypatch.setattr(identity, "password_works", lambda *args: True)
    change = fencing_change(conn)
    plan = change.plan(change.read())
    assert plan.says() == [says]
    plan.steps[0].do()
    assert deleted == [path]
    assert conn.identity.calls == []


def test_the_fencing_users_application_credentials_credentials_and_trusts_are_revoked(
    monkeypatch,
):
    """Each outlives a new password: a root on a member that knew the old one could have made
    them (issue 49's renewal, issue 50's least privilege)."""
    user = fence_account(id="u1", default_project_id="p1")
    conn, _works = fencing_cloud(user, assignments=[("project", "p1", "r1")])
    conn.identity.reads.update(
        application_credentials=[SimpleNamespace(id="ac1")],
        credentials=[SimpleNamespace(id="c1", type="ec2")],
        trusts=[SimpleNamespace(id="t1")],
        user_groups=[SimpleNamespace(id="g1")],
    )
    monkeypatch.setattr(identity, "password_works", lambda *args: True)
    change = fencing_change(conn)
    plan = change.plan(change.read())
    assert plan.says() == [
        "revoke the application credential ac1",
        "revoke the ec2 credential c1",
        "revoke the membership of group g1",
        "revoke the trust t1",
    ]
    assert plan.before["other_ways_in"] == [
        "application credential ac1",
        "ec2 credential c1",
        "membership of group g1",
        "trust t1",
    ]
    assert plan.after["other_ways_in"] == []
    for step in plan.steps:
        step.do()
    assert conn.identity.calls == [
        "delete_application_credential",
        "delete_credential",
        "remove_user_from_group",
        "delete_trust",
    ]


def test_a_list_keystone_refuses_fails_the_run_and_is_never_read_as_none(monkeypatch):
    """An admin signed in with an application credential may not list trusts (Keystone 30)."""
    conn, _works = fencing_cloud(fence_account(id="u1", name="fence", default_project_id="p1"))

    def refused(**query):
        raise sdk_exceptions.ForbiddenException(message="403", http_status=403)

    conn.identity.reads["trusts"] = refused
    monkeypatch.setattr(identity, "password_works", lambda *args: True)
    change = fencing_change(conn)
    with pytest.raises(ModuleFailure, match="must sign in with a password as an admin"):
        change.plan(change.read())


def test_volume_info_reads_one_volume_with_its_holders_and_warns_of_one_host():
    held = a_volume(
        status="in-use",
        attachments=[
            {"server_id": "s1", "attachment_id": "a1", "host_name": "c1"},
            {"server_id": "s2", "attachment_id": "a2", "host_name": "c1"},
        ],
    )
    conn = volume_cloud(held)
    conn.compute = Recorder(
        servers=[SimpleNamespace(id="s1", name="n1"), SimpleNamespace(id="s2", name="n2")]
    )
    conn.block_storage.reads["get"] = lambda *a, **k: SimpleNamespace(
        status_code=200, headers={}, json=lambda: {"attachments": []}
    )
    result = VolumesReading(
        conn, name="data", multiattach_only=False, status=None, all_projects=False
    ).run(check_mode=False)
    assert result["changed"] is False
    assert [a["server_name"] for a in result["volumes"][0]["attachments"]] == ["n1", "n2"]
    assert "runs on compute host c1" in result["warnings"][0]


@pytest.mark.parametrize(
    "record, mode",
    [
        (
            {
                "attach_mode": "ro",
                "connection_info": {"driver_volume_type": "rbd", "data": {"access_mode": "rw"}},
            },
            "rw",
        ),
        ({"attach_mode": "ro", "connection_info": {"access_mode": "ro"}}, "ro"),
        ({"attach_mode": "ro", "connection_info": None}, None),
        ({"attach_mode": "null", "connection_info": {"data": {}}}, None),
    ],
)
def test_the_mode_reported_is_the_connections_not_cinders_stale_record(record, mode):
    assert volumes.access_mode(record) == mode


def test_a_volume_reports_cinders_read_only_flag_as_it_reads():
    assert volumes.describe_volume(a_volume(metadata={"readonly": "True"}))["read_only"] is True
    assert volumes.describe_volume(a_volume(metadata={"readonly": "False"}))["read_only"] is False
    assert volumes.describe_volume(a_volume())["read_only"] is False


# Issue 50: every node holds the fencing password; its role must be one of its own.
@pytest.mark.parametrize("name", ["admin", "Manager", "member", "reader", "service"])
def test_a_default_role_for_the_fencing_user_is_refused_before_anything_changes(name):
    conn, unused = fencing_cloud()
    change = fencing_change(conn, role=name)
    with pytest.raises(ModuleFailure, match="one of Keystone's default roles.*multiattach_fencer"):
        change.plan(change.read())
    assert conn.identity.calls == []


def test_a_role_that_implies_another_is_refused_naming_it():
    conn, unused = fencing_cloud(role="r9")
    change = fencing_change(conn, role="fence-plus")
    with pytest.raises(ModuleFailure, match="role 'fence-plus' implies reader"):
        change.plan(change.read())
    assert conn.identity.calls == []


def test_the_own_role_is_taken_and_a_missing_one_made_before_the_user(monkeypatch):
    monkeypatch.setattr(identity, "password_works", lambda *args: True)
    conn, unused = fencing_cloud()
    change = fencing_change(conn)
    assert change.plan(change.read()).says() == ["create user fence with its project role"]

    conn, unused = fencing_cloud()
    conn.identity.reads["find_role"] = None
    made = []
    conn.identity.reads["create_role"] = lambda **role: (
        made.append(role) or SimpleNamespace(id="new", name=role["name"])
    )
    change = fencing_change(conn)
    plan = change.plan(change.read())
    assert plan.says() == [
        "create role multiattach_fencer",
        "create user fence with its project role",
    ]
    plan.steps[0].do()
    assert made == [{"name": "multiattach_fencer", "description": identity.ROLE_DESCRIPTION}]


def test_a_user_that_fences_another_cluster_is_refused_and_an_unmarked_one_is_claimed(monkeypatch):
    monkeypatch.setattr(identity, "password_works", lambda *args: True)
    theirs = fence_account(id="u1", default_project_id="p1", description=identity.describe("vol-a"))
    conn, unused = fencing_cloud(user=theirs, assignments=[("project", "p1", "r1")])
    change = fencing_change(conn, cluster="vol-b")
    with pytest.raises(ModuleFailure, match="already fences cluster vol-a, not vol-b"):
        change.plan(change.read())
    assert conn.identity.calls == []
    # A cluster named by its device alone cannot show it is vol-a: refused too.
    change.cluster = None
    with pytest.raises(ModuleFailure, match="already fences cluster vol-a, not this one"):
        change.plan(change.read())
    # Its own cluster: nothing to do.
    change.cluster = "vol-a"
    assert change.plan(change.read()).says() == []
    # Made before users named their cluster: this cluster claims it.
    older = fence_account(
        id="u1",
        default_project_id="p1",
        description="multiattach.cloud: fences the cluster's servers",
    )
    conn, unused = fencing_cloud(user=older, assignments=[("project", "p1", "r1")])
    change.conn = conn
    change.cluster = "vol-b"
    assert change.plan(change.read()).says() == ["record that fence fences cluster vol-b"]


# Issue 50 point 2: the servers that held the password, recorded in Keystone, so that a later
# run renews it when one of them is gone, whichever way it left.
def test_the_holders_are_recorded_and_read_back_beside_the_cluster():
    described = identity.describe("vol-a", ["s2", "s1", "s2"])
    user = SimpleNamespace(description=described)
    assert described == identity.FENCES + "vol-a" + identity.HELD + "s1 s2"
    assert identity.cluster_of(user) == "vol-a"
    assert identity.holders_of(user) == ["s1", "s2"]
    # Before the record: no holders known (None), not "none held it" ([]).
    assert identity.holders_of(SimpleNamespace(description=identity.describe("vol-a"))) is None
    assert identity.holders_of(SimpleNamespace(description="an operator's own words")) is None
    assert identity.holders_of(SimpleNamespace(description=identity.describe(None, []))) == []
    assert identity.cluster_of(SimpleNamespace(description=identity.describe(None, ["s1"]))) is None


def test_a_run_records_the_members_as_holders_and_returns_who_held_it_before(monkeypatch):
    monkeypatch.setattr(identity, "password_works", lambda *args: True)
    user = fence_account(
        id="u1", default_project_id="p1", description=identity.describe("vol-a", ["s1", "s2"])
    )
    conn, unused = fencing_cloud(user=user, assignments=[("project", "p1", "r1")])
    change = fencing_change(conn, cluster="vol-a")
    change.holders = ["s3", "s2"]
    plan = change.plan(change.read())
    assert plan.says() == [
        "record that servers s2, s3 hold the password of fence (recorded: s1, s2)"
    ]
    assert plan.result["holders_recorded"] == ["s1", "s2"]
    assert plan.result["identity"]["holders"] == ["s2", "s3"]
    assert (plan.before["holders"], plan.after["holders"]) == (["s1", "s2"], ["s2", "s3"])
    # The same members again: nothing to record.
    change.holders = ["s2", "s1"]
    assert change.plan(change.read()).says() == []
    # No holders given: the record stays as it is.
    change.holders = None
    assert change.plan(change.read()).says() == []


def test_a_new_user_is_made_with_its_holders_recorded(monkeypatch):
    made = []
    conn, unused = fencing_cloud()
    conn.identity.reads["create_user"] = lambda **user: (
        made.append(user) or SimpleNamespace(id="u9", name=user["name"])
    )
    change = fencing_change(conn, cluster="vol-a")
    change.holders = ["s1"]
    plan = change.plan(change.read())
    assert plan.result["holders_recorded"] is None
    for step in plan.steps:
        step.do()
    assert made[0]["description"] == identity.describe("vol-a", ["s1"])


@pytest.mark.parametrize("holder", ["", "s1 s2", " s1"])
def test_a_holder_that_is_not_one_word_is_refused_before_anything_changes(holder):
    conn, unused = fencing_cloud()
    change = fencing_change(conn, cluster="vol-a")
    change.holders = ["s0", holder]
    with pytest.raises(ModuleFailure, match="give each server by its Nova UUID"):
        change.plan(change.read())
    assert conn.identity.calls == []


# Issue 50 point 4: a fencing password that expires or locks out would stop every fence.
def test_the_fencing_user_is_kept_from_expiry_and_lockout(monkeypatch):
    monkeypatch.setattr(identity, "password_works", lambda *args: True)
    older = fence_account(
        id="u1", default_project_id="p1", options={"ignore_password_expiry": True}
    )
    conn, unused = fencing_cloud(user=older, assignments=[("project", "p1", "r1")])
    plan = fencing_change(conn).plan(fencing_change(conn).read())
    assert plan.says() == ["keep the password of fence from expiring or locking out"]
    assert plan.before["options"] == {
        "ignore_password_expiry": True,
        "ignore_lockout_failure_attempts": False,
        "ignore_change_password_upon_first_use": False,
        "ignore_user_inactivity": False,
        "lock_password": False,
    }
    assert plan.after["options"] == identity.SERVICE_ACCOUNT_OPTIONS


def test_a_password_keystone_refuses_names_the_regex_and_the_fix(monkeypatch):
    conn, unused = fencing_cloud()

    def refuse(**user):
        raise sdk_exceptions.BadRequestException(
            message="Password validation error", details="The password does not match"
        )

    conn.identity.reads["create_user"] = refuse
    change = fencing_change(conn)
    plan = change.plan(change.read())
    with pytest.raises(ModuleFailure, match="refused the password for user fence.*password_regex"):
        for step in plan.steps:
            step.do()


def test_absent_never_deletes_another_clusters_user_and_deletes_its_own():
    theirs = fence_account(id="u1", name="fence-2", description=identity.describe("vol-a"))
    conn, unused = fencing_cloud(user=theirs)
    change = fencing_change(conn, cluster="vol-b")
    change.state = "absent"
    with pytest.raises(ModuleFailure, match="fences cluster vol-a, not vol-b: not deleted"):
        change.plan(change.read())
    change.cluster = "vol-a"
    assert change.plan(change.read()).says() == ["delete user fence"]
    # Named without a cluster (the lab's destroy): deleted whoever it fences.
    change.cluster = None
    assert change.plan(change.read()).says() == ["delete user fence"]
