"""shared_volumes with a fake cloud: every entry is planned before the first write, so one
wrong entry makes no volume at all; check mode makes none; names are checked first."""

import threading
from types import SimpleNamespace

import pytest

from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.shared_volumes import (
    SharedVolumesChange,
)

MULTIATTACH = SimpleNamespace(id="t1", name="ma", extra_specs={"multiattach": "<is> True"})
PLAIN = SimpleNamespace(id="t2", name="plain", extra_specs={})
SERVERS = [SimpleNamespace(id="s%d" % n, name="node-%d" % n) for n in range(3)]


class FakeStorage:
    """Reads answer from the volumes given; every write is recorded (and refused: these
    tests must fail before any write)."""

    def __init__(self, volumes=()):
        self.existing = {volume.name: volume for volume in volumes}
        self.writes = []
        self.type_reads = 0

    def volumes(self, name=None, **unused):
        return [v for v in self.existing.values() if name in (None, v.name)]

    def find_volume(self, name_or_id, **unused):
        return next((v for v in self.existing.values() if name_or_id in (v.id, v.name)), None)

    def types(self, **unused):
        self.type_reads += 1
        return [MULTIATTACH, PLAIN]

    def get_type_encryption(self, unused):
        return None

    def get_endpoint_data(self):
        return None

    def __getattr__(self, name):
        def write(*args, **kwargs):
            self.writes.append(name)
            raise AssertionError("%s was called" % name)

        return write


def cloud(volumes=(), servers=lambda **unused: list(SERVERS)):
    return SimpleNamespace(
        authorize=lambda: "token",
        block_storage=FakeStorage(volumes),
        compute=SimpleNamespace(servers=servers),
    )


def volume_in_use(name, attachments):
    """A multiattach volume that exists, of type ma, held as ATTACHMENTS say."""
    return SimpleNamespace(
        id="v1",
        name=name,
        size=1,
        volume_type="ma",
        availability_zone="nova",
        description=None,
        metadata={},
        is_bootable=False,
        is_multiattach=True,
        status="in-use",
        attachments=attachments,
    )


def entry(name, servers, **fields):
    values = dict(name=name, size=1, volume_type="ma", servers=servers, exclusive=False)
    values.update(fields)
    return values


def change(conn, volumes):
    return SharedVolumesChange(conn, volumes=volumes, wait=True, timeout=60, abandoned_after=300)


def test_one_unknown_server_fails_every_volume_before_any_write():
    conn = cloud()
    volumes = [entry("a", ["node-0", "node-1"]), entry("b", ["node-9"])]
    with pytest.raises(ModuleFailure, match=r"nothing was changed: volume b: no server .*node-9"):
        change(conn, volumes).run(check_mode=False)
    assert conn.block_storage.writes == []


def test_a_wrong_type_or_missing_size_names_each_entry_and_writes_nothing():
    conn = cloud()
    volumes = [
        entry("a", ["node-0"], volume_type="plain"),
        entry("b", ["node-1"], size=None),
        entry("c", ["node-2"]),
    ]
    with pytest.raises(ModuleFailure) as failure:
        change(conn, volumes).run(check_mode=False)
    assert "volume a: volume type 'plain' has no extra spec" in failure.value.msg
    assert "volume b: volume 'b' does not exist, and creating it needs size" in failure.value.msg
    assert "volume c" not in failure.value.msg
    assert conn.block_storage.writes == []


def test_each_type_is_read_once_and_a_wrong_one_names_each_of_its_entries_once():
    conn = cloud()
    volumes = [entry(name, ["node-0"], volume_type="plain") for name in "ab"]
    volumes += [entry(name, ["node-1"]) for name in "cde"]
    with pytest.raises(ModuleFailure) as failure:
        change(conn, volumes).run(check_mode=False)
    assert failure.value.msg.count("volume type 'plain' has no extra spec") == 2
    assert "volume a: " in failure.value.msg and "volume b: " in failure.value.msg
    assert conn.block_storage.type_reads == 2
    assert conn.block_storage.writes == []


@pytest.mark.parametrize(
    "volumes,expected",
    [
        ([], "volumes is empty"),
        ([entry("", ["node-0"])], "entries 0 have no name"),
        ([entry("a", ["node-0"]), entry("a", ["node-1"])], "lists a more than once"),
    ],
)
def test_a_wrong_list_is_refused_where_it_is_built(volumes, expected):
    with pytest.raises(ModuleFailure, match=expected):
        change(cloud(), volumes)


def test_check_mode_reports_the_volumes_to_make_and_their_servers_and_writes_nothing():
    conn = cloud()
    reported = change(conn, [entry("a", ["node-0", "s1"]), entry("b", ["node-2"])]).run(
        check_mode=True
    )
    assert conn.block_storage.writes == []
    assert reported["changed"] is True
    first, second = reported["volumes"]
    assert (first["name"], first["created"], first["volume"]["id"]) == ("a", True, None)
    assert first["attached"] == ["s0", "s1"] and second["attached"] == ["s2"]
    assert [s["action"] for s in first["servers"]] == ["attached", "attached"]
    assert reported["diff"]["after"]["a"]["servers"] == ["node-0", "node-1"]
    assert reported["diff"]["before"]["b"] == {"volume": None, "servers": []}


def test_the_servers_the_types_and_the_volumes_are_read_at_once():
    # The server listing answers only once every volume's read has begun: read one after
    # the other, the listing would wait out its timeout and the planning would fail.
    started = threading.Barrier(3, timeout=10)
    storage = FakeStorage()

    def volumes(name=None, **unused):
        started.wait()
        return []

    def servers(**unused):
        started.wait()
        return list(SERVERS)

    storage.volumes = volumes
    conn = cloud(servers=servers)
    conn.block_storage = storage
    reported = change(conn, [entry("a", ["node-0"]), entry("b", ["node-1"])]).run(check_mode=True)
    assert [v["created"] for v in reported["volumes"]] == [True, True]


def test_a_volume_that_exists_is_read_once_for_its_plan_and_its_attachments():
    volume = volume_in_use("a", [{"server_id": "s0", "attachment_id": "x0"}])
    conn = cloud([volume])
    reads = []
    listed = conn.block_storage.volumes
    conn.block_storage.volumes = lambda **query: reads.append(query) or listed(**query)
    conn.block_storage.find_volume = lambda *args, **kwargs: reads.append(args) or volume
    planning = change(conn, [entry("a", ["node-0", "node-1"])])
    planned = planning.plan(planning.read())
    assert reads == [{"name": "a"}]
    assert planned.result["volumes"][0]["attached"] == ["s1"]


def test_an_unknown_server_of_a_volume_that_exists_is_named_once():
    volume = volume_in_use("a", [])
    conn = cloud([volume])
    with pytest.raises(ModuleFailure) as failure:
        change(conn, [entry("a", ["node-0", "node-9"])]).run(check_mode=False)
    assert failure.value.msg == "nothing was changed: volume a: no server named or with ID node-9"
    assert conn.block_storage.writes == []


def test_a_volume_that_exists_needs_no_type_or_size_to_be_detached_from_some_servers():
    volume = volume_in_use(
        "a",
        [{"server_id": "s0", "attachment_id": "x0"}, {"server_id": "s1", "attachment_id": "x1"}],
    )
    conn = cloud([volume])
    planning = change(conn, [entry("a", ["s1"], volume_type=None, size=None, exclusive=True)])
    planned = planning.plan(planning.read())
    assert conn.block_storage.type_reads == 0
    assert planned.result["volumes"][0]["detached"] == ["s0"]


def test_a_volume_to_make_without_a_type_is_refused_naming_it():
    conn = cloud()
    with pytest.raises(ModuleFailure, match=r"volume 'a' does not exist, and creating it needs "):
        change(conn, [entry("a", ["node-0"], volume_type=None)]).run(check_mode=False)
    assert conn.block_storage.writes == []
