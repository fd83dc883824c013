"""Deregister nova-compute services of hosts that the next profile may not start.

    forget_compute.py CLOUD HOST [HOST ...]

A compute service left registered stays down and keeps the cloud from being ready. Its
servers are deleted first, then the service, which takes its compute node and its
Placement resource provider with it. `make cloud-down` runs this while the full profile is
still up: its servers' volumes live on the RBD backend, which only that profile serves, so
Nova can detach them then and not later. Prints a JSON summary.
"""

import json
import sys
import time

import openstack

WAIT_SECONDS = 120


def forget(conn, host, done):
    services = list(conn.compute.services(binary="nova-compute", host=host))
    if not services:
        return
    servers = list(conn.compute.servers(all_projects=True, compute_host=host))
    for server in servers:
        conn.compute.delete_server(server)
    deadline = time.time() + WAIT_SECONDS
    while servers and time.time() < deadline:
        servers = list(conn.compute.servers(all_projects=True, compute_host=host))
        time.sleep(1)
    if servers:
        raise SystemExit(
            "servers on %s were not deleted within %d s (%s): their volumes are on a backend "
            "of the full profile. Run `make cloud-up CLOUD_PROFILE=full` and then `make "
            "cloud-down`, which deletes them while that backend is up"
            % (host, WAIT_SECONDS, ", ".join(s.id for s in servers))
        )
    for service in services:
        conn.compute.delete_service(service)
    done.append(host)


def main(cloud, hosts):
    conn = openstack.connect(cloud=cloud)
    done = []
    for host in hosts:
        forget(conn, host, done)
    json.dump({"changed": bool(done), "forgotten": done}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
