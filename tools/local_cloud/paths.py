"""Where the local cloud keeps its state, for Python.

The one definition is the Makefile's LOCAL_CLOUD_STATE, which it exports to every command it
runs (ansible-playbook reads it too, in inventory/group_vars/all.yml). Outside make, export it:
`export LOCAL_CLOUD_STATE=$PWD/.local-cloud`.
"""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "tools" / "local_cloud"
INVENTORY = TOOLS / "inventory" / "hosts.yml"
# Runs a module of this package as a program: [LAB, "--python", PYTHON, MODULE, ARG...].
LAB = ROOT / "tools" / "lab"
# The guest image and its SSH key, built by the VM scenario's build-image.sh; the full profile
# uploads it to Glance (inventory/group_vars/all.yml names the same directory).
GUEST_IMAGE_DIR = ROOT / ".cache" / "vm-lab"


def state():
    """The state directory; a clear failure when LOCAL_CLOUD_STATE is not set."""
    value = os.environ.get("LOCAL_CLOUD_STATE")
    if not value:
        raise RuntimeError(
            "LOCAL_CLOUD_STATE is not set: run this through make (make integration, "
            "make cloud-up), or export LOCAL_CLOUD_STATE=%s/.local-cloud" % ROOT
        )
    return Path(value)


def clouds_yaml():
    return state() / "clouds.yaml"


def ready_file():
    return state() / "ready.json"


def run_dir():
    return state() / "run"


def log_dir():
    return state() / "log"


def etc_dir():
    return state() / "etc"
