"""shared_volumes against the local cloud: several volumes made and attached in one run, a
re-run that changes nothing, and an entry the cloud refuses making no volume at all."""

import uuid

import pytest
from harness.ansible_runner import run_module
from harness.volumes import detach_and_delete

SHARED_VOLUMES = "multiattach.cloud.shared_volumes"


@pytest.fixture
def names(admin_cloud):
    prefix = "it-sv-" + uuid.uuid4().hex[:6]
    made = [prefix + "-a", prefix + "-b"]
    yield made
    for name in made:
        # Most runs refused make nothing: only what exists is cleaned (two module runs each).
        if admin_cloud.block_storage.find_volume(name, ignore_missing=True) is not None:
            detach_and_delete(name)


def holders(admin_cloud, lab, name):
    volume = admin_cloud.block_storage.find_volume(name, ignore_missing=True)
    if volume is None:
        return None
    by_id = {v: k for k, v in lab["ids"].items()}
    return sorted(by_id.get(a["server_id"], a["server_id"]) for a in volume.attachments)


def test_several_volumes_are_made_and_held_in_one_run(admin_cloud, lab, names):
    servers = lab["names"]
    args = {
        "cloud": "local-admin",
        "volumes": [
            {"name": names[0], "size": 1, "volume_type": lab["type"], "servers": servers[:2]},
            {"name": names[1], "size": 2, "volume_type": lab["type"], "servers": [servers[2]]},
        ],
    }

    checked = run_module(SHARED_VOLUMES, args, check=True, diff=True)
    assert checked["changed"] is True, checked.get("msg")
    assert [v["created"] for v in checked["volumes"]] == [True, True]
    assert checked["diff"]["after"][names[0]]["servers"] == sorted(servers[:2])
    assert holders(admin_cloud, lab, names[0]) is None, "check mode must make nothing"

    applied = run_module(SHARED_VOLUMES, args, diff=True)
    assert applied["changed"] is True, applied.get("msg")
    assert holders(admin_cloud, lab, names[0]) == sorted(servers[:2])
    assert holders(admin_cloud, lab, names[1]) == [servers[2]]
    first, second = applied["volumes"]
    assert first["volume"]["status"] == "in-use" and second["volume"]["size"] == 2
    assert sorted(s["action"] for s in first["servers"]) == ["attached", "attached"]
    assert applied["diff"]["before"][names[1]] == {"volume": None, "servers": []}

    again = run_module(SHARED_VOLUMES, args)
    assert again["changed"] is False, again
    assert [v["changed"] for v in again["volumes"]] == [False, False]
    # Described as volume_info describes it, nothing changed or not (b613a3e returned the SDK's
    # raw volume here, its attachments without server_name).
    assert sorted(a["server_name"] for a in again["volumes"][0]["volume"]["attachments"]) == sorted(
        servers[:2]
    )

    # Exclusive with an empty list: the second volume is let go by every server.
    args["volumes"][1].update(servers=[], exclusive=True)
    released = run_module(SHARED_VOLUMES, args)
    assert released["changed"] is True, released.get("msg")
    assert released["volumes"][0]["changed"] is False
    assert released["volumes"][1]["detached"] == [lab["ids"][servers[2]]]
    assert holders(admin_cloud, lab, names[1]) == []


@pytest.mark.parametrize(
    "wrong,expected",
    [
        ({"servers": ["no-such-server-x"]}, "no server named or with ID no-such-server-x"),
        ({"volume_type": "no-such-type-x"}, "volume type 'no-such-type-x' does not exist"),
    ],
)
def test_one_refused_entry_makes_no_volume_at_all(admin_cloud, lab, names, wrong, expected):
    second = {"name": names[1], "size": 1, "volume_type": lab["type"], "servers": lab["names"][:1]}
    second.update(wrong)
    failed = run_module(
        SHARED_VOLUMES,
        {
            "cloud": "local-admin",
            "volumes": [
                {"name": names[0], "size": 1, "volume_type": lab["type"], "servers": lab["names"]},
                second,
            ],
        },
    )
    assert failed.get("failed") and "nothing was changed" in failed["msg"], failed
    assert "volume %s: %s" % (names[1], expected) in failed["msg"]
    assert "Traceback" not in failed["msg"]
    assert (
        holders(admin_cloud, lab, names[0]) is None and holders(admin_cloud, lab, names[1]) is None
    )
