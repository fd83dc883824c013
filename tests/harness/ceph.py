"""Ask the full profile's Ceph (the `ceph` and `rbd` commands) what Cinder and Nova made."""

import hashlib
import json
import subprocess

from local_cloud import paths

CEPH_CONF = str(paths.etc_dir() / "ceph" / "ceph.conf")


def ceph_json(*argv):
    """Ceph's own answer (`ceph` or `rbd` with the local cloud's ceph.conf), parsed."""
    command = [argv[0], "-c", CEPH_CONF, *argv[1:], "--format", "json"]
    return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)


def watchers(pool, image):
    """The clients that have the image open (one per QEMU that holds it)."""
    return ceph_json("rbd", "status", "%s/%s" % (pool, image))["watchers"]


def image_digest(pool, image):
    """sha256 of the image's every byte (`rbd export` to a pipe): what every server that holds
    the volume reads, taken on the host at the host's pace."""
    digest = hashlib.sha256()
    with subprocess.Popen(
        ["rbd", "-c", CEPH_CONF, "export", "%s/%s" % (pool, image), "-"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    ) as export:
        for chunk in iter(lambda: export.stdout.read(1 << 20), b""):
            digest.update(chunk)
    if export.returncode != 0:
        raise AssertionError("rbd export %s/%s failed (rc %d)" % (pool, image, export.returncode))
    return digest.hexdigest()
