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


def _server_names(hostvars, host):
    """What OpenStack knows the host's server by: its server name and, if recorded, its ID."""
    return {server_name(hostvars, host), hostvars[host].get("openstack_server_id")} - {None}


def _attached_server(hostvars, host, attachment_servers):
    """The ID of the host's server among the volume's attachments; None when not attached."""
    names = _server_names(hostvars, host)
    return next(
        (server for server, name in attachment_servers.items() if server in names or name in names),
        None,
    )


def _matches(hostvars, host, node, attachment_servers):
    return node in {host} | _server_names(hostvars, host) or node == _attached_server(
        hostvars, host, attachment_servers
    )


def inventory_node(hostvars, hosts, node, attachments, required=True):
    """{host, server (the ID Nova knows, or the name), attached} for NODE among HOSTS;
    ATTACHMENTS: the shared volume's (volume_info's), each with server_id and server_name.
    Not REQUIRED: None when no host matches (a server ID that only Nova knows yet)."""
    node = str(node or "").strip()
    if not node:
        raise InventoryNodeError(
            "say which server with -e node=NAME (its inventory name, OpenStack "
            "server name or server ID)"
        )
    attachment_servers = {a.get("server_id"): a.get("server_name") for a in attachments or []}
    found = [host for host in hosts if _matches(hostvars, host, node, attachment_servers)]
    if len(found) > 1:
        raise InventoryNodeError(
            "node=%s names %d inventory hosts (%s): name one by its inventory name"
            % (node, len(found), ", ".join(found))
        )
    if not found and not required:
        return None
    if not found:
        held = node in attachment_servers or node in attachment_servers.values()
        raise InventoryNodeError(
            "node=%s is no inventory host, nor the openstack_server_name or openstack_server_id of one%s. "
            "The playbook must reach the server to unmount the filesystem before anything is "
            "detached: add it to the inventory (with openstack_server_name when its OpenStack name "
            "differs), then run again"
            % (node, "; the volume IS attached to that server" if held else "")
        )
    host = found[0]
    server = _attached_server(hostvars, host, attachment_servers)
    return dict(
        host=host,
        server=server or hostvars[host].get("openstack_server_id") or server_name(hostvars, host),
        attached=server is not None,
    )
