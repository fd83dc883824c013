"""Run a command (molecule test), pass its output through, then print how long
each phase took and the machine's peak memory use while it ran.

    molecule_phases.py [--json PATH] -- molecule test -s shared_disk

Phases are molecule's actions ("➜ create: Executing") and, inside create, the
tasks that build the image and boot the guests. Memory: the lowest MemAvailable
seen (sampled every second) against MemAvailable at the start, and the highest
summed RSS of qemu-system processes. With --json, the same figures are written
to PATH as well (tests/bench/attach_bench.py reports them).
"""

import json
import os
import re
import subprocess
import sys
import threading
import time

ACTION = re.compile(r"➜ (?P<action>[a-z_-]+): Executing\s*$")
TASK = re.compile(r"TASK \[(?P<task>[^\]]+)\]")
TASK_START = re.compile(r"TASK \[[^\]]*$")
BOX = re.compile(r"^\s*[│|]?\s*")
MARKED_TASKS = {
    # molecule/libvirt_disk
    "Start the guests": "create: boot (start to SSH)",
    "Attach the shared disk to both running guests as Nova does for a multiattach volume": "create: attach shared disk",
    # both
    "Wait for SSH in the guests": "create: boot (start to SSH)",
    # molecule/shared_disk (Nova's guests)
    "Enable multiattach in the cloud (playbook enable_multiattach, as an operator runs it)": "create: enable_multiattach",
    "Make the servers, as the operator's own provisioning would": "create: servers ACTIVE",
    "Provision the multiattach volume on both guests (playbook provision_shared_volume)": "create: attach (provision_shared_volume)",
    "Run fresh_check.yml with --check --diff against the guests": "prepare: check mode on fresh guests",
    "Run add_node -e node=<server ID>": "day 2: add_node (a node that sorts first)",
    "Run remove_node -e node=db-0 while a process holds the disk at /mnt/elsewhere": "day 2: remove_node refused (busy elsewhere)",
    "Run remove_node -e node=<its OpenStack name>": "day 2: remove_node (the first node)",
    "Reboot node-1 and node-2 together": "day 2: the whole cluster rebooted",
    "Wait for the filesystem after the reboot": "day 2: the whole cluster rebooted",
    "Wait until node-2 has recovered node-1's journal after the cut": "partition: until recovered",
    "Wait for node-1 to answer again": "partition: node-1 back",
    "Delete node-0's server through Nova, or cut its power": "lost member: killed",
    "Wait until the cluster no longer counts node-0": "lost member: until recovered",
    "Run remove_node -vvv --diff -e node=db-0": "lost member: remove_node",
    "Wait until the replacement server is ACTIVE": "lost member: replacement joins",
    "Wait for SSH in the replacement": "lost member: replacement joins",
    "Run add_node -e node=db-0": "lost member: replacement joins",
    "Unmount it everywhere": "offline fsck",
}
# lost_member.yml's message: the longest gap between the others' writes after the kill.
STALL = re.compile(r"lost for good: the others' writes stalled at most (?P<seconds>[0-9.]+) s")
# partition.yml's figures, seconds after the network was cut.
PARTITION = re.compile(
    r"partition: fence (?P<fence>[0-9.]+) s, resume (?P<resume>[0-9.]+) s,\s*stall (?P<stall>[0-9.]+) s"
)
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def mem_available_kib():
    with open("/proc/meminfo", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1])
    return 0


def qemu_rss_kib():
    total = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/comm" % pid, encoding="ascii") as handle:
                if not handle.read().startswith("qemu-system"):
                    continue
            with open("/proc/%s/status" % pid, encoding="ascii") as handle:
                total += next(int(l.split()[1]) for l in handle if l.startswith("VmRSS:"))
        except (OSError, StopIteration, ValueError):
            continue
    return total


def task_lines(lines):
    """Yield each line, with a task header molecule wrapped over several lines joined."""
    pending = None
    for line in lines:
        plain = ANSI.sub("", line).rstrip("\n")
        if pending is not None:
            pending += " " + BOX.sub("", plain)
            if "]" in plain:
                yield line, pending
                pending = None
            continue
        if TASK_START.search(plain):
            pending = plain
            yield line, None
            continue
        yield line, plain


def phases_table(marks, finished):
    """[(phase, seconds, [(marked task, seconds)])] from the (name, time) marks."""
    table = []
    # An action lasts until the next action; a marked task until the next task or action.
    for index, (name, at) in enumerate(marks):
        if not name or ":" in name:
            continue
        action_end = next((m[1] for m in marks[index + 1 :] if m[0] and ":" not in m[0]), finished)
        tasks = {}
        for task_index in range(index + 1, len(marks)):
            task_name, task_at = marks[task_index]
            if task_name and ":" not in task_name:
                break
            if task_name:
                end = marks[task_index + 1][1] if task_index + 1 < len(marks) else finished
                tasks[task_name] = tasks.get(task_name, 0.0) + end - task_at
        table.append((name, action_end - at, list(tasks.items())))
    return table


def main():
    arguments = sys.argv[1:]
    json_path = None
    if arguments[:1] == ["--json"]:
        json_path, arguments = arguments[1], arguments[2:]
    command = arguments[arguments.index("--") + 1 :] if "--" in arguments else arguments
    start_available = mem_available_kib()
    peak = {"used": 0, "qemu": 0}
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak["used"] = max(peak["used"], start_available - mem_available_kib())
            peak["qemu"] = max(peak["qemu"], qemu_rss_kib())
            done.wait(1.0)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()

    started = time.monotonic()
    marks = []  # (name, start time); a phase ends where the next mark starts
    figures_seen = {}
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1
    ) as process:
        for line, plain in task_lines(process.stdout):
            sys.stdout.write(line)
            if plain is None:
                continue
            now = time.monotonic()
            stall = STALL.search(plain)
            if stall:
                figures_seen["recovery_stall_seconds"] = float(stall.group("seconds"))
            partition = PARTITION.search(plain)
            if partition:
                figures_seen.update(
                    {
                        "partition_" + key + "_seconds": float(value)
                        for key, value in partition.groupdict().items()
                    }
                )
            action = ACTION.search(plain)
            task = TASK.search(plain)
            if action:
                marks.append((action.group("action"), now))
            elif task:
                name = MARKED_TASKS.get(" ".join(task.group("task").split()))
                marks.append((name or "", now))
    finished = time.monotonic()
    done.set()
    sampler.join()

    table = phases_table(marks, finished)
    print("\n== phases (wall time) ==")
    for name, seconds, tasks in table:
        print("%-34s %7.1f s" % (name, seconds))
        for task_name, task_seconds in tasks:
            print("  %-32s %7.1f s" % (task_name, task_seconds))
    print("%-34s %7.1f s" % ("total", finished - started))
    print(
        "peak memory in use above the start: %.0f MiB; qemu processes' peak RSS: %.0f MiB"
        % (peak["used"] / 1024, peak["qemu"] / 1024)
    )
    if "recovery_stall_seconds" in figures_seen:
        print(
            "a member lost for good: the others' writes stalled at most %.2f s"
            % figures_seen["recovery_stall_seconds"]
        )
    if "partition_stall_seconds" in figures_seen:
        print(
            "a partition: fenced %.1f s after the cut, the survivor's writes went on after %.1f s, "
            "longest stall %.2f s"
            % tuple(
                figures_seen["partition_%s_seconds" % key] for key in ("fence", "resume", "stall")
            )
        )
    if json_path:
        with open(json_path, "w", encoding="utf-8") as handle:
            json.dump(
                {
                    "command": command,
                    "exit": process.returncode,
                    "total_seconds": finished - started,
                    "phases": [{"phase": n, "seconds": s, "tasks": dict(t)} for n, s, t in table],
                    "peak_used_mib": peak["used"] / 1024,
                    "peak_qemu_rss_mib": peak["qemu"] / 1024,
                    **figures_seen,
                },
                handle,
                indent=1,
            )
    return process.returncode


if __name__ == "__main__":
    sys.exit(main())
