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
   node-2 on the second fencing user with a new password P1 that Keystone takes, node-1 still
   on P0, whose user Keystone keeps (node-1 would be left without a fence), the run warning so.
   The cluster's lease, on node-1, was not let go of (node-1 unreachable at the run's end):
   removed by hand, as the next run's message would say once it had waited for it.
2. The converge again, nothing asked: the members hold both users, and P1, which Keystone takes
   and only members held, goes to node-1 as it is (no member is without a fence on the way); the
   first user, which node-0 knew, is deleted (P0 refused); each member's fence check passes, and
   node-1's corosync.conf drops node-0.
3. The converge in check mode: nothing changes, P1 stays.
4. The converge with clustered_fs_fencing_new_password misspelt ("yess"): refused by the role's
   argument spec, naming it; nothing changes.
5. Nova's policy reset behind the role's back (fencing_policy's clauses gone): the check-mode
   converge warns on each member, naming it and the fix (the policy is put back after). Then the
   fencing user's password changed in Keystone: the check-mode converge says it would renew and
   writes nothing; the next converge never sets the refused password again: the other user gets
   a new one, P2, on both members.
   Then the converge with --limit node-1 (and localhost, where the volume is found): refused before anything is written, naming node-2 as not
   read in this run and --limit; nothing changes.
6. A dead node dropped from the inventory: add_node -e node=node-0 (node-0 gets P2 and Keystone's
   record of the password's holders names its server), then node-0's server is deleted in Nova
   while it has GFS2 mounted (the fault: node-1's journal must show node-0 fenced, counted as
   deleted), then the converge with node-0 left out of the inventory, nothing asked. Wanted: the
   run renews the password, naming node-0's server as a holder no longer a member; node-1 and
   node-2 on a new P3 that Keystone takes while it refuses P2; the record names node-1's and
   node-2's servers and not node-0's.
Every run's output (stdout and stderr) is searched for P0 to P3, and for each clouds.yaml's
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
import time
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
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack import identity

CUT = "node-1"
KEPT = "node-2"
DECISION = "Decide which fencing user the members hold"
SSH_BACK_SECONDS = 60
# How long node-1's DLM may take to notice a deleted node-0 and fence it (corosync's token, the
# fence device's delay, Nova's answers).
FENCE_WAIT_SECONDS = 300
# A converge right after a fence may find the lockspace still recovering: the plan refuses
# before anything is written, and the test runs it again.
CONVERGE_ATTEMPTS = 4
SETTLING = ("cannot be read for sure", "still in the running corosync ring")
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


def scenario(lab, logs, checks):
    outputs = {}

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
    check(
        "Keystone still takes P0: node-1 was not moved, so its user is kept",
        keystone_takes(p0) and p0["auth"]["username"] != p1["auth"]["username"],
    )
    check(
        "the run warned that the former user stays, naming node-1",
        "is kept: node-1 did not take the new fencing credentials"
        in " ".join(removed.stdout.split()),
    )

    again = run(lab, "two", converge)
    outputs["converge after the cut"] = again.stdout
    check("the converge after the cut passed", again.returncode == 0, "exit %d" % again.returncode)
    healed = clouds_yaml(lab, pace.MEMBERS)
    check("the members' copies agree again", healed[CUT] == healed[KEPT])
    check("on P1, which only members held, as it was", healed[CUT] == texts["P1"])
    check(
        "the run said P1 goes to every member as it is",
        "goes to every member as it is" in " ".join(again.stdout.split()),
    )
    check("Keystone takes P1 and refuses P0", keystone_takes(p1) and not keystone_takes(p0))
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
    check("Keystone still takes P1", keystone_takes(p1))

    # Nova's policy reset by the cloud's operator (fencing_policy's clauses gone): each member's
    # fence check, on every converge, warns naming the node and the fix, and the run goes on.
    nova_policy = paths.etc_dir() / "nova" / "policy.yaml"
    kept_policy = nova_policy.read_text()
    nova_policy.write_text("# reset by the operator\n")
    try:
        warned = run(lab, "two", converge, ["--check"])
    finally:
        nova_policy.write_text(kept_policy)
        os.utime(nova_policy)  # oslo.policy reloads a file whose mtime changed
    outputs["converge --check, Nova's policy reset"] = warned.stdout
    said = " ".join(warned.stdout.split())
    check(
        "Nova's policy reset: the check-mode converge warns on each member, naming it and the fix",
        warned.returncode == 0
        and all("WARNING: %s's fence device" % name in said for name in pace.MEMBERS)
        and "multiattach.cloud.fencing_policy" in said,
        "exit %d" % warned.returncode,
    )
    check("and changed no copy", clouds_yaml(lab, pace.MEMBERS) == healed)

    # Keystone changed behind the role's back (an operator revoking the password, say): the
    # next converge never sets the refused password again: the other user gets a new one, P2.
    pace.fencing_password_set("changed-behind-" + os.urandom(8).hex(), p1["auth"]["username"])
    planned = run(lab, "two", converge, ["--check"])
    outputs["converge --check, the password changed in Keystone"] = planned.stdout
    check(
        "a refused password: the check-mode converge says it would renew, and writes nothing",
        planned.returncode == 0
        and "Keystone refuses the password the members hold" in " ".join(planned.stdout.split())
        and clouds_yaml(lab, pace.MEMBERS) == healed,
        "exit %d" % planned.returncode,
    )
    mended = run(lab, "two", converge)
    outputs["converge after the password changed in Keystone"] = mended.stdout
    renewed = clouds_yaml(lab, pace.MEMBERS)
    texts["P2"] = renewed[KEPT]
    p2 = pace.fencing_entry(texts["P2"])
    check(
        "the next converge renewed it, saying Keystone refuses the members' password",
        mended.returncode == 0
        and "Keystone refuses the password the members hold" in " ".join(mended.stdout.split()),
        "exit %d" % mended.returncode,
    )
    check(
        "the members agree on a new P2, on the other user, which Keystone takes",
        renewed[CUT] == renewed[KEPT] != texts["P1"]
        and p2["auth"]["username"] != p1["auth"]["username"]
        and keystone_takes(p2),
    )
    healed = renewed

    # The play that finds the volume runs on localhost: left in, so that the role's own refusal
    # is what stops the run.
    limited = run(lab, "two", converge, ["--limit", "%s,localhost" % CUT])
    outputs["converge --limit node-1"] = limited.stdout
    said = " ".join(limited.stdout.split())
    check(
        "the --limit converge was refused, naming node-2 and --limit",
        limited.returncode != 0
        and "node-2 is in the cluster's group but not read in this run" in said
        and "--limit" in said,
        "exit %d" % limited.returncode,
    )
    check("and changed no copy", clouds_yaml(lab, pace.MEMBERS) == healed)
    check("Keystone still takes P2", keystone_takes(p2))

    dropped_checks(lab, check, outputs, texts, converge)

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


def holders_recorded(admin, entry):
    """The server UUIDs Keystone's record of the fencing user ENTRY names as its holders."""
    user = admin.identity.find_user(entry["auth"]["username"], ignore_missing=False)
    return set(identity.holders_of(user) or [])


def wait_for_fence_of(lab, server_id, seconds):
    """A member's journal line that counts SERVER_ID fenced (deleted in this project), or ''
    (DLM has one member fence, whichever it picks)."""
    deadline = time.monotonic() + seconds
    script = (
        "journalctl -q -o cat -t multiattach-fence-openstack | grep -F %s | "
        "grep 'counts as fenced' | tail -1 || true" % server_id
    )
    while time.monotonic() < deadline:
        found = [line.strip() for line in lab.run(pace.MEMBERS, script).values() if line.strip()]
        if found:
            return found[0]
        time.sleep(5)
    return ""


def dropped_checks(lab, check, outputs, texts, converge):
    """Step 6: a dead node dropped from the inventory, its holder's password renewed."""
    admin = openstack.connect(cloud=pace.ADMIN_CLOUD)
    added = run(lab, "three", "playbooks/add_node.yml", ["-e", "node=%s" % pace.JOINING])
    outputs["add_node node-0 again"] = added.stdout
    check("add_node node-0 passed", added.returncode == 0, "exit %d" % added.returncode)
    p2 = pace.fencing_entry(texts["P2"])
    dead = lab.guests[pace.JOINING].server_id
    check(
        "node-0 holds P2 and Keystone's record names its server",
        clouds_yaml(lab, [pace.JOINING])[pace.JOINING] == texts["P2"]
        and dead in holders_recorded(admin, p2),
    )
    mounted = lab.run([pace.JOINING], "findmnt -n -o FSTYPE %s || true" % pace.MOUNT_POINT)
    check("node-0 has GFS2 mounted", mounted[pace.JOINING].strip() == "gfs2")
    lab.forget(pace.JOINING)
    admin.compute.delete_server(dead)
    admin.compute.wait_for_delete(admin.compute.get_server(dead), wait=300)
    fenced = wait_for_fence_of(lab, dead, FENCE_WAIT_SECONDS)
    check(
        "the fault struck: a member's journal shows node-0 fenced as deleted", fenced, fenced[:200]
    )

    attempts, dropped = 0, None
    while attempts < CONVERGE_ATTEMPTS:
        attempts += 1
        dropped = run(lab, "two", converge)
        said = " ".join(dropped.stdout.split())
        if dropped.returncode == 0 or not any(wait in said for wait in SETTLING):
            break
        time.sleep(30)
    outputs["converge, node-0 deleted and left out of the inventory"] = dropped.stdout
    check(
        "the converge without node-0 passed",
        dropped.returncode == 0,
        "exit %d after %d attempt(s)" % (dropped.returncode, attempts),
    )
    said = " ".join(dropped.stdout.split())
    check(
        "it renewed the password, naming node-0's server",
        "servers %s held it and are no longer members" % dead in said,
    )
    now = clouds_yaml(lab, pace.MEMBERS)
    texts["P3"] = now[KEPT]
    p3 = pace.fencing_entry(texts["P3"])
    check("node-1 and node-2 agree on a new password", now[CUT] == now[KEPT] != texts["P2"])
    check("Keystone takes P3 and refuses P2", keystone_takes(p3) and not keystone_takes(p2))
    members = {lab.guests[name].server_id for name in pace.MEMBERS}
    check(
        "Keystone's record names node-1's and node-2's servers, not node-0's",
        holders_recorded(admin, p3) == members,
        " ".join(sorted(holders_recorded(admin, p3))),
    )


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
        checks, sizes = [], {}
        try:
            sizes = scenario(lab, args.logs, checks)[1]
        except Exception:
            # The checks made before a step broke are reported too, the step's error after them.
            print(report(checks + [{"check": "the scenario ran to its end", "ok": False,
                                    "seen": "see the traceback"}], sizes))  # fmt: skip
            raise
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
