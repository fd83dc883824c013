"""What the local cloud's files and processes look like, for role tests."""

import hashlib
import json
import time

from local_cloud import paths

STATE = paths.state()
CINDER_CONF = paths.etc_dir() / "cinder" / "cinder.conf"
CINDER_POLICY = paths.etc_dir() / "cinder" / "policy.yaml"
SWITCH_PLAYBOOK = paths.TOOLS / "multiattach_switch.yml"


def pids(*names):
    return {
        name: json.loads((paths.run_dir() / (name + ".proc.json")).read_text())["pid"]
        for name in names
    }


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def wait_for_pool_capability(admin_cloud, multiattach, timeout=90):
    """The scheduler learns a restarted backend's capabilities from its next report."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        pools = list(admin_cloud.block_storage.backend_pools())
        if pools and all(bool(p.capabilities.get("multiattach")) == multiattach for p in pools):
            return
        time.sleep(1)
    raise AssertionError(
        "the pool did not report multiattach=%s within %d s" % (multiattach, timeout)
    )
