"""The full profile's real guests, made as a user makes servers (no admin, no forced host).

    guests.py CLOUD ensure KEY_NAME PUBLIC_KEY_FILE NAME...   key pair, server group and
                                                              servers, ACTIVE
    guests.py CLOUD delete KEY_NAME NAME...                   servers, then the key pair and
                                                              server group (KEY_NAME -: neither)
    guests.py CLOUD reboot NAME...                            hard reboot, wait for ACTIVE
    guests.py CLOUD cut NAME...                               the power cut: each server's
                                                              domain destroyed on its host
                                                              (libvirt), as a host crash does;
                                                              wait until Nova shows it SHUTOFF
                                                              or acted on since (a fence)
    guests.py CLOUD shutdown-timeout NAME                     the image property that limits
                                                              Nova's clean stop of the server
                                                              (null: nova.conf's, 60 s default)
    guests.py CLOUD actions NAME                              the server's action log (Nova's
                                                              instance actions: who did what, when)

Servers boot from the Glance guest image on flavor m1.guest in the guest network; the image's
hypervisor_type (qemu) makes the scheduler pick the libvirt host, not the fake one. The
collection does not create servers (operators have them); the VM scenario and the tests need
some, so this stands in for the operator's provisioning, as docs/playbooks.md asks of it: the
servers of one cluster in one server group with the soft-anti-affinity policy (named as the
key pair), spread over compute hosts where there are several. Prints JSON: changed, and for ensure
each server's id and address.
"""

import datetime
import json
import sys
import time

import openstack

IMAGE = "multiattach-guest"
FLAVOR = "m1.guest"
NETWORK = "guest-net"
ACTIVE_SECONDS = 300
DELETE_SECONDS = 120


def address(server):
    return server.addresses[NETWORK][0]["addr"]


def server_group(conn, name):
    """The cluster's server group (soft-anti-affinity); (group, whether it was made now)."""
    found = conn.compute.find_server_group(name, ignore_missing=True)
    if found is not None:
        return found, False
    return conn.compute.create_server_group(name=name, policy="soft-anti-affinity"), True


def ensure(conn, names, key_name, public_key):
    changed = False
    if conn.compute.find_keypair(key_name) is None:
        conn.compute.create_keypair(name=key_name, public_key=public_key.strip())
        changed = True
    group, made = server_group(conn, key_name)
    changed = changed or made
    image = conn.image.find_image(IMAGE, ignore_missing=False)
    flavor = conn.compute.find_flavor(FLAVOR, ignore_missing=False)
    network = conn.network.find_network(NETWORK, ignore_missing=False)
    for name in names:
        if conn.compute.find_server(name, ignore_missing=True) is None:
            conn.compute.create_server(
                name=name,
                image_id=image.id,
                flavor_id=flavor.id,
                networks=[{"uuid": network.id}],
                key_name=key_name,
                scheduler_hints={"group": group.id},
            )
            changed = True
    servers = {}
    for name in names:
        server = conn.compute.wait_for_server(
            conn.compute.find_server(name, ignore_missing=False), wait=ACTIVE_SECONDS
        )
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
    group = (
        None if key_name == "-" else conn.compute.find_server_group(key_name, ignore_missing=True)
    )
    if group is not None:
        conn.compute.delete_server_group(group)
    return {"changed": bool(found) or keypair is not None or group is not None}


def reboot(conn, names):
    """A hard reboot: Nova defines and starts the domain again, also after it was destroyed
    behind Nova's back (a host crash, the node-lost test)."""
    servers = [conn.compute.find_server(name, ignore_missing=False) for name in names]
    for server in servers:
        conn.compute.reboot_server(server, "HARD")
    for server in servers:
        conn.compute.wait_for_server(server, wait=ACTIVE_SECONDS)
    return {"changed": True}


def cut(conn, names):
    """Pull the plug on each server's domain behind Nova's back, as a dead host does (a stop
    through Nova is a clean shutdown: a cluster member leaves on its way down, which is no
    loss). Nova finds it off by itself (libvirt's lifecycle event) and shows it SHUTOFF, unless
    someone acted on it first (a fence's hard reboot starts it again): either ends the wait."""
    from local_cloud import libvirt_lab

    servers = [conn.compute.find_server(name, ignore_missing=False) for name in names]
    cut_at = {}
    for server in servers:
        cut_at[server.id] = datetime.datetime.now(datetime.timezone.utc).timestamp()
        libvirt_lab.destroy(server.id)
    deadline = time.monotonic() + ACTIVE_SECONDS
    waiting = list(servers)
    while waiting:
        for server in list(waiting):
            shown = conn.compute.get_server(server)
            acted = [
                action
                for action in conn.compute.server_actions(server)
                if action.user_id and started(action) >= cut_at[server.id]
            ]
            if (shown.status == "SHUTOFF" and not shown.task_state) or acted:
                waiting.remove(server)
        if waiting and time.monotonic() > deadline:
            raise SystemExit(
                "Nova shows %s neither SHUTOFF nor acted on %d s after the power cut"
                % (", ".join(server.name for server in waiting), ACTIVE_SECONDS)
            )
        time.sleep(2 if waiting else 0)
    return {"changed": True, "cut_at": cut_at}


def shutdown_timeout(conn, name):
    """The os_shutdown_timeout of the server's image (None: Nova's shutdown_timeout holds)."""
    # An admin finds other projects' servers only when asking across projects.
    server = conn.compute.find_server(name, ignore_missing=False, all_projects=True)
    image = conn.image.get_image(server.image.id)
    return {"changed": False, "os_shutdown_timeout": image.os_shutdown_timeout}


def started(action):
    return (
        datetime.datetime.fromisoformat(action.start_time.replace("Z", "+00:00"))
        .replace(tzinfo=datetime.timezone.utc)
        .timestamp()
    )


def actions(conn, name):
    """Nova's instance actions of the server, oldest first: action, user ID, start (epoch s)."""
    # An admin finds other projects' servers only when asking across projects.
    server = conn.compute.find_server(name, ignore_missing=False, all_projects=True)
    users = {}

    def user_name(user_id):
        # Only credentials that may read users (admin) name them; others see the ID alone.
        if user_id not in users:
            try:
                users[user_id] = conn.identity.get_user(user_id).name
            except openstack.exceptions.SDKException:
                users[user_id] = None
        return users[user_id]

    found = [
        {
            "action": action.action,
            "user_id": action.user_id,
            "user_name": user_name(action.user_id),
            "start": started(action),
        }
        for action in conn.compute.server_actions(server)
    ]
    return {"changed": False, "actions": sorted(found, key=lambda action: action["start"])}


def main(argv):
    if len(argv) < 3 or argv[1] not in (
        "ensure",
        "delete",
        "reboot",
        "cut",
        "shutdown-timeout",
        "actions",
    ):
        raise SystemExit(__doc__)
    conn = openstack.connect(cloud=argv[0])
    if argv[1] == "ensure":
        with open(argv[3], encoding="utf-8") as handle:
            result = ensure(conn, argv[4:], argv[2], handle.read())
    elif argv[1] == "delete":
        result = delete(conn, argv[3:], argv[2])
    elif argv[1] == "actions":
        result = actions(conn, argv[2])
    elif argv[1] == "cut":
        result = cut(conn, argv[2:])
    elif argv[1] == "shutdown-timeout":
        result = shutdown_timeout(conn, argv[2])
    else:
        result = reboot(conn, argv[2:])
    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
