"""Make sure the demo's servers exist (ACTIVE), or delete them.

    servers.py CLOUD ensure NAME...   create the missing ones, print JSON
    servers.py CLOUD delete NAME...   delete servers and boot volumes

The collection does not create servers: operators have them already. The demo
needs a few, so this stands in for the operator's own provisioning. Each boots
from a volume of its own (the flavor has no disk).
"""

import json
import sys

import openstack

from multiattach_probe import POLL_SECONDS

FLAVOR = "m1.tiny"
TIMEOUT = 180


def ensure(conn, names):
    flavor = conn.compute.find_flavor(FLAVOR, ignore_missing=False)
    created = []
    for name in names:
        if conn.compute.find_server(name, ignore_missing=True):
            continue
        boot = conn.block_storage.create_volume(name=name + "-boot", size=1)
        conn.block_storage.wait_for_status(boot, "available", interval=POLL_SECONDS, wait=TIMEOUT)
        conn.block_storage.set_volume_bootable_status(boot, True)
        conn.compute.create_server(
            name=name, flavor_id=flavor.id, networks="none",
            block_device_mapping_v2=[{"boot_index": 0, "uuid": boot.id, "source_type": "volume",
                                      "destination_type": "volume",
                                      "delete_on_termination": True}])
        created.append(name)
    for name in names:
        server = conn.compute.find_server(name, ignore_missing=False)
        conn.compute.wait_for_server(server, status="ACTIVE", interval=POLL_SECONDS, wait=TIMEOUT)
    return {"changed": bool(created), "created": created, "servers": names}


def delete(conn, names):
    deleted = []
    for name in names:
        server = conn.compute.find_server(name, ignore_missing=True)
        if server:
            conn.compute.delete_server(server)
            conn.compute.wait_for_delete(server, interval=POLL_SECONDS, wait=TIMEOUT)
            deleted.append(name)
        boot = conn.block_storage.find_volume(name + "-boot", ignore_missing=True)
        if boot:
            conn.block_storage.wait_for_status(boot, "available", interval=POLL_SECONDS, wait=TIMEOUT)
            conn.block_storage.delete_volume(boot)
    return {"changed": bool(deleted), "deleted": deleted}


def main():
    cloud, action, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    conn = openstack.connect(cloud=cloud)
    result = ensure(conn, names) if action == "ensure" else delete(conn, names)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
