"""Apply an OpenStack config drive in a guest booted by Nova: static IPv4 addresses from
network_data.json (there is no DHCP in the local cloud's guest network), the hostname and the
SSH keys from meta_data.json. A small stand-in for cloud-init, which costs too long to start
under QEMU's TCG. Run by config-drive-apply.service when the kernel command line has
openstack.config_drive (the guest image's Glance properties set it).
"""

import ipaddress
import json
import os
import subprocess
import sys
import time

DEVICE = "/dev/disk/by-label/config-2"
MOUNT = "/run/config-drive"
NETWORK_DIR = "/run/systemd/network"
WAIT_SECONDS = 60


def read_drive():
    deadline = time.monotonic() + WAIT_SECONDS
    while not os.path.exists(DEVICE):
        if time.monotonic() > deadline:
            sys.exit("no config drive at %s after %d s" % (DEVICE, WAIT_SECONDS))
        time.sleep(0.5)
    os.makedirs(MOUNT, exist_ok=True)
    subprocess.run(["mount", "-o", "ro", DEVICE, MOUNT], check=True)
    try:
        base = os.path.join(MOUNT, "openstack", "latest")
        with open(os.path.join(base, "network_data.json"), encoding="utf-8") as handle:
            network = json.load(handle)
        with open(os.path.join(base, "meta_data.json"), encoding="utf-8") as handle:
            meta = json.load(handle)
    finally:
        subprocess.run(["umount", MOUNT], check=False)
    return network, meta


def write_networks(network):
    macs = {link["id"]: link["ethernet_mac_address"] for link in network.get("links", [])}
    os.makedirs(NETWORK_DIR, exist_ok=True)
    for index, net in enumerate(network.get("networks", [])):
        if net.get("type") != "ipv4":
            continue
        prefix = ipaddress.IPv4Network("0.0.0.0/" + net["netmask"]).prefixlen
        lines = [
            "[Match]",
            "MACAddress=" + macs[net["link"]],
            "",
            "[Network]",
            "Address=%s/%d" % (net["ip_address"], prefix),
        ]
        lines += [
            "Gateway=" + route["gateway"]
            for route in net.get("routes", [])
            if route.get("network") == "0.0.0.0"
        ]
        path = os.path.join(NETWORK_DIR, "10-config-drive-%d.network" % index)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")


def apply_meta(meta):
    hostname = meta.get("hostname", "").split(".")[0]
    if hostname:
        subprocess.run(["hostname", hostname], check=True)
        with open("/etc/hostname", "w", encoding="utf-8") as handle:
            handle.write(hostname + "\n")
    keys = [key.strip() for key in meta.get("public_keys", {}).values()]
    if keys:
        os.makedirs("/root/.ssh", mode=0o700, exist_ok=True)
        path = "/root/.ssh/authorized_keys"
        present = []
        if os.path.exists(path):
            with open(path, encoding="utf-8") as handle:
                present = handle.read().splitlines()
        with open(path, "a", encoding="utf-8") as handle:
            for key in keys:
                if key not in present:
                    handle.write(key + "\n")
        os.chmod(path, 0o600)


def main():
    network, meta = read_drive()
    write_networks(network)
    apply_meta(meta)
    print(
        "config drive applied: %d networks, hostname %s"
        % (len(network.get("networks", [])), meta.get("hostname"))
    )


if __name__ == "__main__":
    main()
