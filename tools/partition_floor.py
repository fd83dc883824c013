"""Look for the shortest cluster-stack timeouts that hold on this machine.

    partition_floor.py --fs ocfs2|gfs2 [--runs N] [--soak SECONDS] [--json PATH] [--logs DIR]
                      [--inventory DIR] SETTING...

Runs against the shared_disk scenario's converged guests (molecule create and converge,
left up). A SETTING is DEAD_THRESHOLD:IDLE_TIMEOUT_MS for OCFS2 (o2hb beats, o2net ms) or
TOKEN_MS for GFS2 (corosync's token). For each, in the order given:
  retime.yml     every node unmounts and stops its stack; converge with the setting
  partition.yml  N times: node-1 cut off from node-2 while node-2 writes (the scenario's
                 own test, with its checks: the right side fenced, nothing lost)
  soak.yml       both nodes write while two busy loops take this machine's cores: no node
                 may restart (a healthy node fenced); near-miss warnings, the MiB each node
                 synced and this machine's load average at the end are shown
Prints a JSON line per step as it ends and a table at the end; a step that fails is shown
with its playbook's last lines, and the search stops at the first setting that fails (a
lower one would only fail sooner). Exit status 1 if any step failed.
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCENARIO = os.path.join(ROOT, "molecule", "shared_disk")
PARTITION_LINE = re.compile(
    r"partition: fence (?P<fence>[\d.]+) s, resume (?P<resume>[\d.]+) s,\s+stall (?P<stall>[\d.]+) s"
)
SOAK_LINE = re.compile(
    r"soak:\s+(?P<node>\S+)\s+kept\s+its\s+boot,\s+(?P<warnings>\d+)\s+warnings,\s+"
    r"(?P<mib>\d+)\s+MiB\s+synced,\s+load\s+(?P<load>[\d.]+)"
)
RUNNING_LINE = re.compile(r"running: (?P<running>[^'\"\n]+)")


def setting_vars(fs, text):
    """The role's variables for one SETTING, or an error naming the form."""
    if fs == "ocfs2":
        dead, separator, idle = text.partition(":")
        if not separator or not dead.isdigit() or not idle.isdigit():
            raise argparse.ArgumentTypeError(
                "%r: OCFS2 settings are DEAD_THRESHOLD:IDLE_TIMEOUT_MS, such as 16:15000" % text
            )
        return {
            "clustered_fs_ocfs2_dead_threshold": int(dead),
            "clustered_fs_ocfs2_idle_timeout_ms": int(idle),
        }
    if not text.isdigit():
        raise argparse.ArgumentTypeError("%r: GFS2 settings are TOKEN_MS, such as 3000" % text)
    return {"clustered_fs_corosync_token_ms": int(text)}


def molecule_inventory():
    """The newest shared_disk instance's inventory (molecule keeps one per checkout)."""
    found = glob.glob(
        os.path.expanduser("~/.ansible/tmp/molecule.*.shared_disk/inventory/ansible_inventory.yml")
    )
    if not found:
        sys.exit(
            "partition_floor.py: no shared_disk instance; run molecule create and converge "
            "-s shared_disk first, or give --inventory"
        )
    return os.path.dirname(max(found, key=os.path.getmtime))


def playbook(inventory, name, extra):
    """Run one of the scenario's playbooks; (ok, seconds, output)."""
    env = dict(
        os.environ,
        MOLECULE_PROJECT_DIRECTORY=ROOT,
        ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
        ANSIBLE_PIPELINING="true",
        ANSIBLE_HOST_KEY_CHECKING="false",
    )
    command = [
        "ansible-playbook",
        "-i",
        inventory,
        os.path.join(SCENARIO, name),
        "-e",
        json.dumps(extra),
    ]
    started = time.monotonic()
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, check=False)
    return done.returncode == 0, round(time.monotonic() - started, 1), done.stdout + done.stderr


def step_figures(name, output):
    if name == "partition.yml":
        found = PARTITION_LINE.search(output)
        return {key: float(value) for key, value in found.groupdict().items()} if found else {}
    if name == "soak.yml":
        found = list(SOAK_LINE.finditer(output))
        return {
            "warnings": {m.group("node"): int(m.group("warnings")) for m in found},
            "mib_synced": {m.group("node"): int(m.group("mib")) for m in found},
            "load": float(found[0].group("load")) if found else None,
        }
    return {"running": sorted({m.group("running").strip() for m in RUNNING_LINE.finditer(output)})}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--fs", choices=("ocfs2", "gfs2"), required=True)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--soak", type=int, default=300)
    parser.add_argument("--json")
    parser.add_argument("--logs", help="keep each step's playbook output in this directory")
    parser.add_argument(
        "--inventory", help="the converged instance's inventory (default: the newest)"
    )
    parser.add_argument("settings", nargs="+")
    arguments = parser.parse_args(argv)
    try:
        settings = [(text, setting_vars(arguments.fs, text)) for text in arguments.settings]
    except argparse.ArgumentTypeError as error:
        parser.error(str(error))
    inventory = arguments.inventory or molecule_inventory()
    results, failed = [], False
    for text, extra in settings:
        steps = [("retime.yml", extra)] + [("partition.yml", extra)] * arguments.runs
        steps.append(("soak.yml", dict(extra, lab_soak_seconds=arguments.soak)))
        for number, (name, step_extra) in enumerate(steps, 1):
            ok, seconds, output = playbook(inventory, name, step_extra)
            if arguments.logs:
                os.makedirs(arguments.logs, exist_ok=True)
                log = os.path.join(
                    arguments.logs, "%s-%d-%s.log" % (text.replace(":", "-"), number, name[:-4])
                )
                with open(log, "w", encoding="utf-8") as stream:
                    stream.write(output)
            result = dict(
                setting=text, step=name, ok=ok, seconds=seconds, **step_figures(name, output)
            )
            results.append(result)
            print(json.dumps(result), flush=True)
            if not ok:
                print("\n".join(output.splitlines()[-40:]), flush=True)
                failed = True
                break
        if failed:
            break
    if arguments.json:
        with open(arguments.json, "w", encoding="utf-8") as stream:
            json.dump(results, stream, indent=1)
    print("\n%-12s %-14s %-4s %8s  %s" % ("setting", "step", "ok", "seconds", "figures"))
    for result in results:
        figures = {k: v for k, v in result.items() if k not in ("setting", "step", "ok", "seconds")}
        row = (
            result["setting"],
            result["step"],
            "yes" if result["ok"] else "NO",
            result["seconds"],
            json.dumps(figures),
        )
        print("%-12s %-14s %-4s %8.1f  %s" % row)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
