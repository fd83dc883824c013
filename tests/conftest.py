"""Shared by every suite: connections to the local cloud that `make` starts.

The tests that use it never skip: without a cloud they fail and say how to start one.
"""

import os
import uuid

import openstack
import pytest
from harness.volumes import delete_and_wait
from local_cloud import paths


def connect(cloud):
    if not paths.clouds_yaml().exists() or not paths.ready_file().exists():
        pytest.fail("the local cloud is not up: run `make cloud-up` (or `make integration`)")
    os.environ.setdefault("OS_CLIENT_CONFIG_FILE", str(paths.clouds_yaml()))
    return openstack.connect(cloud=cloud)


@pytest.fixture(scope="session")
def admin_cloud():
    return connect("local-admin")


@pytest.fixture(scope="session")
def member_cloud():
    return connect("local-member")


@pytest.fixture
def volume_name(admin_cloud):
    """A name no volume has; every volume with it is deleted after the test."""
    name = "test-vol-" + uuid.uuid4().hex[:8]
    yield name
    for volume in admin_cloud.block_storage.volumes(name=name, all_projects=True):
        delete_and_wait(admin_cloud, volume)
