"""One run at a time changes a cluster: the lease on its first member
(plugins/module_utils/host/cluster_lock.py)."""

import json
import multiprocessing

import pytest

from ansible_collections.multiattach.cloud.plugins.module_utils.host import cluster_lock
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure


class Clock:
    def __init__(self, now=1_000_000.0):
        self.now = now

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


def lock(tmp_path, owner, clock, state="held", wait_seconds=10, lease_seconds=60):
    return cluster_lock.ClusterLockChange(
        None,
        cluster_name="lab",
        owner=owner,
        state=state,
        wait_seconds=wait_seconds,
        lease_seconds=lease_seconds,
        directory=str(tmp_path / "multiattach"),
        clock=clock,
        sleep=clock.sleep,
    )


def lease(tmp_path):
    return json.loads((tmp_path / "multiattach" / "lab.lease").read_text() or "null")


def test_a_run_takes_renews_and_lets_go_of_the_lease(tmp_path):
    clock = Clock()
    taken = lock(tmp_path, "run A", clock).run(check_mode=False)
    assert taken["held"] and taken["holder"] == "run A" and taken["waited"] == 0
    assert lease(tmp_path) == {"owner": "run A", "since": clock.now, "until": clock.now + 60}
    clock.now += 30
    lock(tmp_path, "run A", clock).run(check_mode=False)
    assert lease(tmp_path)["until"] == clock.now + 60, "renewed"
    assert lease(tmp_path)["since"] == clock.now - 30, "held since the first take"
    released = lock(tmp_path, "run A", clock, state="released").run(check_mode=False)
    assert released["holder"] is None and lease(tmp_path) is None


def test_a_second_run_waits_then_fails_naming_the_holder_and_changes_nothing(tmp_path):
    clock = Clock()
    lock(tmp_path, "ops@ctl run A (add_node)", clock).run(check_mode=False)
    with pytest.raises(ModuleFailure) as refused:
        lock(tmp_path, "run B", clock, wait_seconds=10).run(check_mode=False)
    assert "held by ops@ctl run A (add_node) (since " in refused.value.msg
    assert "waited 10 s" in refused.value.msg and "Nothing was changed" in refused.value.msg
    assert lease(tmp_path)["owner"] == "ops@ctl run A (add_node)"
    # B lets go of nothing it does not hold, and says whose it is.
    released = lock(tmp_path, "run B", clock, state="released").run(check_mode=False)
    assert lease(tmp_path)["owner"] == "ops@ctl run A (add_node)"
    assert "is held by ops@ctl run A (add_node)" in released["warnings"][0]


def test_a_lease_another_run_lets_go_of_while_waiting_is_taken(tmp_path):
    clock = Clock()
    lock(tmp_path, "run A", clock).run(check_mode=False)
    waiting = lock(tmp_path, "run B", clock, wait_seconds=30)
    original_sleep = clock.sleep

    def sleep_then_release(seconds):
        original_sleep(seconds)
        if clock.now >= 1_000_006:
            lock(tmp_path, "run A", clock, state="released").run(check_mode=False)

    waiting.sleep = sleep_then_release
    taken = waiting.run(check_mode=False)
    assert taken["holder"] == "run B" and taken["waited"] == 6


def test_a_lease_whose_holder_died_ends_by_itself(tmp_path):
    clock = Clock()
    lock(tmp_path, "run A", clock, lease_seconds=60).run(check_mode=False)
    clock.now += 61
    assert lock(tmp_path, "run B", clock).run(check_mode=False)["holder"] == "run B"


def test_check_mode_takes_nothing_and_warns_of_a_holder(tmp_path):
    clock = Clock()
    checked = lock(tmp_path, "run B", clock).run(check_mode=True)
    assert not (tmp_path / "multiattach").exists() and checked["held"]
    lock(tmp_path, "run A", clock).run(check_mode=False)
    checked = lock(tmp_path, "run B", clock).run(check_mode=True)
    assert "held by run A" in checked["warnings"][0]
    assert lease(tmp_path)["owner"] == "run A"


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"owner": " "}, "owner must name this run"),
        ({"wait_seconds": -1}, "wait_seconds must be 0 or more"),
        ({"lease_seconds": 0}, "lease_seconds 1 or more"),
    ],
)
def test_bad_options_are_refused_naming_them(tmp_path, options, expected):
    values = dict(owner="run A", wait_seconds=10, lease_seconds=60)
    values.update(options)
    with pytest.raises(ModuleFailure, match=expected):
        lock(tmp_path, clock=Clock(), **values)


def _count_under_the_lease(directory, owner, counter):
    """Take the lease, read the counter, write it plus one, let go: what two add_node runs do
    with the highest node ID."""
    import os
    import time

    def change(state):
        return cluster_lock.ClusterLockChange(
            None,
            cluster_name="lab",
            owner=owner,
            state=state,
            wait_seconds=30,
            lease_seconds=60,
            directory=directory,
            sleep=lambda seconds: time.sleep(0.01),
        )

    for unused in range(20):
        change("held").run(check_mode=False)
        with open(counter) as handle:
            value = int(handle.read())
        time.sleep(0.001)
        with open(counter + ".tmp", "w") as handle:
            handle.write(str(value + 1))
        os.replace(counter + ".tmp", counter)
        change("released").run(check_mode=False)


def test_two_processes_never_hold_the_lease_at_once(tmp_path):
    counter = tmp_path / "highest-id"
    counter.write_text("0")
    workers = [
        multiprocessing.Process(
            target=_count_under_the_lease,
            args=(str(tmp_path / "multiattach"), "run %d" % n, str(counter)),
        )
        for n in range(2)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [worker.exitcode for worker in workers] == [0, 0]
    assert counter.read_text() == "40", "no increment was lost"
