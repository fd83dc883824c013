"""GFS2's fencing password rotated on remove_node while the controller loses a member mid-run;
the next run makes the copies agree on a new one, and no run shows a password.

    fencing_rotation_cut.py [--json PATH] [--logs DIR] [--keep]

By hand, on the local cloud's full profile (`make fault-rotation-cut`). The pace bench's lab:
three Nova guests (QEMU TCG) node-0, node-1, node-2 and one multiattach RBD volume, made here
and deleted at the end (--keep leaves them). GFS2 on node-1 and node-2 (the VM scenario's
converge.yml), node-0 added with add_node: all three hold the password P0. Then, each run a
whole ansible-playbook process at -vvv with --diff:

1. remove_node -e node=node-0. When the run reaches the rotation's decision, it is paused
   (SIGSTOP to its process group) and node-1's SSH server is stopped, its sessions killed
   (systemd starts it again 60 s later); a probe must find SSH refused (the fault struck); the
   run goes on. The cluster's own network is untouched. Wanted: node-1 reported unreachable,
   the run's last message naming it and the run that mends it, node-0 gone and detached,
   node-2 on a new password P1 that Keystone takes while it refuses P0, node-1 still on P0
   (copies that differ).
   The cluster's lease, on node-1, was not let go of (node-1 unreachable at the run's end):
   removed by hand, as the next run's message would say once it had waited for it.
2. The converge again, nothing asked: the copies differ, so the members get a new password P2
   that both hold and Keystone takes (P0 and P1 refused), each member's fence check passes, and
   node-1's corosync.conf drops node-0.
3. The converge in check mode: nothing changes, P2 stays.
4. The converge with clustered_fs_fencing_new_password misspelt ("yess"): refused by the role's
   argument spec, naming it; nothing changes.
Every run's output (stdout and stderr) is searched for P0, P1 and P2, and for each clouds.yaml's
base64 (what the role's read of it returns). Prints a Markdown report (no secret in it); exits
1 when a check fails.
"""

import argparse
import base64
import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import openstack
from bench import guests_pace_bench as pace
from keystoneauth1 import exceptions as ks_exceptions
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3
from local_cloud import paths

from ansible_collections.multiattach.cloud.plugins.module_utils.host import (
    cluster_leave,
    cluster_lock,
)

CUT = "node-1"
KEPT = "node-2"
DECISION = "Decide whether the fencing user gets a new password"
SSH_BACK_SECONDS = 60
VERBOSE = ["-vvv", "--diff"]
# Stop the SSH server and end every session (Debian's ssh.service keeps them on a stop); a
# timer brings it back. The session running this dies with the others.
CUT_SCRIPT = (
    """
    systemd-run --quiet --on-active=%d --unit=lab-ssh-back-$(date +%%s) systemctl start ssh.service
    systemctl stop ssh.socket 2>/dev/null || true
    systemctl stop ssh.service
    pkill -KILL -x sshd || true
"""
    % SSH_BACK_SECONDS
)


def clouds_yaml(lab, names):
    """{name: clouds.yaml's text} as each guest holds it."""
    return lab.run(names, "cat %s" % cluster_leave.FENCING_CLOUDS)


def keystone_takes(entry):
    """Whether Keystone gives a token for ENTRY's auth; False on 401."""
    auth = v3.Password(**entry["auth"])
    try:
        ks_session.Session(auth=auth).get_token()
        return True
    except ks_exceptions.Unauthorized:
        return False


def ssh_refused(guest):
    # A new connection, not the kept one.
    options = [
        "ControlPath=none" if o.startswith("ControlPath=") else o.replace("=auto", "=no")
        for o in guest.options
    ]
    probe = subprocess.run(
        ["ssh", *options, "root@" + guest.address, "true"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    return probe.returncode != 0 and "refused" in probe.stderr


def run_with_cut(lab, playbook, extra):
    """The playbook, paused at the rotation's decision while node-1's SSH goes; (process, cut)."""
    command, env = pace.playbook_command(lab, "three", "gfs2", playbook, extra)
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        cwd=str(pace.ROOT), env=env, start_new_session=True,
    )  # fmt: skip
    lines, cut = [], {}
    for line in process.stdout:
        lines.append(line)
        if DECISION in line and not cut:
            os.killpg(process.pid, signal.SIGSTOP)
            try:
                lab.guests[CUT].run(CUT_SCRIPT, check=False)
                lab.guests[CUT].close()
                cut["refused"] = ssh_refused(lab.guests[CUT])
            finally:
                os.killpg(process.pid, signal.SIGCONT)
    process.wait()
    return subprocess.CompletedProcess(command, process.returncode, "".join(lines)), cut


def run(lab, inventory, playbook, extra=()):
    completed = pace.run_playbook(lab, inventory, "gfs2", playbook, [*VERBOSE, *extra])
    return subprocess.CompletedProcess(
        completed.args, completed.returncode, completed.stdout + completed.stderr
    )


def secrets_shown(outputs, texts):
    """{run: [which secret]} for every run whose output holds a password or a file's base64."""
    secrets_of = {}
    for label, text in texts.items():
        secrets_of[label + " password"] = pace.fencing_entry(text)["auth"]["password"]
        secrets_of[label + " clouds.yaml base64"] = base64.b64encode(text.encode()).decode()
    return {
        run_label: [name for name, secret in secrets_of.items() if secret in output]
        for run_label, output in outputs.items()
    }


def scenario(lab, logs):
    checks, outputs = [], {}

    def check(what, ok, seen=""):
        checks.append({"check": what, "ok": bool(ok), "seen": seen})

    converge = "molecule/shared_disk/converge.yml"
    # The lab's volume is new each run; fencing users an earlier lab left name its volume, and
    # the role refuses (never takes over or deletes) another cluster's user.
    admin = openstack.connect(cloud=pace.ADMIN_CLOUD)
    for name in ("multiattach-fence-%s" % pace.CLUSTER, "multiattach-fence-%s.2" % pace.CLUSTER):
        left = admin.identity.find_user(name, ignore_missing=True)
        if left is not None:
            admin.identity.delete_user(left)
    first = pace.run_playbook(lab, "two", "gfs2", converge)
    added = pace.run_playbook(lab, "three", "gfs2", "playbooks/add_node.yml", ["-e", "node=node-0"])
    if first.returncode or added.returncode:
        raise RuntimeError("set-up failed:\n%s%s" % (first.stdout[-2000:], added.stdout[-2000:]))
    before = clouds_yaml(lab, pace.NODES)
    check("before: the three members hold one password", len(set(before.values())) == 1)
    texts = {"P0": before[KEPT]}

    removed, cut = run_with_cut(lab, "playbooks/remove_node.yml", [*VERBOSE, "-e", "node=node-0"])
    outputs["remove_node (node-1 cut mid-run)"] = removed.stdout
    check("the cut struck: SSH to node-1 refused while the run was paused", cut.get("refused"))
    check(
        "remove_node reported node-1 unreachable, and failed",
        removed.returncode != 0 and "UNREACHABLE" in removed.stdout and CUT in removed.stdout,
        "exit %d" % removed.returncode,
    )
    check(
        "its last message names node-1 as missing the change, and the run that mends it",
        "node-1 did not take the cluster" in " ".join(removed.stdout.split())
        and "multiattach.cloud.site" in removed.stdout,
    )
    check("node-0 no longer holds the volume", lab.guests["node-0"].server_id not in lab.holders())
    pace.wait_for_ssh(lab.guests[CUT], SSH_BACK_SECONDS + 120)
    # The cluster's lease lives on the group's first host, node-1, which was unreachable when
    # the cut run let go of it: it stays until it ends by itself (an hour), and the next run
    # waits for it, then fails naming it and the fix. The operator's way, once sure no run
    # changes the cluster: remove it, as that message says.
    lease = cluster_lock.lease_path(cluster_lock.LOCK_DIRECTORY, "multiattach")
    held = lab.run([CUT], "cat %s 2>/dev/null || true" % lease)[CUT]
    check(
        "the cut run's lease is left on node-1 (unreachable when the run let go of it)",
        "remove_node" in held or "Take the server out" in held,
        held.strip()[:200],
    )
    lab.run([CUT], "rm -f %s" % lease)
    after_cut = clouds_yaml(lab, pace.MEMBERS)
    texts["P1"] = after_cut[KEPT]
    p0, p1 = pace.fencing_entry(texts["P0"]), pace.fencing_entry(texts["P1"])
    check("node-2 got a new password", p1["auth"]["password"] != p0["auth"]["password"])
    check("node-1 kept the old one (the copies differ)", after_cut[CUT] == texts["P0"])
    check("Keystone takes node-2's new password", keystone_takes(p1))
    check("Keystone refuses the old password", not keystone_takes(p0))

    again = run(lab, "two", converge)
    outputs["converge after the cut"] = again.stdout
    check("the converge after the cut passed", again.returncode == 0, "exit %d" % again.returncode)
    healed = clouds_yaml(lab, pace.MEMBERS)
    texts["P2"] = healed[KEPT]
    p2 = pace.fencing_entry(texts["P2"])
    check("the members' copies agree again", healed[CUT] == healed[KEPT])
    check(
        "on a third password, neither P0 nor P1",
        p2["auth"]["password"] not in (p0["auth"]["password"], p1["auth"]["password"]),
    )
    check("Keystone takes it", keystone_takes(p2))
    check(
        "Keystone refuses P0 and P1",
        not keystone_takes(p0) and not keystone_takes(p1),
    )
    fence_checked = again.stdout.split("the fence device's status of its own server", 1)[-1]
    fence_checked = fence_checked.split("TASK [", 1)[0]
    check(
        "each member's fence check ran and passed in that run",
        "ok: [node-1]" in fence_checked and "ok: [node-2]" in fence_checked,
    )
    node_0 = lab.guests["node-0"].address
    corosync = lab.run(pace.MEMBERS, "cat /etc/corosync/corosync.conf")
    check(
        "node-1's and node-2's corosync.conf no longer name node-0",
        all(node_0 not in text for text in corosync.values()),
    )

    checked = run(lab, "two", converge, ["--check"])
    outputs["converge --check"] = checked.stdout
    check("the check-mode converge passed", checked.returncode == 0, "exit %d" % checked.returncode)
    check("and changed no copy", clouds_yaml(lab, pace.MEMBERS) == healed)

    misspelt = run(lab, "two", converge, ["-e", "clustered_fs_fencing_new_password=yess"])
    outputs["converge, clustered_fs_fencing_new_password=yess"] = misspelt.stdout
    check(
        "the misspelt value was refused, naming the variable",
        misspelt.returncode != 0 and "clustered_fs_fencing_new_password" in misspelt.stdout,
        "exit %d" % misspelt.returncode,
    )
    check("and changed no copy", clouds_yaml(lab, pace.MEMBERS) == healed)
    check("Keystone still takes P2", keystone_takes(p2))

    shown = secrets_shown(outputs, texts)
    if logs:
        logs.mkdir(parents=True, exist_ok=True)
        for number, (label, output) in enumerate(outputs.items(), 1):
            kept = output if not shown[label] else "(not kept: it shows %s)\n" % shown[label]
            (logs / ("%d.log" % number)).write_text("# %s\n%s" % (label, kept))
    for run_label, found in shown.items():
        check("no secret in the output of: %s" % run_label, not found, ", ".join(found))
    sizes = {label: len(output) for label, output in outputs.items()}
    return checks, sizes


def report(checks, sizes):
    lines = [
        "## GFS2's fencing password: a rotation cut short, then healed, and never shown",
        "",
        "| check | result | seen |",
        "|---|---|---|",
    ]
    lines += [
        "| %s | %s | %s |" % (c["check"], "yes" if c["ok"] else "NO", c["seen"]) for c in checks
    ]
    lines += ["", "Output searched (characters): " + ", ".join("%s %d" % i for i in sizes.items())]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path)
    parser.add_argument("--keep", action="store_true", help="leave the guests and the volume")
    parser.add_argument(
        "--logs", type=Path, help="write each run's output here (searched: no secret in it)"
    )
    args = parser.parse_args()
    if not pace.KEY.exists():
        parser.error("no guest key at %s: run make guest-image first" % pace.KEY)
    os.environ.setdefault("OS_CLIENT_CONFIG_FILE", str(paths.clouds_yaml()))
    conn = openstack.connect(cloud=pace.CLOUD)
    with tempfile.TemporaryDirectory(prefix="rotation-ssh-") as control_dir:
        lab = pace.Lab(conn, control_dir)
        try:
            checks, sizes = scenario(lab, args.logs)
        finally:
            if not args.keep:
                pace.cleanup(lab)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"checks": checks, "output_sizes": sizes}, indent=1))
    print(report(checks, sizes))
    return 0 if all(c["ok"] for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
