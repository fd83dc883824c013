"""Show that a cloud can multiattach: one volume, N servers, raw openstacksdk.

Creates a volume type with `multiattach: "<is> True"`, a volume of it and N
servers booted the standard way (the local cloud's image and flavor, no network), attaches the volume to every
server with compute API 2.60, then detaches it from the first server only.
Deletes everything it made, also on failure. Prints a JSON report:

    multiattach_probe.py CLOUD [--servers N] [--prefix NAME]
"""

import argparse
import json
import sys
import time
import uuid

import openstack

MULTIATTACH_MICROVERSION = "2.60"
# Made by the local cloud's cloud-up (tools/local_cloud/up.yml): servers boot from this image
# on this flavor (1 GiB root disk; the fake compute writes nothing).
SERVER_IMAGE = "local-blank"
SERVER_FLAVOR = "m1.image"
SERVER_TIMEOUT = 120
VOLUME_TIMEOUT = 60
# openstacksdk polls every 2 s by default; the fake drivers finish in well under a
# second, and every test creates and deletes several servers and volumes.
POLL_SECONDS = 0.5


def wait_until(description, probe, timeout):
    deadline = time.time() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.time() > deadline:
            raise TimeoutError("timed out after %d s waiting for %s" % (timeout, description))
        time.sleep(0.25)


def volume_state(conn, volume_id):
    volume = conn.block_storage.get_volume(volume_id)
    return {
        "status": volume.status,
        "multiattach": volume.is_multiattach,
        "attached_servers": sorted(a["server_id"] for a in volume.attachments),
    }


def attach(conn, server_id, volume_id, microversion=MULTIATTACH_MICROVERSION):
    return conn.compute.post(
        "/servers/%s/os-volume_attachments" % server_id,
        json={"volumeAttachment": {"volumeId": volume_id}},
        microversion=microversion,
    )


def detach(conn, server_id, volume_id):
    return conn.compute.delete(
        "/servers/%s/os-volume_attachments/%s" % (server_id, volume_id),
        microversion=MULTIATTACH_MICROVERSION,
    )


class Probe:
    """Owns what the probe creates, so that cleanup() can remove all of it."""

    def __init__(self, conn, prefix):
        self.conn = conn
        self.prefix = prefix
        self.volume_type = None
        self.volumes = []
        self.servers = []
        self._boot = None

    def create_type(self):
        self.volume_type = self.conn.block_storage.create_type(
            name=self.prefix + "-type", extra_specs={"multiattach": "<is> True"}
        )
        return self.volume_type

    def create_volume(self, name, **attrs):
        volume = self.conn.block_storage.create_volume(
            name=self.prefix + "-" + name, size=1, **attrs
        )
        self.volumes.append(volume)
        return self.conn.block_storage.wait_for_status(
            volume,
            status="available",
            failures=["error"],
            interval=POLL_SECONDS,
            wait=VOLUME_TIMEOUT,
        )

    def create_server(self, name):
        """A server booted from SERVER_IMAGE on SERVER_FLAVOR (imageRef and flavorRef)."""
        if self._boot is None:
            self._boot = (
                self.conn.image.find_image(SERVER_IMAGE, ignore_missing=False).id,
                self.conn.compute.find_flavor(SERVER_FLAVOR, ignore_missing=False).id,
            )
        image_id, flavor_id = self._boot
        server = self.conn.compute.create_server(
            name=self.prefix + "-" + name, image_id=image_id, flavor_id=flavor_id, networks="none"
        )
        self.servers.append(server)
        return server

    def wait_for_servers(self, timeout=SERVER_TIMEOUT):
        """Wait until every server this probe created is ACTIVE."""
        for server in self.servers:
            self.conn.compute.wait_for_server(
                server, status="ACTIVE", interval=POLL_SECONDS, wait=timeout
            )

    def cleanup(self):
        """Delete everything, servers first (their deletion detaches), all at once."""
        problems = []
        servers_deleting = []
        for server in self.servers:
            try:
                self.conn.compute.delete_server(server, ignore_missing=True)
                servers_deleting.append(server)
            except openstack.exceptions.SDKException as error:
                problems.append("server %s: %s" % (server.id, error))
        for server in servers_deleting:
            try:
                self.conn.compute.wait_for_delete(
                    server, interval=POLL_SECONDS, wait=SERVER_TIMEOUT
                )
            except openstack.exceptions.SDKException as error:
                problems.append("server %s: %s" % (server.id, error))
        volumes_deleting = []
        for volume in self.volumes:
            try:
                wait_until(
                    "volume %s to be detached" % volume.id,
                    lambda v=volume: self._detached_or_gone(v.id),
                    VOLUME_TIMEOUT,
                )
                self.conn.block_storage.delete_volume(volume, ignore_missing=True)
                volumes_deleting.append(volume)
            except (openstack.exceptions.SDKException, TimeoutError) as error:
                problems.append("volume %s: %s" % (volume.id, error))
        for volume in volumes_deleting:
            try:
                self.conn.block_storage.wait_for_delete(
                    volume, interval=POLL_SECONDS, wait=VOLUME_TIMEOUT
                )
            except openstack.exceptions.SDKException as error:
                problems.append("volume %s: %s" % (volume.id, error))
        if self.volume_type:
            try:
                self.conn.block_storage.delete_type(self.volume_type, ignore_missing=True)
            except openstack.exceptions.SDKException as error:
                problems.append("type %s: %s" % (self.volume_type.id, error))
        return problems

    def _detached_or_gone(self, volume_id):
        volume = self.conn.block_storage.find_volume(volume_id)
        return volume is None or volume.status in ("available", "error")


def run(conn, server_count, prefix):
    """Run the probe; return its report. Raises on any failed step."""
    report = {"servers": server_count, "prefix": prefix}
    probe = Probe(conn, prefix)
    try:
        volume_type = probe.create_type()
        shared = probe.create_volume("shared", volume_type=volume_type.name)
        report["volume_type"] = {"name": volume_type.name, "extra_specs": volume_type.extra_specs}
        report["created"] = volume_state(conn, shared.id)
        servers = [probe.create_server("server%d" % index) for index in range(server_count)]
        probe.wait_for_servers()
        server_ids = sorted(server.id for server in servers)

        response = attach(conn, servers[0].id, shared.id, microversion="2.59")
        report["first_attach_2_59_status"] = response.status_code
        if response.status_code != 200:
            report["first_attach_2_59_error"] = response.text
        for server in servers:
            if server.id in volume_state(conn, shared.id)["attached_servers"]:
                continue
            wait_until(
                "volume %s to leave attaching" % shared.id,
                lambda: volume_state(conn, shared.id)["status"] in ("available", "in-use"),
                VOLUME_TIMEOUT,
            )
            response = attach(conn, server.id, shared.id)
            if response.status_code != 200:
                raise RuntimeError(
                    "attach to %s answered %s: %s"
                    % (server.id, response.status_code, response.text)
                )
        report["after_attach"] = wait_until(
            "all attachments",
            lambda: _when(
                volume_state(conn, shared.id),
                lambda s: s["attached_servers"] == server_ids and s["status"] == "in-use",
            ),
            VOLUME_TIMEOUT,
        )
        report["server_ids"] = server_ids

        response = detach(conn, servers[0].id, shared.id)
        if response.status_code != 202:
            raise RuntimeError("detach answered %s: %s" % (response.status_code, response.text))
        remaining = sorted(s.id for s in servers[1:])
        report["detached_server"] = servers[0].id
        report["after_detach"] = wait_until(
            "one detach",
            lambda: _when(
                volume_state(conn, shared.id),
                lambda s: (
                    s["attached_servers"] == remaining and s["status"] in ("in-use", "available")
                ),
            ),
            VOLUME_TIMEOUT,
        )
        for server in servers[1:]:
            detach(conn, server.id, shared.id)
    finally:
        report["cleanup_problems"] = probe.cleanup()
    return report


def _when(value, predicate):
    return value if predicate(value) else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cloud")
    parser.add_argument("--servers", type=int, default=2)
    parser.add_argument("--prefix", default="probe-" + uuid.uuid4().hex[:8])
    args = parser.parse_args()
    if args.servers < 2:
        parser.error("--servers must be at least 2 to show a shared volume")
    conn = openstack.connect(cloud=args.cloud)
    try:
        report = run(conn, args.servers, args.prefix)
    except (openstack.exceptions.SDKException, TimeoutError, RuntimeError) as error:
        print("multiattach probe failed: %s" % error, file=sys.stderr)
        return 1
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0 if not report["cleanup_problems"] else 1


if __name__ == "__main__":
    sys.exit(main())
