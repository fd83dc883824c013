"""The floor for many clusters: M volumes made and attached to their servers, a thread each.

    clusters_floor.py CLOUD VOLUME_TYPE PLAN_JSON

PLAN_JSON maps each volume name to the names of its servers. One server listing, then per
volume, in a thread of its own: create the volume, wait until it is available, attach its
servers at the volume's pace (floor.py's paced form), wait until Cinder shows them all.
Prints one JSON line: in-process seconds (from the first call) and the requests sent.
"""

import concurrent.futures
import json
import sys
import time

import openstack
from floor import POLL_SECONDS, Floor

SIZE_GIB = 1


def provision(conn, volume_type, name, server_ids):
    volume = conn.block_storage.create_volume(name=name, size=SIZE_GIB, volume_type=volume_type)
    floor = Floor(conn, volume.id, "attach")
    floor.count("writes")
    while volume.status != "available":
        if volume.status == "error":
            raise RuntimeError("volume %s went to error" % name)
        time.sleep(POLL_SECONDS)
        volume = floor.read_volume()
    floor.paced(volume, server_ids)
    return floor.counts


def main(cloud, volume_type, plan):
    conn = openstack.connect(cloud=cloud)
    ids = {server.name: server.id for server in conn.compute.servers(details=False)}
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(plan)) as pool:
        futures = [
            pool.submit(provision, conn, volume_type, name, [ids[s] for s in servers])
            for name, servers in plan.items()
        ]
    counts = {"reads": 1, "writes": 0, "refused": 0}
    for future in futures:
        for key, number in future.result().items():
            counts[key] += number
    print(json.dumps(dict(counts, seconds=time.monotonic() - started)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], json.loads(sys.argv[3]))
