"""The pipelined floor retries Nova's one-at-a-time refusals, and only those."""

import pytest
from bench import floor as floor_script
from openstack import exceptions


class Volume:
    def __init__(self, holders, status="in-use"):
        self.attachments = [{"server_id": server_id} for server_id in holders]
        self.status = status


def make_floor(monkeypatch, answers):
    floor = floor_script.Floor(conn=None, volume_id="v", action="attach")
    calls = []

    def call(server_id):
        calls.append(server_id)
        floor.counts["writes"] += 1
        answer = answers.pop(0)
        if answer:
            raise answer

    monkeypatch.setattr(floor, "call", call)
    monkeypatch.setattr(floor_script.time, "sleep", lambda seconds: None)
    return floor, calls


def test_a_refusal_while_cinder_works_is_retried_and_counted(monkeypatch):
    busy = exceptions.BadRequestException(
        message="Invalid volume: Volume v status must be available or in-use or downloading "
        "to reserve, but the current status is attaching."
    )
    floor, calls = make_floor(monkeypatch, [None, busy, busy, None])
    reads = iter([Volume(["s1"], "attaching"), Volume(["s1", "s2"])])
    monkeypatch.setattr(floor, "read_volume", lambda: next(reads))

    floor.pipelined(Volume([]), ["s1", "s2"])

    assert calls == ["s1", "s2", "s2", "s2"]
    assert floor.counts == {"reads": 0, "writes": 4, "refused": 2}


def test_any_other_refusal_ends_the_run(monkeypatch):
    other = exceptions.BadRequestException(message="Invalid input for field/attribute volumeId")
    floor, _calls = make_floor(monkeypatch, [other])

    with pytest.raises(exceptions.BadRequestException):
        floor.pipelined(Volume([]), ["s1"])


def test_the_wait_ends_when_cinder_shows_every_server(monkeypatch):
    floor, _calls = make_floor(monkeypatch, [])
    reads = iter(
        [Volume(["s1"], "attaching"), Volume(["s1", "s2"], "attaching"), Volume(["s1", "s2"])]
    )
    monkeypatch.setattr(floor, "read_volume", lambda: next(reads))

    floor.wait(Volume([]), {"s1", "s2"})

    assert next(reads, None) is None


def test_the_paced_form_calls_again_once_the_status_says_cinder_takes_it(monkeypatch):
    floor, calls = make_floor(monkeypatch, [None, None])
    sleeps = []
    monkeypatch.setattr(floor_script.time, "sleep", sleeps.append)
    reads = iter([Volume(["s1"], "attaching"), Volume(["s1"]), Volume(["s1", "s2"])])
    monkeypatch.setattr(floor, "read_volume", lambda: next(reads))

    floor.paced(Volume([]), ["s1", "s2"])

    assert calls == ["s1", "s2"] and next(reads, None) is None
    assert sleeps[:2] == [floor_script.FIRST_READ, floor_script.FOLLOW_UPS[0]]


def test_the_parallel_form_sends_every_call_and_retries_each_refusal(monkeypatch):
    busy = exceptions.BadRequestException(
        message="Invalid volume: Unable to detach volume. Volume status must be 'in-use' and "
        "attach_status must be 'attached' to detach."
    )
    floor = floor_script.Floor(conn=None, volume_id="v", action="detach")
    tries = {"s1": [None], "s2": [busy, None], "s3": [busy, busy, None]}
    calls = []

    def call(server_id):
        calls.append(server_id)
        floor.count("writes")
        answer = tries[server_id].pop(0)
        if answer:
            raise answer

    monkeypatch.setattr(floor, "call", call)
    monkeypatch.setattr(floor_script.time, "sleep", lambda seconds: None)
    monkeypatch.setattr(floor, "read_volume", lambda: Volume([]))

    floor.parallel(Volume(["s1", "s2", "s3"]), ["s1", "s2", "s3"])

    assert sorted(calls) == ["s1", "s2", "s2", "s3", "s3", "s3"]
    assert floor.counts == {"reads": 0, "writes": 6, "refused": 3}
