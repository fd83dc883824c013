"""Register the local cloud's users, projects, endpoints and flavors.

    register.py identity SPEC   users, projects, roles, services, endpoints
    register.py compute SPEC    flavors (needs nova-api)
    register.py image SPEC      images (needs glance-api)

Idempotent: what exists is left as it is. Reads a JSON description of what to
register from SPEC, and clouds.yaml (through
OS_CLIENT_CONFIG_FILE) for the admin cloud that `keystone-manage bootstrap`
made. Prints a JSON summary of what it created.
"""

import json
import sys

import openstack


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
        found, new = ensure(identity.find_project, identity.create_project, name,
                            domain_id=domain.id)
        if new:
            created.append("project " + name)
        return found

    def user(name, password, default_project):
        found = identity.find_user(name, domain_id=domain.id)
        if found:
            identity.update_user(found, password=password)
            return found
        created.append("user " + name)
        return identity.create_user(name=name, password=password, domain_id=domain.id,
                                    default_project_id=default_project.id)

    service_project = project("service")
    for name in spec["service_users"]:
        account = user(name, spec["service_password"], service_project)
        for role_name in ("admin", "service"):
            grant(conn, roles[role_name], account, service_project, created)

    member_project = project(spec["member_project"])
    member = user(spec["member_user"], spec["member_password"], member_project)
    grant(conn, roles["member"], member, member_project, created)

    for service in spec["services"]:
        found = [svc for svc in identity.services() if svc.type == service["type"]]
        svc = found[0] if found else identity.create_service(
            name=service["name"], type=service["type"], is_enabled=True)
        if not found:
            created.append("service " + service["type"])
        present = {(ep.interface, ep.url) for ep in identity.endpoints(service_id=svc.id)}
        for interface in ("public", "internal", "admin"):
            if (interface, service["url"]) not in present:
                identity.create_endpoint(service_id=svc.id, interface=interface,
                                         url=service["url"], region_id=spec["region"])
                created.append("%s endpoint for %s" % (interface, service["type"]))


def register_images(conn, spec, created):
    """Public images of zeros (spec: name, size_mib): what the fake compute needs to boot."""
    for image in spec["images"]:
        if not conn.image.find_image(image["name"]):
            conn.image.create_image(
                name=image["name"], data=b"\0" * (image["size_mib"] * 2**20),
                disk_format="raw", container_format="bare", visibility="public",
                allow_duplicates=True)
            created.append("image " + image["name"])


PARTS = {"identity": register_identity, "compute": register_flavors, "image": register_images}


def main(part, spec_path):
    with open(spec_path, encoding="utf-8") as handle:
        spec = json.load(handle)
    conn = openstack.connect(cloud=spec["admin_cloud"])
    created = []
    PARTS[part](conn, spec, created)
    json.dump({"changed": bool(created), "created": created}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
