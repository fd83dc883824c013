"""The playbooks under playbooks/ against the local cloud, with an operator's inventory."""

import contextlib
import http.server
import subprocess
import threading
import uuid
from pathlib import Path

import pytest
import yaml
from harness.ansible_runner import LOCAL_INVENTORY, LOCALHOST_VARS, ROOT, run_playbook_file
from harness.volumes import detach_and_delete
from local_cloud import paths

PLAYBOOKS = ROOT / "playbooks"


@pytest.fixture
def inventory(tmp_path, lab):
    """Inventory group 'cluster' of two lab servers, a third server outside it.

    The local cloud's group_vars (roles' settings) come along, as in any
    operator's inventory directory. The fake-driver servers have no OS: remove_node reads each
    server before it detaches, so they are reached as this machine (guest_disk shows the
    volume's disk there when the test needs it).
    """
    names = lab["names"]
    directory = tmp_path / "inventory"
    directory.mkdir()
    (directory / "group_vars").symlink_to(LOCAL_INVENTORY.parent / "group_vars")
    (directory / "hosts.yml").write_text(
        yaml.safe_dump(
            {
                "all": {
                    "hosts": {
                        "localhost": {
                            **LOCALHOST_VARS,
                            "local_cloud_root": str(ROOT),
                        },
                        "node-c": dict(LOCALHOST_VARS, openstack_server_name=names[2]),
                    },
                    "children": {
                        "cinder_volume": {"hosts": {"localhost": None}},
                        "nova_compute": {"hosts": {"localhost": None}},
                        "cluster": {
                            "hosts": {
                                "node-a": dict(LOCALHOST_VARS, openstack_server_name=names[0]),
                                "node-b": dict(LOCALHOST_VARS, openstack_server_name=names[1]),
                            }
                        },
                    },
                }
            }
        )
    )
    return directory / "hosts.yml"


@pytest.fixture
def shared(admin_cloud, lab):
    """The variables naming the volume the playbooks make; the volume is removed after."""
    name = "it-pb-" + uuid.uuid4().hex[:8]
    yield {
        "shared_volume_name": name,
        "shared_volume_type": lab["type"],
        "shared_volume_group": "cluster",
        "multiattach_cloud": "local-admin",
    }
    detach_and_delete(name)
    assert admin_cloud.block_storage.find_volume(name, ignore_missing=True) is None


@contextlib.contextmanager
def guest_disk(tmp_path, volume_id):
    """The volume as a guest would see it, on this machine that stands for the fake-driver
    servers: a loop device under the by-id name Nova's virtio serial gives it, so that the leave
    finds the disk the cloud says is attached (it refuses a disk not found)."""
    image = tmp_path / "guest-disk.raw"
    with open(image, "wb") as handle:
        handle.truncate(1 << 20)
    device = subprocess.run(
        ["losetup", "--find", "--show", str(image)], check=True, capture_output=True, text=True
    ).stdout.strip()
    made = [path for path in (Path("/dev/disk"), Path("/dev/disk/by-id")) if not path.exists()]
    for path in made:
        path.mkdir()
    link = Path("/dev/disk/by-id/virtio-" + volume_id[:20])
    link.symlink_to(device)
    try:
        yield
    finally:
        link.unlink()
        for path in reversed(made):
            path.rmdir()
        subprocess.run(["losetup", "--detach", device], check=False)


def attachments_by_server(admin_cloud, lab, name):
    volume = admin_cloud.block_storage.find_volume(name, ignore_missing=False)
    by_id = {v: k for k, v in lab["ids"].items()}
    return volume.status, {by_id[a["server_id"]]: a["attachment_id"] for a in volume.attachments}


def test_provision_add_and_remove_touch_only_the_named_servers(
    admin_cloud, lab, inventory, shared, tmp_path
):
    names = lab["names"]

    provision = run_playbook_file(PLAYBOOKS / "provision_shared_volume.yml", inventory, shared)
    assert not provision.failures, provision.failure_message
    status, provisioned = attachments_by_server(admin_cloud, lab, shared["shared_volume_name"])
    assert status == "in-use" and set(provisioned) == {names[0], names[1]}

    again = run_playbook_file(PLAYBOOKS / "provision_shared_volume.yml", inventory, shared)
    assert not again.failures and again.changed_tasks == []

    # --check, the server named by its ID: no attachment names it yet, so the module's
    # server_id and server_name find its inventory host; nothing is attached.
    previewed = run_playbook_file(
        PLAYBOOKS / "add_node.yml", inventory, dict(shared, node=lab["ids"][names[2]]), check=True
    )
    assert not previewed.failures, previewed.failure_message
    joining = previewed.result("Find the inventory host of the server that holds the volume now")
    assert joining["ansible_facts"]["add_node_joining"]["host"] == "node-c"
    shown = previewed.result("Show which servers hold the volume now")["msg"]
    assert "would be held by" in shown and names[2] in shown, shown
    assert attachments_by_server(admin_cloud, lab, shared["shared_volume_name"])[1] == provisioned

    added = run_playbook_file(PLAYBOOKS / "add_node.yml", inventory, dict(shared, node="node-c"))
    assert not added.failures, added.failure_message
    unused, after_add = attachments_by_server(admin_cloud, lab, shared["shared_volume_name"])
    assert set(after_add) == set(names)
    assert {k: after_add[k] for k in provisioned} == provisioned, "the others stay untouched"

    volume_id = admin_cloud.block_storage.find_volume(
        shared["shared_volume_name"], ignore_missing=False
    ).id
    # The cloud says node-a holds the volume, and this machine, standing for it, has no such
    # disk: the leave refuses (b613a3e read that as "nothing mounted").
    missing = run_playbook_file(
        PLAYBOOKS / "remove_node.yml",
        inventory,
        dict(shared, node="node-a", confirm_server_id=lab["ids"][names[0]]),
    )
    assert "is attached to this server, but it has no such disk" in missing.failure_message
    assert attachments_by_server(admin_cloud, lab, shared["shared_volume_name"])[1] == after_add
    with guest_disk(tmp_path, volume_id):
        leave_node_a(admin_cloud, lab, inventory, shared, after_add)


def leave_node_a(admin_cloud, lab, inventory, shared, after_add):
    names = lab["names"]
    # The fake-driver servers' host (this machine) cannot tell which Nova server it is: without
    # the operator's word, or with another server's ID, nothing is unmounted or detached.
    for confirmed in ({}, {"confirm_server_id": lab["ids"][names[1]]}):
        refused = run_playbook_file(
            PLAYBOOKS / "remove_node.yml", inventory, dict(shared, node="node-a", **confirmed)
        )
        assert refused.failures, refused.failure_message
        assert (
            "cannot be confirmed to be server %s" % lab["ids"][names[0]] in refused.failure_message
        )
        assert attachments_by_server(admin_cloud, lab, shared["shared_volume_name"])[1] == after_add
    leaving_a = dict(shared, node="node-a", confirm_server_id=lab["ids"][names[0]])

    # --check: the detach is started (async) and waited for as in a real run, and changes
    # nothing; the wait reports what it would do.
    checked = run_playbook_file(PLAYBOOKS / "remove_node.yml", inventory, leaving_a, check=True)
    assert not checked.failures, checked.failure_message
    assert checked.result("Wait for the detach of the shared volume from node-a")["changed"]
    assert attachments_by_server(admin_cloud, lab, shared["shared_volume_name"])[1] == after_add

    removed = run_playbook_file(PLAYBOOKS / "remove_node.yml", inventory, leaving_a)
    assert not removed.failures, removed.failure_message
    status, after_remove = attachments_by_server(admin_cloud, lab, shared["shared_volume_name"])
    assert status == "in-use" and set(after_remove) == {names[1], names[2]}
    assert after_remove == {k: after_add[k] for k in (names[1], names[2])}

    removed_again = run_playbook_file(PLAYBOOKS / "remove_node.yml", inventory, leaving_a)
    assert not removed_again.failures and removed_again.changed_tasks == []


@pytest.fixture
def several(admin_cloud, lab):
    """The variables of two volumes for provision_shared_volume's list form; removed after."""
    prefix = "it-pbs-" + uuid.uuid4().hex[:6]
    names = [prefix + "-a", prefix + "-b"]
    yield {
        "shared_volumes": [
            {"name": names[0], "group": "cluster"},
            {"name": names[1], "servers": [lab["names"][2]], "size": 2},
        ],
        "shared_volume_type": lab["type"],
        "multiattach_cloud": "local-admin",
    }
    for name in names:
        detach_and_delete(name)


def test_several_volumes_are_provisioned_at_once_each_for_its_servers(
    admin_cloud, lab, inventory, several
):
    names = lab["names"]
    first, second = (v["name"] for v in several["shared_volumes"])
    playbook = PLAYBOOKS / "provision_shared_volume.yml"

    checked = run_playbook_file(playbook, inventory, several, check=True)
    assert not checked.failures, checked.failure_message
    assert admin_cloud.block_storage.find_volume(first, ignore_missing=True) is None

    provision = run_playbook_file(playbook, inventory, several)
    assert not provision.failures, provision.failure_message
    # One task worked both volumes.
    provisioned = provision.result(
        "Provision the shared volumes at once, each in a thread of its own"
    )
    assert [v["name"] for v in provisioned["volumes"]] == [first, second]
    assert all(v["created"] and v["changed"] for v in provisioned["volumes"])
    assert attachments_by_server(admin_cloud, lab, first)[1].keys() == {names[0], names[1]}
    assert attachments_by_server(admin_cloud, lab, second)[1].keys() == {names[2]}
    assert admin_cloud.block_storage.find_volume(second, ignore_missing=False).size == 2
    collected = provision.result("Record the results on localhost")
    assert collected["ansible_facts"]["shared_volumes_attachments"].keys() == {first, second}

    again = run_playbook_file(playbook, inventory, several)
    assert not again.failures and again.changed_tasks == []


@pytest.mark.parametrize(
    "shared_volumes,expected",
    [
        ("db-data", "shared_volumes must be a list of mappings"),
        ([{"group": "cluster"}], "shared_volumes must be a list of mappings"),
        (
            [{"name": "x", "group": "cluster"}, {"name": "x", "group": "cluster"}],
            "a name of its own",
        ),
        ([{"name": "x", "group": "nosuchgroup"}], "'nosuchgroup' has none"),
        ([{"name": "x", "servers": "s1"}], "servers (a list of OpenStack server names)"),
        ([{"name": "x", "group": "cluster", "sizes": 3}], "known keys are name, type"),
    ],
)
def test_a_wrong_list_of_volumes_fails_before_any_call_naming_the_fix(
    admin_cloud, inventory, several, shared_volumes, expected
):
    run = run_playbook_file(
        PLAYBOOKS / "provision_shared_volume.yml",
        inventory,
        dict(several, shared_volumes=shared_volumes),
    )
    assert run.failures and expected in run.failure_message, run.failure_message
    assert "Traceback" not in run.failure_message
    assert [r["_task"] for r in run.results if r["_host"] != "localhost"] == []
    assert admin_cloud.block_storage.find_volume("x", ignore_missing=True) is None


def test_site_enables_then_provisions(admin_cloud, lab, inventory, shared):
    site = run_playbook_file(PLAYBOOKS / "site.yml", inventory, shared)

    assert not site.failures, site.failure_message
    assert site.result("Run the read-only multiattach checks with admin credentials")["ready"]
    unused, attached = attachments_by_server(admin_cloud, lab, shared["shared_volume_name"])
    assert set(attached) == set(lab["names"][:2])


def test_site_never_detaches_a_server_outside_the_group_whatever_exclusive_says(
    admin_cloud, lab, inventory, shared
):
    """b613a3e's site.yml with shared_volume_exclusive detached node-c before any guest was read:
    under a mounted cluster filesystem, that server's writes are lost."""
    names = lab["names"]
    provision = PLAYBOOKS / "provision_shared_volume.yml"
    assert not run_playbook_file(provision, inventory, shared).failures
    added = run_playbook_file(PLAYBOOKS / "add_node.yml", inventory, dict(shared, node="node-c"))
    assert not added.failures, added.failure_message
    exclusive = dict(shared, shared_volume_exclusive=True)

    site = run_playbook_file(PLAYBOOKS / "site.yml", inventory, exclusive)

    assert not site.failures, site.failure_message
    assert set(attachments_by_server(admin_cloud, lab, shared["shared_volume_name"])[1]) == set(
        names
    )
    said = site.result("Name the servers that hold a volume outside its group, which stay attached")
    messages = [item["msg"] for item in said["results"]]
    assert len(messages) == 1 and names[2] in messages[0] and "remove_node" in messages[0], messages
    # provision_shared_volume alone (a volume without a cluster filesystem) still detaches.
    alone = run_playbook_file(provision, inventory, exclusive)
    assert not alone.failures, alone.failure_message
    assert set(attachments_by_server(admin_cloud, lab, shared["shared_volume_name"])[1]) == set(
        names[:2]
    )


def test_site_in_check_mode_on_a_fresh_cloud_stops_before_the_servers(
    admin_cloud, inventory, shared
):
    checked = run_playbook_file(
        PLAYBOOKS / "site.yml", inventory, dict(shared, clustered_fs_group="cluster"), check=True
    )

    assert not checked.failures, checked.failure_message
    assert (
        admin_cloud.block_storage.find_volume(shared["shared_volume_name"], ignore_missing=True)
        is None
    )
    said = checked.result("Say why check mode stops before the servers")
    assert "would be created and attached first" in said["msg"]
    on_the_servers = {r["_task"] for r in checked.results if r["_host"] in ("node-a", "node-b")}
    assert on_the_servers <= {"Say why check mode stops before the servers"}, on_the_servers


@pytest.mark.parametrize(
    "playbook,extra_vars,expected",
    [
        (
            "provision_shared_volume.yml",
            {"shared_volume_type": ""},
            "Set shared_volume_name and shared_volume_type",
        ),
        (
            "provision_shared_volume.yml",
            {"shared_volume_group": "nosuchgroup"},
            "inventory group 'nosuchgroup'",
        ),
        ("add_node.yml", {}, "-e node=NAME"),
        ("remove_node.yml", {"node": ""}, "-e node=NAME"),
    ],
)
def test_missing_or_wrong_variables_fail_with_the_fix(
    inventory, shared, playbook, extra_vars, expected
):
    run = run_playbook_file(PLAYBOOKS / playbook, inventory, dict(shared, **extra_vars))
    assert run.failures and expected in run.failure_message, run.failure_message
    assert "Traceback" not in run.failure_message


def test_an_unknown_server_is_named_and_nothing_is_attached(admin_cloud, lab, inventory, shared):
    run = run_playbook_file(
        PLAYBOOKS / "add_node.yml",
        inventory,
        dict(shared, node="no-such-server", shared_volume_name=lab["shared"].name),
    )
    assert run.failures and "no-such-server" in run.failure_message, run.failure_message
    assert not admin_cloud.block_storage.get_volume(lab["shared"].id).attachments


@pytest.fixture
def failing_service():
    """An endpoint on this machine that answers every request with HTTP 500."""

    class Failing(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(500)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"error": "placement-api is broken"}')

        def log_message(self, *_args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Failing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield "http://127.0.0.1:%d/" % server.server_address[1]
    server.shutdown()


@pytest.mark.parametrize("placement", ["server error", "connection refused"])
def test_enable_multiattach_stops_on_a_broken_cloud(failing_service, placement):
    cloud = yaml.safe_load(paths.clouds_yaml().read_text())["clouds"]
    broken = dict(
        cloud["local-admin"],
        placement_endpoint_override=(
            failing_service if placement == "server error" else "http://127.0.0.1:9/"
        ),
    )

    run = run_playbook_file(
        PLAYBOOKS / "enable_multiattach.yml",
        LOCAL_INVENTORY,
        {"multiattach_admin_cloud": broken},
        tags=["preflight"],
    )

    checks = {
        c["name"]: c
        for c in run.result("Run the read-only multiattach checks with admin credentials")["checks"]
    }
    assert checks["compute_nodes_multiattach_trait"]["status"] == "failed", checks
    assert checks["multiattach_volume_types"]["status"] == "ok"
    assert run.failures and "compute_nodes_multiattach_trait" in run.failure_message
    expected = "HTTP 500" if placement == "server error" else "cannot reach the cloud"
    assert expected in run.failure_message, run.failure_message
    assert cloud["local-admin"]["auth"]["password"] not in str(run.results)
