"""libvirt side of the shared_disk scenario, through libvirt-python.

    lab.py network NAME BRIDGE GATEWAY MAC=IP...   define and start an isolated network
    lab.py domain XMLFILE                          define and start a domain
    lab.py destroy NETWORK DOMAIN...               stop and undefine them (missing ones skipped)

A network or domain of the same name that an interrupted earlier run left behind
(another checkout's disks, another bridge) is replaced, never reused: libvirt keeps
persistent definitions in /etc/libvirt, so they outlive the run that made them.

Prints {"changed": bool}.
"""

import json
import os
import sys
import time
from xml.etree import ElementTree

import libvirt

URI = "qemu:///system"
CONNECT_TIMEOUT = 30


def network_xml(name, bridge, gateway, hosts):
    root = ElementTree.Element("network")
    ElementTree.SubElement(root, "name").text = name
    ElementTree.SubElement(root, "bridge", name=bridge, stp="off")
    ip = ElementTree.SubElement(root, "ip", address=gateway, netmask="255.255.255.0")
    dhcp = ElementTree.SubElement(ip, "dhcp")
    prefix = gateway.rsplit(".", 1)[0]
    ElementTree.SubElement(dhcp, "range", start=prefix + ".100", end=prefix + ".200")
    for host in hosts:
        mac, address = host.split("=")
        ElementTree.SubElement(dhcp, "host", mac=mac, ip=address)
    return ElementTree.tostring(root, encoding="unicode")


def network_identity(xml):
    """What must match for an existing network to be this scenario's: bridge, address, hosts."""
    root = ElementTree.fromstring(xml)
    bridge = root.find("bridge")
    ip = root.find("ip")
    hosts = sorted((h.get("mac"), h.get("ip")) for h in root.iter("host"))
    return (bridge.get("name") if bridge is not None else None,
            ip.get("address") if ip is not None else None, hosts)


def domain_disks(root):
    disks = []
    for disk in root.iter("disk"):
        target, source = disk.find("target"), disk.find("source")
        disks.append((target.get("dev") if target is not None else None,
                      (source.get("file") or source.get("dev")) if source is not None else None))
    return sorted(disks, key=str)


def same_domain(existing_xml, wanted_xml):
    """Whether an existing domain is this run's: same kernel and NICs, our disks, and
    nothing else but disks from the same directory (the shared disk, hot-plugged later)."""
    existing, wanted = ElementTree.fromstring(existing_xml), ElementTree.fromstring(wanted_xml)
    for path in ("os/kernel", "os/initrd"):
        if existing.findtext(path) != wanted.findtext(path):
            return False
    if sorted(m.get("address") for m in existing.iter("mac")) != sorted(
            m.get("address") for m in wanted.iter("mac")):
        return False
    existing_disks, wanted_disks = domain_disks(existing), domain_disks(wanted)
    run_dirs = {os.path.dirname(source) for _target, source in wanted_disks if source}
    return all(d in existing_disks for d in wanted_disks) and all(
        source and os.path.dirname(source) in run_dirs for _target, source in existing_disks)


def remove_domain(dom):
    if dom.isActive():
        dom.destroy()
    dom.undefine()


def remove_network(net):
    if net.isActive():
        net.destroy()
    if net.isPersistent():
        net.undefine()


def network(conn, name, bridge, gateway, hosts):
    wanted = network_xml(name, bridge, gateway, hosts)
    changed = False
    try:
        net = conn.networkLookupByName(name)
    except libvirt.libvirtError:
        net = None
    if net is not None and network_identity(net.XMLDesc(0)) != network_identity(wanted):
        remove_network(net)
        net = None
    if net is None:
        net = conn.networkDefineXML(wanted)
        changed = True
    if not net.isActive():
        net.create()
        changed = True
    return changed


def domain(conn, xml_file):
    with open(xml_file, encoding="utf-8") as handle:
        xml = handle.read()
    name = ElementTree.fromstring(xml).findtext("name")
    changed = False
    try:
        dom = conn.lookupByName(name)
    except libvirt.libvirtError:
        dom = None
    if dom is not None:
        if not same_domain(dom.XMLDesc(libvirt.VIR_DOMAIN_XML_INACTIVE), xml):
            remove_domain(dom)
            dom = None
    if dom is None:
        dom = conn.defineXML(xml)
        changed = True
    if not dom.isActive():
        dom.create()
        changed = True
    return changed


def destroy(conn, network_name, domains):
    changed = False
    for name in domains:
        try:
            dom = conn.lookupByName(name)
        except libvirt.libvirtError:
            continue
        remove_domain(dom)
        changed = True
    try:
        net = conn.networkLookupByName(network_name)
    except libvirt.libvirtError:
        return changed
    remove_network(net)
    return True


def connect(timeout):
    """libvirtd may have been started a moment ago: retry until its socket answers."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return libvirt.open(URI)
        except libvirt.libvirtError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def main():
    action, args = sys.argv[1], sys.argv[2:]
    # Lookups of missing objects are expected; keep libvirt from printing them.
    libvirt.registerErrorHandler(lambda unused_context, unused_error: None, None)
    try:
        conn = connect(CONNECT_TIMEOUT)
    except libvirt.libvirtError as error:
        sys.exit("cannot reach libvirtd at %s after %d s: %s" % (URI, CONNECT_TIMEOUT, error))
    if action == "network":
        changed = network(conn, args[0], args[1], args[2], args[3:])
    elif action == "domain":
        changed = domain(conn, args[0])
    else:
        changed = destroy(conn, args[0], args[1:])
    print(json.dumps({"changed": changed}))


if __name__ == "__main__":
    main()
