"""Register the local cloud's users, projects, endpoints and flavors.

    register.py identity SPEC   users, projects, roles, services, endpoints
    register.py compute SPEC    flavors (needs nova-api)
    register.py image SPEC      images (needs glance-api)
    register.py guest -         the full profile's guest network and guest image (SPEC on
                                stdin: network, physnet, cidr, host_address, image_dir,
                                image)

Idempotent: what exists is left as it is (but the guest subnet's allocation pools, which
must leave out this machine's address). Reads a JSON description of what to
register from SPEC, and clouds.yaml (through
OS_CLIENT_CONFIG_FILE) for the admin cloud that `keystone-manage bootstrap`
made. Prints a JSON summary of what it created.
"""

import hashlib
import ipaddress
import json
import os
import subprocess
import sys
import time

import openstack

AGENT_WAIT_SECONDS = 120


def ensure(finder, creator, name, **attrs):
    found = finder(name)
    if found:
        return found, False
    return creator(name=name, **attrs), True


def grant(conn, role, user, project, created):
    if not conn.identity.validate_user_has_project_role(project, user, role):
        conn.identity.assign_project_role_to_user(project, user, role)
        created.append("role %s for %s on %s" % (role.name, user.name, project.name))


def register_flavors(conn, spec, created):
    for flavor in spec["flavors"]:
        if not conn.compute.find_flavor(flavor["name"]):
            conn.compute.create_flavor(**flavor)
            created.append("flavor " + flavor["name"])


def register_identity(conn, spec, created):
    identity = conn.identity

    domain = identity.find_domain("default")
    roles = {}
    for role_name in ("admin", "member", "reader", "service"):
        roles[role_name], new = ensure(identity.find_role, identity.create_role, role_name)
        if new:
            created.append("role " + role_name)

    def project(name):
        found, new = ensure(
            identity.find_project, identity.create_project, name, domain_id=domain.id
        )
        if new:
            created.append("project " + name)
        return found

    # keystone.conf locks a user out after failed sign-ins, as a hardened cloud does; the
    # tests sign in with wrong passwords on purpose, so the cloud's own users never lock.
    never_locked = {"ignore_lockout_failure_attempts": True}

    def user(name, password, default_project):
        found = identity.find_user(name, domain_id=domain.id)
        if found:
            identity.update_user(found, password=password, options=never_locked)
            return found
        created.append("user " + name)
        return identity.create_user(
            name=name,
            password=password,
            domain_id=domain.id,
            default_project_id=default_project.id,
            options=never_locked,
        )

    bootstrap_admin = identity.find_user(conn.config.auth["username"], domain_id=domain.id)
    if bootstrap_admin is not None and not (bootstrap_admin.options or {}).get(
        "ignore_lockout_failure_attempts"
    ):
        identity.update_user(bootstrap_admin, options=never_locked)
        created.append("lockout option for " + bootstrap_admin.name)

    service_project = project("service")
    for name in spec["service_users"]:
        account = user(name, spec["service_password"], service_project)
        for role_name in ("admin", "service"):
            grant(conn, roles[role_name], account, service_project, created)

    member_project = project(spec["member_project"])
    member = user(spec["member_user"], spec["member_password"], member_project)
    grant(conn, roles["member"], member, member_project, created)
    reader = user(spec["reader_user"], spec["reader_password"], member_project)
    grant(conn, roles["reader"], reader, member_project, created)

    for service in spec["services"]:
        found = [svc for svc in identity.services() if svc.type == service["type"]]
        svc = (
            found[0]
            if found
            else identity.create_service(
                name=service["name"], type=service["type"], is_enabled=True
            )
        )
        if not found:
            created.append("service " + service["type"])
        present = {ep.interface: ep for ep in identity.endpoints(service_id=svc.id)}
        for interface in ("public", "internal", "admin"):
            url = service.get(interface + "_url", service["url"])
            if interface not in present:
                identity.create_endpoint(
                    service_id=svc.id, interface=interface, url=url, region_id=spec["region"]
                )
                created.append("%s endpoint for %s" % (interface, service["type"]))
            elif present[interface].url != url:
                identity.update_endpoint(present[interface], url=url)
                created.append("%s endpoint for %s at %s" % (interface, service["type"], url))


def register_images(conn, spec, created):
    """Public images of zeros (spec: name, size_mib): what the fake compute needs to boot."""
    for image in spec["images"]:
        if not conn.image.find_image(image["name"]):
            conn.image.create_image(
                name=image["name"],
                data=b"\0" * (image["size_mib"] * 2**20),
                disk_format="raw",
                container_format="bare",
                visibility="public",
                allow_duplicates=True,
            )
            created.append("image " + image["name"])


def wait_for_macvtap_agent(conn):
    deadline = time.monotonic() + AGENT_WAIT_SECONDS
    while not any(agent.is_alive for agent in conn.network.agents(agent_type="Macvtap agent")):
        if time.monotonic() > deadline:
            raise SystemExit(
                "Neutron's macvtap agent did not report within %d s: see "
                "neutron-macvtap-agent.log and neutron-rpc-server.log" % AGENT_WAIT_SECONDS
            )
        time.sleep(1)


def guest_pools(cidr, host_address):
    """The subnet's allocation pools: every address of CIDR but this machine's own, which a
    subnet without a gateway would otherwise hand to a guest (and SSH to it reach this machine)."""
    network = ipaddress.ip_network(cidr)
    host = ipaddress.ip_address(host_address)
    first, last = network.network_address + 1, network.broadcast_address - 1
    ranges = [(first, host - 1), (host + 1, last)] if first <= host <= last else [(first, last)]
    return [{"start": str(a), "end": str(b)} for a, b in ranges if a <= b]


def register_guest_network(conn, spec, created):
    """A shared flat provider network on the macvtap agent's physical network, no DHCP:
    guests take their address from the config drive. This machine's address on it is kept out
    of the subnet's pools."""
    network = conn.network.find_network(spec["network"])
    if network is None:
        network = conn.network.create_network(
            name=spec["network"],
            is_shared=True,
            provider_network_type="flat",
            provider_physical_network=spec["physnet"],
        )
        created.append("network " + spec["network"])
    pools = guest_pools(spec["cidr"], spec["host_address"])
    subnets = list(conn.network.subnets(network_id=network.id))
    if not subnets:
        conn.network.create_subnet(
            name=spec["network"] + "-v4",
            network_id=network.id,
            ip_version=4,
            cidr=spec["cidr"],
            gateway_ip=None,
            is_dhcp_enabled=False,
            allocation_pools=pools,
        )
        created.append("subnet of " + spec["network"])
    for subnet in subnets:
        if subnet.allocation_pools != pools:
            conn.network.update_subnet(subnet, allocation_pools=pools)
            created.append("allocation pools of " + subnet.name)


def sha512_of(path):
    digest = hashlib.sha512()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def upload(conn, name, path, disk_format, created, absent=(), **properties):
    """The image NAME holding PATH, uploaded again when the file or a property changed, or a
    property named in ABSENT is set (one an earlier version set)."""
    found = conn.image.find_image(name)
    if (
        found is not None
        and found.hash_value == sha512_of(path)
        and all(getattr(found, key, None) == value for key, value in properties.items())
        and all(getattr(found, key, None) is None for key in absent)
    ):
        return found
    if found is not None:
        conn.image.delete_image(found)
    created.append("image " + name)
    return conn.image.create_image(
        name=name,
        filename=path,
        disk_format=disk_format,
        container_format=disk_format if disk_format in ("aki", "ari") else "bare",
        visibility="public",
        allow_duplicates=True,
        **properties,
    )


def register_guest_image(conn, spec, created):
    """The guest image as Glance's kernel, ramdisk and root disk: Nova's libvirt driver boots
    the kernel directly (the image has no boot loader) with the root disk as /dev/vda."""
    directory, name = spec["image_dir"], spec["image"]
    root = os.path.join(directory, "root.qcow2")
    if not os.path.exists(root) or os.path.getmtime(root) < os.path.getmtime(
        os.path.join(directory, "root.raw")
    ):
        subprocess.run(
            [
                "qemu-img",
                "convert",
                "-O",
                "qcow2",
                os.path.join(directory, "root.raw"),
                root + ".tmp",
            ],
            check=True,
        )
        os.replace(root + ".tmp", root)
    kernel = upload(conn, name + "-kernel", os.path.join(directory, "vmlinuz"), "aki", created)
    ramdisk = upload(conn, name + "-ramdisk", os.path.join(directory, "initrd.img"), "ari", created)
    # hypervisor_type: the scheduler's ImagePropertiesFilter then picks the libvirt host,
    # never the fake one, for servers of this image. No os_shutdown_timeout: Nova's stop gives
    # these guests its default 60 s of clean shutdown, as an operator's cloud does, so the
    # partition test shows that the fence does not rely on a short one.
    upload(
        conn,
        name,
        root,
        "qcow2",
        created,
        kernel_id=kernel.id,
        ramdisk_id=ramdisk.id,
        hypervisor_type="qemu",
        absent=("os_shutdown_timeout",),
        os_command_line="root=/dev/vda rw console=ttyS0 no_timer_check openstack.config_drive",
    )


def register_guest(conn, spec, created):
    wait_for_macvtap_agent(conn)
    register_guest_network(conn, spec, created)
    register_guest_image(conn, spec, created)


PARTS = {
    "identity": register_identity,
    "compute": register_flavors,
    "image": register_images,
    "guest": register_guest,
}


def main(part, spec_path):
    if spec_path == "-":
        spec = json.load(sys.stdin)
    else:
        with open(spec_path, encoding="utf-8") as handle:
            spec = json.load(handle)
    conn = openstack.connect(cloud=spec["admin_cloud"])
    created = []
    PARTS[part](conn, spec, created)
    json.dump({"changed": bool(created), "created": created}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
