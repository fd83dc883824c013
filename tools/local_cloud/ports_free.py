"""Fail, naming the port and who holds it, when a port the local cloud needs is taken.

    ports_free.py NAME=PORT [NAME=PORT ...]

Run by up.yml before it starts anything, so that a port in use is a clear error and not
a daemon that dies later with its reason in a log.
"""

import errno
import os
import socket
import sys


def listening_inodes(port):
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii") as handle:
                rows = handle.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A":
                inodes.add(fields[9])
    return inodes


def holders(port):
    """'PID (command)' of the processes listening on PORT, as far as /proc shows them."""
    wanted = {"socket:[%s]" % inode for inode in listening_inodes(port)}
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fds = os.listdir("/proc/%s/fd" % pid)
            if any(os.readlink("/proc/%s/fd/%s" % (pid, fd)) in wanted for fd in fds):
                with open("/proc/%s/comm" % pid, encoding="utf-8") as handle:
                    found.append("%s (%s)" % (pid, handle.read().strip()))
        except OSError:
            continue
    return found


def in_use(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                return True
            raise
    return False


def main(pairs):
    taken = []
    for pair in pairs:
        name, port = pair.split("=", 1)
        if in_use(int(port)):
            who = holders(int(port))
            taken.append(
                "port %s (%s) is in use%s: stop that program, or give the local cloud "
                "another port with -e '{\"local_cloud_ports\": {...}}'"
                % (port, name, " by PID " + ", ".join(who) if who else "")
            )
    for line in taken:
        print(line, file=sys.stderr)
    return 1 if taken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
