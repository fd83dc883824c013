"""Faults injected while the modules are at work, not before they start.

An attach (or detach) of several servers is started in the background; once Cinder
shows the volume or one of its attachments in transition (reserved, attaching,
detaching), a service is killed (cinder-volume, nova-compute: SIGKILL, as in a crash)
or RabbitMQ is restarted. Each test shows that its fault struck: the service's processes
were gone (or RabbitMQ's port refused connections) while the run was still at work and the
volume did not show all the wanted calls done yet. The run ends within its timeout with a
message and no traceback, or succeeds; the service is started again; the same task re-run
converges: exactly one attachment per wanted server, none in transition or error, the
volume in-use, and a further run changes nothing. The controller itself (ansible-playbook
and the module it runs) is killed in the middle of attaching ten servers, and the re-run
converges exactly. Last, an attach and a detach abandoned for good by a real fault (no
state written into a database) are undone by a re-run.

Slow (RPC timeouts): the last step of `make integration`, or alone with `make reliability`.
"""

import datetime
import json
import signal
import socket
import subprocess
import sys
import time

import pytest
from harness.ansible_runner import RunningPlaybook, run_playbook
from harness.reliability_lab import Lab
from local_cloud import multiattach_probe, paths, procs

RUN_DIR = paths.run_dir()
PROCS = [str(paths.LAB), "--python", sys.executable, "procs", "--run-dir", str(RUN_DIR)]
MODULE_TIMEOUT = 25
SETTLE_TIMEOUT = 240
TRANSITIONS = ("reserved", "attaching", "detaching")
SERVERS = 4
# The re-runs' abandoned_after: the fake driver's compute service has no detach retries to
# outlast (the default, 300 s, outlasts libvirt's), and a kill may leave a transition abandoned.
REPAIR_AFTER = 12


class Service:
    """A local cloud daemon, killed and started again with the same command, log and environment."""

    def __init__(self, name):
        self.name = name
        self.record = json.loads((RUN_DIR / (name + ".proc.json")).read_text())
        with open("/proc/%d/environ" % self.record["pid"], "rb") as handle:
            self.environment = dict(
                item.decode().split("=", 1) for item in handle.read().split(b"\0") if b"=" in item
            )

    def kill(self):
        """SIGKILL to the daemon's whole process group: a crash, no graceful shutdown.
        Returns once none of its processes runs (the fault has struck)."""
        procs.signal_group(self.record["pid"], signal.SIGKILL)
        deadline = time.monotonic() + 10
        while procs.group_alive(self.record["pid"]):
            assert time.monotonic() < deadline, "%s survived SIGKILL" % self.name
            time.sleep(0.05)

    def freeze(self):
        """SIGSTOP to the daemon's process group: it neither finishes nor rolls back the work
        it holds, and takes no more."""
        procs.signal_group(self.record["pid"], signal.SIGSTOP)

    def thaw(self):
        """SIGCONT: undoes freeze (nothing when it was not frozen)."""
        procs.signal_group(self.record["pid"], signal.SIGCONT)

    def stop(self):
        subprocess.run(PROCS + ["stop", self.name], check=True, capture_output=True)

    def start(self):
        subprocess.run(
            PROCS + ["start", "--log", self.record["log"], self.name, "--", *self.record["argv"]],
            check=True,
            capture_output=True,
            env=self.environment,
        )


def make_lab(admin_cloud, server_count):
    made = Lab(admin_cloud)
    volume = made.create_volume("shared", volume_type=made.create_type().name)
    servers = [made.create_server("s%d" % i) for i in range(server_count)]
    made.wait_for_servers()
    return made, volume, {s.id: s.name for s in servers}


@pytest.fixture
def volume_and_servers(admin_cloud):
    made, volume, by_id = make_lab(admin_cloud, SERVERS)
    try:
        yield admin_cloud, volume, by_id
    finally:
        for server_id in by_id:
            multiattach_probe.detach(admin_cloud, server_id, volume.id)
        assert made.cleanup() == []


def attachments_task(volume, names, timeout, exclusive=False, **options):
    return [
        {
            "name": "attachments",
            "ignore_errors": True,
            "multiattach.cloud.volume_attachments": dict(
                {
                    "cloud": "local-admin",
                    "volume": volume.id,
                    "servers": names,
                    "exclusive": exclusive,
                    "timeout": timeout,
                },
                **options,
            ),
        }
    ]


def run_task(volume, names, exclusive=False, timeout=SETTLE_TIMEOUT, **options):
    results, _completed = run_playbook(
        attachments_task(volume, names, timeout, exclusive, **options)
    )
    return results[0]


def records(conn, volume_id, by_id):
    listing = conn.block_storage.get(
        "/attachments/detail?all_tenants=1&volume_id=%s" % volume_id, microversion="3.27"
    ).json()["attachments"]
    return sorted((by_id.get(a["instance"], a["instance"]), a["status"]) for a in listing)


def wait_for_transition(conn, volume_id, running):
    """Poll until the volume or one of its attachments is in transition; the state seen.
    None if the run ended first."""
    while running():
        volume = conn.block_storage.get_volume(volume_id)
        if volume.status in TRANSITIONS:
            return "volume %s" % volume.status
        time.sleep(0.02)
    return None


def settled_records(conn, volume_id, by_id):
    """Cinder's attachment records of the volume once none is in a transitional state."""
    deadline = time.time() + SETTLE_TIMEOUT
    while True:
        found = records(conn, volume_id, by_id)
        if not any(status in TRANSITIONS for _name, status in found):
            return found
        if time.time() > deadline:
            raise AssertionError("attachments still in transition: %s" % found)
        time.sleep(2)


def assert_converges(conn, volume, wanted, by_id, exclusive):
    """The same task re-run at once converges exactly, and once more changes nothing."""
    rerun = run_task(volume, wanted, exclusive, abandoned_after=REPAIR_AFTER)
    print("re-run: %s" % (rerun.get("msg") or rerun.get("warnings") or "converged, no warning"))
    assert not rerun.get("failed"), rerun.get("msg")
    found = settled_records(conn, volume.id, by_id)
    assert found == sorted((name, "attached") for name in wanted), found
    final = conn.block_storage.get_volume(volume.id)
    assert sorted(by_id[a["server_id"]] for a in final.attachments) == sorted(wanted)
    assert final.status == ("in-use" if wanted else "available")
    again = run_task(volume, wanted, exclusive)
    assert again.get("changed") is False, again


def refuses_connections(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return True
    return False


def restart_rabbitmq():
    """RabbitMQ stopped, shown down (its port refuses connections), started again."""
    service = Service("rabbitmq")
    service.stop()
    assert refuses_connections(5672), "RabbitMQ still answers after it was stopped"
    time.sleep(3)
    service.start()


def inject(fault):
    """Kill a daemon or restart RabbitMQ, shown to have struck; returns what starts it again."""
    if fault == "rabbitmq restarted":
        restart_rabbitmq()
        return lambda: None
    service = Service(fault.split()[0])
    service.kill()
    return service.start


def holders(conn, volume_id, by_id):
    return sorted(
        by_id[a["server_id"]] for a in conn.block_storage.get_volume(volume_id).attachments
    )


def reported_at(service):
    """A service's last report as naive UTC (Nova and Cinder give it without a zone)."""
    return datetime.datetime.fromisoformat(service.updated_at).replace(tzinfo=None)


def wait_until_services_report(conn, since, timeout=180):
    """Every Nova and Cinder service is up and has reported after SINCE (UTC); seconds waited.

    A RabbitMQ restart can leave nova-compute's heartbeat (an RPC call to the conductor)
    waiting up to a minute for a reply that never comes, and Nova then counts the host down
    and schedules nothing there. "up" alone is not enough: Nova says up until the last report
    is a minute old. An operator waits for fresh reports after a fault; so do the tests, or
    the next server boot fails with "No valid host"."""
    started = time.monotonic()
    since = since.replace(microsecond=0, tzinfo=None)
    while True:
        stale = [
            "%s on %s" % (svc.binary, svc.host)
            for svc in list(conn.compute.services()) + list(conn.block_storage.services())
            if svc.state != "up" or not svc.updated_at or reported_at(svc) < since
        ]
        if not stale:
            return time.monotonic() - started
        assert time.monotonic() - started < timeout, "no report since the fault: %s" % stale
        time.sleep(2)


FAULTS = ["cinder-volume killed", "nova-compute killed", "rabbitmq restarted"]


@pytest.mark.parametrize("action", ["attach", "detach"])
@pytest.mark.parametrize("fault", FAULTS)
def test_a_fault_during_the_call_fails_clearly_and_a_rerun_converges(
    volume_and_servers, fault, action
):
    conn, volume, by_id = volume_and_servers
    names = sorted(by_id.values())
    if action == "attach":
        wanted, exclusive = names, False
    else:
        assert not run_task(volume, names).get("failed")
        wanted, exclusive = names[:1], True

    started = time.monotonic()
    run = RunningPlaybook(attachments_task(volume, wanted, MODULE_TIMEOUT, exclusive))
    seen = wait_for_transition(conn, volume.id, run.running)
    assert seen, "the run ended before Cinder showed a transition: nothing was injected"
    restart = inject(fault)
    # The fault struck while the run was at work, with calls still to make.
    still_running, held = run.running(), holders(conn, volume.id, by_id)
    results, output = run.finish()
    seconds = time.monotonic() - started
    restarted = datetime.datetime.now(datetime.timezone.utc)
    restart()
    back_up = wait_until_services_report(conn, restarted)

    result = results[0]
    print(
        "%s during %s (seen: %s; the run at work: %s, held by %s of %s wanted): %.0f s, %s; "
        "every service up %.0f s after the restart"
        % (
            fault,
            action,
            seen,
            still_running,
            held,
            wanted,
            seconds,
            result.get("msg", "succeeded"),
            back_up,
        )
    )
    assert still_running, "the run had ended when the fault struck"
    assert held != wanted, "the volume showed every call done before the fault struck"
    assert "Traceback" not in output
    assert seconds < MODULE_TIMEOUT + 30, "the module overran its timeout: %.0f s" % seconds
    if result.get("failed"):
        # What was done before the fault is reported, so the operator knows where it stands.
        assert result["msg"].strip() and "done" in result, result
    assert_converges(conn, volume, wanted, by_id, exclusive)


def test_the_controller_killed_during_an_attach_of_ten_then_a_rerun_converges(admin_cloud):
    made, volume, by_id = make_lab(admin_cloud, 10)
    names = sorted(by_id.values())
    try:
        run = RunningPlaybook(attachments_task(volume, names, SETTLE_TIMEOUT))
        # Kill once some servers hold the volume and an attach is under way.
        deadline = time.time() + 120
        while run.running() and time.time() < deadline:
            current = admin_cloud.block_storage.get_volume(volume.id)
            if len(current.attachments) >= 3 and current.status in TRANSITIONS:
                break
            time.sleep(0.02)
        assert run.running(), "the run ended before it could be killed"
        run.kill()
        held = len(admin_cloud.block_storage.get_volume(volume.id).attachments)
        print("killed with %d of 10 attached" % held)
        assert held < 10

        assert_converges(admin_cloud, volume, names, by_id, exclusive=False)
    finally:
        for server_id in by_id:
            multiattach_probe.detach(admin_cloud, server_id, volume.id)
        assert made.cleanup() == []


def abandon_the_transition(conn, volume, wanted, exclusive, by_id, freeze_first):
    """The real fault that abandons an attach or detach for good: Nova begins it and casts
    the rest to nova-compute; nova-compute is frozen (SIGSTOP), so it neither carries on nor
    rolls back what it took, then killed, and RabbitMQ restarted while it is down, which drops
    the message it had not taken yet (its queue is not durable). Then every service comes back.

    FREEZE_FIRST freezes nova-compute before the run starts, which makes the fault certain
    to strike in time: right for a detach, which Nova's API only casts to nova-compute. An
    attach cannot start that way (Nova's conductor first calls nova-compute to reserve the
    device and waits for its answer), so it is frozen the moment Cinder shows the transition,
    a race that nova-compute can win.

    Returns the transition that stayed, or None when nova-compute was quicker (the transition
    was over before it was seen, or before nova-compute was frozen)."""
    compute = Service("nova-compute")
    if freeze_first:
        compute.freeze()
    try:
        run = RunningPlaybook(attachments_task(volume, wanted, 15, exclusive))
        seen = wait_for_transition(conn, volume.id, run.running)
    except BaseException:
        compute.thaw()
        raise
    if not seen:
        compute.thaw()
        # Only possible when nova-compute ran: it finished the call before a poll saw it.
        assert not freeze_first, "the run ended before Cinder showed a transition"
        results, output = run.finish()
        assert "Traceback" not in output
        print("no transition seen; the run: %s" % results[0].get("msg", "succeeded"))
        return None
    if not freeze_first:
        compute.freeze()
    compute.kill()
    restart_rabbitmq()
    restarted = datetime.datetime.now(datetime.timezone.utc)
    compute.start()
    results, output = run.finish()
    assert "Traceback" not in output
    wait_until_services_report(conn, restarted)
    # Every service is back and reporting: a transition still there after a while is one
    # that nothing will ever finish.
    before = conn.block_storage.get_volume(volume.id)
    time.sleep(5)
    after = conn.block_storage.get_volume(volume.id)
    stuck = [
        (name, status) for name, status in records(conn, volume.id, by_id) if status in TRANSITIONS
    ]
    print(
        "seen %s; the run: %s; then volume %s, attachments in transition %s"
        % (seen, results[0].get("msg", "succeeded"), after.status, stuck)
    )
    if after.status in TRANSITIONS and (after.status, after.updated_at) == (
        before.status,
        before.updated_at,
    ):
        return after.status, stuck
    return None


def strike_until_abandoned(conn, volume, wanted, exclusive, by_id, restore, freeze_first):
    """abandon_the_transition, again after RESTORE when nova-compute was quicker (it finishes
    a fake attach in a fraction of a second): the state is the fault's, not the test's.
    With FREEZE_FIRST the first strike must do it."""
    attempts = 1 if freeze_first else 4
    for attempt in range(1, attempts + 1):
        abandoned = abandon_the_transition(conn, volume, wanted, exclusive, by_id, freeze_first)
        if abandoned:
            print("abandoned at attempt %d: %s" % (attempt, abandoned))
            return abandoned
        restored = restore()
        assert not restored.get("failed"), "the restore failed: %s" % restored.get("msg")
    raise AssertionError(
        "nova-compute finished before it was frozen, %d times: no transition was abandoned"
        % attempts
    )


def rerun_undoes_it(conn, volume, wanted, exclusive, by_id, warned):
    """The same task re-run with a short abandoned_after undoes the transition, and only
    after it has itself seen it unchanged that long."""
    started = time.monotonic()
    result = run_task(volume, wanted, exclusive, abandoned_after=REPAIR_AFTER)
    seconds = time.monotonic() - started
    print("re-run: %.0f s, %s" % (seconds, result.get("warnings")))
    assert not result.get("failed"), result.get("msg")
    assert any(warned in warning for warning in result.get("warnings", [])), result.get("warnings")
    assert seconds >= REPAIR_AFTER, "undone after %.0f s, before abandoned_after" % seconds
    assert_converges(conn, volume, wanted, by_id, exclusive)


def test_a_detach_abandoned_by_a_dead_compute_service_is_rolled_back(volume_and_servers):
    conn, volume, by_id = volume_and_servers
    names = sorted(by_id.values())
    assert not run_task(volume, names[:2]).get("failed")

    status, _stuck = strike_until_abandoned(
        conn,
        volume,
        names[:1],
        True,
        by_id,
        restore=lambda: run_task(volume, names[:2]),
        freeze_first=True,
    )

    assert status == "detaching"
    rerun_undoes_it(conn, volume, names[:1], True, by_id, "rolled back to in-use")


def test_an_attach_abandoned_by_a_dead_compute_service_is_undone_and_made_again(volume_and_servers):
    conn, volume, by_id = volume_and_servers
    names = sorted(by_id.values())
    assert not run_task(volume, names[:1]).get("failed")

    status, stuck = strike_until_abandoned(
        conn,
        volume,
        names[:2],
        False,
        by_id,
        restore=lambda: run_task(volume, names[:1], exclusive=True),
        freeze_first=False,
    )

    assert status in ("reserved", "attaching") and stuck == [(names[1], status)], stuck
    rerun_undoes_it(conn, volume, names[:2], False, by_id, "abandoned by its compute service")
