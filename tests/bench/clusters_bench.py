"""Many clusters at once: M multiattach volumes, each made and attached to its own N servers.

    clusters_bench.py [--clusters 5] [--servers 4] [--repeat 3] [--json PATH]

On the local cloud (`make cloud-up`), in the same run, three ways to provision all M volumes:
  playbook    playbooks/provision_shared_volume.yml with the list shared_volumes (the
              documented way): one multiattach.cloud.shared_volumes task, a thread a volume
  floor       tests/bench/clusters_floor.py: an openstacksdk script, a thread a volume, each
              creating its volume and attaching its servers at the volume's pace
  floor in ansible-playbook
              the same script run by ansible-playbook (one ansible.builtin.command task on
              localhost): what Ansible's own process adds to any work, to set the playbook's
              distance from the floor against
Each round runs every way in a rotating order, on new volumes; between them the volumes are
detached and deleted, untimed. Wall seconds are whole processes. Prints a Markdown report:
medians, the ratio to the floor and the goal (the playbook within 1.3x of the floor).
The playbook's time is the whole ansible-playbook process, its start-up included.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import openstack
import yaml
from harness.ansible_runner import LOCALHOST_VARS, run_ansible_playbook, write_playbook
from local_cloud import multiattach_probe, paths

ROOT = Path(__file__).resolve().parents[2]
CLOUD = "local-admin"
OBSERVER = "clusters-bench-observer"
WAYS = ("playbook", "floor", "floor in ansible-playbook")
GOAL = 1.3


class Lab:
    def __init__(self, conn, clusters, servers):
        self.conn = conn
        self.probe = multiattach_probe.Probe(conn, "cb-" + uuid.uuid4().hex[:6])
        self.volume_type = self.probe.create_type().name
        made = [
            [self.probe.create_server("c%d-s%d" % (c, s)) for s in range(servers)]
            for c in range(clusters)
        ]
        self.probe.wait_for_servers(timeout=300)
        self.servers = [[server.name for server in cluster] for cluster in made]
        self.labels = []  # every plan made, so that a failed run leaves no volume behind

    def remove_all(self):
        for label in self.labels:
            self.remove(self.plan_of(label))

    def plan_of(self, label):
        return {
            "%s-%s-%d" % (self.probe.prefix, label, index): names
            for index, names in enumerate(self.servers)
        }

    def plan(self, label):
        self.labels.append(label)
        return self.plan_of(label)

    def shown(self, plan):
        """Whether every volume of PLAN is in-use by exactly its servers."""
        ids = {s.name: s.id for s in self.conn.compute.servers(details=False)}
        for name, servers in plan.items():
            volume = self.conn.block_storage.find_volume(name, ignore_missing=True)
            held = {a["server_id"] for a in volume.attachments} if volume else set()
            if volume is None or volume.status != "in-use" or held != {ids[s] for s in servers}:
                return False
        return True

    def let_go(self, volume_id, server_id):
        """Whether SERVER_ID no longer holds the volume and Cinder is done with it (one read)."""
        volume = self.conn.block_storage.get_volume(volume_id)
        held = {a["server_id"] for a in volume.attachments}
        return server_id not in held and volume.status in ("in-use", "available")

    def remove(self, plan):
        """Detach and delete the volumes of PLAN (untimed), the floor's way."""
        for name in plan:
            volume = self.conn.block_storage.find_volume(name, ignore_missing=True)
            if volume is None:
                continue
            holders = [a["server_id"] for a in volume.attachments]
            for server_id in holders:
                multiattach_probe.detach(self.conn, server_id, volume.id)
                multiattach_probe.wait_until(
                    "detach of %s" % server_id,
                    lambda v=volume.id, s=server_id: self.let_go(v, s),
                    120,
                )
            self.conn.block_storage.delete_volume(volume.id)
            self.conn.block_storage.wait_for_delete(volume, interval=0.5, wait=120)


def by_playbook(lab, plan):
    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as handle:
        yaml.safe_dump(
            {
                "shared_volumes": [
                    {"name": name, "servers": servers} for name, servers in plan.items()
                ],
                "shared_volume_type": lab.volume_type,
                "multiattach_cloud": CLOUD,
            },
            handle,
        )
    try:
        results, completed = run_ansible_playbook(
            [
                "-i",
                "localhost,",
                "-e",
                "@" + handle.name,
                str(ROOT / "playbooks" / "provision_shared_volume.yml"),
            ],
        )
    finally:
        os.unlink(handle.name)
    if completed.returncode != 0:
        raise RuntimeError("the playbook failed: %s" % (completed.stdout[-2000:]))
    return sum(r.get("_seconds", 0) for r in results or [])


def floor_command(lab, plan):
    return [
        sys.executable,
        str(ROOT / "tests" / "bench" / "clusters_floor.py"),
        CLOUD,
        lab.volume_type,
        json.dumps(plan),
    ]


def by_floor(lab, plan):
    completed = subprocess.run(floor_command(lab, plan), check=True, capture_output=True, text=True)
    return json.loads(completed.stdout)["seconds"]


def by_floor_in_ansible(lab, plan):
    playbook = write_playbook(
        [{"name": "floor", "ansible.builtin.command": {"argv": floor_command(lab, plan)}}]
    )
    try:
        results, completed = run_ansible_playbook(
            ["-i", "localhost,", "-e", json.dumps(LOCALHOST_VARS), playbook]
        )
    finally:
        os.unlink(playbook)
    if completed.returncode != 0:
        raise RuntimeError("the floor in ansible-playbook failed: %s" % completed.stdout[-2000:])
    return json.loads(results[0]["stdout"])["seconds"]


def run_way(lab, way, plan):
    if way == "floor":
        return by_floor(lab, plan)
    if way == "floor in ansible-playbook":
        return by_floor_in_ansible(lab, plan)
    return by_playbook(lab, plan)


def bench(lab, repeat):
    runs = {way: [] for way in WAYS}
    for round_number in range(repeat):
        shift = round_number % len(WAYS)
        for way in WAYS[shift:] + WAYS[:shift]:
            plan = lab.plan("r%d-%s" % (round_number, "".join(w[0] for w in way.split())))
            started = time.monotonic()
            inner = run_way(lab, way, plan)
            seconds = time.monotonic() - started
            if not lab.shown(plan):
                raise RuntimeError("%s did not attach every volume to its servers" % way)
            runs[way].append({"seconds": seconds, "inner_seconds": inner})
            lab.remove(plan)
    return runs


def report(runs, clusters, servers):
    floor = statistics.median(r["seconds"] for r in runs["floor"])
    lines = [
        "## Many clusters at once: %d volumes x %d servers" % (clusters, servers),
        "",
        "%d round(s), the ways in a rotating order, medians; wall: the whole process."
        % len(runs["floor"]),
        "",
        "| way | wall s (median) | every round | x floor |",
        "|---|---:|---|---:|",
    ]
    for way, cells in runs.items():
        median = statistics.median(c["seconds"] for c in cells)
        lines.append(
            "| %s | %.2f | %s | %.2f |"
            % (way, median, ", ".join("%.2f" % c["seconds"] for c in cells), median / floor)
        )
    playbook_median = statistics.median(c["seconds"] for c in runs["playbook"])
    playbook = playbook_median / floor
    in_ansible = statistics.median(c["seconds"] for c in runs["floor in ansible-playbook"])
    lines += [
        "",
        "| goal | measured | met |",
        "|---|---|---|",
        "| the playbook (one task, a thread a volume) within %.1fx of the floor | %.2fx | %s |"
        % (GOAL, playbook, "yes" if playbook <= GOAL else "NO"),
        "",
        "Ansible's own process around the same work (the floor in ansible-playbook less the "
        "floor): %.2f s; the playbook less the floor in ansible-playbook: %+.2f s (%.2fx)."
        % (in_ansible - floor, playbook_median - in_ansible, playbook_median / in_ansible),
    ]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=5)
    parser.add_argument("--servers", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.clusters < 1 or args.servers < 1 or args.repeat < 1:
        parser.error("--clusters, --servers and --repeat take numbers of 1 or more")
    os.environ.setdefault("OS_CLIENT_CONFIG_FILE", str(paths.clouds_yaml()))
    conn = openstack.connect(cloud=CLOUD, app_name=OBSERVER)
    lab = Lab(conn, args.clusters, args.servers)
    try:
        runs = bench(lab, args.repeat)
    finally:
        lab.remove_all()
        problems = lab.probe.cleanup()
        if problems:
            print("cleanup problems: %s" % problems, file=sys.stderr)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(runs, indent=1))
    print(report(runs, args.clusters, args.servers))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
