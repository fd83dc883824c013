# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Servers by name or ID, listed once; a server's power state, and whether a server Nova no
longer shows was deleted by this project and terminated by its compute host."""

from __future__ import annotations

from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.listing import every_page
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.microversions import (
    COMPUTE_ACTION_EVENTS,
)

# Nova's power states (OS-EXT-STS:power_state), as the hypervisor reports them.
POWER_STATES = {
    0: "nostate",
    1: "running",
    3: "paused",
    4: "shutdown",
    6: "crashed",
    7: "suspended",
}
# A guest in these runs nothing: it cannot write to a disk.
POWERED_OFF = ("shutdown", "crashed")
# Shelved and offloaded: no host holds a guest of it (its power state is then "nostate").
OFFLOADED = ("SHELVED_OFFLOADED",)
TERMINATED = "compute_terminate_instance"
# A server rebuilt on another host while its own was out of reach: the terminate that follows
# is the new host's.
MOVED_AWAY = ("evacuate",)
# Listing servers changed since then shows the deleted ones too (Nova keeps their records
# until an admin archives them).
EVER = "1970-01-01T00:00:00Z"


class ServerIndex:
    """Every server visible to these credentials, listed once; resolves names and IDs.
    DETAILS: the listing with each server's status and power state (the same one request)."""

    def __init__(self, conn, all_projects=False, details=False):
        query = {"all_projects": True} if all_projects else {}
        self.servers = list(conn.compute.servers(details=details, **query))
        self.names = {server.id: server.name for server in self.servers}

    def resolve(self, names_or_ids):
        """{requested: server ID}; fails naming the unknown and the ambiguous ones."""
        resolved, unknown, ambiguous = {}, [], []
        for wanted in names_or_ids:
            if wanted in self.names:
                resolved[wanted] = wanted
                continue
            matches = [server.id for server in self.servers if server.name == wanted]
            if len(matches) == 1:
                resolved[wanted] = matches[0]
            elif matches:
                ambiguous.append("%s (%s)" % (wanted, ", ".join(sorted(matches))))
            else:
                unknown.append(wanted)
        problems = []
        if unknown:
            problems.append("no server named or with ID %s" % ", ".join(sorted(unknown)))
        if ambiguous:
            problems.append(
                "more than one server is named %s: give IDs instead" % "; ".join(ambiguous)
            )
        if problems:
            raise ModuleFailure("; ".join(problems))
        return resolved

    def state(self, server_id):
        """{status, power_state, task_state, powered_off, deleted} of a listed server (a
        detailed index). Powered off: shut down or crashed, and Nova neither in a task on it
        (a start under way) nor holding it in ERROR (whose detach Nova refuses)."""
        server = next(server for server in self.servers if server.id == server_id)
        power = POWER_STATES.get(server.power_state, "unknown")
        off = power in POWERED_OFF or server.status in OFFLOADED
        powered_off = off and server.status != "ERROR" and not server.task_state
        return dict(
            status=server.status,
            power_state=power,
            task_state=server.task_state,
            powered_off=powered_off,
            deleted=False,
        )


DELETED = dict(
    status="DELETED", power_state="deleted", task_state=None, powered_off=True, deleted=True
)


def deleted_names(conn, server_ids=None, all_projects=False):
    """{ID: name} of the servers Nova lists as deleted, among SERVER_IDS when given (one listing,
    none when SERVER_IDS is empty): a volume's attachment can outlive its server."""
    if server_ids is not None and not server_ids:
        return {}
    query = {"changes-since": EVER}
    if all_projects:
        query["all_projects"] = True
    return {
        server["id"]: server.get("name")
        for server in every_page(conn.compute, "/servers/detail", "servers", query)
        if server.get("status") == "DELETED" and (server_ids is None or server["id"] in server_ids)
    }


def terminated_here(conn, server_id):
    """Whether Nova answers 404 for SERVER_ID and its instance actions show that this project
    created and deleted it, that it was never evacuated, and that its compute host terminated
    it. A server of another project (even one an admin's credentials can read), an ID that
    never was, one deleted while its compute host was down (a local delete, whose guest may
    still run on that host) or one evacuated (the terminate is the new host's; the old one may
    still run it) shows no such thing."""
    shown = conn.compute.get("/servers/%s" % server_id)
    if shown.status_code != 404:
        return False
    actions = conn.compute.get(
        "/servers/%s/os-instance-actions" % server_id, microversion=COMPUTE_ACTION_EVENTS
    )
    if actions.status_code != 200:
        return False
    listed = actions.json().get("instanceActions", [])
    project = conn.current_project_id
    if not any(a.get("action") == "create" and a.get("project_id") == project for a in listed):
        return False
    if any(a.get("action") in MOVED_AWAY for a in listed):
        return False
    for action in listed:
        if action.get("action") != "delete":
            continue
        detail = conn.compute.get(
            "/servers/%s/os-instance-actions/%s" % (server_id, action.get("request_id")),
            microversion=COMPUTE_ACTION_EVENTS,
        )
        events = detail.json().get("instanceAction", {}).get("events", []) if detail.ok else []
        if any(e.get("event") == TERMINATED and e.get("result") == "Success" for e in events):
            return True
    return False
