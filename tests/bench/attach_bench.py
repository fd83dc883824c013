"""Attach one multiattach volume to N servers six ways; time each and count its API requests.

    attach_bench.py [--sizes 2,10,30] [--repeat 3] [--tools abcdef] [--json PATH]

On the local cloud (`make cloud-up`), for each N and in the same run:
  a  multiattach.cloud.volume_attachments, one task for all N servers
  b  multiattach.cloud.server_volume in a loop over the servers
  c  openstack.cloud.server_volume 2.6.0 in a loop (the newest, from the `ansible` package)
  d  tests/bench/floor.py sequential: each call waited for before the next
  e  tests/bench/floor.py pipelined: the next call as soon as Cinder takes it, one wait
  f  tests/bench/floor.py paced: the next call once the volume's status says Cinder takes
     it, read at the pace the volume showed (the modules' own way, without Ansible)
  g  tests/bench/floor.py parallel: every call at once from its own thread, Nova's
     one-at-a-time refusals retried
each through four phases: attach all N, an identical re-run, detach the first half, and
(after the half is attached again, untimed) detach all N.
The floor of a phase is the fastest of d, e, f and g. Wall time is whole processes (start-up
included); in-process time is the module task's own (or the floor script's, from its first
call). Requests are counted from the API services' own request logs, refusals (HTTP 400,
409) apart. Prints a Markdown report with ratios to the floor. It reports; it fails only if
the cloud misbehaves.
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
from collections import Counter
from pathlib import Path

import openstack
import yaml
from harness.ansible_runner import OPENSTACK_CLOUD_COLLECTIONS, run_ansible_playbook
from harness.api_requests import RequestCounter
from local_cloud import multiattach_probe, paths

ROOT = Path(__file__).resolve().parents[2]

CLOUD = "local-admin"
SERVICES = ("identity", "compute", "block-storage")
# The bench's own connection (lab set-up, checking the holders) is not counted.
OBSERVER = "attach-bench-observer"
READS = ("GET", "HEAD")
TOOLS = {
    "a": "multiattach.cloud.volume_attachments (one task)",
    "b": "multiattach.cloud.server_volume (loop)",
    "c": "openstack.cloud.server_volume 2.6.0 (loop)",
    "d": "floor, sequential (openstacksdk script)",
    "e": "floor, pipelined (openstacksdk script)",
    "f": "floor, paced (openstacksdk script)",
    "g": "floor, parallel (openstacksdk script, a thread a server)",
}
FLOORS = "defg"
REFUSED = (400, 409)
# openstack.cloud's detach waits for "available" (its timeout, 60 s here) at every server
# but the last: detaching all N would take N minutes a round, and its detach half shows it.
SKIPS_DETACH_ALL = "c"
PHASES = ("attach", "re-run", "detach half", "detach all")


class Lab:
    """One multiattach volume and the servers, made for the run and deleted after it."""

    def __init__(self, conn, server_count):
        self.conn = conn
        self.probe = multiattach_probe.Probe(conn, "bench-" + uuid.uuid4().hex[:6])
        volume_type = self.probe.create_type()
        self.volume = self.probe.create_volume("shared", volume_type=volume_type.name)
        servers = [self.probe.create_server("s%02d" % index) for index in range(server_count)]
        self.probe.wait_for_servers(timeout=300)
        self.names = [server.name for server in servers]
        self.name_of = {server.id: server.name for server in servers}

    def holders(self):
        volume = self.conn.block_storage.get_volume(self.volume.id)
        return sorted(self.name_of.get(a["server_id"], a["server_id"]) for a in volume.attachments)

    def detach_all(self):
        floor(self, "detach", self.holders())
        if self.holders():
            raise RuntimeError("could not detach every server: %s" % self.holders())


def playbook_run(tasks, venv=None, extra_env=None):
    play = [
        {
            "name": "bench",
            "hosts": "localhost",
            "connection": "local",
            "gather_facts": False,
            "tasks": tasks,
        }
    ]
    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as handle:
        yaml.safe_dump(play, handle)
    try:
        options = {"venv": venv} if venv else {}
        results, completed = run_ansible_playbook([handle.name], extra_env=extra_env, **options)
    finally:
        os.unlink(handle.name)
    return results, completed


def floor(lab, action, names, form="sequential"):
    completed = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tests" / "bench" / "floor.py"),
            CLOUD,
            lab.volume.id,
            action,
            form,
            *names,
        ],
        check=True,
        capture_output=True,
        text=True,
        env=dict(os.environ, OS_CLIENT_CONFIG_FILE=str(paths.clouds_yaml())),
    )
    return "ok", json.loads(completed.stdout)["seconds"]


def floor_pipelined(lab, action, names):
    return floor(lab, action, names, "pipelined")


def floor_paced(lab, action, names):
    return floor(lab, action, names, "paced")


def floor_parallel(lab, action, names):
    return floor(lab, action, names, "parallel")


def volume_attachments(lab, action, names):
    servers = names if action == "attach" else [n for n in lab.current if n not in names]
    results, completed = playbook_run(
        [
            {
                "name": "a",
                "multiattach.cloud.volume_attachments": {
                    "cloud": CLOUD,
                    "volume": lab.volume.id,
                    "servers": servers,
                    "exclusive": True,
                },
            }
        ]
    )
    return outcome(results, completed)


def server_volume_loop(lab, action, names):
    results, completed = playbook_run(
        [
            {
                "name": "b",
                "multiattach.cloud.server_volume": {
                    "cloud": CLOUD,
                    "volume": lab.volume.id,
                    "server": "{{ item }}",
                    "state": "present" if action == "attach" else "absent",
                },
                "loop": names,
            }
        ]
    )
    return outcome(results, completed)


def openstack_cloud_loop(lab, action, names):
    results, completed = playbook_run(
        [
            {
                "name": "c",
                "openstack.cloud.server_volume": {
                    "cloud": CLOUD,
                    "volume": lab.volume.id,
                    "server": "{{ item }}",
                    "timeout": 60,
                    "state": "present" if action == "attach" else "absent",
                },
                # its detach waits for "available" past its own timeout while others hold the volume
                "timeout": 120,
                "loop": names,
                "ignore_errors": True,
            }
        ],
        extra_env={"ANSIBLE_COLLECTIONS_PATH": OPENSTACK_CLOUD_COLLECTIONS},
    )
    items = results[0].get("results", []) if results else []
    failed = [index for index, item in enumerate(items) if item.get("failed")]
    if not failed:
        return outcome(results, completed)
    message = " ".join(str(items[failed[0]].get("msg", "")).split())[:90]
    return "%d of %d items failed, first at server %d: %s" % (
        len(failed),
        len(items),
        failed[0] + 1,
        message,
    ), task_seconds(results)


def task_seconds(results):
    """The tasks' own seconds, as the test callback timed them."""
    return sum(r.get("_seconds", 0) for r in results or [])


def outcome(results, completed):
    """(what came of the run, the task's own seconds)."""
    seconds = task_seconds(results)
    if completed.returncode != 0 or not results:
        failures = [r.get("msg") for r in results or [] if r.get("_status") == "failed"]
        return "FAILED: %s" % (failures or completed.stderr[-300:]), seconds
    return ("ok, changed" if any(r.get("changed") for r in results) else "ok, no change"), seconds


RUNNERS = {
    "a": volume_attachments,
    "b": server_volume_loop,
    "c": openstack_cloud_loop,
    "d": floor,
    "e": floor_pipelined,
    "f": floor_paced,
    "g": floor_parallel,
}


def measure(lab, tool, action, names):
    clients = RequestCounter(
        services=SERVICES, clients_only=True, ignore_agents=(OBSERVER,)
    ).start()
    everyone = RequestCounter(services=SERVICES, ignore_agents=(OBSERVER,)).start()
    started = time.monotonic()
    result, inner_seconds = RUNNERS[tool](lab, action, names)
    seconds = time.monotonic() - started
    time.sleep(0.5)  # let the last log lines reach the files
    requests = clients.count()
    by_method = Counter()
    for (service, method, _path), number in requests.items():
        by_method[(service, method)] += number
    refused = sum(n for status, n in clients.statuses.items() if status in REFUSED)
    return {
        "seconds": seconds,
        "inner_seconds": inner_seconds,
        "result": result,
        "holders": lab.holders(),
        "refused": refused,
        "requests": {"%s %s" % key: n for key, n in sorted(by_method.items())},
        "reads": sum(n for (_s, method), n in by_method.items() if method in READS),
        "client_requests": sum(by_method.values()),
        "all_requests": sum(everyone.count().values()),
        "paths": {"%s %s %s" % key: n for key, n in sorted(requests.items())},
    }


def bench_size(lab, size, repeat, tools):
    """Each tool through the three phases, REPEAT times in a rotating order; the median time."""
    names = lab.names[:size]
    half = names[: size // 2]
    runs = {tool: {phase: [] for phase in PHASES} for tool in tools}
    for round_number in range(repeat):
        shift = round_number % len(tools)
        for tool in tools[shift:] + tools[:shift]:
            lab.detach_all()
            lab.current = []
            for phase, action, targets in (
                ("attach", "attach", names),
                ("re-run", "attach", names),
                ("detach half", "detach", half),
                ("detach all", "detach", names),
            ):
                if phase == "detach all":
                    if tool in SKIPS_DETACH_ALL:
                        continue
                    floor(lab, "attach", half, "pipelined")
                    lab.current = lab.holders()
                cell = measure(lab, tool, action, targets)
                runs[tool][phase].append(cell)
                lab.current = cell["holders"]
    lab.detach_all()
    rows = {}
    for tool, phases in runs.items():
        rows[tool] = {}
        for phase, cells in phases.items():
            if not cells:
                continue
            rows[tool][phase] = dict(
                cells[0],
                all_seconds=[c["seconds"] for c in cells],
                **{
                    key: statistics.median(c[key] for c in cells)
                    for key in (
                        "seconds",
                        "inner_seconds",
                        "client_requests",
                        "reads",
                        "refused",
                        "all_requests",
                    )
                },
            )
    return rows


def warm_up(lab, tools):
    """One untimed attach and detach of two servers through every tool: the services'
    caches, connection pools and Python imports are warm before the first timed tool,
    whichever it is (else the first one, the floor, pays the cold start)."""
    names = lab.names[:2]
    for tool in tools:
        lab.detach_all()
        lab.current = []
        for action in ("attach", "detach"):
            RUNNERS[tool](lab, action, names)
            lab.current = lab.holders()
    lab.detach_all()


def startup_seconds():
    """What every run pays before any API call: ansible-playbook, a loop item, importing openstacksdk."""
    started = time.monotonic()
    playbook_run([{"name": "noop", "ansible.builtin.debug": {"msg": "noop"}}])
    ansible = time.monotonic() - started
    started = time.monotonic()
    playbook_run([{"name": "noop", "ansible.builtin.command": "true", "loop": list(range(11))}])
    per_item = (time.monotonic() - started - ansible) / 10
    started = time.monotonic()
    subprocess.run([sys.executable, "-c", "import openstack"], check=True)
    return {
        "ansible-playbook with one debug task": ansible,
        "each further loop item of a module task (ansible.builtin.command true)": per_item,
        "python -c 'import openstack'": time.monotonic() - started,
    }


def ratio(value, floor_value):
    return value / floor_value if floor_value else float("nan")


def work(tool_rows, phase):
    """The wall seconds of PHASE less what the tool pays with nothing to do (its re-run:
    process start, sign-in, the reads), so Ansible's start-up does not hide the pace."""
    return tool_rows[phase]["seconds"] - tool_rows["re-run"]["seconds"]


def floor_of(rows, phase):
    """The fastest floor form of PHASE: (tool letter, its cell)."""
    tool = min(
        (t for t in FLOORS if phase in rows.get(t, {})), key=lambda t: rows[t][phase]["seconds"]
    )
    return tool, rows[tool][phase]


def report(results, startup, repeat):
    lines = [
        "## Results",
        "",
        "%d round(s) per size after a warm-up round, the tools in a rotating order; "
        "every figure is the median of the rounds, but the requests by method and the "
        "result, which are the first round's." % repeat,
        "",
        "Wall: seconds of the whole process (ansible-playbook or the floor script, "
        "start-up included). In-process: the module task's own seconds (the floor: from "
        "its first call). x floor: wall time over the fastest floor form of the phase. "
        "Requests: those the tool sent (user agent openstacksdk), counted from the "
        "request logs of identity, compute and block-storage; refused: of those, the "
        "HTTP 400/409 answers that were retried; 'all' adds the requests the services "
        "sent each other on its behalf.",
        "",
    ]
    for size, rows in results.items():
        lines += [
            "### N = %s servers" % size,
            "",
            "| tool | phase | wall s | in-process s | x floor | requests | x floor "
            "| reads | refused | by method | all | result |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|",
        ]
        for tool in rows:
            for phase in (phase for phase in PHASES if phase in rows[tool]):
                cell = rows[tool][phase]
                floor_cell = floor_of(rows, phase)[1]
                lines.append(
                    "| %s | %s | %.2f | %.2f | %.2f | %d | %.2f | %d | %d | %s | %d | %s |"
                    % (
                        "(%s) %s" % (tool, TOOLS[tool]) if phase == "attach" else "",
                        phase,
                        cell["seconds"],
                        cell["inner_seconds"],
                        ratio(cell["seconds"], floor_cell["seconds"]),
                        cell["client_requests"],
                        ratio(cell["client_requests"], floor_cell["client_requests"]),
                        cell["reads"],
                        cell["refused"],
                        ", ".join("%s %d" % kv for kv in cell["requests"].items()),
                        cell["all_requests"],
                        cell["result"],
                    )
                )
        lines.append("")
    lines += ["### Goals", "", "| goal | N | phase | measured | met |", "|---|---:|---|---|---|"]
    for size, rows in results.items():
        for phase in ("attach", "detach half", "detach all"):
            if not any(phase in rows.get(t, {}) for t in FLOORS):
                continue
            floor_tool, floor_cell = floor_of(rows, phase)
            if phase in rows.get("a", {}) and size >= 10:
                cell = rows["a"][phase]
                time_ratio = ratio(cell["seconds"], floor_cell["seconds"])
                request_ratio = ratio(cell["client_requests"], floor_cell["client_requests"])
                lines.append(
                    "| (a) within 1.2x of the floor's wall time, at most 1.5x its requests | %d "
                    "| %s | %.2fx time, %.2fx requests (floor: %s) | %s |"
                    % (
                        size,
                        phase,
                        time_ratio,
                        request_ratio,
                        floor_tool,
                        "yes" if time_ratio <= 1.2 and request_ratio <= 1.5 else "NO",
                    )
                )
            if phase == "detach all" and phase in rows.get("a", {}) and size >= 10:
                pace_ratio = ratio(work(rows["a"], phase), work(rows[floor_tool], phase))
                lines.append(
                    "| (a) detach all at the floor's pace: wall less its own start-up (its "
                    "no-change re-run) within 1.1x of the floor's | %d | %s | %.2fx (%.2f s "
                    "against %.2f s, floor: %s) | %s |"
                    % (
                        size,
                        phase,
                        pace_ratio,
                        work(rows["a"], phase),
                        work(rows[floor_tool], phase),
                        floor_tool,
                        "yes" if pace_ratio <= 1.1 else "NO",
                    )
                )
            if "b" in rows and phase == "attach":
                b_ratio = ratio(rows["b"][phase]["seconds"], floor_cell["seconds"])
                lines.append(
                    "| (b) within 1.5x of the floor per server | %d | %s | %.2fx | %s |"
                    % (size, phase, b_ratio, "yes" if b_ratio <= 1.5 else "NO")
                )
        if "a" in rows:
            reads = rows["a"]["re-run"]["reads"]
            resource_reads = sum(
                n
                for path, n in rows["a"]["re-run"]["paths"].items()
                if path.split()[1] in READS and not is_discovery(path)
            )
            lines.append(
                "| (a) re-run: at most 3 read requests | %d | re-run | %d reads (%d of "
                "resources, the rest version discovery) | %s |"
                % (
                    size,
                    reads,
                    resource_reads,
                    "yes" if reads <= 3 else "resources yes" if resource_reads <= 3 else "NO",
                )
            )
    lines += ["", "### Start-up costs in every run", ""]
    lines += ["- %s: %.2f s" % item for item in startup.items()]
    return "\n".join(lines)


def is_discovery(path):
    """Version documents (GET /, /v3/, /v2.1) fetched by keystoneauth to pick the API version."""
    return path.split()[2] in ("/", "/v3", "/v3/", "/v2.1", "/v2.1/")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2,10,30")
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="rounds per size, tools in a rotating order; figures are medians",
    )
    parser.add_argument(
        "--tools",
        default="abcdef",
        help="which of %s to run (at least one floor form)" % "".join(TOOLS),
    )
    parser.add_argument("--json", type=Path, help="write the raw figures here")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    tools = "".join(tool for tool in TOOLS if tool in args.tools)
    if not set(tools) & set(FLOORS) or set(args.tools) - set(TOOLS):
        parser.error(
            "--tools takes letters of %s, with d, e, f or g (a floor) among them" % "".join(TOOLS)
        )
    os.environ.setdefault("OS_CLIENT_CONFIG_FILE", str(paths.clouds_yaml()))
    conn = openstack.connect(cloud=CLOUD, app_name=OBSERVER)
    started = time.monotonic()
    lab = Lab(conn, max(sizes))
    print(
        "lab ready in %.0f s: %d servers" % (time.monotonic() - started, max(sizes)),
        file=sys.stderr,
    )
    try:
        startup = startup_seconds()
        warm_up(lab, tools)
        results = {}
        for size in sizes:
            print("N=%d ..." % size, file=sys.stderr)
            results[size] = bench_size(lab, size, args.repeat, tools)
    finally:
        problems = lab.probe.cleanup()
        if problems:
            print("cleanup problems: %s" % problems, file=sys.stderr)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"startup": startup, "results": results}, indent=1))
    print(report(results, startup, args.repeat))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
