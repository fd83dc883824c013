"""Tempest's and cinder-tempest-plugin's multiattach tests against the local cloud's full profile.

    tools/lab --python .venv-tempest/bin/python tempest WORKSPACE [REGEX]

Writes WORKSPACE/etc/tempest.conf from the local cloud (its clouds.yaml, the guest image,
flavor and network found by name), runs `tempest run` on the tests REGEX names (by default
every multiattach test the issue lists) one at a time, and prints tempest's summary; the exit
status is tempest's. The workspace's subunit stream and log stay in WORKSPACE for reading.
"""

import configparser
import os
import subprocess
import sys
from pathlib import Path

import openstack
import yaml

from local_cloud import guests, paths

MULTIATTACH_TESTS = "|".join(
    [
        r"tempest\.api\.compute\.volumes\.test_attach_volume\.AttachVolumeMultiAttachTest",
        r"tempest\.api\.compute\.admin\.test_volume_swap\.TestMultiAttachVolumeSwap",
        r"tempest\.api\.compute\.admin\.test_volumes_negative\.UpdateMultiattachVolumeNegativeTest",
        r"tempest\.api\.volume\.admin\.test_volume_retype\.VolumeRetypeMultiattachTest",
        r"cinder_tempest_plugin\.scenario\.test_volume_multiattach",
    ]
)
MULTIATTACH_TYPE = "multiattach-rbd-1"


def settings(clouds, conn, workspace):
    admin = clouds["clouds"]["local-admin"]["auth"]
    # TEMPEST_IMAGE: another Glance image to boot (the direct-LUN tests look for hw_scsi_model).
    image = conn.image.find_image(
        os.environ.get("TEMPEST_IMAGE") or guests.IMAGE, ignore_missing=False
    )
    flavor = conn.compute.find_flavor(guests.FLAVOR, ignore_missing=False)
    bigger = conn.compute.find_flavor(guests.FLAVOR + ".2", ignore_missing=False)
    # A volume a server boots from holds the whole image.
    volume_gib = max(-(-int(image.virtual_size or image.size) // 2**30), flavor.disk or 1)
    return {
        "DEFAULT": {"log_dir": str(workspace / "logs"), "log_file": "tempest.log"},
        "auth": {
            "admin_username": admin["username"],
            "admin_password": admin["password"],
            "admin_project_name": admin["project_name"],
            "admin_domain_name": "Default",
            "use_dynamic_credentials": "true",
            # The projects tempest makes use the shared guest network: this cloud has no
            # project network type (ML2 macvtap, flat only).
            "create_isolated_networks": "false",
        },
        "identity": {
            "uri_v3": admin["auth_url"],
            "auth_version": "v3",
            "region": "RegionOne",
            "v3_endpoint_type": "public",
        },
        "identity-feature-enabled": {"api_v2": "false", "api_v3": "true"},
        "compute": {
            "image_ref": image.id,
            "image_ref_alt": image.id,
            "flavor_ref": flavor.id,
            "flavor_ref_alt": bigger.id,
            "fixed_network_name": guests.NETWORK,
            "build_timeout": "600",
            "min_compute_nodes": "1",
            # The microversion tests may ask for (2.60 for multiattach): any the API has.
            "min_microversion": "2.1",
            "max_microversion": "latest",
        },
        "compute-feature-enabled": {
            "volume_multiattach": "true",
            "swap_volume": "true",
            "attach_encrypted_volume": "false",
            "console_output": "true",
            "live_migration": "false",
            "resize": "true",
            "cold_migration": "false",
            "shelve": "false",
            "suspend": "false",
            "pause": "false",
            "snapshot": "true",
            "vnc_console": "false",
            "serial_console": "false",
            "spice_console": "false",
        },
        "volume": {
            "volume_type_multiattach": MULTIATTACH_TYPE,
            "volume_size": str(volume_gib),
            "storage_protocol": "ceph",
            "vendor_name": "Open Source",
            "build_timeout": "600",
            "min_microversion": "3.0",
            "max_microversion": "latest",
        },
        "volume-feature-enabled": {
            "backup": "false",
            "extend_attached_volume": "false",
            "manage_volume": "false",
            "manage_snapshot": "false",
        },
        "network": {"shared_physical_network": "true", "project_networks_reachable": "false"},
        "network-feature-enabled": {"port_security": "false"},
        "validation": {
            "run_validation": "true",
            "connect_method": "fixed",
            "auth_method": "keypair",
            "image_ssh_user": "root",
            "image_alt_ssh_user": "root",
            # The scenario tests read the group they made; macvtap enforces none.
            "network_for_ssh": guests.NETWORK,
            "security_group": "true",
            "security_group_rules": "true",
            "ip_version_for_ssh": "4",
            "ssh_timeout": "300",
            "connect_timeout": "30",
        },
        "service_available": {
            "cinder": "true",
            "neutron": "true",
            "glance": "true",
            "nova": "true",
            "swift": "false",
            "horizon": "false",
        },
        "image-feature-enabled": {"api_v1": "false", "api_v2": "true"},
    }


def write_conf(workspace, values):
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_dict(values)
    conf = workspace / "etc" / "tempest.conf"
    conf.parent.mkdir(parents=True, exist_ok=True)
    with open(os.open(conf, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as handle:
        parser.write(handle)
    return conf


def main(argv):
    workspace = Path(argv[0]).resolve()
    regex = argv[1] if len(argv) > 1 else MULTIATTACH_TESTS
    clouds = yaml.safe_load(paths.clouds_yaml().read_text())
    conn = openstack.connect(cloud="local-admin")
    tempest = Path(sys.executable).parent / "tempest"
    if not (workspace / ".stestr.conf").exists():
        workspace.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([str(tempest), "init", str(workspace)], check=True)
    write_conf(workspace, settings(clouds, conn, workspace))
    env = dict(os.environ, TEMPEST_CONFIG_DIR=str(workspace / "etc"), TEMPEST_CONFIG="tempest.conf")
    return subprocess.run(
        [str(tempest), "run", "--serial", "--regex", regex], cwd=workspace, env=env, check=False
    ).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
