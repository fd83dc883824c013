"""Count the API requests the services served, from their own uWSGI request logs."""

import re
from collections import Counter

from local_cloud import paths

LOGS = {
    "compute": "nova-api.log",
    "block-storage": "cinder-api.log",
    "identity": "keystone.log",
    "placement": "placement-api.log",
    "network": "neutron-api.log",
}
REQUEST_LINE = re.compile(r"\] (GET|POST|PUT|PATCH|DELETE|HEAD) (\S+) => generated")
STATUS = re.compile(r"\(HTTP/[\d.]+ (\d{3})\)")
# The local cloud's uWSGI log-format ends each request line with the user agent.
AGENT = re.compile(r'agent="([^"]*)"\s*$')
# What the tools under test send (the modules, openstack.cloud and the floor all
# use openstacksdk); the services' calls to each other carry other agents
# (python-cinderclient, keystonemiddleware, ...).
CLIENT_AGENT = "openstacksdk"


class RequestCounter:
    """Counter of (service, method, path) for the requests served since start().

    clients_only: count only requests sent by openstacksdk, not the services' own.
    ignore_agents: leave out requests whose user agent holds one of these (an
    observer's own connection, made with openstack.connect(app_name=...)).
    """

    def __init__(self, services=("compute", "block-storage"), clients_only=False, ignore_agents=()):
        self.services = services
        self.clients_only = clients_only
        self.ignore_agents = ignore_agents
        self.offsets = {}
        self.statuses = Counter()  # HTTP status of the requests count() found

    def _path(self, service):
        return paths.log_dir() / LOGS[service]

    def start(self):
        self.offsets = {s: self._path(s).stat().st_size for s in self.services}
        return self

    def count(self):
        found = Counter()
        self.statuses = Counter()
        for service in self.services:
            with open(self._path(service), "rb") as handle:
                handle.seek(self.offsets[service])
                for line in handle.read().decode(errors="replace").splitlines():
                    match = REQUEST_LINE.search(line)
                    agent = AGENT.search(line)
                    agent = agent.group(1) if agent else ""
                    if match and self.clients_only and CLIENT_AGENT not in agent:
                        continue
                    if match and any(ignored in agent for ignored in self.ignore_agents):
                        continue
                    if match:
                        status = STATUS.search(line)
                        self.statuses[int(status.group(1)) if status else 0] += 1
                        path = re.sub(r"[0-9a-f]{8}-[0-9a-f-]{27}", "ID", match.group(2))
                        found[(service, match.group(1), path.split("?")[0])] += 1
        return found
