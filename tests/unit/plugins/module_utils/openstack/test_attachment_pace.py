"""Attach and detach calls at Cinder's pace: detaches asked for at once, an attach once the
volume's status says Cinder takes it, one wait for the whole set at the end,
and a failure that names what was shown done and what Nova took but was not shown yet (no
cloud)."""

import threading
from types import SimpleNamespace

import pytest

from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack import (
    attachment_worker as attachments,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack import volumes


class Response:
    def __init__(self, status_code, message=""):
        self.status_code = status_code
        self.headers = {"content-type": "application/json"}
        self.text = message
        self.content = message.encode()
        self.reason = message
        self.url = "http://compute/"

    def json(self):
        return {"badRequest": {"message": self.text}} if self.text else {}


class Cloud:
    """A volume that Cinder moves through a transition after every call Nova takes: the
    next TRANSITION_READS reads show the transition status (and calls are refused as
    Cinder refuses them), then the change is shown."""

    def __init__(self, holders=(), transition_reads=1, refusals=None):
        self.holders = list(holders)
        self.transition_reads = transition_reads
        self.refusals = refusals or {}  # server ID: HTTP answers before Nova takes the call
        self.events = []
        self.lock = threading.Lock()  # detach_at_once calls from several threads
        self.pending = None  # (server ID, action, reads left)
        self.compute = SimpleNamespace(post=self.post, delete=self.delete)
        self.block_storage = SimpleNamespace(get_volume=self.get_volume)

    def volume(self, status):
        return SimpleNamespace(
            id="v",
            name="data",
            status=status,
            updated_at="",
            attachments=[{"server_id": s} for s in self.holders],
        )

    def busy(self):
        """Whether Cinder still works on the last call; one step of its work."""
        if not self.pending:
            return False
        server_id, action, left = self.pending
        if left:
            self.pending = (server_id, action, left - 1)
            return True
        if action == "attach":
            self.holders.append(server_id)
        else:
            self.holders.remove(server_id)
        self.pending = None
        return False

    def get_volume(self, volume_id):
        self.events.append("read")
        if self.busy():
            return self.volume("attaching" if self.pending[1] == "attach" else "detaching")
        return self.volume("in-use" if self.holders else "available")

    def take(self, server_id, action):
        with self.lock:
            return self._take(server_id, action)

    def _take(self, server_id, action):
        answers = self.refusals.get(server_id)
        if answers:
            self.events.append("refused %s %s" % (action, server_id))
            return answers.pop(0)
        if self.busy():
            self.events.append("refused %s %s" % (action, server_id))
            return busy()
        self.events.append("%s %s" % (action, server_id))
        self.pending = (server_id, action, self.transition_reads)
        return Response(202)

    def post(self, path, **kwargs):
        return self.take(path.split("/")[2], "attach")

    def delete(self, path, **kwargs):
        return self.take(path.split("/")[2], "detach")


def busy():
    return Response(
        400,
        "Invalid volume: Volume v status must be available or in-use or "
        "downloading to reserve, but the current status is attaching.",
    )


@pytest.fixture(name="sleeps")
def fixture_sleeps(monkeypatch):
    sleeps = []
    monkeypatch.setattr(attachments.time, "sleep", sleeps.append)
    return sleeps


def volume(holders):
    return SimpleNamespace(id="v", name="data", attachments=[{"server_id": s} for s in holders])


def test_each_attach_waits_for_cinder_to_take_the_next_and_the_set_is_read_once(sleeps):
    cloud = Cloud(holders=["s1"], transition_reads=1)

    calls, last_seen, repairs = attachments.converge(
        cloud, volume(["s1"]), ["s2", "s3"], ["s1"], timeout=30
    )

    assert cloud.events == [
        "detach s1",
        "read",
        "read",
        "attach s2",
        "read",
        "read",
        "attach s3",
        "read",
        "read",
    ]
    assert calls == [("s1", "detached"), ("s2", "attached"), ("s3", "attached")]
    assert sorted(a["server_id"] for a in last_seen.attachments) == ["s2", "s3"]
    assert repairs == []
    # The first read after a call comes at the volume's pace, the next ones soon after.
    assert sleeps[:2] == [attachments.FIRST_READ_SECONDS, attachments.FOLLOW_UP_SECONDS[0]]


def test_detaches_are_asked_for_at_once_and_the_set_is_read_at_the_end(sleeps):
    cloud = Cloud(holders=["s1", "s2", "s3", "s4"], transition_reads=1)
    # The first two detaches meet before either is answered: one after another, the first
    # would wait alone and the meeting would break after 5 s.
    meeting, arrived, lock = threading.Barrier(2, timeout=5), [], threading.Lock()
    delete = cloud.compute.delete

    def delete_after_meeting(path, **kwargs):
        with lock:
            arrived.append(path)
            waits = len(arrived) <= 2
        if waits:
            try:
                meeting.wait()
            except threading.BrokenBarrierError:
                arrived.append("alone")
        return delete(path, **kwargs)

    cloud.compute = SimpleNamespace(post=cloud.post, delete=delete_after_meeting)

    calls, last_seen, _repairs = attachments.converge(
        cloud, volume(["s1", "s2", "s3", "s4"]), [], ["s1", "s2", "s3", "s4"], timeout=30
    )

    taken = [e for e in cloud.events if e.startswith("detach")]
    refused = [e for e in cloud.events if e.startswith("refused")]
    first_read = cloud.events.index("read")
    # Every detach taken before the volume is read at all: no read between them.
    assert sorted(taken) == ["detach s1", "detach s2", "detach s3", "detach s4"]
    assert all(e == "read" for e in cloud.events[first_read:]), cloud.events
    assert "alone" not in arrived, "the detaches were asked for one after another"
    assert [c[1] for c in calls] == ["detached"] * 4 and last_seen.attachments == []
    # A refused detach is asked for again soon, however often it was refused.
    retries = sleeps[: len(refused)]
    assert max(retries) <= attachments.DETACH_RETRY_MOST_SECONDS, sleeps


def test_detaches_at_once_then_an_attach_once_cinder_takes_it(sleeps):
    cloud = Cloud(holders=["s1", "s2"], transition_reads=1)

    calls, last_seen, _repairs = attachments.converge(
        cloud, volume(["s1", "s2"]), ["s3"], ["s1", "s2"], timeout=30
    )

    attach = cloud.events.index("attach s3")
    assert "refused attach s3" not in cloud.events
    assert cloud.events[attach - 1] == "read" and attach > cloud.events.index("detach s2")
    assert calls[-1] == ("s3", "attached")
    assert [a["server_id"] for a in last_seen.attachments] == ["s3"]


def test_the_pace_is_learned_from_the_calls(sleeps):
    cloud = Cloud(transition_reads=0)
    attachments.converge(cloud, volume([]), ["s1", "s2", "s3"], [], timeout=30)

    # Every call was done by the first read: each next first read comes a little sooner.
    assert cloud.events == ["attach s1", "read", "attach s2", "read", "attach s3", "read"]
    assert sleeps == [
        attachments.FIRST_READ_SECONDS,
        attachments.FIRST_READ_SECONDS * 0.9,
        attachments.FIRST_READ_SECONDS * 0.9 * 0.9,
    ]


def test_a_slow_volume_is_read_later_after_the_next_call(sleeps, monkeypatch):
    now = [0.0]
    monkeypatch.setattr(attachments.time, "time", lambda: now[0])
    monkeypatch.setattr(
        attachments.time, "sleep", lambda s: (sleeps.append(s), now.__setitem__(0, now[0] + s))
    )
    cloud = Cloud(transition_reads=7)
    attachments.converge(cloud, volume([]), ["s1", "s2"], [], timeout=3600)

    # s1 was found not done by 7 reads: s2's first read comes as late as the 7th.
    seventh = (
        attachments.FIRST_READ_SECONDS + sum(attachments.FOLLOW_UP_SECONDS) + volumes.POLL_SECONDS
    )
    assert sleeps[8] == pytest.approx(seventh)


def test_without_wait_the_last_call_is_not_read_after(sleeps):
    cloud = Cloud(transition_reads=1)
    calls, last_seen, _repairs = attachments.converge(
        cloud, volume([]), ["s1", "s2"], [], timeout=30, wait=False
    )

    assert cloud.events == ["attach s1", "read", "read", "attach s2"]
    assert last_seen is None and len(calls) == 2


def test_a_refusal_is_retried_soon_and_the_volume_is_read_only_when_it_lasts(sleeps, monkeypatch):
    now = [0.0]
    monkeypatch.setattr(attachments.time, "time", lambda: now[0])
    monkeypatch.setattr(
        attachments.time, "sleep", lambda s: (sleeps.append(s), now.__setitem__(0, now[0] + s))
    )
    cloud = Cloud(transition_reads=0, refusals={"s1": [busy()] * 10})
    attachments.converge(cloud, volume([]), ["s1"], [], timeout=60)

    # Refused at 0, 0.1, 0.3, 0.7, 1.5, 3.1, 5.1, 7.1, 9.1 and 11.1 s: once the refusal has
    # lasted 10 s the volume is read (is its transition abandoned?), not before.
    assert cloud.events == ["refused attach s1"] * 10 + ["read", "attach s1", "read"]
    assert sleeps[:10] == [0.1, 0.2, 0.4, 0.8, 1.6, 2.0, 2.0, 2.0, 2.0, 2.0]


def test_a_failure_names_what_was_shown_done_and_what_nova_took_but_was_not_shown(sleeps):
    refused = Response(403, "Policy doesn't allow volume:multiattach_bootable_volume")
    cloud = Cloud(transition_reads=0, refusals={"s3": [refused]})
    with pytest.raises(ModuleFailure) as failure:
        attachments.converge(cloud, volume([]), ["s1", "s2", "s3"], [], timeout=30)

    assert failure.value.result["done"] == [
        {"server_id": "s1", "action": "attached"},
        {"server_id": "s2", "action": "attached"},
    ]
    assert failure.value.result["asked"] == []
    assert "failed after attached s1, attached s2: " in failure.value.msg


def test_a_timeout_names_the_calls_nova_took_that_the_volume_does_not_show(sleeps):
    cloud = Cloud(transition_reads=10**6)
    with pytest.raises(ModuleFailure) as failure:
        attachments.converge(cloud, volume([]), ["s1", "s2"], [], timeout=0)

    assert "waiting for Cinder to finish the attach of server s1" in failure.value.msg
    assert failure.value.result["done"] == []
    assert failure.value.result["asked"] == [{"server_id": "s1", "action": "attached"}]


def test_a_detach_nova_has_nothing_for_is_done_and_shown_by_one_read(sleeps):
    cloud = Cloud(holders=[], transition_reads=0)
    cloud.compute.delete = lambda path, **kwargs: (
        cloud.events.append("gone"),
        Response(404, "not found"),
    )[1]
    calls, last_seen, _repairs = attachments.converge(cloud, volume(["s2"]), [], ["s2"], timeout=30)

    assert cloud.events == ["gone", "read"]
    assert calls == [("s2", "detached")] and last_seen.attachments == []


def test_a_call_that_an_undone_transition_rolled_back_is_made_again(sleeps):
    cloud = Cloud(holders=["s1"], transition_reads=0)
    worker = attachments.AttachmentWorker(cloud, "v", timeout=30)
    worker.asked = [("s1", "detached")]
    worker.repairs = ["volume data was left 'detaching' ... rolled back to in-use"]

    worker.wait_until_shown([("s1", "detached")])

    assert cloud.events == ["read", "detach s1", "read"]
    assert cloud.holders == []


def test_without_an_undone_transition_a_call_not_shown_is_waited_for_until_the_timeout(sleeps):
    cloud = Cloud(holders=["s1"], transition_reads=0)
    worker = attachments.AttachmentWorker(cloud, "v", timeout=0)

    with pytest.raises(
        ModuleFailure, match="timed out after 0 s waiting for the volume to show detached s1"
    ):
        worker.wait_until_shown([("s1", "detached")])
    assert cloud.events == ["read"]


def test_a_one_at_a_time_refusal_that_lasts_the_whole_timeout_is_named(sleeps):
    cloud = Cloud(transition_reads=0, refusals={"s2": [busy()] * 100})
    with pytest.raises(ModuleFailure) as failure:
        attachments.converge(cloud, volume([]), ["s1", "s2"], [], timeout=0)

    assert (
        "Cinder refused to attach server s2 for the whole timeout (0 s): another attach "
        "or detach of the volume did not end (" in failure.value.msg
    )
    assert "status must be available or in-use" in failure.value.msg
    assert failure.value.result["done"] == [{"server_id": "s1", "action": "attached"}]
