"""Integration tests run against the local cloud that `make integration` starts.

They never skip: without a cloud they fail and say how to start one.
"""
import os
import sys
from pathlib import Path

import openstack
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "local_cloud"))
CLOUDS_YAML = ROOT / ".local-cloud" / "clouds.yaml"


def _connect(cloud):
    if not CLOUDS_YAML.exists() or not (ROOT / ".local-cloud" / "ready.json").exists():
        pytest.fail("the local cloud is not up: run `make cloud-up` (or `make integration`)")
    os.environ.setdefault("OS_CLIENT_CONFIG_FILE", str(CLOUDS_YAML))
    return openstack.connect(cloud=cloud)


@pytest.fixture(scope="session")
def admin_cloud():
    return _connect("local-admin")


@pytest.fixture(scope="session")
def member_cloud():
    return _connect("local-member")
