"""Reliability tests run against the local cloud, like the integration tests, and reuse their helpers."""

import pytest
from harness.reliability_lab import Lab
from local_cloud import multiattach_probe


@pytest.fixture(scope="session")
def lab(admin_cloud):
    """A multiattach volume and a plain volume held by server s0, a free server s1,
    types: multiattach, plain, multiattach+encrypted, a second multiattach."""
    made = Lab(admin_cloud)
    try:
        multiattach = made.create_type()
        plain = made.add_type("plain", {})
        encrypted = made.add_type("encrypted", {"multiattach": "<is> True"}, encrypted=True)
        other = made.add_type("other", {"multiattach": "<is> True"})
        shared = made.create_volume("shared", volume_type=multiattach.name)
        admin_cloud.block_storage.extend_volume(shared, 2)
        multiattach_probe.wait_until(
            "volume %s to grow to 2 GiB" % shared.id,
            lambda: admin_cloud.block_storage.get_volume(shared.id).size == 2,
            60,
        )
        single = made.create_volume("single", volume_type=plain.name)
        servers = [made.create_server("s%d" % i) for i in range(2)]
        made.wait_for_servers()
        for volume in (shared, single):
            multiattach_probe.attach(admin_cloud, servers[0].id, volume.id)
            multiattach_probe.wait_until(
                "volume %s in-use" % volume.id,
                lambda v=volume: admin_cloud.block_storage.get_volume(v.id).status == "in-use",
                60,
            )
        yield {
            "prefix": made.prefix,
            "shared": shared.name,
            "single": single.name,
            "multiattach_type": multiattach.name,
            "plain_type": plain.name,
            "encrypted_type": encrypted.name,
            "other_type": other.name,
            "s0": servers[0].name,
            "s1": servers[1].name,
        }
    finally:
        for volume in made.volumes[:2]:
            for server in made.servers:
                multiattach_probe.detach(admin_cloud, server.id, volume.id)
        assert made.cleanup() == []
