"""Make sure the demo's servers exist (ACTIVE), or delete them.

    servers.py CLOUD ensure NAME...   create the missing ones, print JSON
    servers.py CLOUD delete NAME...   delete them

The collection does not create servers: operators have them already. The demo
needs a few, so this stands in for the operator's own provisioning: each boots
the standard way, from the local cloud's image on a flavor with a root disk.
"""

import json
import sys

import openstack

from local_cloud.multiattach_probe import POLL_SECONDS, SERVER_FLAVOR, SERVER_IMAGE

TIMEOUT = 180


def ensure(conn, names):
    flavor = conn.compute.find_flavor(SERVER_FLAVOR, ignore_missing=False)
    image = conn.image.find_image(SERVER_IMAGE, ignore_missing=False)
    created = []
    for name in names:
        if conn.compute.find_server(name, ignore_missing=True):
            continue
        conn.compute.create_server(
            name=name, image_id=image.id, flavor_id=flavor.id, networks="none"
        )
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
    return {"changed": bool(deleted), "deleted": deleted}


def main():
    cloud, action, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    conn = openstack.connect(cloud=cloud)
    result = ensure(conn, names) if action == "ensure" else delete(conn, names)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
