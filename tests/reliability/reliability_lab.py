"""What the reliability tests make in the cloud and how they look at it."""
import uuid

import openstack

import multiattach_probe


def cloud_listing(conn):
    """What exists in the cloud, as comparable data: volumes with their attachments and
    status, types with their specs, servers, and Cinder's attachment records."""
    volumes = {v.id: (v.name, v.status, v.size, v.volume_type,
                      tuple(sorted(a["server_id"] for a in v.attachments)))
               for v in conn.block_storage.volumes(all_projects=True)}
    types = {t.id: (t.name, tuple(sorted((t.extra_specs or {}).items())))
             for t in conn.block_storage.types()}
    servers = {s.id: (s.name, s.status) for s in conn.compute.servers(all_projects=True)}
    attachments = conn.block_storage.get("/attachments/detail?all_tenants=1",
                                         microversion="3.27").json()["attachments"]
    return {"volumes": volumes, "types": types, "servers": servers,
            "attachments": sorted((a["id"], a["status"]) for a in attachments)}


class Lab(multiattach_probe.Probe):
    """Types, volumes and servers for the bad-input cases; deleted at the end."""

    def __init__(self, conn):
        super().__init__(conn, "rel-" + uuid.uuid4().hex[:6])
        self.extra_types = []

    def add_type(self, suffix, extra_specs, encrypted=False):
        created = self.conn.block_storage.create_type(name="%s-%s" % (self.prefix, suffix),
                                                      extra_specs=extra_specs)
        if encrypted:
            self.conn.block_storage.create_type_encryption(
                created, provider="luks", control_location="front-end",
                cipher="aes-xts-plain64", key_size=256)
        self.extra_types.append((created, encrypted))
        return created

    def cleanup(self):
        problems = super().cleanup()
        for created, encrypted in self.extra_types:
            try:
                if encrypted:
                    self.conn.block_storage.delete_type_encryption(
                        self.conn.block_storage.get_type_encryption(created))
                self.conn.block_storage.delete_type(created, ignore_missing=True)
            except openstack.exceptions.SDKException as error:
                problems.append("type %s: %s" % (created.id, error))
        return problems
