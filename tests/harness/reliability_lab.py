"""What the reliability tests make in the cloud and how they look at it."""

import uuid

import openstack
from local_cloud import multiattach_probe


def cloud_listing(conn):
    """What exists in the cloud, as comparable data: volumes with every field a module may
    change (status, size, type, description, metadata, bootable flag, holders); every
    volume type, private ones included, with its specs, description, visibility and
    access list; servers; Cinder's attachment records with their mode."""
    volumes = {
        v.id: (
            v.name,
            v.status,
            v.size,
            v.volume_type,
            v.description,
            tuple(sorted((v.metadata or {}).items())),
            str(v.is_bootable),
            tuple(sorted(a["server_id"] for a in v.attachments)),
        )
        for v in conn.block_storage.volumes(all_projects=True)
    }
    types = {}
    # is_public="None" lists private types too (the default lists only public ones).
    for volume_type in conn.block_storage.types(is_public="None"):
        access = (
            ()
            if volume_type.is_public
            else tuple(
                sorted(
                    entry["project_id"] for entry in conn.block_storage.get_type_access(volume_type)
                )
            )
        )
        types[volume_type.id] = (
            volume_type.name,
            volume_type.description,
            volume_type.is_public,
            access,
            tuple(sorted((volume_type.extra_specs or {}).items())),
        )
    servers = {s.id: (s.name, s.status) for s in conn.compute.servers(all_projects=True)}
    attachments = conn.block_storage.get(
        "/attachments/detail?all_tenants=1", microversion="3.27"
    ).json()["attachments"]
    return {
        "volumes": volumes,
        "types": types,
        "servers": servers,
        "attachments": sorted((a["id"], a["status"], a.get("attach_mode")) for a in attachments),
    }


class Lab(multiattach_probe.Probe):
    """Types, volumes and servers for the bad-input cases; deleted at the end."""

    def __init__(self, conn):
        super().__init__(conn, "rel-" + uuid.uuid4().hex[:6])
        self.extra_types = []

    def add_type(self, suffix, extra_specs, encrypted=False):
        created = self.conn.block_storage.create_type(
            name="%s-%s" % (self.prefix, suffix), extra_specs=extra_specs
        )
        if encrypted:
            self.conn.block_storage.create_type_encryption(
                created,
                provider="luks",
                control_location="front-end",
                cipher="aes-xts-plain64",
                key_size=256,
            )
        self.extra_types.append((created, encrypted))
        return created

    def cleanup(self):
        problems = super().cleanup()
        for created, encrypted in self.extra_types:
            try:
                if encrypted:
                    self.conn.block_storage.delete_type_encryption(
                        self.conn.block_storage.get_type_encryption(created)
                    )
                self.conn.block_storage.delete_type(created, ignore_missing=True)
            except openstack.exceptions.SDKException as error:
                problems.append("type %s: %s" % (created.id, error))
        return problems
