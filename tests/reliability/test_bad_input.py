"""Bad input to every module and role: a failed task that names the problem and the fix,
no Python traceback, and nothing left behind in the cloud (compared by listing it).
"""
import json
import shutil
import subprocess

import pytest
import yaml

from ansible_runner import ROOT, run_playbook, PlaybookRun
from reliability_lab import cloud_listing

ADMIN = {"cloud": "local-admin"}
MEMBER = {"cloud": "local-member"}
NOT_A_CLOUD = {"auth_type": "password", "auth": {
    "auth_url": "http://127.0.0.1:9/v3", "username": "admin", "password": "x",
    "project_name": "admin", "user_domain_name": "Default", "project_domain_name": "Default"}}


def bad_password():
    clouds = (ROOT / ".local-cloud" / "clouds.yaml").read_text()
    auth = dict(yaml.safe_load(clouds)["clouds"]["local-admin"]["auth"])
    auth["password"] = "not-the-password"
    return {"auth_type": "password", "auth": auth}


def module_task(module, args):
    return [{"name": "bad input", "multiattach.cloud." + module: args}]


def role_task(role, variables, tasks_from="main"):
    return [{"name": "bad input", "ansible.builtin.include_role": {
        "name": "multiattach.cloud." + role, "tasks_from": tasks_from}, "vars": variables}]


# (id, tasks for lab names, substrings the failure message must hold)
CASES = [
    ("volume: unknown type", lambda l: module_task("volume", dict(
        ADMIN, name=l["prefix"] + "-new", size=1, volume_type="no-such-type")),
     ["volume type 'no-such-type' does not exist"]),
    ("volume: type without multiattach", lambda l: module_task("volume", dict(
        ADMIN, name=l["prefix"] + "-new", size=1, volume_type=l["plain_type"])),
     ["multiattach"]),
    ("volume: multiattach type with encryption", lambda l: module_task("volume", dict(
        ADMIN, name=l["prefix"] + "-new", size=1, volume_type=l["encrypted_type"])),
     ["encrypt"]),
    ("volume: shrink", lambda l: module_task("volume", dict(
        ADMIN, name=l["shared"], size=1)), ["cannot shrink"]),
    ("volume: retype while in-use", lambda l: module_task("volume", dict(
        ADMIN, name=l["shared"], volume_type=l["other_type"])), ["in-use"]),
    ("volume: size 0", lambda l: module_task("volume", dict(
        ADMIN, name=l["prefix"] + "-new", size=0, volume_type=l["multiattach_type"])),
     ["size must be at least 1"]),
    ("volume: new volume without size", lambda l: module_task("volume", dict(
        ADMIN, name=l["prefix"] + "-new", volume_type=l["multiattach_type"])),
     ["does not exist, and creating it needs"]),
    ("volume: unknown state", lambda l: module_task("volume", dict(
        ADMIN, name=l["shared"], state="gone")), ["value of state must be one of"]),
    ("volume_type: multiattach false in extra_specs", lambda l: module_task("volume_type", dict(
        ADMIN, name=l["prefix"] + "-t", extra_specs={"multiattach": "<is> False"})),
     ["Leave multiattach out of extra_specs"]),
    ("volume_type: projects of a public type", lambda l: module_task("volume_type", dict(
        ADMIN, name=l["prefix"] + "-t", projects=["admin"])), ["set is_public: false"]),
    ("volume_type: unknown project", lambda l: module_task("volume_type", dict(
        ADMIN, name=l["prefix"] + "-t", is_public=False, projects=["no-such-project"])),
     ["'no-such-project' does not exist"]),
    ("volume_type: 403 from policy names the rule", lambda l: module_task("volume_type", dict(
        MEMBER, name=l["prefix"] + "-t")), ["HTTP 403", "volume_extension:type_create"]),
    ("server_volume: unknown volume", lambda l: module_task("server_volume", dict(
        ADMIN, volume="no-such-volume", server=l["s1"])), ["'no-such-volume' does not exist"]),
    ("server_volume: unknown server", lambda l: module_task("server_volume", dict(
        ADMIN, volume=l["shared"], server="no-such-server")),
     ["no server named or with ID no-such-server"]),
    ("server_volume: second server on a plain volume", lambda l: module_task("server_volume", dict(
        ADMIN, volume=l["single"], server=l["s1"])), ["is not multiattach"]),
    ("server_volume: timeout 0", lambda l: module_task("server_volume", dict(
        ADMIN, volume=l["shared"], server=l["s1"], timeout=0)),
     ["timeout must be at least 1"]),
    ("volume_attachments: one unknown server among known ones", lambda l: module_task(
        "volume_attachments", dict(ADMIN, volume=l["shared"], servers=[l["s1"], "ghost"])),
     ["no server named or with ID ghost"]),
    ("volume_attachments: plain volume on two servers", lambda l: module_task(
        "volume_attachments", dict(ADMIN, volume=l["single"], servers=[l["s0"], l["s1"]])),
     ["is not multiattach"]),
    ("volume_attachments: servers missing", lambda l: module_task(
        "volume_attachments", dict(ADMIN, volume=l["shared"])),
     ["missing required arguments: servers"]),
    ("connection: wrong password", lambda l: module_task("volume_attachments", dict(
        bad_password(), volume=l["shared"], servers=[l["s0"], l["s1"]])),
     ["authentication failed", "password"]),
    ("connection: unreachable endpoint", lambda l: module_task("server_volume", dict(
        NOT_A_CLOUD, volume=l["shared"], server=l["s1"])), ["cannot reach the cloud"]),
    ("connection: unknown cloud name", lambda l: module_task("volume_info", dict(
        cloud="no-such-cloud")), ["no-such-cloud", "clouds.yaml"]),
    ("connection: cloud dict and region_name together", lambda l: module_task("volume_info", dict(
        cloud={"auth": {}}, region_name="r1")), ["must not be set as well"]),
    ("preflight: unknown check", lambda l: module_task("preflight", dict(
        ADMIN, checks=["no_such_check"])), ["checks", "no_such_check"]),
    ("libvirt_shareable_disk: qcow2 disk", lambda l: module_task("libvirt_shareable_disk", dict(
        domain="any", source=l["qcow2"], target="vdb", uri="test:///default")),
     ["is a qcow2 image, not raw", "qemu-img convert -O raw"]),
    ("libvirt_shareable_disk: format qcow2 declared", lambda l: module_task(
        "libvirt_shareable_disk", dict(domain="any", source=l["raw"], target="vdb",
                                       format="qcow2", uri="test:///default")),
     ["format qcow2 cannot be shared"]),
    ("libvirt_shareable_disk: missing disk file", lambda l: module_task(
        "libvirt_shareable_disk", dict(domain="any", source=l["raw"] + ".missing", target="vdb",
                                       uri="test:///default")), ["cannot read"]),
    ("libvirt_shareable_disk: no target", lambda l: module_task("libvirt_shareable_disk", dict(
        domain="any", source=l["raw"], uri="test:///default")), ["target is needed"]),
    ("ini_settings: a section that is not a dict", lambda l: module_task("ini_settings", dict(
        path=l["ini"], settings={"DEFAULT": "debug"})), ["DEFAULT"]),
    ("cinder_multiattach: backends not a dict", lambda l: role_task("cinder_multiattach", dict(
        l["cinder_files"], cinder_multiattach_backends="lvm")), ["cinder_multiattach_backends"]),
    ("cinder_multiattach: backend without volume_driver", lambda l: role_task(
        "cinder_multiattach", dict(l["cinder_files"], cinder_multiattach_backends={
            "b1": {"volume_backend_name": "b1"}})), ["has no volume_driver"]),
    ("cinder_multiattach: a wait timeout that is not a number", lambda l: role_task(
        "cinder_multiattach", dict(l["cinder_files"], cinder_multiattach_wait_timeout="soon")),
     ["cinder_multiattach_wait_timeout"]),
    ("cinder_multiattach: unknown restart mechanism", lambda l: role_task(
        "cinder_multiattach", dict(l["cinder_files"], cinder_multiattach_restart_mechanism="magic")),
     ["cinder_multiattach_restart_mechanism", "magic"]),
    ("compute_shareable_disks: unknown service mechanism", lambda l: role_task(
        "compute_shareable_disks", {"compute_shareable_disks_service_mechanism": "magic"}),
     ["compute_shareable_disks_service_mechanism", "magic"]),
    ("clustered_fs: unknown filesystem type", lambda l: role_task(
        "clustered_fs", {"clustered_fs_type": "xfs"}), ["clustered_fs_type", "xfs"]),
    ("clustered_fs: empty device", lambda l: role_task(
        "clustered_fs", {"clustered_fs_device": "", "clustered_fs_group": "all"},
        tasks_from="validate"), ["clustered_fs_device"]),
    ("clustered_fs: a disk that holds ext4", lambda l: role_task(
        "clustered_fs", {"clustered_fs_device": l["ext4_loop"], "clustered_fs_group": "all"},
        tasks_from="filesystem"), ["TYPE=ext4", "never formats a disk that holds data"]),
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
        shutil.copy(ROOT / ".local-cloud" / "etc" / "cinder" / name, files / ("role-" + name))
        cinder[name] = files / ("role-" + name)
    ext4 = files / "ext4.raw"
    ext4.write_bytes(b"\0" * (32 << 20))
    subprocess.run(["mkfs.ext4", "-q", str(ext4)], check=True)
    loop = subprocess.run(["losetup", "--find", "--show", str(ext4)], check=True,
                          capture_output=True, text=True).stdout.strip()
    values = dict(lab, raw=str(raw), qcow2=str(qcow2), ini=str(ini), ext4_loop=loop,
                  cinder_files={
                      "cinder_multiattach_config_file": str(cinder["cinder.conf"]),
                      "cinder_multiattach_policy_file": str(cinder["policy.yaml"]),
                      "cinder_multiattach_restart_mechanism": "command",
                      "cinder_multiattach_restart_command": "false",
                      "cinder_multiattach_create_volume_types": False})
    local_files = [raw, qcow2, ini, ext4, *cinder.values()]
    yield values, local_files
    subprocess.run(["losetup", "--detach", loop], check=False)


def digests(paths):
    return {str(p): p.read_bytes() for p in paths}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input_fails_clearly_and_leaves_nothing_behind(admin_cloud, inputs, case):
    _name, make_tasks, expected = case
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


def test_there_are_at_least_25_cases():
    assert len(CASES) >= 25
