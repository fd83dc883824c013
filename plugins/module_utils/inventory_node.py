# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which inventory host a day-2 playbook's `node` names: its inventory name, its OpenStack
server name (host variable openstack_server_name, default the inventory name) or its server
ID (host variable openstack_server_id, or the volume's attachment to that server).

Every way must end at the same host: the playbooks read and unmount THAT host before they
detach anything, so a name that resolves to no host, or to two, is refused.
"""

from __future__ import annotations


class InventoryNodeError(Exception):
    pass


def server_name(hostvars, host):
    return hostvars[host].get("openstack_server_name") or host


def _matches(hostvars, host, node, attachment_servers):
    names = {host, server_name(hostvars, host)}
    server_id = hostvars[host].get("openstack_server_id")
    if server_id:
        names.add(server_id)
    ids = {server for server, name in attachment_servers.items() if name in names or server == server_id}
    return node in names or node in ids


def inventory_node(hostvars, hosts, node, attachments, required=True):
    """{host, server (the ID Nova knows, or the name), attached} for NODE among HOSTS;
    ATTACHMENTS: the shared volume's (volume_info's), each with server_id and server_name.
    Not REQUIRED: None when no host matches (a server ID that only Nova knows yet)."""
    node = str(node or "").strip()
    if not node:
        raise InventoryNodeError("say which server with -e node=NAME (its inventory name, OpenStack "
                                 "server name or server ID)")
    attachment_servers = {a.get("server_id"): a.get("server_name") for a in attachments or []}
    found = [host for host in hosts if _matches(hostvars, host, node, attachment_servers)]
    if len(found) > 1:
        raise InventoryNodeError("node=%s names %d inventory hosts (%s): name one by its inventory name"
                                 % (node, len(found), ", ".join(found)))
    if not found and not required:
        return None
    if not found:
        held = node in attachment_servers or node in attachment_servers.values()
        raise InventoryNodeError(
            "node=%s is no inventory host, nor the openstack_server_name or openstack_server_id of one%s. "
            "The playbook must reach the server to unmount the filesystem before anything is "
            "detached: add it to the inventory (with openstack_server_name when its OpenStack name "
            "differs), then run again" % (node, "; the volume IS attached to that server" if held else ""))
    host = found[0]
    known = {host, server_name(hostvars, host), hostvars[host].get("openstack_server_id")}
    server = next((server for server, name in attachment_servers.items() if server in known or name in known),
                  None)
    return dict(host=host, server=server or hostvars[host].get("openstack_server_id") or server_name(hostvars, host),
                attached=server is not None)
