# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which inventory host a day-2 playbook's `node` names: its inventory name, its OpenStack
server name (host variable openstack_server_name, default the inventory name) or its server
ID (host variable openstack_server_id, or the volume's attachment to that server).

Every way must end at the same host: the playbooks read and unmount THAT host before they
detach anything, so a name that resolves to no host, or to two, is refused. An ID beats a name:
a host with a recorded openstack_server_id is that server whatever its name; a name that two
servers holding the volume share is refused, naming both. The host itself then confirms the
server it is (clustered_fs_leave reads its own Nova UUID) before anything is changed.
"""

from __future__ import annotations

import re

UUID = re.compile(r"^[0-9a-fA-F]{8}-?([0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}$")


class InventoryNodeError(Exception):
    pass


def server_name(hostvars, host):
    return hostvars[host].get("openstack_server_name") or host


def _recorded_id(hostvars, host):
    """The host's openstack_server_id as Nova writes IDs (lower case), or None."""
    return str(hostvars[host].get("openstack_server_id") or "").strip().lower() or None


def _candidates(hostvars, host, attachment_servers, claimed):
    """The IDs the host's server may have among the volume's attachments: its recorded
    openstack_server_id alone when the inventory records one (an ID beats any name), else every
    attachment whose server has the host's OpenStack name and whose ID no other host records
    (two when two servers share the name)."""
    recorded = _recorded_id(hostvars, host)
    if recorded:
        return [recorded]
    name = server_name(hostvars, host)
    return sorted(
        server
        for server, named in attachment_servers.items()
        if named == name and server not in claimed
    )


def _claimed(hostvars, hosts):
    return {_recorded_id(hostvars, host) for host in hosts} - {None}


def _matches(hostvars, host, node, attachment_servers, claimed):
    names = {host, server_name(hostvars, host), hostvars[host].get("openstack_server_id")}
    return (
        node in names
        or node.lower() == _recorded_id(hostvars, host)
        or node.lower() in _candidates(hostvars, host, attachment_servers, claimed)
    )


def _server_of(hostvars, host, node, attachment_servers, claimed):
    """The one server ID the host's server has among the attachments; None when not attached.
    A name two attached servers share resolves to neither, unless NODE is one of their IDs."""
    candidates = _candidates(hostvars, host, attachment_servers, claimed)
    attached = [server for server in candidates if server in attachment_servers]
    if len(attached) > 1 and node.lower() in attached:
        return node.lower()
    if len(attached) > 1:
        raise InventoryNodeError(
            "%s's OpenStack name %s is shared by %d servers that hold the volume (%s): the name "
            "cannot say which of them is %s. Name the server by its ID (-e node=ID), or record "
            "openstack_server_id for %s in the inventory"
            % (
                host,
                server_name(hostvars, host),
                len(attached),
                ", ".join(attached),
                host,
                host,
            )
        )
    return attached[0] if attached else None


def inventory_node(hostvars, hosts, node, attachments, required=True):
    """{host, server (the ID Nova knows, or the name), server_id (the ID or None), attached}
    for NODE among HOSTS;
    ATTACHMENTS: the shared volume's (volume_info's), each with server_id and server_name.
    Not REQUIRED: None when no host matches (a server ID that only Nova knows yet)."""
    node = str(node or "").strip()
    if not node:
        raise InventoryNodeError(
            "say which server with -e node=NAME (its inventory name, OpenStack "
            "server name or server ID)"
        )
    attachment_servers = {
        str(a.get("server_id") or "").lower(): a.get("server_name") for a in attachments or []
    }
    claimed = _claimed(hostvars, hosts)
    found = [host for host in hosts if _matches(hostvars, host, node, attachment_servers, claimed)]
    if len(found) > 1:
        raise InventoryNodeError(
            "node=%s names %d inventory hosts (%s): name one by its inventory name"
            % (node, len(found), ", ".join(found))
        )
    if not found and not required:
        return None
    if not found and UUID.match(node) and node.lower() not in attachment_servers:
        # An ID leads to a host only through the inventory's openstack_server_id or the
        # volume's attachment: after an earlier run detached it, the ID alone finds nothing.
        raise InventoryNodeError(
            "node=%s is no server the volume is attached to, and no inventory host records it as "
            "its openstack_server_id. When an earlier run already detached it, name it by its "
            "inventory name or OpenStack name to finish (the others then drop it from their "
            "configuration); or record openstack_server_id=%s for its host in the inventory, then "
            "run again" % (node, node.lower())
        )
    if not found:
        held = node.lower() in attachment_servers or node in attachment_servers.values()
        raise InventoryNodeError(
            "node=%s is no inventory host, nor the openstack_server_name or openstack_server_id of one%s. "
            "The playbook must reach the server to unmount the filesystem before anything is "
            "detached: add it to the inventory (with openstack_server_name when its OpenStack name "
            "differs), then run again"
            % (node, "; the volume IS attached to that server" if held else "")
        )
    host = found[0]
    server = _server_of(hostvars, host, node, attachment_servers, claimed)
    server_id = server or _recorded_id(hostvars, host)
    return dict(
        host=host,
        server=server_id or server_name(hostvars, host),
        server_id=server_id,
        attached=server is not None,
    )
