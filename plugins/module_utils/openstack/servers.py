# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Servers by name or ID, listed once."""

from __future__ import annotations

from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure


class ServerIndex:
    """Every server visible to these credentials, listed once; resolves names and IDs."""

    def __init__(self, conn, all_projects=False):
        query = {"all_projects": True} if all_projects else {}
        self.servers = list(conn.compute.servers(details=False, **query))
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
