"""libvirt side of the shared_disk scenario, through libvirt-python.

    lab.py network NAME BRIDGE GATEWAY MAC=IP...   define and start an isolated network
    lab.py domain XMLFILE                          define and start a domain
    lab.py destroy NETWORK DOMAIN...               stop and undefine them (missing ones skipped)

Prints {"changed": bool}.
"""

import json
import sys
from xml.etree import ElementTree

import libvirt

URI = "qemu:///system"


def network(conn, name, bridge, gateway, hosts):
    changed = False
    try:
        net = conn.networkLookupByName(name)
    except libvirt.libvirtError:
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
        net = conn.networkDefineXML(ElementTree.tostring(root, encoding="unicode"))
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
        if dom.isActive():
            dom.destroy()
        dom.undefine()
        changed = True
    try:
        net = conn.networkLookupByName(network_name)
    except libvirt.libvirtError:
        return changed
    if net.isActive():
        net.destroy()
    net.undefine()
    return True


def main():
    action, args = sys.argv[1], sys.argv[2:]
    # Lookups of missing objects are expected; keep libvirt from printing them.
    libvirt.registerErrorHandler(lambda unused_context, unused_error: None, None)
    try:
        conn = libvirt.open(URI)
    except libvirt.libvirtError:
        if action == "destroy":
            print(json.dumps({"changed": False, "libvirt": "not running"}))
            return
        raise
    if action == "network":
        changed = network(conn, args[0], args[1], args[2], args[3:])
    elif action == "domain":
        changed = domain(conn, args[0])
    else:
        changed = destroy(conn, args[0], args[1:])
    print(json.dumps({"changed": changed}))


if __name__ == "__main__":
    main()
