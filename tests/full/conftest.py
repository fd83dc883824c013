"""The full profile: every test here needs the local cloud started with CLOUD_PROFILE=full."""

import json
import uuid

import pytest
from harness import guests
from local_cloud import paths


@pytest.fixture(scope="session", autouse=True)
def full_profile():
    ready = json.loads(paths.ready_file().read_text()) if paths.ready_file().exists() else {}
    if ready.get("profile") != "full":
        pytest.fail(
            "the local cloud is not up in the full profile (%r): run "
            "`make integration-full`, which starts it with CLOUD_PROFILE=full"
            % ready.get("profile")
        )


@pytest.fixture(scope="session")
def full_guests(admin_cloud):
    """Three guests on the libvirt host, booted once for every test here that needs guests
    (booting costs about a minute under TCG), answering SSH."""
    with guests.booted(admin_cloud, 3, "full-node-" + uuid.uuid4().hex[:6]) as booted:
        yield booted
