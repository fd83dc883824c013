"""molecule/libvirt_disk/files/lab.py replaces guests and networks an interrupted run left."""

import lab

DOMAIN = """<domain type='qemu'><name>node-1</name>
  <os><kernel>{run}/../vmlinuz</kernel><initrd>{run}/../initrd.img</initrd></os>
  <devices>
    <disk type='file' device='disk'><source file='{run}/node-1.qcow2'/><target dev='vda'/></disk>
    {extra}
    <interface type='network'><mac address='52:54:00:6d:61:01'/></interface>
  </devices></domain>"""
SHARED = (
    "<disk type='file' device='disk'><source file='{run}/shared.raw'/><target dev='vdb'/></disk>"
)
OURS = "/work/a/.cache/vm-lab/run"
OTHER = "/tmp/b/.cache/vm-lab/run"


def domain(run, extra=""):
    return DOMAIN.format(run=run, extra=extra.format(run=run))


def test_the_same_definition_is_kept():
    assert lab.same_domain(domain(OURS), domain(OURS))


def test_a_running_guest_with_our_shared_disk_hot_plugged_is_kept():
    assert lab.same_domain(domain(OURS, SHARED), domain(OURS))


def test_a_guest_of_another_checkout_is_replaced():
    assert not lab.same_domain(domain(OTHER), domain(OURS))
    assert not lab.same_domain(domain(OTHER, SHARED), domain(OURS))


def test_a_guest_holding_another_runs_shared_disk_is_replaced():
    assert not lab.same_domain(domain(OURS, SHARED.replace("{run}", OTHER)), domain(OURS))


def test_another_mac_address_is_replaced():
    assert not lab.same_domain(domain(OURS).replace("61:01", "61:09"), domain(OURS))


def test_a_network_with_another_bridge_or_hosts_is_not_ours():
    ours = lab.network_xml("lab", "virbr-a", "192.168.123.1", ["52:54:00:00:00:01=192.168.123.11"])
    assert lab.network_identity(ours) == lab.network_identity(ours)
    for other in (
        lab.network_xml("lab", "virbr-b", "192.168.123.1", ["52:54:00:00:00:01=192.168.123.11"]),
        lab.network_xml("lab", "virbr-a", "192.168.124.1", ["52:54:00:00:00:01=192.168.124.11"]),
        lab.network_xml("lab", "virbr-a", "192.168.123.1", ["52:54:00:00:00:02=192.168.123.11"]),
    ):
        assert lab.network_identity(other) != lab.network_identity(ours)
