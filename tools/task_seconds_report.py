"""Where the VM scenario's time goes: per ansible-playbook run, its wall time, the module runs
each guest took (each one SSH round trip: the scenario pipelines) and the slowest tasks.

    task_seconds_report.py TASKS_JSONL [--top 8] [--runs 'PLAY NAME|PLAY NAME']

TASKS_JSONL is what the task_seconds callback (tests/harness/callback_plugins) wrote while
`make molecule` ran. Runs are told apart by process; a run is named by its first play. Tasks
on the controller (set_fact, assert, debug, ...) are not module runs on a guest.
"""

import argparse
import json
import sys

CONTROLLER_ACTIONS = {
    "set_fact", "assert", "fail", "debug", "meta", "include_tasks", "import_tasks",
    "include_role", "import_role", "add_host", "group_by", "validate_argument_spec",
    "include_vars", "pause", "wait_for_connection", "end_play", "end_host",
}  # fmt: skip


def short_action(action):
    return action.rsplit(".", 1)[-1]


def runs_of(records):
    runs = {}
    for record in records:
        run = runs.setdefault(record["pid"], {"plays": [], "tasks": [], "t": []})
        run["t"].append(record["t"])
        if "play" in record:
            run["plays"].append(record["play"])
        else:
            run["tasks"].append(record)
    return [run for run in runs.values() if run["plays"]]


def summary(run, top):
    per_host, slowest = {}, {}
    for task in run["tasks"]:
        if task["status"] == "skipped":
            continue
        if task["host"] != "localhost" and short_action(task["action"]) not in CONTROLLER_ACTIONS:
            per_host[task["host"]] = per_host.get(task["host"], 0) + 1
        if task["seconds"] >= slowest.get(task["task"], (0, None))[0]:
            slowest[task["task"]] = (task["seconds"], task.get("steps"))
    ranked = sorted(slowest.items(), key=lambda item: -item[1][0])[:top]
    return {
        "run": run["plays"][0],
        "seconds": round(max(run["t"]) - min(run["t"]), 1),
        "module_runs_per_guest": per_host,
        "slowest": ranked,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tasks_jsonl")
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument(
        "--runs", default="", help="only the runs whose first play is one of these, '|' between"
    )
    args = parser.parse_args()
    with open(args.tasks_jsonl, encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    for run in runs_of(records):
        if args.runs and run["plays"][0] not in args.runs.split("|"):
            continue
        shown = summary(run, args.top)
        runs = ", ".join("%s %d" % item for item in sorted(shown["module_runs_per_guest"].items()))
        print(
            "## %s: %.1f s; module runs per guest: %s"
            % (shown["run"], shown["seconds"], runs or "none")
        )
        for name, (seconds, steps) in shown["slowest"]:
            inside = " (%s)" % ", ".join("%s %.1f" % s for s in steps.items()) if steps else ""
            print("  %6.2f  %s%s" % (seconds, name, inside))
    return 0


if __name__ == "__main__":
    sys.exit(main())
