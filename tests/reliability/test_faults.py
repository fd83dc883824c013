"""A service fails during an attach: the module fails clearly within its timeout, and once
the service is back a re-run converges with one attachment per server and none left in
`attaching` or `reserved`. Slow (each fault waits out RPC timeouts): the last step of
`make integration`, or alone with `make reliability`.
"""
import json
import subprocess
import sys
import threading
import time

import pytest

from ansible_runner import ROOT, run_playbook
from reliability_lab import Lab
import multiattach_probe

RUN_DIR = ROOT / ".local-cloud" / "run"
PROCS = [sys.executable, str(ROOT / "tools" / "local_cloud" / "procs.py"), "--run-dir", str(RUN_DIR)]
MODULE_TIMEOUT = 30
SETTLE_TIMEOUT = 240


class Service:
    """A local cloud daemon, stopped and started again with the same command, log and environment."""

    def __init__(self, name):
        self.name = name
        self.record = json.loads((RUN_DIR / (name + ".proc.json")).read_text())
        with open("/proc/%d/environ" % self.record["pid"], "rb") as handle:
            self.environment = dict(item.decode().split("=", 1)
                                    for item in handle.read().split(b"\0") if b"=" in item)

    def stop(self):
        subprocess.run(PROCS + ["stop", self.name], check=True, capture_output=True)

    def start(self):
        subprocess.run(PROCS + ["start", "--log", self.record["log"], self.name, "--",
                                *self.record["argv"]], check=True, capture_output=True,
                       env=self.environment)


@pytest.fixture
def volume_and_servers(admin_cloud):
    made = Lab(admin_cloud)
    try:
        flavor = admin_cloud.compute.find_flavor("m1.tiny", ignore_missing=False)
        volume_type = made.create_type()
        volume = made.create_volume("shared", volume_type=volume_type.name)
        servers = [made.create_server("s%d" % i, flavor.id) for i in range(2)]
        made.wait_for_servers()
        yield admin_cloud, volume, [s.name for s in servers], {s.id: s.name for s in servers}
    finally:
        for server in made.servers:
            multiattach_probe.detach(admin_cloud, server.id, made.volumes[0].id)
        assert made.cleanup() == []


def attach_both(volume, names, timeout):
    started = time.monotonic()
    results, completed = run_playbook([{
        "name": "attach", "multiattach.cloud.volume_attachments": {
            "cloud": "local-admin", "volume": volume.id, "servers": names, "timeout": timeout},
        "ignore_errors": True}])
    return results[0], time.monotonic() - started, completed


def settled_records(conn, volume_id, by_id):
    """Cinder's attachment records of the volume once none is in a transitional state."""
    deadline = time.time() + SETTLE_TIMEOUT
    while True:
        listing = conn.block_storage.get(
            "/attachments/detail?all_tenants=1&volume_id=%s" % volume_id,
            microversion="3.27").json()["attachments"]
        records = sorted((by_id.get(a["instance"], a["instance"]), a["status"]) for a in listing)
        if not any(status in ("attaching", "reserved", "detaching") for _name, status in records):
            return records
        if time.time() > deadline:
            raise AssertionError("attachments still in transition: %s" % records)
        time.sleep(2)


def converge_after_recovery(conn, volume, names, by_id):
    settled_records(conn, volume.id, by_id)
    rerun, _seconds, _completed = attach_both(volume, names, SETTLE_TIMEOUT)
    assert not rerun.get("failed"), rerun.get("msg")
    records = settled_records(conn, volume.id, by_id)
    assert records == sorted((name, "attached") for name in names), records
    final = conn.block_storage.get_volume(volume.id)
    assert sorted(by_id[a["server_id"]] for a in final.attachments) == sorted(names)
    assert final.status == "in-use"
    # and once more: nothing to do
    again, _seconds, _completed = attach_both(volume, names, SETTLE_TIMEOUT)
    assert again.get("changed") is False, again


@pytest.mark.parametrize("service_name,expected", [
    ("cinder-volume", ["timed out after %d s" % MODULE_TIMEOUT, "cinder-volume"]),
    ("nova-compute", ["within the timeout (%d s)" % MODULE_TIMEOUT, "nova-compute"]),
])
def test_a_stopped_service_fails_the_attach_clearly_and_a_rerun_converges(
        volume_and_servers, service_name, expected):
    conn, volume, names, by_id = volume_and_servers
    service = Service(service_name)
    service.stop()
    try:
        result, seconds, completed = attach_both(volume, names, MODULE_TIMEOUT)
    finally:
        service.start()

    assert result.get("failed") is True, result
    for text in expected:
        assert text in result["msg"], result["msg"]
    assert "Traceback" not in completed.stdout + completed.stderr
    assert seconds < MODULE_TIMEOUT + 20, "the module overran its timeout: %.0f s" % seconds
    converge_after_recovery(conn, volume, names, by_id)


def test_rabbitmq_restarted_during_an_attach(volume_and_servers):
    conn, volume, names, by_id = volume_and_servers
    service = Service("rabbitmq")
    outcome = {}

    def attach():
        outcome["result"] = attach_both(volume, names, MODULE_TIMEOUT * 3)
    thread = threading.Thread(target=attach)
    thread.start()
    time.sleep(1.0)  # the first attach is under way
    service.stop()
    time.sleep(3)
    service.start()
    thread.join()

    result, seconds, completed = outcome["result"]
    assert "Traceback" not in completed.stdout + completed.stderr
    assert seconds < MODULE_TIMEOUT * 3 + 20
    if result.get("failed"):
        assert result["msg"], result
    converge_after_recovery(conn, volume, names, by_id)
