"""Faults injected while the modules are at work, not before they start.

An attach (or detach) of several servers is started in the background; once Cinder
shows the volume or one of its attachments in transition (reserved, attaching,
detaching), a service is killed (cinder-volume, nova-compute: SIGKILL, as in a crash)
or RabbitMQ is restarted. The run ends within its timeout with a message and no
traceback, or succeeds; the service is started again; the same task re-run
converges: exactly one attachment per wanted server, none in transition or error,
the volume in-use, and a further run changes nothing. Last, the controller itself
(ansible-playbook and the module it runs) is killed in the middle of attaching ten
servers, and the re-run converges exactly.

Slow (RPC timeouts): the last step of `make integration`, or alone with `make reliability`.
"""
import datetime
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.attachments import ABANDONED_AFTER
from harness.ansible_runner import RunningPlaybook, run_playbook
from harness.reliability_lab import Lab
from local_cloud import multiattach_probe
from local_cloud import paths

RUN_DIR = paths.run_dir()
PROCS = [sys.executable, str(paths.PROCS), "--run-dir", str(RUN_DIR)]
MODULE_TIMEOUT = 40
SETTLE_TIMEOUT = 240
TRANSITIONS = ("reserved", "attaching", "detaching")
SERVERS = 4


class Service:
    """A local cloud daemon, killed and started again with the same command, log and environment."""

    def __init__(self, name):
        self.name = name
        self.record = json.loads((RUN_DIR / (name + ".proc.json")).read_text())
        with open("/proc/%d/environ" % self.record["pid"], "rb") as handle:
            self.environment = dict(item.decode().split("=", 1)
                                    for item in handle.read().split(b"\0") if b"=" in item)

    def kill(self):
        """SIGKILL to the daemon's whole process group: a crash, no graceful shutdown."""
        try:
            os.killpg(self.record["pid"], signal.SIGKILL)
        except ProcessLookupError:
            pass

    def stop(self):
        subprocess.run(PROCS + ["stop", self.name], check=True, capture_output=True)

    def start(self):
        subprocess.run(PROCS + ["start", "--log", self.record["log"], self.name, "--",
                                *self.record["argv"]], check=True, capture_output=True,
                       env=self.environment)


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


def attachments_task(volume, names, timeout, exclusive=False):
    return [{"name": "attachments", "ignore_errors": True,
             "multiattach.cloud.volume_attachments": {
                 "cloud": "local-admin", "volume": volume.id, "servers": names,
                 "exclusive": exclusive, "timeout": timeout}}]


def run_task(volume, names, exclusive=False, timeout=SETTLE_TIMEOUT):
    results, _completed = run_playbook(attachments_task(volume, names, timeout, exclusive))
    return results[0]


def records(conn, volume_id, by_id):
    listing = conn.block_storage.get(
        "/attachments/detail?all_tenants=1&volume_id=%s" % volume_id,
        microversion="3.27").json()["attachments"]
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
    rerun = run_task(volume, wanted, exclusive)
    print("re-run: %s" % (rerun.get("msg") or rerun.get("warnings") or "converged, no warning"))
    assert not rerun.get("failed"), rerun.get("msg")
    found = settled_records(conn, volume.id, by_id)
    assert found == sorted((name, "attached") for name in wanted), found
    final = conn.block_storage.get_volume(volume.id)
    assert sorted(by_id[a["server_id"]] for a in final.attachments) == sorted(wanted)
    assert final.status == ("in-use" if wanted else "available")
    again = run_task(volume, wanted, exclusive)
    assert again.get("changed") is False, again


def inject(fault):
    """Kill a daemon or restart RabbitMQ; returns what starts it again."""
    if fault == "rabbitmq restarted":
        service = Service("rabbitmq")
        service.stop()
        time.sleep(3)
        service.start()
        return lambda: None
    service = Service(fault.split()[0])
    service.kill()
    return service.start


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
        stale = ["%s on %s" % (svc.binary, svc.host)
                 for svc in list(conn.compute.services()) + list(conn.block_storage.services())
                 if svc.state != "up" or not svc.updated_at
                 or reported_at(svc) < since]
        if not stale:
            return time.monotonic() - started
        assert time.monotonic() - started < timeout, "no report since the fault: %s" % stale
        time.sleep(2)


FAULTS = ["cinder-volume killed", "nova-compute killed", "rabbitmq restarted"]


@pytest.mark.parametrize("action", ["attach", "detach"])
@pytest.mark.parametrize("fault", FAULTS)
def test_a_fault_during_the_call_fails_clearly_and_a_rerun_converges(
        volume_and_servers, fault, action):
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
    results, output = run.finish()
    seconds = time.monotonic() - started
    restarted = datetime.datetime.now(datetime.timezone.utc)
    restart()
    back_up = wait_until_services_report(conn, restarted)

    result = results[0]
    print("%s during %s (seen: %s): %.0f s, %s; every service up %.0f s after the restart"
          % (fault, action, seen, seconds, result.get("msg", "succeeded"), back_up))
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


def test_a_detach_abandoned_by_a_dead_compute_service_is_rolled_back(volume_and_servers):
    """Nova marks the volume detaching (Cinder's begin_detaching) before its compute service
    detaches; a compute service that dies then leaves it so, and Cinder refuses every further
    attach and detach. Made here directly, the way Nova's API does it, for a deterministic
    test (a kill lands there only sometimes)."""
    conn, volume, by_id = volume_and_servers
    names = sorted(by_id.values())
    assert not run_task(volume, names[:2]).get("failed")
    response = conn.block_storage.post("/volumes/%s/action" % volume.id,
                                       json={"os-begin_detaching": {}})
    assert response.status_code == 202, response.text
    assert conn.block_storage.get_volume(volume.id).status == "detaching"

    started = time.monotonic()
    results, output = run_playbook(attachments_task(volume, names[:1], SETTLE_TIMEOUT,
                                                    exclusive=True))
    result = results[0]

    assert not result.get("failed"), result.get("msg")
    assert any("rolled back to in-use" in warning for warning in result.get("warnings", [])), \
        result.get("warnings")
    assert time.monotonic() - started >= ABANDONED_AFTER - 10
    assert "Traceback" not in output.stdout + output.stderr
    assert_converges(conn, volume, names[:1], by_id, exclusive=True)


def abandon_attach(volume_id, server_id, state):
    """The state a compute service leaves when it dies after taking Nova's attach message:
    Nova's block device mapping without connection info, Cinder's attachment and the volume
    STATE (reserved, or attaching once the compute service reached Cinder), last changed 200 s
    ago. Made in the databases: a kill lands there rarely."""
    sql = """
        UPDATE cinder.volume_attachment SET attach_status='{state}', connector=NULL,
            connection_info=NULL, attached_host=NULL, mountpoint=NULL, attach_time=NULL
            WHERE volume_id='{volume}' AND instance_uuid='{server}' AND deleted=0;
        UPDATE cinder.volumes SET status='{state}',
            updated_at=UTC_TIMESTAMP() - INTERVAL 200 SECOND WHERE id='{volume}';
        UPDATE nova.block_device_mapping SET connection_info=NULL
            WHERE volume_id='{volume}' AND instance_uuid='{server}' AND deleted=0;
    """.format(state=state, volume=volume_id, server=server_id)
    subprocess.run(["mysql", "--socket", str(RUN_DIR / "mysqld.sock"), "-uroot"], input=sql,
                   text=True, check=True, capture_output=True)


@pytest.mark.parametrize("state", ["reserved", "attaching"])
def test_an_attach_abandoned_by_a_dead_compute_service_is_undone_and_made_again(
        volume_and_servers, state):
    conn, volume, by_id = volume_and_servers
    names = sorted(by_id.values())
    ids = {name: server_id for server_id, name in by_id.items()}
    assert not run_task(volume, names[:2]).get("failed")
    abandon_attach(volume.id, ids[names[1]], state)
    assert conn.block_storage.get_volume(volume.id).status == state
    assert (names[1], state) in records(conn, volume.id, by_id)

    results, output = run_playbook(attachments_task(volume, names[:2], SETTLE_TIMEOUT))
    result = results[0]

    assert not result.get("failed"), result.get("msg")
    assert any("abandoned by its compute service" in warning and ids[names[1]] in warning
               for warning in result.get("warnings", [])), result.get("warnings")
    assert "Traceback" not in output.stdout + output.stderr
    assert_converges(conn, volume, names[:2], by_id, exclusive=False)
