"""The integration tests' lab on the local cloud (connections: tests/conftest.py)."""

import uuid

import pytest
from local_cloud import multiattach_probe


@pytest.fixture(scope="module")
def lab(admin_cloud):
    """A multiattach volume, a plain volume and three ACTIVE servers, none attached."""
    probe = multiattach_probe.Probe(admin_cloud, "lab-" + uuid.uuid4().hex[:8])
    try:
        volume_type = probe.create_type()
        shared = probe.create_volume("shared", volume_type=volume_type.name)
        plain = probe.create_volume("plain")
        servers = [probe.create_server("s%d" % i) for i in range(3)]
        probe.wait_for_servers()
        yield {
            "shared": shared,
            "plain": plain,
            "type": volume_type.name,
            "servers": servers,
            "names": [s.name for s in servers],
            "ids": {s.name: s.id for s in servers},
        }
    finally:
        for volume in (probe.volumes[0], probe.volumes[1]):
            for server in probe.servers:
                multiattach_probe.detach(admin_cloud, server.id, volume.id)
        assert probe.cleanup() == []
