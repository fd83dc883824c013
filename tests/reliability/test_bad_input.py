"""Bad input to every module and role: a failed task that names the problem and the fix,
no Python traceback, and nothing left behind in the cloud (compared by listing it).
"""

import json
import shutil
import subprocess
import uuid

import pytest
import yaml
from harness.ansible_runner import PlaybookRun, run_playbook
from harness.reliability_lab import cloud_listing
from local_cloud import paths

# Compares a listing of the whole cloud before and after: make test runs it alone.
pytestmark = pytest.mark.serial

ADMIN = {"cloud": "local-admin"}
MEMBER = {"cloud": "local-member"}
NOT_A_CLOUD = {
    "auth_type": "password",
    "auth": {
        "auth_url": "http://127.0.0.1:9/v3",
        "username": "admin",
        "password": "x",
        "project_name": "admin",
        "user_domain_name": "Default",
        "project_domain_name": "Default",
    },
}


def bad_password():
    clouds = paths.clouds_yaml().read_text()
    auth = dict(yaml.safe_load(clouds)["clouds"]["local-admin"]["auth"])
    auth["password"] = "not-the-password"
    return {"auth_type": "password", "auth": auth}


def module_task(module, args):
    return [{"name": "bad input", "multiattach.cloud." + module: args}]


def role_task(role, variables, tasks_from="main", *more_tasks_from):
    """Include ROLE's TASKS_FROM (then each of MORE_TASKS_FROM, in order) with VARIABLES."""
    return [
        {
            "name": "bad input",
            "ansible.builtin.include_role": {
                "name": "multiattach.cloud." + role,
                "tasks_from": entry,
            },
            "vars": variables,
        }
        for entry in (tasks_from,) + more_tasks_from
    ]


# (id, the collection's code path that refuses it (None: Ansible's own argument
#  validation), tasks for lab names, substrings the failure message must hold)
CASES = [
    (
        "volume: unknown type",
        "volumes: VolumeChange.multiattach_type, type not found",
        lambda l: module_task(
            "volume", dict(ADMIN, name=l["prefix"] + "-new", size=1, volume_type="no-such-type")
        ),
        ["volume type 'no-such-type' does not exist"],
    ),
    (
        "volume: type without multiattach",
        "volumes: VolumeChange.multiattach_type, no multiattach spec",
        lambda l: module_task(
            "volume", dict(ADMIN, name=l["prefix"] + "-new", size=1, volume_type=l["plain_type"])
        ),
        ["multiattach"],
    ),
    (
        "volume: multiattach type with encryption",
        "volumes: VolumeChange.multiattach_type, encrypted",
        lambda l: module_task(
            "volume",
            dict(ADMIN, name=l["prefix"] + "-new", size=1, volume_type=l["encrypted_type"]),
        ),
        ["encrypt"],
    ),
    (
        "volume: shrink",
        "volumes: VolumeChange.update, smaller size",
        lambda l: module_task("volume", dict(ADMIN, name=l["shared"], size=1)),
        ["cannot shrink"],
    ),
    (
        "volume: retype while in-use",
        "volumes: VolumeChange.update, retype while attached",
        lambda l: module_task("volume", dict(ADMIN, name=l["shared"], volume_type=l["other_type"])),
        ["in-use"],
    ),
    (
        "volume: size 0",
        "volumes: VolumeChange.result, size below 1",
        lambda l: module_task(
            "volume",
            dict(ADMIN, name=l["prefix"] + "-new", size=0, volume_type=l["multiattach_type"]),
        ),
        ["size must be at least 1"],
    ),
    (
        "volume: new volume without size",
        "volumes: VolumeChange.create, size or type missing",
        lambda l: module_task(
            "volume", dict(ADMIN, name=l["prefix"] + "-new", volume_type=l["multiattach_type"])
        ),
        ["does not exist, and creating it needs"],
    ),
    (
        "volume: unknown state",
        None,
        lambda l: module_task("volume", dict(ADMIN, name=l["shared"], state="gone")),
        ["value of state must be one of"],
    ),
    (
        "volume_type: multiattach false in extra_specs",
        "volume_types: desired_extra_specs, multiattach overridden",
        lambda l: module_task(
            "volume_type",
            dict(ADMIN, name=l["prefix"] + "-t", extra_specs={"multiattach": "<is> False"}),
        ),
        ["Leave multiattach out of extra_specs"],
    ),
    (
        "volume_type: projects of a public type",
        "volume_types: VolumeTypeChange.result, projects without is_public false",
        lambda l: module_task(
            "volume_type", dict(ADMIN, name=l["prefix"] + "-t", projects=["admin"])
        ),
        ["set is_public: false"],
    ),
    (
        "volume_type: unknown project",
        "volume_types: VolumeTypeChange.project_ids, project not found",
        lambda l: module_task(
            "volume_type",
            dict(ADMIN, name=l["prefix"] + "-t", is_public=False, projects=["no-such-project"]),
        ),
        ["'no-such-project' does not exist"],
    ),
    (
        "volume_type: 403 from policy names the rule",
        "errors: describe_http_error, 403 with advice",
        lambda l: module_task("volume_type", dict(MEMBER, name=l["prefix"] + "-t")),
        ["HTTP 403", "volume_extension:type_create"],
    ),
    (
        "server_volume: unknown volume",
        "attachments: AttachmentChange, volume not found",
        lambda l: module_task(
            "server_volume", dict(ADMIN, volume="no-such-volume", server=l["s1"])
        ),
        ["'no-such-volume' does not exist"],
    ),
    (
        "server_volume: unknown server",
        "servers: ServerIndex.resolve, unknown server",
        lambda l: module_task(
            "server_volume", dict(ADMIN, volume=l["shared"], server="no-such-server")
        ),
        ["no server named or with ID no-such-server"],
    ),
    (
        "server_volume: second server on a plain volume",
        "attachments: check_sharing_allowed",
        lambda l: module_task("server_volume", dict(ADMIN, volume=l["single"], server=l["s1"])),
        ["is not multiattach"],
    ),
    (
        "server_volume: timeout 0",
        "base: timeout below 1",
        lambda l: module_task(
            "server_volume", dict(ADMIN, volume=l["shared"], server=l["s1"], timeout=0)
        ),
        ["timeout must be at least 1"],
    ),
    (
        "volume_attachments: abandoned_after too short to outlast a compute service",
        "attachments: check_abandoned_after",
        lambda l: module_task(
            "volume_attachments",
            dict(ADMIN, volume=l["shared"], servers=[l["s0"], l["s1"]], abandoned_after=5),
        ),
        ["abandoned_after must be at least 10"],
    ),
    (
        "cinder_multiattach: a policy rule naming a rule Cinder removes",
        "cinder_multiattach: validate.yml, rule:xena_* named",
        lambda l: role_task(
            "cinder_multiattach",
            dict(
                l["cinder_files"],
                cinder_multiattach_policy_extra_rules={
                    "volume:create": "rule:xena_system_admin_or_project_member"
                },
            ),
        ),
        ["cinder_multiattach_policy_extra_rules: volume:create", "Write the check string out"],
    ),
    (
        "volume_attachments: one unknown server among known ones",
        "servers: ServerIndex.resolve, unknown server",
        lambda l: module_task(
            "volume_attachments", dict(ADMIN, volume=l["shared"], servers=[l["s1"], "ghost"])
        ),
        ["no server named or with ID ghost"],
    ),
    (
        "volume_attachments: plain volume on two servers",
        "attachments: check_sharing_allowed",
        lambda l: module_task(
            "volume_attachments", dict(ADMIN, volume=l["single"], servers=[l["s0"], l["s1"]])
        ),
        ["is not multiattach"],
    ),
    (
        "volume_attachments: servers missing",
        None,
        lambda l: module_task("volume_attachments", dict(ADMIN, volume=l["shared"])),
        ["missing required arguments: servers"],
    ),
    (
        "connection: wrong password",
        "errors: describe_error, Unauthorized",
        lambda l: module_task(
            "volume_attachments",
            dict(bad_password(), volume=l["shared"], servers=[l["s0"], l["s1"]]),
        ),
        ["authentication failed", "password"],
    ),
    (
        "connection: unreachable endpoint",
        "errors: describe_error, ConnectFailure",
        lambda l: module_task(
            "server_volume", dict(NOT_A_CLOUD, volume=l["shared"], server=l["s1"])
        ),
        ["cannot reach the cloud"],
    ),
    (
        "connection: unknown cloud name",
        "errors: describe_error, ConfigException",
        lambda l: module_task("volume_info", dict(cloud="no-such-cloud")),
        ["no-such-cloud", "clouds.yaml"],
    ),
    (
        "connection: cloud dict and region_name together",
        "connection: connect_keywords, conflicting options",
        lambda l: module_task("volume_info", dict(cloud={"auth": {}}, region_name="r1")),
        ["must not be set as well"],
    ),
    (
        "preflight: unknown check",
        None,
        lambda l: module_task("preflight", dict(ADMIN, checks=["no_such_check"])),
        ["checks", "no_such_check"],
    ),
    (
        "libvirt_shareable_disk: qcow2 disk",
        "libvirt_disks: refuse_unshareable_format, qcow2 content",
        lambda l: module_task(
            "libvirt_shareable_disk",
            dict(domain="any", source=l["qcow2"], target="vdb", uri="test:///default"),
        ),
        ["is a qcow2 image, not raw", "qemu-img convert -O raw"],
    ),
    (
        "libvirt_shareable_disk: format qcow2 declared",
        "libvirt_disks: refuse_unshareable_format, declared format",
        lambda l: module_task(
            "libvirt_shareable_disk",
            dict(
                domain="any", source=l["raw"], target="vdb", format="qcow2", uri="test:///default"
            ),
        ),
        ["format qcow2 cannot be shared"],
    ),
    (
        "libvirt_shareable_disk: missing disk file",
        "libvirt_disks: detect_format, unreadable source",
        lambda l: module_task(
            "libvirt_shareable_disk",
            dict(domain="any", source=l["raw"] + ".missing", target="vdb", uri="test:///default"),
        ),
        ["cannot read"],
    ),
    (
        "libvirt_shareable_disk: no target",
        "libvirt_disks: check_disk_options, no target",
        lambda l: module_task(
            "libvirt_shareable_disk", dict(domain="any", source=l["raw"], uri="test:///default")
        ),
        ["target is needed"],
    ),
    (
        "ini_settings: a section that is not a dict",
        "ini_file: check_settings",
        lambda l: module_task("ini_settings", dict(path=l["ini"], settings={"DEFAULT": "debug"})),
        ["DEFAULT"],
    ),
    (
        "cinder_multiattach: backends not a dict",
        None,
        lambda l: role_task(
            "cinder_multiattach", dict(l["cinder_files"], cinder_multiattach_backends="lvm")
        ),
        ["cinder_multiattach_backends"],
    ),
    (
        "cinder_multiattach: backend without volume_driver",
        "cinder_multiattach: validate.yml, backend without volume_driver",
        lambda l: role_task(
            "cinder_multiattach",
            dict(
                l["cinder_files"], cinder_multiattach_backends={"b1": {"volume_backend_name": "b1"}}
            ),
        ),
        ["has no volume_driver"],
    ),
    (
        "cinder_multiattach: a wait timeout that is not a number",
        None,
        lambda l: role_task(
            "cinder_multiattach", dict(l["cinder_files"], cinder_multiattach_wait_timeout="soon")
        ),
        ["cinder_multiattach_wait_timeout"],
    ),
    (
        "cinder_multiattach: unknown restart mechanism",
        None,
        lambda l: role_task(
            "cinder_multiattach",
            dict(l["cinder_files"], cinder_multiattach_restart_mechanism="magic"),
        ),
        ["cinder_multiattach_restart_mechanism", "magic"],
    ),
    (
        "compute_shareable_disks: unknown service mechanism",
        None,
        lambda l: role_task(
            "compute_shareable_disks", {"compute_shareable_disks_service_mechanism": "magic"}
        ),
        ["compute_shareable_disks_service_mechanism", "magic"],
    ),
    (
        "clustered_fs: unknown filesystem type",
        None,
        lambda l: role_task("clustered_fs", {"clustered_fs_type": "xfs"}),
        ["clustered_fs_type", "xfs"],
    ),
    (
        "clustered_fs: empty device",
        "clustered_fs: validate.yml, empty device",
        lambda l: role_task(
            "clustered_fs",
            {"clustered_fs_device": "", "clustered_fs_group": "all"},
            tasks_from="validate",
        ),
        ["clustered_fs_device"],
    ),
    (
        "clustered_fs: both a volume ID and a device",
        "clustered_fs: validate.yml, disk named twice",
        lambda l: role_task(
            "clustered_fs",
            {
                "clustered_fs_device": "/dev/vdb",
                "clustered_fs_volume_id": l["absent_id"],
                "clustered_fs_group": "all",
            },
            tasks_from="validate",
        ),
        ["Name the shared disk once", "clustered_fs_volume_id"],
    ),
    (
        "clustered_fs: a volume not attached to this server",
        "clustered_fs: validate.yml, volume not attached",
        lambda l: role_task(
            "clustered_fs",
            {"clustered_fs_volume_id": l["absent_id"], "clustered_fs_group": "all"},
            tasks_from="validate",
        ),
        ["is not attached to server localhost", "/dev/disk/by-id/virtio-", "Attach it first"],
    ),
    (
        "clustered_fs: a disk that holds ext4",
        "clustered_fs: filesystem.yml, existing signature",
        lambda l: role_task(
            "clustered_fs",
            {"clustered_fs_device": l["ext4_loop"], "clustered_fs_group": "all"},
            "read_node",
            "filesystem",
        ),
        ["TYPE=ext4", "never formats a disk that holds data"],
    ),
    (
        "volume: an existing plain volume without a type",
        "volumes: VolumeChange.result, existing volume not multiattach",
        lambda l: module_task("volume", dict(ADMIN, name=l["single"], size=3)),
        ["is not multiattach", "give volume_type"],
    ),
    (
        "volume: delete while servers hold it",
        "volumes: VolumeChange.absent, attached",
        lambda l: module_task("volume", dict(ADMIN, name=l["shared"], state="absent")),
        ["is attached to", "detach it first"],
    ),
    (
        "volume_type: delete a type that volumes use",
        "volume_types: VolumeTypeChange.absent, type in use",
        lambda l: module_task(
            "volume_type", dict(ADMIN, name=l["multiattach_type"], state="absent")
        ),
        ["still used by", "Delete or retype them first"],
    ),
    (
        "volume_type: an existing type with encryption",
        "volume_types: VolumeTypeChange.update, encrypted type",
        lambda l: module_task("volume_type", dict(ADMIN, name=l["encrypted_type"])),
        ["has an encryption spec"],
    ),
    (
        "volume_type: backend and extra_specs disagree",
        "volume_types: desired_extra_specs, backend given twice",
        lambda l: module_task(
            "volume_type",
            dict(
                ADMIN,
                name=l["prefix"] + "-t",
                backend="fake-1",
                extra_specs={"volume_backend_name": "other"},
            ),
        ),
        ["give the backend once"],
    ),
    (
        "volume_type: a private type for an unknown project",
        "volume_types: VolumeTypeChange.project_ids before a private type is created",
        lambda l: module_task(
            "volume_type",
            dict(
                ADMIN, name=l["prefix"] + "-private", is_public=False, projects=["demo", "nobody"]
            ),
        ),
        ["'nobody' does not exist"],
    ),
    (
        "libvirt_shareable_disk: unknown domain",
        "libvirt_disks: lookup_domain, no such domain",
        lambda l: module_task(
            "libvirt_shareable_disk",
            dict(domain="no-such-domain", source=l["raw"], target="vdb", uri="test:///default"),
        ),
        ["libvirt has no domain named no-such-domain"],
    ),
    (
        "libvirt_host_info: probe into /",
        "libvirt_host: direct_io_supported, root directory",
        lambda l: module_task("libvirt_host_info", dict(instances_path="/", uri="test:///default")),
        ["instances_path is /"],
    ),
    (
        "libvirt_host_info: malformed minimum version",
        "libvirt_host: host_report, unparsable version",
        lambda l: module_task(
            "libvirt_host_info", dict(min_qemu_version="two", uri="test:///default")
        ),
        ["'two' is not a version"],
    ),
    (
        "clustered_fs_info: a volume ID and a device path both",
        None,
        lambda l: module_task(
            "clustered_fs_info",
            dict(volume_id=l["absent_id"], device="/dev/vdb", mount_point="/srv/shared"),
        ),
        ["mutually exclusive: volume_id|device"],
    ),
    (
        "ini_settings: an option name with =",
        "ini_file: validate_name",
        lambda l: module_task(
            "ini_settings", dict(path=l["ini"], settings={"DEFAULT": {"a=b": 1}})
        ),
        ["cannot be written to an INI file"],
    ),
    (
        "ini_settings: a missing file without create",
        "ini_file: read_text, missing file",
        lambda l: module_task(
            "ini_settings",
            dict(path=l["ini"] + ".missing", create=False, settings={"DEFAULT": {"debug": True}}),
        ),
        ["does not exist; create it first"],
    ),
]


@pytest.fixture(scope="module")
def inputs(lab, tmp_path_factory):
    """The lab's names plus local files the host-side cases need."""
    files = tmp_path_factory.mktemp("bad-input")
    raw = files / "shared.raw"
    raw.write_bytes(b"\0" * 65536)
    qcow2 = files / "disk.qcow2"
    qcow2.write_bytes(b"QFI\xfb" + b"\0" * 65532)
    ini = files / "cinder.conf"
    ini.write_text("[DEFAULT]\ndebug = false\n")
    cinder = {}
    for name in ("cinder.conf", "policy.yaml"):
        shutil.copy(paths.etc_dir() / "cinder" / name, files / ("role-" + name))
        cinder[name] = files / ("role-" + name)
    ext4 = files / "ext4.raw"
    ext4.write_bytes(b"\0" * (32 << 20))
    subprocess.run(["mkfs.ext4", "-q", str(ext4)], check=True)
    loop = subprocess.run(
        ["losetup", "--find", "--show", str(ext4)], check=True, capture_output=True, text=True
    ).stdout.strip()
    values = dict(
        lab,
        raw=str(raw),
        qcow2=str(qcow2),
        ini=str(ini),
        ext4_loop=loop,
        absent_id=str(uuid.uuid4()),
        cinder_files={
            "cinder_multiattach_config_file": str(cinder["cinder.conf"]),
            "cinder_multiattach_policy_file": str(cinder["policy.yaml"]),
            "cinder_multiattach_restart_mechanism": "command",
            "cinder_multiattach_restart_command": "false",
            "cinder_multiattach_create_volume_types": False,
        },
    )
    local_files = [raw, qcow2, ini, ext4, *cinder.values()]
    yield values, local_files
    subprocess.run(["losetup", "--detach", loop], check=False)


def digests(paths):
    return {str(p): p.read_bytes() for p in paths}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input_fails_clearly_and_leaves_nothing_behind(admin_cloud, inputs, case):
    _name, _path, make_tasks, expected = case
    values, local_files = inputs
    before, files_before = cloud_listing(admin_cloud), digests(local_files)

    run = PlaybookRun(*run_playbook(make_tasks(values)))

    output = run.completed.stdout + run.completed.stderr
    assert run.failures, "the task should have failed: %s" % json.dumps(run.results)[:2000]
    for text in expected:
        assert text in run.failure_message, (text, run.failure_message)
    assert "Traceback" not in output and "Traceback" not in json.dumps(run.results)
    assert cloud_listing(admin_cloud) == before
    assert digests(local_files) == files_before


def test_at_least_25_distinct_code_paths_of_the_collection_are_refused():
    """Cases of Ansible's own argument validation (path None) do not count."""
    paths = {path for _name, path, _tasks, _expected in CASES if path}
    assert len(paths) >= 25, sorted(paths)


def test_the_listing_sees_every_change_a_module_could_make(admin_cloud, lab):
    """The comparison above can fail: each change a module could make shows in the listing."""
    storage = admin_cloud.block_storage
    volume = storage.find_volume(lab["single"], ignore_missing=False)

    def private():
        return next(t for t in storage.types(is_public="None") if t.name == lab["prefix"] + "-seen")

    changes = [
        (
            "a private type",
            lambda: storage.create_type(name=lab["prefix"] + "-seen", is_public=False),
        ),
        (
            "its access list",
            lambda: storage.add_type_access(private(), admin_cloud.current_project_id),
        ),
        ("volume metadata", lambda: storage.set_volume_metadata(volume, seen="yes")),
        ("volume description", lambda: storage.update_volume(volume, description="seen")),
        ("bootable flag", lambda: storage.set_volume_bootable_status(volume, True)),
    ]
    try:
        for what, make_change in changes:
            before = cloud_listing(admin_cloud)
            make_change()
            assert cloud_listing(admin_cloud) != before, "the listing misses %s" % what
    finally:
        storage.delete_volume_metadata(volume, keys=["seen"])
        storage.update_volume(volume, description=None)
        storage.set_volume_bootable_status(volume, False)
        for volume_type in storage.types(is_public="None"):
            if volume_type.name == lab["prefix"] + "-seen":
                storage.delete_type(volume_type)
