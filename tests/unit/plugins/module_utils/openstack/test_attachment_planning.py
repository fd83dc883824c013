"""Planning of attach and detach calls, which refusals are retried, and what an abandoned
transition gets (no cloud)."""

import time
from types import SimpleNamespace

import pytest
from openstack import exceptions as sdk_exceptions

from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack import (
    attachment_worker,
    attachments,
    servers,
    transitions,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.servers import ServerIndex
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volumes import (
    attached_server_ids,
)


def test_plan_attaches_only_the_missing_servers():
    assert attachments.plan(["a", "b"], ["b", "c", "d"], exclusive=False) == (["c", "d"], [])


def test_plan_detaches_unlisted_servers_only_when_exclusive():
    assert attachments.plan(["a", "b"], ["b"], exclusive=True) == ([], ["a"])
    assert attachments.plan(["a", "b"], ["b"], exclusive=False) == ([], [])


def test_plan_with_nothing_to_do_is_empty():
    assert attachments.plan(["a", "b"], ["a", "b"], exclusive=True) == ([], [])


def volume(multiattach, attached=(), status=None):
    return SimpleNamespace(
        id="v",
        name="data",
        volume_type="plain",
        is_multiattach=multiattach,
        attachments=[{"server_id": s} for s in attached],
        status=status or ("in-use" if attached else "available"),
    )


def test_a_second_holder_of_a_plain_volume_is_refused_with_the_fix():
    with pytest.raises(ModuleFailure, match="not multiattach.*node1, node2.*volume_type"):
        attachments.check_sharing_allowed(
            volume(False, ["s1"]), ["s1", "s2"], {"s1": "node1", "s2": "node2"}
        )


def test_a_plain_volume_may_move_from_one_server_to_another():
    attachments.check_sharing_allowed(volume(False, ["s1"]), ["s2"], {})


def test_a_multiattach_volume_may_have_many_holders():
    attachments.check_sharing_allowed(volume(True, ["s1"]), ["s1", "s2", "s3"], {})


def test_attached_server_ids_are_unique_and_sorted():
    assert attached_server_ids(volume(True, ["b", "a", "b"])) == ["a", "b"]


def http_error(status, details):
    return sdk_exceptions.HttpException(message="x", details=details, http_status=status)


@pytest.mark.parametrize(
    "details",
    [
        "Invalid volume: Volume 1 status must be available or in-use or downloading to reserve, "
        "but the current status is attaching.",
        "Invalid volume: Unable to detach volume. Volume status must be 'in-use' and attach_status "
        "must be 'attached' to detach.",
    ],
)
def test_cinders_one_at_a_time_refusals_are_retried(details):
    assert attachment_worker._is_transient(http_error(400, details))  # pylint: disable=protected-access


def test_a_detach_refused_while_the_compute_service_is_down_is_retried():
    error = http_error(409, "Service is unavailable at this time.")
    assert attachment_worker._is_transient(error)  # pylint: disable=protected-access


def test_a_compute_service_down_for_the_whole_timeout_is_named_with_the_fix():
    calls = []

    def refuse():
        calls.append(1)
        raise http_error(409, "Service is unavailable at this time.")

    in_use = SimpleNamespace(status="in-use", updated_at="2026-01-01T00:00:00.000000")
    conn = SimpleNamespace(block_storage=SimpleNamespace(get_volume=lambda volume_id: in_use))
    worker = attachment_worker.AttachmentWorker(conn, "v", timeout=1)
    with pytest.raises(ModuleFailure) as failure:
        worker._with_retries("detach", "s1", refuse)  # pylint: disable=protected-access
    assert len(calls) > 1
    assert "refused to detach server s1" in failure.value.msg
    assert "counts the compute service of the server as down" in failure.value.msg
    assert "nova-manage db archive_deleted_rows" in failure.value.msg
    assert "Start nova-compute" in failure.value.msg


@pytest.mark.parametrize(
    "status,details",
    [
        (409, "Cannot 'detach_volume' instance s1 while it is in vm_state shelved"),
        (400, "Multiattach volumes are only supported starting with compute API version 2.60."),
        (400, "Invalid input for field/attribute volumeId."),
        (403, "Policy doesn't allow volume:multiattach_bootable_volume to be performed."),
        (404, "Volume could not be found."),
    ],
)
def test_other_refusals_fail_at_once(status, details):
    assert not attachment_worker._is_transient(http_error(status, details))  # pylint: disable=protected-access


class FakeIndex(ServerIndex):
    def __init__(self, servers):  # pylint: disable=super-init-not-called
        self.servers = [SimpleNamespace(id=i, name=n) for i, n in servers]
        self.names = dict(servers)


def test_servers_resolve_by_name_or_id_and_failures_name_every_problem():
    index = FakeIndex([("id1", "a"), ("id2", "b"), ("id3", "b")])
    assert index.resolve(["a", "id2"]) == {"a": "id1", "id2": "id2"}
    with pytest.raises(ModuleFailure) as failure:
        index.resolve(["a", "b", "ghost"])
    assert "no server named or with ID ghost" in failure.value.msg
    assert "more than one server is named b (id2, id3)" in failure.value.msg


def fake_conn(volume_obj, servers):
    return SimpleNamespace(
        block_storage=SimpleNamespace(
            find_volume=lambda *a, **k: volume_obj, volumes=lambda **query: [volume_obj]
        ),
        compute=SimpleNamespace(
            servers=lambda **query: [SimpleNamespace(id=i, name=n) for i, n in servers]
        ),
    )


def holders(conn, servers, exclusive, **options):
    """volume_attachments' change of CONN's volume to SERVERS, read and planned (no call)."""
    change = attachments.VolumeAttachmentsChange(
        conn,
        volume="data",
        servers=servers,
        exclusive=exclusive,
        wait=True,
        timeout=30,
        abandoned_after=transitions.ABANDONED_AFTER,
        **options,
    )
    return change, change.plan(change.read())


def test_an_attachment_change_plans_diffs_and_refuses_like_the_modules_need(monkeypatch):
    monkeypatch.setattr(attachments, "attach_modes", lambda conn, ids: {})
    conn = fake_conn(volume(True, ["s1"]), [("s1", "node1"), ("s2", "node2")])
    _change, plan = holders(conn, ["s1", "s2"], exclusive=False)
    assert (plan.result["attached"], plan.result["detached"], plan.changed) == (["s2"], [], True)
    assert (plan.before, plan.after) == ({"servers": ["node1"]}, {"servers": ["node1", "node2"]})
    _change, plan = holders(conn, [], exclusive=True)
    assert (plan.result["attached"], plan.result["detached"]) == ([], ["s1"])

    with pytest.raises(ModuleFailure, match="not multiattach"):
        holders(
            fake_conn(volume(False, ["s1"]), [("s1", "a"), ("s2", "b")]),
            ["s1", "s2"],
            exclusive=False,
        )


@pytest.mark.parametrize(
    "status, advice",
    [
        ("error", "delete it, or have an admin reset its status"),
        ("maintenance", "run again once it has left maintenance"),
        ("error_extending", "an admin checks the backend"),
        ("error_managing", "an admin checks the backend"),
    ],
)
def test_a_change_of_a_volume_in_error_or_maintenance_fails_at_once_naming_the_status(
    status, advice
):
    conn = fake_conn(volume(True, ["s1"], status=status), [("s1", "node1"), ("s2", "node2")])
    with pytest.raises(ModuleFailure) as failure:
        holders(conn, ["s1", "s2"], exclusive=False)
    assert "volume 'data' is in status %s" % status in failure.value.msg
    assert "attach to 1 server(s)" in failure.value.msg and advice in failure.value.msg
    with pytest.raises(ModuleFailure, match="detach from 1 server"):
        holders(conn, [], exclusive=True)


def test_a_volume_in_error_that_needs_no_change_is_left_alone_with_a_warning(monkeypatch):
    conn = fake_conn(volume(True, ["s1"], status="error_extending"), [("s1", "node1")])
    monkeypatch.setattr(
        attachments, "describe_volume", lambda vol, names, modes: {"attachments": []}
    )
    monkeypatch.setattr(attachments, "attach_modes", lambda conn, ids: {})
    change, plan = holders(conn, ["s1"], exclusive=True)
    assert not plan.changed
    assert any("status error_extending" in w for w in change.run(check_mode=False)["warnings"])


@pytest.mark.parametrize(
    "status", ["available", "in-use", "reserved", "attaching", "detaching", "creating"]
)
def test_statuses_cinder_attaches_or_detaches_in_or_that_settle_are_not_refused(status):
    assert attachments.refused_status(SimpleNamespace(status=status)) is None


def test_an_attachment_change_for_a_missing_volume_names_it():
    conn = fake_conn(None, [])
    conn.block_storage.volumes = lambda **query: []
    change = attachments.ServerVolumeChange(
        conn,
        volume="ghost",
        server="s1",
        state="present",
        wait=True,
        timeout=30,
        abandoned_after=300,
    )
    with pytest.raises(ModuleFailure, match="volume 'ghost' does not exist"):
        change.read()


def stamp(seconds_ago):
    return time.strftime("%Y-%m-%dT%H:%M:%S.000000", time.gmtime(time.time() - seconds_ago))


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def watched(abandoned_after=transitions.ABANDONED_AFTER):
    clock = FakeClock()
    return transitions.TransitionWatch(abandoned_after, clock=clock), clock


@pytest.mark.parametrize("status", ["detaching", "reserved", "attaching"])
@pytest.mark.parametrize("updated_ago", [3600, 0, -3600])
def test_a_transition_is_abandoned_only_once_this_run_has_seen_it_unchanged_long_enough(
    status, updated_ago
):
    """Cinder's timestamp, hours old, fresh or ahead of this machine's clock, counts for
    nothing: only this run's own reads of the unchanged volume do."""
    watch, clock = watched()
    volume = SimpleNamespace(status=status, updated_at=stamp(updated_ago))

    assert not watch.abandoned(volume)
    clock.now += transitions.ABANDONED_AFTER - 1
    assert not watch.abandoned(volume)
    clock.now += 1
    assert watch.abandoned(volume)


def test_the_default_wait_outlasts_novas_detach_retries_and_an_rpc_timeout():
    libvirt_detach_retries = 8 * 20  # [libvirt] device_detach_attempts x device_detach_timeout
    rpc_timeout = 60  # oslo.messaging's rpc_response_timeout
    assert transitions.ABANDONED_AFTER > libvirt_detach_retries + rpc_timeout


def test_any_change_of_the_volume_starts_the_count_again():
    watch, clock = watched(60)
    watch.abandoned(SimpleNamespace(status="detaching", updated_at="2026-11-25T10:00:00.000000"))
    clock.now += 50
    assert not watch.abandoned(
        SimpleNamespace(status="detaching", updated_at="2026-11-25T10:00:50.000000")
    )
    clock.now += 50
    assert not watch.abandoned(
        SimpleNamespace(status="detaching", updated_at="2026-11-25T10:00:50.000000")
    )
    clock.now += 10
    assert watch.abandoned(
        SimpleNamespace(status="detaching", updated_at="2026-11-25T10:00:50.000000")
    )
    # a settled read forgets the transition; the next one is counted from its own first read
    assert not watch.abandoned(
        SimpleNamespace(status="in-use", updated_at="2026-11-25T10:03:00.000000")
    )
    assert not watch.abandoned(
        SimpleNamespace(status="detaching", updated_at="2026-11-25T10:03:00.000000")
    )


@pytest.mark.parametrize("status", ["in-use", "available", "error"])
def test_a_settled_volume_is_never_abandoned(status):
    watch, clock = watched(60)
    volume = SimpleNamespace(status=status, updated_at=stamp(3600))
    watch.abandoned(volume)
    clock.now += 3600
    assert not watch.abandoned(volume)


def test_a_timeout_in_a_transition_says_how_long_it_was_seen_and_what_undoes_it():
    watch, clock = watched(300)
    watch.abandoned(SimpleNamespace(status="detaching", updated_at="t"))
    clock.now += 42
    assert watch.note() == (
        ". The volume has shown detaching unchanged for 42 s of this run; a transition is undone "
        "once this run has seen it unchanged for abandoned_after (300 s, longer than Nova's own "
        "retries): run with a timeout above that to have it undone"
    )


@pytest.mark.parametrize("seconds", [0, 9, -5])
def test_an_abandoned_after_too_short_to_outlast_a_service_is_refused(seconds):
    with pytest.raises(ModuleFailure, match="abandoned_after must be at least 10"):
        transitions.check_abandoned_after(seconds)


def seen_abandoned(worker, volume):
    """WORKER has read VOLUME unchanged for longer than its abandoned_after."""
    clock = FakeClock()
    worker.watch = transitions.TransitionWatch(worker.watch.abandoned_after, clock=clock)
    worker.watch.unchanged_for(volume)
    clock.now += worker.watch.abandoned_after


class FakeResponse:
    def __init__(self, status_code, body=None):
        self.status_code = status_code
        self.body = body or {}
        self.headers = {}
        self.text = str(self.body)

    def json(self):
        return self.body


def abandoned_attach_cloud(server_status, reset_answer):
    """A volume `reserved` since long ago by server s1's attach; records the calls made."""
    calls = []
    stuck = SimpleNamespace(id="v", name="data", status="reserved", updated_at=stamp(0))
    record = {"id": "a1", "volume_id": "v", "instance": "s1", "status": "reserved"}

    def post(path, json=None, **kwargs):
        calls.append(("post", path, json))
        return FakeResponse(reset_answer, {"forbidden": {"message": "Policy doesn't allow"}})

    block_storage = SimpleNamespace(
        get_volume=lambda volume_id: stuck,
        post=post,
        get=lambda url, **kwargs: FakeResponse(200, {"attachments": [record]}),
    )
    compute = SimpleNamespace(
        get=lambda path, **kwargs: FakeResponse(200, {"server": {"status": server_status}})
    )
    return SimpleNamespace(block_storage=block_storage, compute=compute), calls, stuck


def test_an_abandoned_attach_without_admin_rights_fails_with_the_commands_an_admin_runs(
    monkeypatch,
):
    monkeypatch.setattr(sdk_exceptions, "raise_from_response", raise_for_status)
    conn, calls, stuck = abandoned_attach_cloud("ACTIVE", 403)
    worker = attachment_worker.AttachmentWorker(conn, "v", timeout=30)
    seen_abandoned(worker, stuck)
    with pytest.raises(ModuleFailure) as failure:
        worker._repair_abandoned()  # pylint: disable=protected-access
    assert calls == [
        (
            "post",
            "/volumes/v/action",
            {"os-reset_status": {"status": "in-use", "attach_status": "attached"}},
        )
    ]
    message = failure.value.msg
    assert (
        "attach to server s1 that its compute service abandoned (attachment a1 reserved" in message
    )
    assert "needs admin credentials" in message
    assert "openstack volume set --state in-use --attached v" in message
    assert "openstack server remove volume s1 v" in message


def test_the_reserved_attachment_of_a_shelved_offloaded_server_is_left_alone():
    conn, calls, stuck = abandoned_attach_cloud("SHELVED_OFFLOADED", 202)
    worker = attachment_worker.AttachmentWorker(conn, "v", timeout=30)
    seen_abandoned(worker, stuck)
    assert worker._repair_abandoned() is False  # pylint: disable=protected-access
    assert calls == [] and worker.repairs == []


def raise_for_status(response, error_message=None):
    if response.status_code == 403:
        raise sdk_exceptions.ForbiddenException(
            message="Policy doesn't allow", response=None, http_status=403
        )


OUR_PROJECT = "p-ours"


class FakeNova:
    """Nova's answers for server_volume's lost servers: live servers (id, name, power state),
    deleted ones in the changes-since listing, and each deleted one's delete action events."""

    def __init__(self, live, deleted=(), terminated=(), foreign=(), evacuated=()):
        self.live = live
        self.deleted = dict(deleted)
        self.terminated = set(terminated)
        # Created in another project (seen with an admin's credentials), or moved by evacuate.
        self.foreign, self.evacuated = set(foreign), set(evacuated)

    def servers(self, **query):
        return [
            SimpleNamespace(id=i, name=n, status=s, power_state=p, task_state=t)
            for i, n, s, p, *task in self.live
            for t in [task[0] if task else None]
        ]

    def get(self, path, params=None, microversion=None):
        parts = path.strip("/").split("/")
        if path.startswith("/servers/detail"):
            listed = [{"id": i, "name": n, "status": "DELETED"} for i, n in self.deleted.items()]
            return FakeJson(200, {"servers": listed})
        server = parts[1]
        if len(parts) == 2:
            return FakeJson(200 if server in {live[0] for live in self.live} else 404, {})
        if server not in self.deleted:
            return FakeJson(404, {})
        if len(parts) == 3:
            created = {"action": "create", "request_id": "req-0", "project_id": OUR_PROJECT}
            if server in self.foreign:
                created["project_id"] = "another-project"
            listed = [created, {"action": "delete", "request_id": "req", "project_id": OUR_PROJECT}]
            if server in self.evacuated:
                listed.insert(1, {"action": "evacuate", "request_id": "req-e"})
            return FakeJson(200, {"instanceActions": listed})
        result = "Success" if server in self.terminated else None
        events = [{"event": "compute_terminate_instance", "result": result}] if result else []
        return FakeJson(200, {"instanceAction": {"events": events}})


class FakeJson:
    def __init__(self, status_code, body):
        self.status_code, self.body, self.ok = status_code, body, status_code < 400

    def json(self):
        return self.body


def lost_server(server, nova, attached, **options):
    conn = SimpleNamespace(
        block_storage=SimpleNamespace(
            find_volume=lambda *a, **k: volume(True, attached),
            volumes=lambda **query: [volume(True, attached)],
        ),
        compute=nova,
        current_project_id=OUR_PROJECT,
    )
    change = attachments.ServerVolumeChange(
        conn,
        volume="data",
        server=server,
        state="absent",
        wait=True,
        timeout=30,
        abandoned_after=300,
        **options,
    )
    return change, change.plan(change.read())


def test_a_stopped_server_is_read_as_powered_off_and_detached_through_nova():
    nova = FakeNova([("s1", "db-1", "SHUTOFF", 4), ("s2", "db-2", "ACTIVE", 1)])
    change, plan = lost_server("db-1", nova, ["s1", "s2"])
    assert change.server_state == {
        "status": "SHUTOFF",
        "power_state": "shutdown",
        "task_state": None,
        "powered_off": True,
        "deleted": False,
    }
    assert [step.says for step in plan.steps] == ["detach s1; attach none"]
    _change, plan = lost_server("db-1", nova, ["s1", "s2"], require_powered_off=True)
    assert len(plan.steps) == 1
    change, _plan = lost_server("db-2", nova, ["s1", "s2"])
    assert change.server_state["powered_off"] is False


def test_a_shelved_and_offloaded_server_counts_as_powered_off():
    # No host holds a guest of it; Nova gives it no power state (0) and detaches its volumes.
    nova = FakeNova([("s1", "db-1", "SHELVED_OFFLOADED", 0), ("s2", "db-2", "ACTIVE", 1)])
    change, plan = lost_server("db-1", nova, ["s1", "s2"], require_powered_off=True)
    assert change.server_state["powered_off"] is True
    assert [step.says for step in plan.steps] == ["detach s1; attach none"]


@pytest.mark.parametrize(
    "live",
    [
        ("s1", "db-1", "ACTIVE", 1),  # running
        ("s1", "db-1", "SHUTOFF", 4, "powering-on"),  # a start under way (a fence's "on")
        ("s1", "db-1", "ERROR", 4),  # Nova refuses its detach; its state says little
    ],
)
def test_a_server_that_may_run_is_not_detached_when_it_must_be_off(live):
    nova = FakeNova([live])
    with pytest.raises(ModuleFailure) as failure:
        lost_server("db-1", nova, ["s1"], require_powered_off=True)
    assert "server s1 is not powered off now (Nova: status %s" % live[2] in failure.value.msg
    assert "Nothing was changed" in failure.value.msg


def test_a_deleted_server_lets_go_through_cinder_only_when_its_host_terminated_it():
    nova = FakeNova([("s2", "db-2", "ACTIVE", 1)], deleted={"s1": "db-1"}, terminated={"s1"})
    for named in ("s1", "db-1"):
        change, plan = lost_server(named, nova, ["s1", "s2"])
        assert change.server_id == "s1" and change.server_state["deleted"] is True
        assert [step.says for step in plan.steps] == [
            "delete Cinder's attachment of deleted server s1"
        ]
    # Deleted while its compute host was down: no terminate event, its guest may still run.
    nova.terminated.clear()
    with pytest.raises(ModuleFailure) as failure:
        lost_server("s1", nova, ["s1", "s2"])
    assert "deleted while its compute host was down" in failure.value.msg
    assert "Nothing was changed" in failure.value.msg


@pytest.mark.parametrize(
    "nova",
    [
        # An admin's credentials read another project's deleted server: nothing of this project.
        FakeNova([], deleted={"s1": "db-1"}, terminated={"s1"}, foreign={"s1"}),
        # Evacuated, then deleted: the terminate is the new host's; the old one may still run it.
        FakeNova([], deleted={"s1": "db-1"}, terminated={"s1"}, evacuated={"s1"}),
    ],
)
def test_a_deleted_server_of_another_project_or_evacuated_is_not_proven_gone(nova):
    with pytest.raises(ModuleFailure) as failure:
        lost_server("s1", nova, ["s1"])
    assert "Nothing was changed" in failure.value.msg


def test_a_name_that_deleted_servers_had_ends_at_the_one_that_holds_the_volume():
    nova = FakeNova([], deleted={"s1": "db-1", "s3": "db-1"}, terminated={"s1", "s3"})
    change, plan = lost_server("db-1", nova, ["s1"])
    assert change.server_id == "s1" and len(plan.steps) == 1
    with pytest.raises(ModuleFailure) as failure:
        lost_server("db-1", nova, ["s1", "s3"])
    assert "2 deleted servers that were hold volume data (s1, s3)" in failure.value.msg
    # None holds it: whichever the name meant is deleted and has nothing to let go of.
    change, plan = lost_server("db-1", nova, [])
    assert change.server_id is None and change.server_state["deleted"] and not plan.steps
    nova.terminated.discard("s3")
    with pytest.raises(ModuleFailure, match="server s3 is not one Nova shows"):
        lost_server("db-1", nova, [])


def test_an_id_nova_never_deleted_here_is_refused():
    nova = FakeNova([("s2", "db-2", "ACTIVE", 1)])
    with pytest.raises(ModuleFailure, match="no server named or with ID s9"):
        lost_server("s9", nova, ["s2"])
    # Cinder holds an attachment of it (another project's server, a typo'd record): Nova shows
    # no delete of it here, so nothing proves that no guest of it runs.
    with pytest.raises(ModuleFailure) as failure:
        lost_server("s9", nova, ["s2", "s9"])
    assert "Nova shows no delete of it in this project" in failure.value.msg
    assert "yet volume data is attached to it" in failure.value.msg


def test_deleted_servers_are_read_from_every_page_of_novas_listing():
    pages = {
        "/servers/detail": {
            "servers": [{"id": "s1", "name": "db-1", "status": "DELETED"}],
            "servers_links": [{"rel": "next", "href": "/servers/detail?marker=s1"}],
        },
        "/servers/detail?marker=s1": {
            "servers": [
                {"id": "s2", "name": "db-2", "status": "DELETED"},
                {"id": "s3", "name": "db-3", "status": "ACTIVE"},
            ]
        },
    }
    asked = []

    def get(path, params=None, microversion=None):
        asked.append((path, params))
        return FakeJson(200, pages[path])

    conn = SimpleNamespace(compute=SimpleNamespace(get=get))
    assert servers.deleted_names(conn) == {"s1": "db-1", "s2": "db-2"}
    assert asked[1] == ("/servers/detail?marker=s1", {}), "the next link carries the query"
    assert servers.deleted_names(conn, set()) == {} and len(asked) == 2
