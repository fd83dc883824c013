"""Ask the full profile's Ceph (the `ceph` and `rbd` commands) what Cinder and Nova made."""
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
