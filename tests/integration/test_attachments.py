"""server_volume and volume_attachments against the local cloud: one volume, three servers."""

import threading

import pytest
from harness.ansible_runner import run_module

ATTACHMENTS = "multiattach.cloud.volume_attachments"
SERVER_VOLUME = "multiattach.cloud.server_volume"


def holders(admin_cloud, volume, lab):
    names = {v: k for k, v in lab["ids"].items()}
    current = admin_cloud.block_storage.get_volume(volume.id)
    return sorted(names.get(a["server_id"], a["server_id"]) for a in current.attachments)


def attachment_ids(admin_cloud, volume):
    return {
        a["server_id"]: a["attachment_id"]
        for a in admin_cloud.block_storage.get_volume(volume.id).attachments
    }


def test_volume_attachments_converges_adds_and_removes_only_what_differs(admin_cloud, lab):
    shared, names = lab["shared"], lab["names"]
    args = {"cloud": "local-admin", "volume": shared.name, "servers": names}

    checked = run_module(ATTACHMENTS, args, check=True, diff=True)
    assert checked["changed"] is True and len(checked["attached"]) == 3
    assert checked["diff"]["before"] == {"servers": []}
    assert holders(admin_cloud, shared, lab) == [], "check mode must not attach"

    applied = run_module(ATTACHMENTS, args)
    assert applied["changed"] is True, applied.get("msg")
    assert holders(admin_cloud, shared, lab) == sorted(names)
    assert applied["volume"]["status"] == "in-use"
    assert sorted(s["action"] for s in applied["servers"]) == ["attached"] * 3

    again = run_module(ATTACHMENTS, args)
    assert again["changed"] is False and again["attached"] == [] and again["detached"] == []

    kept = attachment_ids(admin_cloud, shared)
    narrowed = run_module(ATTACHMENTS, dict(args, servers=names[:2], exclusive=True), diff=True)
    assert narrowed["changed"] is True
    assert narrowed["detached"] == [lab["ids"][names[2]]]
    assert narrowed["diff"]["after"] == {"servers": sorted(names[:2])}
    assert holders(admin_cloud, shared, lab) == sorted(names[:2])
    after = attachment_ids(admin_cloud, shared)
    for name in names[:2]:
        assert after[lab["ids"][name]] == kept[lab["ids"][name]], "others must be untouched"
    assert admin_cloud.block_storage.get_volume(shared.id).status == "in-use"


def test_server_volume_attaches_to_an_in_use_volume_and_detaches_one_server(admin_cloud, lab):
    shared, names = lab["shared"], lab["names"]
    run_module(
        ATTACHMENTS,
        {"cloud": "local-admin", "volume": shared.name, "servers": names[:2], "exclusive": True},
    )
    args = {"cloud": "local-admin", "volume": shared.name, "server": names[2]}

    # A playbook finds the server's inventory host by these before the attachment exists.
    planned = run_module(SERVER_VOLUME, args, check=True)
    assert planned["changed"] is True and planned["attachment"] is None
    assert (planned["server_id"], planned["server_name"]) == (lab["ids"][names[2]], names[2])
    assert holders(admin_cloud, shared, lab) == sorted(names[:2]), "check mode must not attach"

    attached = run_module(SERVER_VOLUME, args)
    assert attached["changed"] is True, attached.get("msg")
    assert attached["attachment"]["server_id"] == lab["ids"][names[2]]
    assert attached["attachment"]["attachment_id"]
    assert holders(admin_cloud, shared, lab) == sorted(names)
    assert run_module(SERVER_VOLUME, args)["changed"] is False

    checked = run_module(SERVER_VOLUME, dict(args, state="absent"), check=True)
    assert checked["changed"] is True and holders(admin_cloud, shared, lab) == sorted(names)

    detached = run_module(SERVER_VOLUME, dict(args, state="absent", timeout=60))
    assert detached["changed"] is True and detached["attachment"] is None
    assert holders(admin_cloud, shared, lab) == sorted(names[:2])
    assert detached["volume"]["status"] == "in-use"
    assert run_module(SERVER_VOLUME, dict(args, state="absent"))["changed"] is False


def test_a_second_server_on_a_plain_volume_is_refused_before_any_call(admin_cloud, lab):
    plain, names = lab["plain"], lab["names"]
    first = run_module(
        SERVER_VOLUME, {"cloud": "local-admin", "volume": plain.name, "server": names[0]}
    )
    assert first["changed"] is True, first.get("msg")

    second = run_module(
        SERVER_VOLUME, {"cloud": "local-admin", "volume": plain.name, "server": names[1]}
    )
    assert second["failed"] is True
    assert "is not multiattach" in second["msg"] and names[1] in second["msg"]
    assert holders(admin_cloud, plain, lab) == [names[0]]
    run_module(
        SERVER_VOLUME,
        {"cloud": "local-admin", "volume": plain.name, "server": names[0], "state": "absent"},
    )
    assert holders(admin_cloud, plain, lab) == []


@pytest.mark.parametrize(
    "module,args,expected",
    [
        (SERVER_VOLUME, {"server": "no-such-server"}, "no server named or with ID no-such-server"),
        (ATTACHMENTS, {"servers": ["no-such-server"]}, "no server named or with ID no-such-server"),
    ],
)
def test_unknown_servers_are_named(admin_cloud, lab, module, args, expected):
    result = run_module(
        module, dict({"cloud": "local-admin", "volume": lab["shared"].name}, **args)
    )
    assert result["failed"] is True and expected in result["msg"]


def reset_status(admin_cloud, volume, status):
    response = admin_cloud.block_storage.post(
        "/volumes/%s/action" % volume.id, json={"os-reset_status": {"status": status}}
    )
    assert response.status_code == 202, response.text


@pytest.mark.parametrize("status", ["error", "maintenance", "error_extending"])
def test_a_volume_in_error_or_maintenance_fails_at_once_naming_its_status(admin_cloud, lab, status):
    plain, names = lab["plain"], lab["names"]
    reset_status(admin_cloud, plain, status)
    try:
        # a long timeout: a module that waited would hold the test for 15 minutes
        for module, args in (
            (SERVER_VOLUME, {"server": names[0]}),
            (ATTACHMENTS, {"servers": [names[0]]}),
        ):
            result = run_module(
                module, dict({"cloud": "local-admin", "volume": plain.name, "timeout": 900}, **args)
            )
            assert result["failed"] is True, result
            assert (
                "is in status %s, in which Cinder takes no attach or detach" % status
                in result["msg"]
            )
            assert (
                "another attach or detach" not in result["msg"] and "timed out" not in result["msg"]
            )
        assert holders(admin_cloud, plain, lab) == []
        assert admin_cloud.block_storage.get_volume(plain.id).status == status
    finally:
        reset_status(admin_cloud, plain, "available")


def test_an_unknown_volume_is_named(lab):
    result = run_module(
        SERVER_VOLUME,
        {"cloud": "local-admin", "volume": "no-such-volume", "server": lab["names"][0]},
    )
    assert result["failed"] is True and "'no-such-volume' does not exist" in result["msg"]


def test_concurrent_runs_on_one_volume_all_succeed(admin_cloud, lab):
    """Cinder refuses a concurrent attach with HTTP 400; each run waits its turn."""
    shared, names = lab["shared"], lab["names"]
    run_module(
        ATTACHMENTS,
        {"cloud": "local-admin", "volume": shared.name, "servers": [], "exclusive": True},
    )
    assert holders(admin_cloud, shared, lab) == []
    results = {}

    def attach(name):
        results[name] = run_module(
            SERVER_VOLUME,
            {"cloud": "local-admin", "volume": shared.name, "server": name, "timeout": 120},
        )

    threads = [threading.Thread(target=attach, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert {n: r.get("msg") for n, r in results.items() if r.get("failed")} == {}
    assert holders(admin_cloud, shared, lab) == sorted(names)
    assert len(admin_cloud.block_storage.get_volume(shared.id).attachments) == 3
