"""The full profile's libvirt objects: the Ceph client's secret, and their removal.

    libvirt_lab.py secret UUID KEYRING   define (or update) the ceph secret UUID holding
                                         the key in KEYRING (a Ceph keyring file)
    libvirt_lab.py clean                 destroy and undefine Nova's domains (instance-*)
                                         and undefine every ceph secret
    libvirt_lab.py destroy UUID          pull the plug on one domain (as a host crash does);
                                         Nova still counts the server ACTIVE

Through libvirt-python on qemu:///system. `make cloud-down` runs clean before it stops
libvirtd, so no guest and no secret outlives the cloud.
"""

import base64
import re
import sys

import libvirt

URI = "qemu:///system"
SECRET_XML = """<secret ephemeral='no' private='no'>
  <uuid>{uuid}</uuid>
  <usage type='ceph'><name>{name} secret</name></usage>
</secret>"""


def keyring_entry(path):
    """(entity, key) of the first entity in a Ceph keyring file."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    entity = re.search(r"^\[(.+)\]", text, re.MULTILINE)
    key = re.search(r"^\s*key\s*=\s*(\S+)", text, re.MULTILINE)
    if not entity or not key:
        raise SystemExit("%s holds no Ceph key" % path)
    return entity.group(1), key.group(1)


def define_secret(conn, uuid, keyring):
    entity, key = keyring_entry(keyring)
    secret = conn.secretDefineXML(SECRET_XML.format(uuid=uuid, name=entity))
    secret.setValue(base64.b64decode(key))
    print("secret %s holds the key of %s" % (uuid, entity))


def clean(conn):
    for domain in conn.listAllDomains():
        if not domain.name().startswith("instance-"):
            continue
        if domain.isActive():
            domain.destroy()
        domain.undefineFlags(libvirt.VIR_DOMAIN_UNDEFINE_NVRAM)
        print("domain %s removed" % domain.name())
    for secret in conn.listAllSecrets():
        if secret.usageType() == libvirt.VIR_SECRET_USAGE_TYPE_CEPH:
            uuid = secret.UUIDString()
            secret.undefine()
            print("secret %s removed" % uuid)


def destroy(uuid):
    """Pull the plug on the domain UUID (a Nova server's ID)."""
    conn = libvirt.open(URI)
    try:
        conn.lookupByUUIDString(uuid).destroy()
    finally:
        conn.close()


def main(argv):
    try:
        conn = libvirt.open(URI)
    except libvirt.libvirtError as error:
        if argv == ["clean"]:
            print("libvirt does not answer (%s): no domain or secret to remove" % error)
            return 0
        raise SystemExit("libvirt at %s does not answer: %s" % (URI, error))
    try:
        if argv[:1] == ["secret"] and len(argv) == 3:
            define_secret(conn, argv[1], argv[2])
        elif argv == ["clean"]:
            clean(conn)
        elif argv[:1] == ["destroy"] and len(argv) == 2:
            conn.lookupByUUIDString(argv[1]).destroy()
            print("domain %s destroyed" % argv[1])
        else:
            raise SystemExit(__doc__)
    finally:
        conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
