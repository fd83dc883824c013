"""Start, stop and list the local cloud's daemons by PID.

Each daemon runs in a session of its own, so its process group holds exactly
the processes it started (uWSGI workers, oslo.service children) and nothing
else on the machine. A PID file records the leader's PID and its start time
(from /proc/PID/stat): a stale file whose PID was reused by another program is
recognised, and process titles that uWSGI and oslo.service rewrite do not matter.

    procs.py --run-dir DIR start --log FILE NAME -- COMMAND [ARG...]
    procs.py --run-dir DIR start-all [--log-dir DIR]
                                              (JSON on stdin: [{"name", "argv", "log"}, ...];
                                               no "log": LOG_DIR/NAME.log)
    procs.py --run-dir DIR stop [NAME...]     (no NAME: all, newest first)
    procs.py --run-dir DIR restart NAME...    (same command and log as before)
    procs.py --run-dir DIR status             (exit 0 only when all are alive;
                                               prints processes and RSS per group)
"""

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time

STOP_GRACE_SECONDS = 10.0


RECORD_SUFFIX = ".proc.json"


def pid_file(run_dir, name):
    return os.path.join(run_dir, name + RECORD_SUFFIX)


def read_record(path):
    try:
        with open(path, encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and "pid" in record else None


def start_time_of(pid):
    """Clock ticks since boot at which PID started; None if it is gone or a zombie.

    A PID 1 that does not reap orphans (as in some containers) leaves a dead
    daemon as a zombie that keeps its PID and start time.
    """
    try:
        with open("/proc/%d/stat" % pid, encoding="utf-8") as handle:
            stat = handle.read()
    except OSError:
        return None
    # Field 2 (the command name) may hold spaces: split after its ')'.
    fields = stat.rsplit(")", 1)[1].split()
    if fields[0] == "Z":
        return None
    return int(fields[19])


def is_ours(record):
    """True when the recorded leader is still the process we started."""
    return start_time_of(record["pid"]) == record["start_time"]


def group_members(pgid):
    """(pid, resident bytes) of every running process of group PGID (no zombies)."""
    page_size = os.sysconf("SC_PAGE_SIZE")
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry, encoding="utf-8") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.append((int(entry), int(fields[21]) * page_size))
    return members


def group_alive(pgid):
    return bool(group_members(pgid))


def records(run_dir):
    found = []
    for entry in os.listdir(run_dir):
        if entry.endswith(RECORD_SUFFIX):
            record = read_record(os.path.join(run_dir, entry))
            if record:
                found.append(record)
    return sorted(found, key=lambda rec: rec["started"])


def launch(run_dir, name, log_path, command):
    """Start COMMAND as NAME unless it runs; its Popen, or None when it was running."""
    path = pid_file(run_dir, name)
    record = read_record(path)
    if record and is_ours(record):
        print("%s: already running as PID %d" % (name, record["pid"]))
        return None
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=run_dir,
        )
    record = {
        "name": name,
        "pid": process.pid,
        "argv": command,
        "log": log_path,
        "start_time": start_time_of(process.pid),
        "started": time.time(),
    }
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        json.dump(record, handle)
    os.replace(path + ".tmp", path)
    return process


def settle(run_dir, launched):
    """After a moment, report each launched (name, log, process); 1 if one exited at once."""
    if not launched:
        return 0
    time.sleep(0.3)
    status_code = 0
    for name, log_path, process in launched:
        if process.poll() is not None:
            os.unlink(pid_file(run_dir, name))
            print(
                "%s: exited at once with status %s, see %s" % (name, process.returncode, log_path),
                file=sys.stderr,
            )
            status_code = 1
        else:
            print("%s: started as PID %d" % (name, process.pid))
    return status_code


def start(args):
    process = launch(args.run_dir, args.name, args.log, args.command)
    return settle(args.run_dir, [(args.name, args.log, process)] if process else [])


def start_all(args):
    """Start every daemon of a JSON list on stdin: [{"name", "argv", "log"}, ...]; a daemon
    without "log" logs to LOG_DIR/NAME.log."""
    try:
        daemons = json.load(sys.stdin)
    except ValueError:
        daemons = None
    problem = None
    if not isinstance(daemons, list):
        problem = "not a JSON list"
    else:
        for daemon in daemons:
            if (
                isinstance(daemon, dict)
                and not daemon.get("log")
                and args.log_dir
                and daemon.get("name")
            ):
                daemon["log"] = os.path.join(args.log_dir, daemon["name"] + ".log")
            missing = [
                key
                for key in ("name", "argv", "log")
                if not isinstance(daemon, dict) or not daemon.get(key)
            ]
            if missing:
                problem = "%s without %s" % (json.dumps(daemon), ", ".join(missing))
                break
    if problem:
        print(
            "start-all wants a JSON list of {name, argv, log} on stdin (log may be left to "
            "--log-dir); started nothing: %s" % problem,
            file=sys.stderr,
        )
        return 2
    launched = []
    for daemon in daemons:
        process = launch(args.run_dir, daemon["name"], daemon["log"], daemon["argv"])
        if process:
            launched.append((daemon["name"], daemon["log"], process))
    return settle(args.run_dir, launched)


def signal_group(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


def stop(args):
    chosen = [rec for rec in records(args.run_dir) if not args.names or rec["name"] in args.names]
    # A record whose leader is gone may still have children in its group.
    targets = [rec for rec in reversed(chosen) if is_ours(rec) or group_alive(rec["pid"])]
    for rec in targets:
        signal_group(rec["pid"], signal.SIGTERM)
    deadline = time.time() + STOP_GRACE_SECONDS
    while time.time() < deadline and any(group_alive(r["pid"]) for r in targets):
        time.sleep(0.2)
    for rec in targets:
        if group_alive(rec["pid"]):
            print(
                "%s: still running after %.0f s, sending SIGKILL"
                % (rec["name"], STOP_GRACE_SECONDS)
            )
            signal_group(rec["pid"], signal.SIGKILL)
    for rec in chosen:
        # Another stop (a failed step's own cloud-down, an operator's) may have removed it.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(pid_file(args.run_dir, rec["name"]))
        print("%s: stopped" % rec["name"])
    return 0


def restart(args):
    """Stop NAMEs, then start each again with the command and log it was started with."""
    known = {rec["name"]: rec for rec in records(args.run_dir)}
    missing = [name for name in args.names if name not in known or "log" not in known[name]]
    if missing:
        print(
            "cannot restart %s: not started by this tool (or by an older version of it); "
            "run `make cloud-up`" % ", ".join(missing),
            file=sys.stderr,
        )
        return 1
    stop(argparse.Namespace(run_dir=args.run_dir, names=args.names))
    status_code = 0
    for name in args.names:
        status_code |= start(
            argparse.Namespace(
                run_dir=args.run_dir, name=name, log=known[name]["log"], command=known[name]["argv"]
            )
        )
    return status_code


def status(args):
    all_alive = True
    known = records(args.run_dir)
    total_rss = total_processes = 0
    for rec in known:
        alive = is_ours(rec)
        all_alive = all_alive and alive
        members = group_members(rec["pid"]) if alive else []
        rss = sum(size for unused_pid, size in members)
        total_rss += rss
        total_processes += len(members)
        if not args.quiet:
            state = "running" if alive else "DEAD"
            print(
                "%-18s %-8s PID %-8d %3d processes %8.1f MiB RSS"
                % (rec["name"], state, rec["pid"], len(members), rss / 2**20)
            )
    if known and not args.quiet:
        print(
            "%-18s %-8s %-12s %3d processes %8.1f MiB RSS"
            % ("total", "", "", total_processes, total_rss / 2**20)
        )
    return 0 if known and all_alive else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run-dir", required=True)
    sub = parser.add_subparsers(dest="action", required=True)
    start_parser = sub.add_parser("start")
    start_parser.add_argument("name")
    start_parser.add_argument("--log", required=True)
    start_parser.add_argument("command", nargs=argparse.REMAINDER)
    start_all_parser = sub.add_parser("start-all")
    start_all_parser.add_argument("--log-dir")
    stop_parser = sub.add_parser("stop")
    stop_parser.add_argument("names", nargs="*")
    restart_parser = sub.add_parser("restart")
    restart_parser.add_argument("names", nargs="+")
    status_parser = sub.add_parser("status")
    status_parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.run_dir, exist_ok=True)
    if args.action == "start":
        if args.command[:1] == ["--"]:
            args.command = args.command[1:]
        if not args.command:
            parser.error("start needs a command after --")
        return start(args)
    if args.action == "start-all":
        return start_all(args)
    if args.action == "stop":
        return stop(args)
    if args.action == "restart":
        return restart(args)
    return status(args)


if __name__ == "__main__":
    sys.exit(main())
