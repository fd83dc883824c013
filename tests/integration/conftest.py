"""Integration tests run against the local cloud that `make integration` starts.

They never skip: without a cloud they fail and say how to start one.
"""
import os
import sys
import uuid
from pathlib import Path

import openstack
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "local_cloud"))
CLOUDS_YAML = ROOT / ".local-cloud" / "clouds.yaml"

import multiattach_probe  # noqa: E402  pylint: disable=wrong-import-position


def _connect(cloud):
    if not CLOUDS_YAML.exists() or not (ROOT / ".local-cloud" / "ready.json").exists():
        pytest.fail("the local cloud is not up: run `make cloud-up` (or `make integration`)")
    os.environ.setdefault("OS_CLIENT_CONFIG_FILE", str(CLOUDS_YAML))
    return openstack.connect(cloud=cloud)


@pytest.fixture(scope="session")
def admin_cloud():
    return _connect("local-admin")


@pytest.fixture(scope="session")
def member_cloud():
    return _connect("local-member")


@pytest.fixture(scope="module")
def lab(admin_cloud):
    """A multiattach volume, a plain volume and three ACTIVE servers, none attached."""
    probe = multiattach_probe.Probe(admin_cloud, "lab-" + uuid.uuid4().hex[:8])
    try:
        flavor = admin_cloud.compute.find_flavor("m1.tiny", ignore_missing=False)
        volume_type = probe.create_type()
        shared = probe.create_volume("shared", volume_type=volume_type.name)
        plain = probe.create_volume("plain")
        servers = [probe.create_server("s%d" % i, flavor.id) for i in range(3)]
        probe.wait_for_servers()
        yield {"shared": shared, "plain": plain, "type": volume_type.name, "servers": servers,
               "names": [s.name for s in servers], "ids": {s.name: s.id for s in servers}}
    finally:
        for volume in (probe.volumes[0], probe.volumes[1]):
            for server in probe.servers:
                multiattach_probe.detach(admin_cloud, server.id, volume.id)
        assert probe.cleanup() == []
