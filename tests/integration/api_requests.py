"""Count the API requests the services served, from their own uWSGI request logs."""
import re
from collections import Counter

from ansible_runner import ROOT

LOGS = {"compute": "nova-api.log", "block-storage": "cinder-api.log",
        "identity": "keystone.log", "placement": "placement-api.log", "network": "neutron-api.log"}
REQUEST_LINE = re.compile(r"\] (GET|POST|PUT|PATCH|DELETE|HEAD) (\S+) => generated")


class RequestCounter:
    """Counter of (service, method, path) for the requests served since start()."""

    def __init__(self, services=("compute", "block-storage")):
        self.services = services
        self.offsets = {}

    def _path(self, service):
        return ROOT / ".local-cloud" / "log" / LOGS[service]

    def start(self):
        self.offsets = {s: self._path(s).stat().st_size for s in self.services}
        return self

    def count(self):
        found = Counter()
        for service in self.services:
            with open(self._path(service), "rb") as handle:
                handle.seek(self.offsets[service])
                for line in handle.read().decode(errors="replace").splitlines():
                    match = REQUEST_LINE.search(line)
                    if match:
                        path = re.sub(r"[0-9a-f]{8}-[0-9a-f-]{27}", "ID", match.group(2))
                        found[(service, match.group(1), path.split("?")[0])] += 1
        return found
