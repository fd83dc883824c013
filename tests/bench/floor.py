"""The floor: the fewest openstacksdk calls that attach or detach one volume to servers.

    floor.py CLOUD VOLUME_ID attach|detach SERVER_NAME...

Given server names, like the modules: one server listing, one volume read, then
for each server that needs it one attach (or detach) call, polling the volume
every 0.25 s until Cinder shows the change (Cinder takes one attach of a volume
at a time, so the next call waits for it). No checks, no messages, no retries.
"""
import sys
import time

import openstack

POLL_SECONDS = 0.25


def main(cloud, volume_id, action, names):
    conn = openstack.connect(cloud=cloud)
    ids = {server.name: server.id for server in conn.compute.servers(details=False)}
    volume = conn.block_storage.get_volume(volume_id)
    attached = {attachment["server_id"] for attachment in volume.attachments}
    for name in names:
        server_id = ids[name]
        if action == "attach" and server_id not in attached:
            conn.compute.post("/servers/%s/os-volume_attachments" % server_id,
                              json={"volumeAttachment": {"volumeId": volume_id}},
                              microversion="2.60").raise_for_status()
        elif action == "detach" and server_id in attached:
            conn.compute.delete("/servers/%s/os-volume_attachments/%s" % (server_id, volume_id),
                                microversion="2.60").raise_for_status()
        else:
            continue
        while (server_id in {a["server_id"] for a in volume.attachments}) != (action == "attach") \
                or volume.status not in ("in-use", "available"):
            time.sleep(POLL_SECONDS)
            volume = conn.block_storage.get_volume(volume_id)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])
