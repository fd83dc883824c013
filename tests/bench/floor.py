"""The floor: the fastest correct openstacksdk client that attaches or detaches one volume.

    floor.py CLOUD VOLUME_ID attach|detach sequential|pipelined|paced|parallel SERVER_NAME...

Given server names, like the modules: one server listing and one volume read, then one
attach (or detach) call per server that needs it, and a wait until Cinder shows every change.
Four forms:
  sequential  after each call, poll the volume every 0.25 s until Cinder shows it done;
              then the next call.
  pipelined   the next call as soon as the last one was taken; Nova refuses a call with
              HTTP 400 while Cinder still works on the previous one ("status must be ..."):
              retried after 0.1 s, backing off to 0.4 s, at most 200 times a server. One
              poll loop at the end.
  paced       after each call, read the volume until its status says Cinder takes the
              next call: the first read at a pace learned from the calls (sooner after a
              first read that showed it done, later after one that did not), then three
              reads 0.05 s apart, 0.1, 0.2, then every 0.25 s. One poll loop at the end.
  parallel    every call at once, one thread a server, each retrying Nova's refusals as
              pipelined does; then one poll loop. Whichever retry comes first after Cinder
              ends a call gets the next one.
Prints one JSON line: in-process seconds (from the first call to the read that shows the
result) and the requests sent (reads, writes, refusals retried). No checks, no messages.
"""

import concurrent.futures
import itertools
import json
import sys
import threading
import time

import openstack
from openstack import exceptions

POLL_SECONDS = 0.25
RETRY_FIRST, RETRY_MOST, RETRY_LIMIT = 0.1, 0.4, 200
REFUSALS = ("status must be", "is attaching", "is detaching")
SETTLED = ("in-use", "available")
FIRST_READ, FOLLOW_UPS = 0.15, (0.05, 0.05, 0.05, 0.1, 0.2)


class Floor:
    def __init__(self, conn, volume_id, action):
        self.conn = conn
        self.volume_id = volume_id
        self.attach = action == "attach"
        self.counts = {"reads": 0, "writes": 0, "refused": 0}
        self.counting = threading.Lock()  # the parallel form counts from its threads

    def count(self, what):
        with self.counting:
            self.counts[what] += 1

    def read_volume(self):
        self.count("reads")
        return self.conn.block_storage.get_volume(self.volume_id)

    def call(self, server_id):
        self.count("writes")
        if self.attach:
            response = self.conn.compute.post(
                "/servers/%s/os-volume_attachments" % server_id,
                json={"volumeAttachment": {"volumeId": self.volume_id}},
                microversion="2.60",
            )
        else:
            response = self.conn.compute.delete(
                "/servers/%s/os-volume_attachments/%s" % (server_id, self.volume_id),
                microversion="2.60",
            )
        exceptions.raise_from_response(response)

    def call_until_taken(self, server_id):
        delay = RETRY_FIRST
        for _attempt in range(RETRY_LIMIT):
            try:
                return self.call(server_id)
            except exceptions.BadRequestException as error:
                if not any(text in str(error) for text in REFUSALS):
                    raise
                self.count("refused")
                time.sleep(delay)
                delay = min(delay * 2, RETRY_MOST)
        raise RuntimeError("server %s: refused %d times" % (server_id, RETRY_LIMIT))

    def done(self, volume, server_ids):
        holders = {attachment["server_id"] for attachment in volume.attachments}
        shown = holders >= server_ids if self.attach else not holders & server_ids
        return shown and volume.status in ("in-use", "available")

    def wait(self, volume, server_ids):
        while not self.done(volume, server_ids):
            time.sleep(POLL_SECONDS)
            volume = self.read_volume()
        return volume

    def sequential(self, volume, server_ids):
        for server_id in server_ids:
            self.call(server_id)
            volume = self.wait(volume, {server_id})

    def pipelined(self, volume, server_ids):
        for server_id in server_ids:
            self.call_until_taken(server_id)
        self.wait(volume, set(server_ids))

    def parallel(self, volume, server_ids):
        with concurrent.futures.ThreadPoolExecutor(max_workers=len(server_ids)) as pool:
            for future in [pool.submit(self.call_until_taken, s) for s in server_ids]:
                future.result()
        self.wait(volume, set(server_ids))

    def paced(self, volume, server_ids):
        pace = FIRST_READ
        for server_id in server_ids:
            self.call(server_id)
            called = time.monotonic()
            delays = itertools.chain([pace], FOLLOW_UPS, itertools.repeat(POLL_SECONDS))
            reads = []
            for delay in delays:
                time.sleep(delay)
                volume = self.read_volume()
                reads.append(time.monotonic() - called)
                if volume.status in SETTLED:
                    break
            pace = pace * 0.9 if len(reads) == 1 else max(pace * 1.25, reads[-2])
            pace = max(pace, FOLLOW_UPS[0])
        self.wait(volume, set(server_ids))


def main(cloud, volume_id, action, form, names):
    conn = openstack.connect(cloud=cloud)
    floor = Floor(conn, volume_id, action)
    ids = {server.name: server.id for server in conn.compute.servers(details=False)}
    floor.counts["reads"] += 1
    volume = floor.read_volume()
    holders = {attachment["server_id"] for attachment in volume.attachments}
    todo = [ids[name] for name in names if (ids[name] in holders) != floor.attach]
    started = time.monotonic()
    if todo:
        getattr(floor, form)(volume, todo)
    print(json.dumps(dict(floor.counts, seconds=time.monotonic() - started)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
