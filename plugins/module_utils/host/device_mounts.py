# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every mount of one block device on this node, and the processes that hold each.

Found by the device's number, not by a path: the same disk can be mounted under any
directory, bind-mounted, or named by another link (/dev/vdb, a by-id link), and a node that
leaves the cluster must have none of them before its volume is detached.
"""

from __future__ import annotations

import os

MOUNTINFO = "/proc/self/mountinfo"
PROC = "/proc"


def unescape(field):
    """mountinfo writes space, tab, newline and backslash in paths as octal escapes."""
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(code, char)
    return field


def _numbers(path, field):
    """(major, minor) of PATH's FIELD of os.stat (st_rdev: the device it is; st_dev: the one
    it lives on); None when it cannot be read or is 0."""
    try:
        number = getattr(os.stat(path), field)
    except OSError:
        return None
    return (os.major(number), os.minor(number)) if number else None


def device_number(path):
    """The (major, minor) of the block device PATH names; None when it is none."""
    return _numbers(path, "st_rdev")


def mounts_of(number, mountinfo=MOUNTINFO):
    """The mounts of the device NUMBER: each with its target, type and source as mounted."""
    found = []
    if number is None:
        return found
    wanted = "%d:%d" % number
    try:
        with open(mountinfo) as lines:
            for line in lines:
                fields = line.split()
                if len(fields) < 10 or fields[2] != wanted:
                    continue
                after = fields[fields.index("-") + 1 :]
                found.append(
                    dict(target=unescape(fields[4]), fstype=after[0], source=unescape(after[1]))
                )
    except OSError:
        pass
    return found


def mounts_of_type(fstypes, mountinfo=MOUNTINFO):
    """Every mount whose type is one of FSTYPES, whatever its device: its target, type and source."""
    found = []
    try:
        with open(mountinfo) as lines:
            for line in lines:
                fields = line.split()
                if len(fields) < 10 or "-" not in fields:
                    continue
                after = fields[fields.index("-") + 1 :]
                if after[0] in fstypes:
                    found.append(
                        dict(target=unescape(fields[4]), fstype=after[0], source=unescape(after[1]))
                    )
    except OSError:
        pass
    return found


def mount_at(mount_point, mountinfo=MOUNTINFO):
    """What is mounted on MOUNT_POINT, as findmnt --mountpoint tells it (the last mount there,
    the one seen): its device number, type and source; None for nothing."""
    found = None
    try:
        with open(mountinfo) as lines:
            for line in lines:
                fields = line.split()
                if len(fields) < 10 or unescape(fields[4]) != mount_point:
                    continue
                major, minor = fields[2].split(":")
                after = fields[fields.index("-") + 1 :]
                found = dict(
                    number=(int(major), int(minor)), fstype=after[0], source=unescape(after[1])
                )
    except OSError:
        pass
    return found


def _maps_device(pid, wanted):
    """Whether process PID has a file of the device mapped (maps' dev field is hex major:minor)."""
    hex_dev = "%02x:%02x" % wanted
    try:
        with open(os.path.join(PROC, pid, "maps")) as lines:
            return any(len(fields) > 3 and fields[3] == hex_dev for fields in map(str.split, lines))
    except OSError:
        return False


def processes_using(number, proc=PROC):
    """The processes with a working directory, root, executable, open file or mapping on the
    filesystem of device NUMBER, as "PID (command)". A read of /proc, so it runs in check mode
    too, where an unmount cannot be tried."""
    users = []
    if number is None:
        return users
    own = str(os.getpid())
    for pid in sorted((entry for entry in os.listdir(proc) if entry.isdigit()), key=int):
        if pid == own:
            continue
        base = os.path.join(proc, pid)
        links = [os.path.join(base, name) for name in ("cwd", "root", "exe")]
        try:
            links += [os.path.join(base, "fd", fd) for fd in os.listdir(os.path.join(base, "fd"))]
        except OSError:
            pass
        if any(_numbers(link, "st_dev") == number for link in links) or _maps_device(pid, number):
            try:
                with open(os.path.join(base, "comm")) as comm:
                    name = comm.read().strip()
            except OSError:
                name = "?"
            users.append("%s (%s)" % (pid, name))
    return users


def device_mounts(path, with_users=True):
    """Every mount of the block device PATH here, and (WITH_USERS) the processes that hold its
    filesystem (one list: all mounts of one device share its files)."""
    number = device_number(path) if path else None
    mounts = mounts_of(number)
    return mounts, (processes_using(number) if mounts and with_users else [])
