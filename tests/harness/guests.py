"""Real guests on the full profile's libvirt host, as a user makes them (the local cloud's
guests.py: the Glance guest image, the guest network, a key pair); reached over SSH."""

import contextlib
import subprocess
import time

from local_cloud import guests as lab_guests
from local_cloud import paths

LIBVIRT_HOST = "localcloud-libvirt"
KEY = paths.GUEST_IMAGE_DIR / "id_ed25519"
SSH_OPTIONS = [
    "-i",
    str(KEY),
    "-o",
    "BatchMode=yes",
    "-o",
    "StrictHostKeyChecking=no",
    "-o",
    "UserKnownHostsFile=/dev/null",
    "-o",
    "LogLevel=ERROR",
    "-o",
    "ConnectTimeout=5",
]
address = lab_guests.address


def ssh(server, command, timeout=60):
    """Run COMMAND as root in the guest; the CompletedProcess (text)."""
    return subprocess.run(
        ["ssh", *SSH_OPTIONS, "root@" + address(server), command],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def wait_for_ssh(server, wait):
    deadline = time.monotonic() + wait
    while True:
        try:
            answer = ssh(server, "true", timeout=15)
            if answer.returncode == 0:
                return
            reason = answer.stderr.strip()
        except subprocess.TimeoutExpired:
            reason = "no answer in 15 s"
        if time.monotonic() > deadline:
            raise AssertionError(
                "no SSH into %s (%s) after %d s: %s" % (server.name, address(server), wait, reason)
            )
        time.sleep(2)


def disk_by_volume(server, volume_id):
    """The guest's device for the volume, found as users find it: by the serial Nova gives
    virtio-blk disks (the volume ID's first 20 characters); None when it has none."""
    answer = ssh(server, "readlink -f /dev/disk/by-id/virtio-%s" % volume_id[:20])
    device = answer.stdout.strip()
    return device if answer.returncode == 0 and device.startswith("/dev/vd") else None


@contextlib.contextmanager
def booted(conn, count, prefix, wait=300):
    """COUNT servers (the scheduler puts them on the libvirt host), ACTIVE and answering SSH;
    deleted afterwards with their key pair."""
    names = ["%s-%d" % (prefix, index) for index in range(1, count + 1)]
    try:
        made = lab_guests.ensure(conn, names, prefix + "-key", KEY.with_suffix(".pub").read_text())[
            "servers"
        ]
        servers = [conn.compute.get_server(made[name]["id"]) for name in names]
        for server in servers:
            wait_for_ssh(server, wait)
        yield servers
    finally:
        lab_guests.delete(conn, names, prefix + "-key")
