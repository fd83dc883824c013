"""The guest subnet's pools leave out this machine's own address on the guest network: a
subnet without a gateway hands out .1 too, and a guest given it is unreachable (SSH to it
reaches this machine), as one full-profile run found."""

import ipaddress

from local_cloud.register import guest_pools


def addresses(pools):
    return {
        ipaddress.ip_address(a)
        for pool in pools
        for a in range(
            int(ipaddress.ip_address(pool["start"])), int(ipaddress.ip_address(pool["end"])) + 1
        )
    }


def test_the_hosts_address_is_in_no_pool_and_every_other_host_address_is():
    for host in ("192.168.124.1", "192.168.124.77", "192.168.124.254"):
        pools = guest_pools("192.168.124.0/24", host)
        every = set(ipaddress.ip_network("192.168.124.0/24").hosts())
        assert addresses(pools) == every - {ipaddress.ip_address(host)}, host


def test_an_address_outside_the_subnet_leaves_the_pool_whole():
    assert guest_pools("192.168.124.0/24", "10.0.0.1") == [
        {"start": "192.168.124.1", "end": "192.168.124.254"}
    ]
