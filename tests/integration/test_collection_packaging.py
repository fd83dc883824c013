"""The built collection installs, and ansible-doc and playbooks find it by FQCN."""

import os
import subprocess
import tarfile
import tempfile
from pathlib import Path

import pytest
import yaml
from local_cloud import paths

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / ".venv" / "bin"


@pytest.fixture(scope="module")
def installed():
    # Not pytest's tmp_path: another pytest session on the machine may prune its base directory.
    with tempfile.TemporaryDirectory(prefix="multiattach-galaxy-") as temp:
        yield build_and_install(Path(temp))


def build_and_install(work):
    collections = work / "collections"
    # A clean environment for every step: `make` exports ANSIBLE_CONFIG, whose collections
    # path already holds this checkout, and then ansible-galaxy skips the install as done.
    env = {
        "PATH": os.environ["PATH"],
        "HOME": os.environ.get("HOME", "/root"),
        "ANSIBLE_COLLECTIONS_PATH": str(collections),
        "ANSIBLE_COLLECTIONS_SCAN_SYS_PATH": "false",
        "OS_CLIENT_CONFIG_FILE": str(paths.clouds_yaml()),
    }
    build = subprocess.run(
        [
            str(BIN / "ansible-galaxy"),
            "collection",
            "build",
            "--force",
            "--output-path",
            str(work),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=str(work),
        env=env,
    )
    [tarball] = work.glob("multiattach-cloud-*.tar.gz")
    install = subprocess.run(
        [
            str(BIN / "ansible-galaxy"),
            "collection",
            "install",
            "--no-deps",
            "-p",
            str(collections),
            str(tarball),
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=str(work),
        env=env,
    )
    assert "was installed successfully" in install.stdout, install.stdout
    return {
        "tarball": tarball,
        "collections": collections,
        "env": env,
        "cwd": work,
        "build_output": build.stdout,
    }


def test_the_tarball_holds_the_collection_and_no_local_state(installed):
    with tarfile.open(installed["tarball"]) as archive:
        names = archive.getnames()
    assert "galaxy.yml" not in names and "MANIFEST.json" in names
    assert "plugins/modules/volume_info.py" in names
    assert "plugins/doc_fragments/openstack.py" in names
    assert "roles/cinder_multiattach/meta/argument_specs.yml" in names
    assert "playbooks/provision_shared_volume.yml" in names
    assert "playbooks/publish_dataset.yml" in names and "roles/shared_dataset/README.md" in names
    top_level = {name.split("/")[0] for name in names}
    allowed = {
        "MANIFEST.json",
        "FILES.json",
        "README.md",
        "CHANGELOG.md",
        ".gitignore",
        "docs",
        "meta",
        "plugins",
        "roles",
        "playbooks",
        "molecule",
        "tests",
        "requirements.txt",
        "bindep.txt",
        "changelogs",
    }
    assert top_level <= allowed, sorted(top_level - allowed)
    assert not [n for n in names if "ansible_collections" in n.split("/") or n.startswith("tools/")]


OPENSTACK_MODULES = {
    "volume_type": "purge_extra_specs",
    "volume": "bootable",
    "server_volume": "device",
    "volume_attachments": "exclusive",
    "volume_info": "multiattach_only",
    "preflight": "fail_when_not_ready",
    "fencing_identity": "role",
    "shared_volumes": "volumes",
}
HOST_MODULES = {
    "ini_settings": "settings",
    "libvirt_host_info": "instances_path",
    "libvirt_shareable_disk": "live",
    "clustered_fs_info": "mount_point",
    "clustered_fs_mkfs": "slots",
    "dataset_mount": "make_filesystem",
    "config_files": "files",
    "clustered_fs_leave": "member",
    "clustered_fs_mount": "mount_point",
    "cluster_lock": "lease_seconds",
}
MODULES = dict(OPENSTACK_MODULES, **HOST_MODULES)


def test_ansible_doc_lists_and_documents_every_installed_module(installed):
    listing = subprocess.run(
        [str(BIN / "ansible-doc"), "-t", "module", "-l", "multiattach.cloud"],
        capture_output=True,
        text=True,
        env=installed["env"],
        cwd=str(installed["cwd"]),
        check=True,
    )
    listed = sorted(line.split()[0] for line in listing.stdout.splitlines() if line.strip())
    assert listed == sorted("multiattach.cloud." + name for name in MODULES)
    for name, own_option in MODULES.items():
        page = subprocess.run(
            [str(BIN / "ansible-doc"), "multiattach.cloud." + name],
            capture_output=True,
            text=True,
            env=installed["env"],
            cwd=str(installed["cwd"]),
            check=True,
        )
        assert own_option in page.stdout, name
        assert ("api_timeout" in page.stdout) == (name in OPENSTACK_MODULES), name


def test_a_playbook_runs_the_installed_module_by_fqcn(installed):
    playbook = installed["cwd"] / "info.yml"
    playbook.write_text(
        "- hosts: localhost\n  connection: local\n  gather_facts: false\n  tasks:\n"
        "    - multiattach.cloud.volume_info: {cloud: local-admin}\n      register: info\n"
        "    - ansible.builtin.assert: {that: [info.volumes is sequence]}\n"
    )
    run = subprocess.run(
        [str(BIN / "ansible-playbook"), str(playbook)],
        capture_output=True,
        text=True,
        env=installed["env"],
        cwd=str(installed["cwd"]),
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "ok=2" in run.stdout
    assert (
        str(installed["collections"])
        in subprocess.run(
            [str(BIN / "ansible-galaxy"), "collection", "list", "multiattach.cloud"],
            capture_output=True,
            text=True,
            env=installed["env"],
            cwd=str(installed["cwd"]),
            check=True,
        ).stdout
    )


def test_the_installed_playbooks_and_roles_are_found_by_fqcn(installed):
    for playbook in (
        "multiattach.cloud.site",
        "multiattach.cloud.add_node",
        "multiattach.cloud.remove_node",
    ):
        check = subprocess.run(
            [str(BIN / "ansible-playbook"), "--syntax-check", playbook],
            capture_output=True,
            text=True,
            env=installed["env"],
            cwd=str(installed["cwd"]),
            check=False,
        )
        assert check.returncode == 0, playbook + check.stdout + check.stderr
    spec = subprocess.run(
        [str(BIN / "ansible-doc"), "-t", "role", "multiattach.cloud.cinder_multiattach"],
        capture_output=True,
        text=True,
        env=installed["env"],
        cwd=str(installed["cwd"]),
        check=True,
    )
    assert "cinder_multiattach_backends" in spec.stdout


def introspect(installed, *user_files):
    """What an execution environment's build runs on the installed collection (its
    Containerfile's `introspect` step), with the definition's own files (--user-pip,
    --user-bindep) when it lists them; the parsed dependency data."""
    listed = subprocess.run(
        [str(BIN / "ansible-builder"), "introspect", *user_files, str(installed["collections"])],
        capture_output=True,
        text=True,
        check=True,
        env=installed["env"],
    ).stdout
    return yaml.safe_load(listed.split("\n---\n", 1)[1])


def test_the_execution_environment_of_the_collection_holds_only_what_runs_there(installed):
    """The OpenStack modules run in the environment, the libvirt modules on the compute hosts:
    the collection's requirements.txt and bindep.txt (named by meta/execution-environment.yml)
    give the image openstacksdk and nothing to compile, no libvirt."""
    with tarfile.open(installed["tarball"]) as archive:
        names = set(archive.getnames())
    assert {"meta/execution-environment.yml", "requirements.txt", "bindep.txt"} <= names
    found = introspect(installed)
    assert found["python"] == ["openstacksdk>=4.14.0  # from collection multiattach.cloud"], found
    assert found["system"] == [], found


def test_the_libvirt_option_adds_libvirt_python_and_its_build_packages(installed):
    """docs/examples' libvirt files, the documented option for an image that manages its own
    libvirt host, add libvirt-python, and its compiler and headers only for the build stage."""
    examples = ROOT / "docs" / "examples"
    found = introspect(
        installed,
        "--user-pip",
        str(examples / "requirements-libvirt.txt"),
        "--user-bindep",
        str(examples / "bindep-libvirt.txt"),
    )
    assert "openstacksdk>=4.14.0  # from collection multiattach.cloud" in found["python"], found
    assert "libvirt-python  # from collection user" in found["python"], found
    built_only = [line for line in found["system"] if "[compile" in line]
    assert {line.split()[0] for line in built_only} >= {"gcc", "libvirt-dev", "libvirt-devel"}
    assert "libvirt0 [platform:dpkg]  # from collection user" in found["system"], found


def build_context(installed, definition):
    context = installed["cwd"] / ("context-" + definition)
    subprocess.run(
        [str(BIN / "ansible-builder"), "create", "-f", definition, "-c", str(context)],
        capture_output=True,
        text=True,
        check=True,
        cwd=str(ROOT / "docs" / "examples"),
        env=installed["env"],
    )
    return context


def test_ansible_builder_creates_a_build_context_from_the_example_definitions(installed):
    plain = build_context(installed, "execution-environment.yml")
    assert "multiattach.cloud" in (plain / "_build" / "requirements.yml").read_text()
    containerfile = next(plain.glob("*file")).read_text()
    assert "introspect" in containerfile and "install-from-bindep" in containerfile, containerfile
    assert "ansible-core>=2.19,<2.22" in containerfile, containerfile
    # The definition lists no files of its own: the image gets only the collection's.
    assert not (plain / "_build" / "requirements.txt").exists()
    assert not (plain / "_build" / "bindep.txt").exists()

    with_libvirt = build_context(installed, "execution-environment-libvirt.yml")
    assert "libvirt-python" in (with_libvirt / "_build" / "requirements.txt").read_text()
    assert (
        "libvirt-dev [compile platform:dpkg]"
        in (with_libvirt / "_build" / "bindep.txt").read_text()
    )
