"""A GFS2 cluster's every node hard-rebooted at once: each mounts at boot and the I/O goes on.

    whole_cluster_boot.py [--rounds 4] [--without-wait 0] [--json PATH] [--keep]

By hand, on the local cloud's full profile (`make cloud-up CLOUD_PROFILE=full`; `make
fault-cluster-boot`). Three Nova guests (QEMU TCG) hold one multiattach RBD volume; the
clustered_fs role puts GFS2 on it, the guests named node-0, node-1, node-2 in one group (made
here and deleted at the end; --keep leaves them). Then, each round, Nova hard-reboots all three
at once (a power cut of the whole cluster): every guest must mount the filesystem at boot
(fstab, after dlm.service), and write a file each guest then reads, all within a time limit.

The fault this is about (docs/reliability.md, "A lockspace joined while the membership
forms"): at such a boot corosync's membership forms while the mounts start, and a lockspace
joined before the membership settled waited forever, with every member's I/O. The role makes
dlm.service wait for a quorate ring that dlm_controld has caught up with. Each round reports,
per guest, whether that wait found the ring still forming at dlm's start (the fault struck:
without the wait, the mount would have joined then) and how long it waited.

--without-wait N runs N more rounds as a control, with the wait's drop-in set aside on every
guest: a hang there shows the fault is real on these guests. After a control round the drop-in
is put back, and a hung cluster is rebooted again with it, which must then come back whole.
Prints a Markdown report; exits 1 when a round with the wait does not come back whole.
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import openstack
from bench import guests_pace_bench as pace
from local_cloud import guests as lab_guests
from local_cloud import paths

NODES = pace.NODES
MOUNT_POINT = pace.MOUNT_POINT
DROP_IN = "/etc/systemd/system/dlm.service.d/multiattach-ring-wait.conf"
# A whole-cluster boot on TCG guests, two cores for three of them: minutes, not seconds.
BOOT_SECONDS = 420
MOUNT_SECONDS = 240
IO_SECONDS = 60


def converge(lab):
    """The role on all three, as an operator runs it (the VM scenario's converge.yml)."""
    completed = pace.run_playbook(lab, "three", "gfs2", "molecule/shared_disk/converge.yml")
    if completed.returncode != 0:
        seen = lab.run(NODES, DIAGNOSIS)
        raise RuntimeError(
            "converge.yml failed:\n%s\nwhat the guests show:\n%s"
            % (completed.stdout[-3000:], "\n".join("== %s\n%s" % item for item in seen.items()))
        )


DIAGNOSIS = """
    findmnt -t gfs2 || true; ls /sys/fs/gfs2 2>&1 || true
    timeout 10 dlm_tool ls 2>&1 | head -20 || true
    journalctl -b --no-pager -o short-precise -u dlm -u corosync -u srv-shared.mount | tail -25 || true
    dmesg | tail -25
"""


def boot_ids(lab):
    return {
        n: out.strip() for n, out in lab.run(NODES, "cat /proc/sys/kernel/random/boot_id").items()
    }


def reboot_all(lab):
    """Nova's hard reboot of every guest at once; once each answers SSH in a new boot."""
    before = boot_ids(lab)
    for guest in lab.guests.values():
        guest.close()  # the kept SSH connection dies with the guest, unseen
    started = time.monotonic()
    lab_guests.reboot(lab.conn, list(NODES))
    deadline = started + BOOT_SECONDS
    for name in NODES:
        while True:
            try:
                if (
                    lab.guests[name].run("cat /proc/sys/kernel/random/boot_id").strip()
                    != before[name]
                ):
                    break
            except (RuntimeError, subprocess.TimeoutExpired):
                pass
            # A connection made before the guest went down hangs with it: never reuse one.
            lab.guests[name].close()
            if time.monotonic() > deadline:
                raise RuntimeError(
                    "%s did not answer in a new boot within %d s" % (name, BOOT_SECONDS)
                )
            time.sleep(3)
    return started


# A hard reboot loses what is only in the page cache: the file and its directory are synced
# (not the whole machine's: after a hang, a global sync waits on the hung filesystem).
DROP_IN_DIR = os.path.dirname(DROP_IN)
SET_ASIDE = "mv %s %s.off && sync %s.off %s && systemctl daemon-reload" % (
    DROP_IN, DROP_IN, DROP_IN, DROP_IN_DIR)  # fmt: skip
PUT_BACK = "mv %s.off %s && sync %s %s && systemctl daemon-reload" % (
    DROP_IN, DROP_IN, DROP_IN, DROP_IN_DIR)  # fmt: skip


# Per guest: when the filesystem was mounted (seconds since boot), and what the ring wait said.
STATE_SCRIPT = f"""
    mounted=$(findmnt -n -o FSTYPE --mountpoint {MOUNT_POINT} || true)
    echo "mounted=$mounted"
    echo "uptime=$(cut -d' ' -f1 /proc/uptime)"
    echo "dlm=$(systemctl is-active dlm || true)"
    journalctl -b -u dlm -o cat --no-pager | grep -E '^(waiting for|dlm_controld is in)' | sed 's/^/wait: /' || true
"""


def state(guest):
    found = {"wait": []}
    for line in guest.run(STATE_SCRIPT).splitlines():
        if line.startswith("wait: "):
            found["wait"].append(line.removeprefix("wait: "))
        else:
            key, _sep, value = line.partition("=")
            found[key] = value
    return found


def hung_detail(guest):
    """What a node whose mount never came shows (untimed, bounded)."""
    return guest.run(
        "timeout 10 dlm_tool ls 2>&1 | head -20; timeout 10 dlm_tool status 2>&1 | head -5; "
        "ps -eo stat,cmd | awk '$1 ~ /^D/' | head -5",
        check=False,
    )


def io_check(lab, round_name):
    """Each guest writes a file and syncs it, then reads every guest's: all within IO_SECONDS."""
    name_of = "%s/boot-%s-$(hostname)" % (MOUNT_POINT, round_name)
    lab.run(NODES, "timeout %d sh -c 'echo %s > %s && sync'" % (IO_SECONDS, round_name, name_of))
    files = " ".join(shlex.quote("%s/boot-%s-%s" % (MOUNT_POINT, round_name, n)) for n in NODES)
    lab.run(NODES, "timeout %d cat %s > /dev/null" % (IO_SECONDS, files))


def one_round(lab, round_name, with_wait):
    if not with_wait:
        lab.run(NODES, SET_ASIDE)
    started = reboot_all(lab)
    outcome = {"round": round_name, "with_wait": with_wait, "nodes": {}}
    deadline = time.monotonic() + MOUNT_SECONDS
    while True:
        states = {n: state(lab.guests[n]) for n in NODES}
        if all(s.get("mounted") == "gfs2" for s in states.values()) or time.monotonic() > deadline:
            break
        time.sleep(3)
    outcome["seconds_to_all_mounted"] = round(time.monotonic() - started, 1)
    outcome["nodes"] = states
    outcome["whole"] = all(s.get("mounted") == "gfs2" for s in states.values())
    if outcome["whole"]:
        try:
            io_check(lab, round_name)
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            outcome["whole"] = False
            outcome["io_error"] = str(error)[-500:]
    if not outcome["whole"]:
        outcome["hung"] = {n: hung_detail(lab.guests[n]) for n in NODES}
    # The lockspace join that never ends: dlm_tool ls shows the lockspace stopped, joining.
    outcome["join_stuck_on"] = sorted(
        n
        for n, shown in outcome.get("hung", {}).items()
        if "kern_stop" in shown and "join" in shown
    )
    if not with_wait:
        try:
            lab.run(NODES, PUT_BACK)
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            outcome["put_back_error"] = str(error)[-500:]
    # The wait found the ring still forming at dlm's start on this many guests.
    outcome["waited_on"] = sorted(
        n for n, s in states.items() if any(w.startswith("waiting for") for w in s["wait"])
    )
    print(json.dumps({k: outcome[k] for k in ("round", "with_wait", "whole", "seconds_to_all_mounted",
                                              "waited_on", "join_stuck_on")}),
          file=sys.stderr, flush=True)  # fmt: skip
    return outcome


def report(rounds):
    lines = [
        "## A GFS2 cluster hard-rebooted whole: three Nova guests at once",
        "",
        "| round | dlm's ring wait | whole (all mounted, I/O on every guest) | s to all mounted "
        "| guests whose wait found the ring forming | what the wait said (first guest that waited) "
        "| guests stuck joining the lockspace (dlm_tool ls: kern_stop, join) |",
        "|---|---|---|---:|---|---|---|",
    ]
    for r in rounds:
        said = next((r["nodes"][n]["wait"] for n in r["waited_on"]), [])
        lines.append("| %s | %s | %s | %.1f | %s | %s | %s |" % (
            r["round"], "on" if r["with_wait"] else "set aside (control)",
            "yes" if r["whole"] else "**NO**", r["seconds_to_all_mounted"],
            ", ".join(r["waited_on"]) or "none", "; ".join(said) or "-",
            ", ".join(r["join_stuck_on"]) or "none"))  # fmt: skip
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--without-wait", type=int, default=0, help="control rounds after them")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--keep", action="store_true", help="leave the guests and the volume")
    args = parser.parse_args()
    if args.rounds < 1 or args.without_wait < 0:
        parser.error("--rounds 1 or more, --without-wait 0 or more")
    if not pace.KEY.exists():
        parser.error("no guest key at %s: run make guest-image first" % pace.KEY)
    os.environ.setdefault("OS_CLIENT_CONFIG_FILE", str(paths.clouds_yaml()))
    conn = openstack.connect(cloud=pace.CLOUD)
    rounds = []
    with tempfile.TemporaryDirectory(prefix="boot-ssh-") as control_dir:
        lab = pace.Lab(conn, control_dir)
        try:
            lab.attach(NODES)
            converge(lab)
            if not lab.mounted(NODES, "gfs2"):
                raise RuntimeError("after the converge, the three guests do not all mount gfs2")
            plan = [("wait-%d" % (i + 1), True) for i in range(args.rounds)]
            plan += [("control-%d" % (i + 1), False) for i in range(args.without_wait)]
            for round_name, with_wait in plan:
                rounds.append(one_round(lab, round_name, with_wait))
                if not rounds[-1]["whole"] and not with_wait:
                    rounds.append(one_round(lab, round_name + "-recovery", True))
        finally:
            if args.json:
                args.json.parent.mkdir(parents=True, exist_ok=True)
                args.json.write_text(json.dumps(rounds, indent=1))
            if not args.keep:
                pace.cleanup(lab)
    print(report(rounds))
    return 0 if all(r["whole"] for r in rounds if r["with_wait"]) else 1


if __name__ == "__main__":
    sys.exit(main())
