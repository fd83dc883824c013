"""Wait until the local cloud can serve a multiattach request, or say why not.

    wait_ready.py CLOUD STAGE [--timeout S] [--multiattach on|off]

Stages:
  conductor  nova-conductor's service row exists (nova-compute may start).
  ready      every Nova and Cinder service is up, the compute node is mapped
             to a cell and known to Placement, the Cinder pool of --backend has
             reported its capabilities (with multiattach as asked), and Neutron
             answers.
"""

import argparse
import sys
import time

import openstack
from openstack import exceptions


def compute_services(conn):
    return {svc.binary: svc for svc in conn.compute.services()}


def conductor_registered(conn, _args):
    if "nova-conductor" in compute_services(conn):
        return None
    return "nova-conductor has no service row yet"


def everything_ready(conn, args):
    compute = list(conn.compute.services())
    for binary in ("nova-conductor", "nova-scheduler", "nova-compute"):
        if binary not in {svc.binary for svc in compute}:
            return "%s is not registered" % binary
    volume_services = list(conn.block_storage.services())
    for binary in ("cinder-scheduler", "cinder-volume"):
        if binary not in {svc.binary for svc in volume_services}:
            return "%s is not registered" % binary
    # Every registered service, not one per binary: a service of a profile or backend that
    # is no longer started must have been removed (up.yml does), or it would stay down.
    for svc in compute + volume_services:
        if svc.state != "up" and svc.host not in args.not_yet:
            return "%s on %s is not up" % (svc.binary, svc.host)
    registered = {svc.host for svc in compute if svc.binary == "nova-compute"}
    # A hypervisor is listed once its host is mapped to a cell; libvirt names the node
    # after the machine, so the service's host tells which one it is.
    mapped = {
        (hyp.service_details or {}).get("host") for hyp in conn.compute.hypervisors(details=True)
    }
    for host in args.compute_host:
        if host not in registered:
            return "nova-compute on %s is not registered" % host
        if host not in mapped:
            return "compute host %s is not mapped to a cell yet" % host
    if not list(conn.placement.resource_providers()):
        return "no resource provider in Placement yet"
    pools = [
        pool
        for pool in conn.block_storage.backend_pools()
        if pool.name.split("#")[0].endswith("@" + args.backend)
    ]
    if not pools:
        return "cinder-scheduler has no capabilities of backend %s yet" % args.backend
    wanted = args.multiattach == "on"
    reported = bool(pools[0].capabilities.get("multiattach"))
    if reported != wanted:
        return "pool %s reports multiattach=%s" % (pools[0].name, reported)
    list(conn.network.networks())
    # Glance answers; the first page only (list() would page through every image).
    next(iter(conn.image.images(limit=1)), None)
    return None


STAGES = {"conductor": conductor_registered, "ready": everything_ready}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cloud")
    parser.add_argument("stage", choices=sorted(STAGES))
    parser.add_argument("--timeout", type=float, default=180)
    parser.add_argument("--multiattach", choices=("on", "off"), default="on")
    parser.add_argument(
        "--compute-host",
        action="append",
        default=[],
        help="a compute host that must be registered and mapped (repeat)",
    )
    parser.add_argument(
        "--not-yet",
        action="append",
        default=[],
        help="a host whose services may be down: it starts later (repeat)",
    )
    parser.add_argument(
        "--backend",
        default="fake-1",
        help="the Cinder backend whose pool must report (others may too)",
    )
    args = parser.parse_args()
    check = STAGES[args.stage]
    deadline = time.time() + args.timeout
    conn = openstack.connect(cloud=args.cloud)
    reason = "not checked"
    while time.time() < deadline:
        try:
            reason = check(conn, args)
        except (exceptions.SDKException, OSError) as error:
            reason = "%s: %s" % (type(error).__name__, error)
        if reason is None:
            print("%s: ok" % args.stage)
            return 0
        time.sleep(1)
    print(
        "local cloud not %s after %.0f s: %s" % (args.stage, args.timeout, reason), file=sys.stderr
    )
    return 1


if __name__ == "__main__":
    sys.exit(main())
