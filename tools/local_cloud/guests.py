"""The full profile's real guests, made as a user makes servers (no admin, no forced host).

    guests.py CLOUD ensure KEY_NAME PUBLIC_KEY_FILE NAME...   key pair and servers, ACTIVE
    guests.py CLOUD delete KEY_NAME NAME...                   servers, then the key pair
                                                              (KEY_NAME -: no key pair)
    guests.py CLOUD reboot NAME...                            hard reboot, wait for ACTIVE

Servers boot from the Glance guest image on flavor m1.guest in the guest network; the image's
hypervisor_type (qemu) makes the scheduler pick the libvirt host, not the fake one. The
collection does not create servers (operators have them); the VM scenario and the tests need
some, so this stands in for the operator's provisioning. Prints JSON: changed, and for ensure
each server's id and address.
"""
import json
import sys

import openstack

IMAGE = "multiattach-guest"
FLAVOR = "m1.guest"
NETWORK = "guest-net"
ACTIVE_SECONDS = 300
DELETE_SECONDS = 120


def address(server):
    return server.addresses[NETWORK][0]["addr"]


def ensure(conn, names, key_name, public_key):
    changed = False
    if conn.compute.find_keypair(key_name) is None:
        conn.compute.create_keypair(name=key_name, public_key=public_key.strip())
        changed = True
    image = conn.image.find_image(IMAGE, ignore_missing=False)
    flavor = conn.compute.find_flavor(FLAVOR, ignore_missing=False)
    network = conn.network.find_network(NETWORK, ignore_missing=False)
    for name in names:
        if conn.compute.find_server(name, ignore_missing=True) is None:
            conn.compute.create_server(name=name, image_id=image.id, flavor_id=flavor.id,
                                       networks=[{"uuid": network.id}], key_name=key_name)
            changed = True
    servers = {}
    for name in names:
        server = conn.compute.wait_for_server(
            conn.compute.find_server(name, ignore_missing=False), wait=ACTIVE_SECONDS)
        servers[name] = {"id": server.id, "address": address(server)}
    return {"changed": changed, "servers": servers}


def delete(conn, names, key_name):
    found = [conn.compute.find_server(name, ignore_missing=True) for name in names]
    found = [server for server in found if server is not None]
    for server in found:
        conn.compute.delete_server(server)
    for server in found:
        conn.compute.wait_for_delete(server, wait=DELETE_SECONDS)
    keypair = None if key_name == "-" else conn.compute.find_keypair(key_name)
    if keypair is not None:
        conn.compute.delete_keypair(keypair)
    return {"changed": bool(found) or keypair is not None}


def reboot(conn, names):
    """A hard reboot: Nova defines and starts the domain again, also after it was destroyed
    behind Nova's back (a host crash, the node-lost test)."""
    servers = [conn.compute.find_server(name, ignore_missing=False) for name in names]
    for server in servers:
        conn.compute.reboot_server(server, "HARD")
    for server in servers:
        conn.compute.wait_for_server(server, wait=ACTIVE_SECONDS)
    return {"changed": True}


def main(argv):
    if len(argv) < 3 or argv[1] not in ("ensure", "delete", "reboot"):
        raise SystemExit(__doc__)
    conn = openstack.connect(cloud=argv[0])
    if argv[1] == "ensure":
        with open(argv[3], encoding="utf-8") as handle:
            result = ensure(conn, argv[4:], argv[2], handle.read())
    elif argv[1] == "delete":
        result = delete(conn, argv[3:], argv[2])
    else:
        result = reboot(conn, argv[2:])
    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
