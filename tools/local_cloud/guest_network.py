"""The full profile's guest network on this machine: a veth pair as Neutron's physical network.

    guest_network.py RUN_DIR up LOWER PEER ADDRESS/PREFIX   make the pair (once), the address
                                                            on PEER; recorded in RUN_DIR
    guest_network.py RUN_DIR down                           remove the recorded pair (and the
                                                            macvtap devices on it)

Neutron's macvtap agent gives each guest a macvtap device in bridge mode on LOWER (its
physical_interface_mappings). A veth is used because a bridge with no port has no carrier and
this kernel has no dummy links; the guests talk to each other through LOWER, and this machine
reaches them through PEER, which holds ADDRESS. Prints a JSON summary: {"changed": ...}.
"""

import json
import os
import subprocess
import sys

RECORD = "guest_network.json"


def ip(*args, check=True):
    return subprocess.run(["ip"] + list(args), check=check, capture_output=True, text=True)


def exists(name):
    return ip("link", "show", "dev", name, check=False).returncode == 0


def up(lower, peer, address):
    changed = False
    if not exists(lower):
        ip("link", "add", lower, "type", "veth", "peer", "name", peer)
        changed = True
    if address not in ip("-o", "addr", "show", "dev", peer).stdout:
        ip("addr", "add", address, "dev", peer)
        changed = True
    for name in (lower, peer):
        if "UP" not in flags(name):
            ip("link", "set", "dev", name, "up")
            changed = True
    return changed


def flags(name):
    """The link's flags, e.g. {'BROADCAST', 'UP', 'LOWER_UP'}."""
    shown = ip("-o", "link", "show", "dev", name).stdout
    return set(shown[shown.index("<") + 1 : shown.index(">")].split(","))


def down(lower):
    if not exists(lower):
        return False
    ip("link", "del", "dev", lower)
    return True


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    record = os.path.join(argv[0], RECORD)
    try:
        if argv[1] == "up" and len(argv) == 5:
            changed = up(*argv[2:])
            with open(record, "w", encoding="utf-8") as handle:
                json.dump({"lower": argv[2]}, handle)
        elif argv[1:] == ["down"]:
            changed = False
            if os.path.exists(record):
                with open(record, encoding="utf-8") as handle:
                    changed = down(json.load(handle)["lower"])
                os.remove(record)
        else:
            raise SystemExit(__doc__)
    except subprocess.CalledProcessError as error:
        raise SystemExit("%s failed: %s" % (" ".join(error.cmd), error.stderr.strip()))
    json.dump({"changed": changed}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
