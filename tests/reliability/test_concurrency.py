"""Four ansible-playbook runs at once on one volume: three attach, one detaches.

Cinder takes one attach or detach of a volume at a time and refuses the others with
HTTP 400; each run must wait its turn, and the end state must be exactly what the
four runs together asked for, with no attachment left half made.
"""

import os
import threading

import pytest
from harness.ansible_runner import run_playbook
from harness.reliability_lab import Lab
from local_cloud import multiattach_probe

ROUNDS = int(os.environ.get("CONCURRENCY_ROUNDS", "3"))


@pytest.fixture(scope="module")
def four_servers(admin_cloud):
    made = Lab(admin_cloud)
    try:
        volume_type = made.create_type()
        volume = made.create_volume("shared", volume_type=volume_type.name)
        servers = [made.create_server("s%d" % i) for i in range(4)]
        made.wait_for_servers()
        yield admin_cloud, volume, servers
    finally:
        for server in made.servers:
            multiattach_probe.detach(admin_cloud, server.id, made.volumes[0].id)
        assert made.cleanup() == []


def attachment_records(conn, volume_id):
    listing = conn.block_storage.get(
        "/attachments/detail?all_tenants=1&volume_id=%s" % volume_id, microversion="3.27"
    ).json()["attachments"]
    return sorted((a["instance"], a["status"]) for a in listing)


def run_at_once(tasks_per_run):
    outcomes = [None] * len(tasks_per_run)

    def run(index):
        results, completed = run_playbook(tasks_per_run[index])
        outcomes[index] = (results, completed)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(tasks_per_run))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


@pytest.mark.parametrize("round_number", range(ROUNDS))
def test_three_attaches_and_one_detach_at_once_end_exactly_as_asked(four_servers, round_number):
    conn, volume, servers = four_servers
    names = [s.name for s in servers]
    # Start: only the server to detach holds the volume.
    start = run_playbook(
        [
            {
                "name": "start",
                "multiattach.cloud.volume_attachments": {
                    "cloud": "local-admin",
                    "volume": volume.id,
                    "servers": [names[0]],
                    "exclusive": True,
                },
            }
        ]
    )
    assert not start[0][0].get("failed"), start[0][0].get("msg")

    def server_volume(name, state):
        return [
            {
                "name": "%s %s" % (state, name),
                "multiattach.cloud.server_volume": {
                    "cloud": "local-admin",
                    "volume": volume.id,
                    "server": name,
                    "state": state,
                    "timeout": 240,
                },
            }
        ]

    runs = [
        server_volume(names[1], "present"),
        server_volume(names[2], "present"),
        [
            {
                "name": "attach %s" % names[3],
                "multiattach.cloud.volume_attachments": {
                    "cloud": "local-admin",
                    "volume": volume.id,
                    "servers": [names[3]],
                    "timeout": 240,
                },
            }
        ],
        server_volume(names[0], "absent"),
    ]
    if round_number % 2:
        runs.reverse()  # the detach starts first

    outcomes = run_at_once(runs)

    failures = [
        results[0].get("msg") for results, _completed in outcomes if results[0].get("failed")
    ]
    assert failures == []
    final = conn.block_storage.get_volume(volume.id)
    by_id = {s.id: s.name for s in servers}
    assert sorted(by_id[a["server_id"]] for a in final.attachments) == sorted(names[1:])
    assert final.status == "in-use"
    records = attachment_records(conn, volume.id)
    assert sorted(by_id[instance] for instance, _status in records) == sorted(names[1:])
    assert {status for _instance, status in records} == {"attached"}
