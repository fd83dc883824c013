"""The guests' pace: the clustered_fs role's phases against the same steps by hand (the floor).

    guests_pace_bench.py [--fs ocfs2,gfs2] [--repeat 3] [--json PATH] [--keep]

On the local cloud's full profile (`make cloud-up CLOUD_PROFILE=full`), three Nova guests
(QEMU TCG) and one multiattach RBD volume held by node-1 and node-2, made here and deleted at
the end (--keep leaves them). For each filesystem, --repeat rounds; each round runs both ways
in a rotating order, each from the same fresh start (stack stopped and disabled, its files
gone, the disk wiped), through four phases:
  first converge      node-1 and node-2 form the cluster and mount a new filesystem
  no-change converge  the same again, nothing to do
  add_node            node-0 gets the volume, joins and mounts
  remove_node         node-0 unmounts, leaves, the others drop it, the volume is detached
The ways:
  role   the collection as an operator runs it: molecule/shared_disk/converge.yml (twice),
         playbooks/add_node.yml and playbooks/remove_node.yml, each a whole ansible-playbook
         process (pipelining on, as the scenario runs)
  floor  the same steps by hand: one SSH connection per guest (kept open, OpenSSH's
         ControlMaster), each step one shell script a guest, guests worked at once where the
         role works them at once, the attach and detach with openstacksdk; the files written
         are the very bytes the role wrote in the round before (read back from the guests)
Each phase's outcome is checked after each way (untimed): a floor that did nothing fails the
run. Prints a Markdown report: medians per phase and way, the ratio, the goals.
"""

import argparse
import base64
import concurrent.futures
import json
import os
import re
import secrets
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import openstack
import yaml
from bench.floor import Floor
from local_cloud import guests as lab_guests
from local_cloud import paths

from ansible_collections.multiattach.cloud.plugins.module_utils.host import (
    cluster_leave,
    cluster_mount,
)

ROOT = Path(__file__).resolve().parents[2]
KEY = ROOT / ".cache" / "vm-lab" / "id_ed25519"
KEY_NAME = "pace-bench"
CLOUD = "local-member"
ADMIN_CLOUD = "local-admin"
VOLUME = "pace-bench-shared"
VOLUME_TYPE = "multiattach-rbd-1"
MEMBERS = ("node-1", "node-2")
JOINING = "node-0"
NODES = (JOINING,) + MEMBERS
MOUNT_POINT = "/srv/shared"
CLUSTER = "multiattach"
LABEL = "shared"
PHASES = ("first converge", "no-change converge", "add_node", "remove_node")
GOALS = {"first converge": 60, "no-change converge": 10, "add_node": 60, "remove_node": 30}
WAYS = ("role", "floor")
FILES = {
    "ocfs2": [
        "/etc/sysctl.d/60-multiattach-clustered-fs.conf",
        "/etc/ocfs2/cluster.conf",
        "/etc/default/o2cb",
    ],
    "gfs2": [
        "/etc/corosync/authkey",
        "/etc/corosync/corosync.conf",
        "/etc/dlm/dlm.conf",
        "/usr/local/sbin/multiattach-dlm-ring-wait",
        "/etc/systemd/system/dlm.service.d/multiattach-ring-wait.conf",
        cluster_leave.FENCING_CLOUDS,
    ],
}
UNITS = {"ocfs2": ["o2cb", "ocfs2"], "gfs2": ["corosync", "dlm"]}
# The role's variables as the VM scenario sets them (molecule/shared_disk/molecule.yml).
ROLE_VARS = {
    "ansible_user": "root",
    "ansible_ssh_private_key_file": str(KEY),
    "ansible_ssh_common_args": "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null",
    "ansible_ssh_pipelining": True,
    "clustered_fs_group": "shared_cluster",
    "clustered_fs_install_packages": False,
    "clustered_fs_fencing_admin_cloud": ADMIN_CLOUD,
    "clustered_fs_fencing_project": "demo",
    "clustered_fs_fencing_auth_url": "http://192.168.124.1:5000/v3",
    "clustered_fs_ocfs2_dead_threshold": 8,
    "clustered_fs_ocfs2_idle_timeout_ms": 7000,
    "multiattach_cloud": CLOUD,
    "shared_volume_name": VOLUME,
}
NODE_IDS = {"node-1": 2, "node-2": 1}


class Guest:
    """One guest over one SSH connection, opened once and kept (ControlMaster)."""

    def __init__(self, name, server_id, address, control_dir):
        self.name = name
        self.server_id = server_id
        self.address = address
        self.options = [
            "-i", str(KEY),
            "-o", "StrictHostKeyChecking=no",
            "-o", "UserKnownHostsFile=/dev/null",
            "-o", "LogLevel=ERROR",
            "-o", "BatchMode=yes",
            "-o", "ConnectTimeout=10",
            "-o", "ServerAliveInterval=5",
            "-o", "ServerAliveCountMax=3",
            "-o", "ControlMaster=auto",
            "-o", "ControlPersist=1800",
            "-o", "ControlPath=%s/%s" % (control_dir, name),
        ]  # fmt: skip

    def run(self, script, check=True):
        """Run SCRIPT (bash, stopped at the first failure) in the guest; its output."""
        completed = subprocess.run(
            ["ssh", *self.options, "root@" + self.address, "bash -euo pipefail -s"],
            input=script,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        # Not the script: it may carry the fencing user's clouds.yaml.
        if check and completed.returncode != 0:
            raise RuntimeError(
                "%s: exit %d: %s" % (self.name, completed.returncode, completed.stderr[-1500:])
            )
        return completed.stdout

    def close(self):
        subprocess.run(
            ["ssh", *self.options, "-O", "exit", "root@" + self.address],
            capture_output=True,
            check=False,
        )


def at_once(work):
    """Run {name: callable} at once; {name: result}, the first failure raised."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(work)) as pool:
        futures = {name: pool.submit(job) for name, job in work.items()}
    return {name: future.result() for name, future in futures.items()}


class Lab:
    def __init__(self, conn, control_dir):
        self.conn = conn
        public_key = Path(str(KEY) + ".pub").read_text()
        made = lab_guests.ensure(conn, list(NODES), KEY_NAME, public_key)
        self.guests = {
            name: Guest(name, server["id"], server["address"], control_dir)
            for name, server in made["servers"].items()
        }
        for guest in self.guests.values():
            wait_for_ssh(guest)
        volume = conn.block_storage.find_volume(VOLUME, ignore_missing=True)
        if volume is None:
            volume = conn.block_storage.create_volume(name=VOLUME, size=1, volume_type=VOLUME_TYPE)
            conn.block_storage.wait_for_status(volume, "available", interval=1, wait=120)
        self.volume_id = volume.id
        self.disk = "/dev/disk/by-id/virtio-" + volume.id[:20]
        self.attach(MEMBERS)
        # Guests kept from a run that stopped may still mount the disk: unmounted before
        # node-0's volume is detached, never under a mounted filesystem.
        self.reset()
        self.steps = []  # the floor's leave steps, each round
        self.captured = {}  # (fs, "two"|"three") -> {node: {path: (mode, base64)}}
        self.work_dir = Path(tempfile.mkdtemp(prefix="pace-bench-"))
        self.inventories = {
            count: self.write_inventory(count, names)
            for count, names in (("two", MEMBERS), ("three", NODES))
        }

    # The cloud: the floor's attach and detach (the paced form), also used untimed.
    def holders(self):
        volume = self.conn.block_storage.get_volume(self.volume_id)
        return {attachment["server_id"] for attachment in volume.attachments}

    def forget(self, name):
        """Stop using guest NAME: its server was deleted (a fault test's dead node)."""
        self.guests.pop(name).close()

    def attach(self, names):
        holders = self.holders()
        todo = [self.guests[n].server_id for n in names if self.guests[n].server_id not in holders]
        if todo:
            floor = Floor(self.conn, self.volume_id, "attach")
            floor.paced(floor.read_volume(), todo)

    def detach(self, names):
        holders = self.holders()
        todo = [
            self.guests[n].server_id
            for n in names
            if n in self.guests and self.guests[n].server_id in holders
        ]
        if todo:
            floor = Floor(self.conn, self.volume_id, "detach")
            floor.paced(floor.read_volume(), todo)

    def write_inventory(self, count, names):
        hosts = {}
        for name in names:
            hosts[name] = {"ansible_host": self.guests[name].address}
            if name in NODE_IDS:
                hosts[name]["clustered_fs_node_id"] = NODE_IDS[name]
        path = self.work_dir / ("%s.yml" % count)
        path.write_text(
            yaml.safe_dump(
                {"all": {"vars": ROLE_VARS, "children": {"shared_cluster": {"hosts": hosts}}}}
            )
        )
        return path

    def run(self, names, script):
        return at_once({n: (lambda g=self.guests[n]: g.run(script)) for n in names})

    # A fresh start: no stack, no files, no mount, an empty disk, node-0 not attached.
    def reset(self):
        every_file = " ".join(p for paths_of in FILES.values() for p in paths_of)
        units = "o2cb ocfs2 corosync dlm"
        script = f"""
            umount -q {MOUNT_POINT} 2>/dev/null || true
            sed -i '\\# {MOUNT_POINT} #d' /etc/fstab
            systemctl stop ocfs2 o2cb dlm corosync 2>/dev/null || true
            for unit in {units}; do
              if systemctl is-enabled --quiet $unit 2>/dev/null; then systemctl disable --quiet $unit; fi
            done
            for file in {every_file}; do rm -f "$file" "$file.left"; done
            systemctl daemon-reload
        """
        self.run([name for name in NODES if name in self.guests], script)
        self.detach([JOINING])
        self.guests[MEMBERS[0]].run("wipefs -q -a %s" % shlex.quote(self.disk))

    def capture(self, fs, count, names):
        paths_list = " ".join(FILES[fs])
        script = f"""
            for file in {paths_list}; do
              [ -e "$file" ] && echo "$file $(stat -c %a "$file") $(base64 -w0 "$file")" || true
            done
        """
        found = {}
        for name, output in self.run(names, script).items():
            found[name] = {}
            for line in output.splitlines():
                path, mode, data = line.split(" ")
                found[name][path] = (mode, data)
        self.captured[(fs, count)] = found

    def fstab_line(self, fs):
        options = "_netdev,noatime" + (",x-systemd.requires=dlm.service" if fs == "gfs2" else "")
        return "%s %s %s %s 0 0" % (self.disk, MOUNT_POINT, fs, options)

    # What the role's outcome is, checked after each way.
    def mounted(self, names, fs):
        return {
            name: output.strip()
            for name, output in self.run(
                names, "findmnt -n -o FSTYPE --mountpoint %s || true" % MOUNT_POINT
            ).items()
        } == {name: fs for name in names}


def wait_for_ssh(guest, seconds=300):
    deadline = time.monotonic() + seconds
    while True:
        try:
            guest.run("true")
            return
        except (RuntimeError, subprocess.TimeoutExpired):
            if time.monotonic() > deadline:
                raise
            time.sleep(3)


# The floor's scripts. READ stands for the role's one read per node (clustered_fs_info):
# the disk's signature, the files' checksums, the units' state (one systemctl show, and the
# SysV scripts' rc links), the mount.
def read_script(lab, fs):
    units = " ".join(UNITS[fs])
    return f"""
        blkid -p -o export {shlex.quote(lab.disk)} || true
        sha256sum {" ".join(FILES[fs])} 2>/dev/null || true
        systemctl show --property=Id,ActiveState,UnitFileState {units}
        ls /etc/rcS.d /etc/rc5.d
        grep -F ' {MOUNT_POINT} ' /proc/self/mountinfo /etc/fstab || true
    """


def write_script(files, only=None):
    lines = []
    for path, (mode, data) in sorted(files.items()):
        if only is not None and path not in only:
            continue
        lines.append(
            "mkdir -p -m 0755 %s && echo %s | base64 -d > %s.new && chmod %s %s.new && mv %s.new %s"
            % (os.path.dirname(path), data, path, mode, path, path, path)
        )
    return "\n".join(lines) + "\n"


def mount_script(lab, fs):
    return f"""
        grep -qF ' {MOUNT_POINT} ' /etc/fstab || echo {shlex.quote(lab.fstab_line(fs))} >> /etc/fstab
        mkdir -p -m 0755 {MOUNT_POINT}
        blockdev --flushbufs {shlex.quote(lab.disk)}
        mount {MOUNT_POINT}
        {shlex.join(cluster_mount.RELOAD_UNWAITED)}
    """


def start_script(fs):
    if fs == "ocfs2":
        return (
            "sysctl -q -p /etc/sysctl.d/60-multiattach-clustered-fs.conf\n"
            "DPKG_ROOT=/ systemctl enable --quiet --no-reload o2cb ocfs2"
            " && systemctl start o2cb && systemctl start ocfs2\n"
        )
    # The role's dlm.service drop-in (written with the files) makes the restart wait for a
    # quorate ring that dlm_controld has caught up with: the guests start at once here.
    return (
        "SYSTEMCTL_SKIP_SYSV=1 systemctl enable --quiet --no-reload corosync dlm"
        " && systemctl daemon-reload && systemctl restart corosync dlm\n"
    )


def fence_check(guest):
    return (
        "/usr/sbin/fence_openstack --cloud=multiattach-fencing-%s --plug=%s --action=status "
        "| grep -q 'Status: ON'\n" % (CLUSTER, guest.server_id)
    )


def mkfs_script(lab, fs):
    if fs == "ocfs2":
        command = "mkfs.ocfs2 -N 4 -L %s --cluster-stack=o2cb --cluster-name=%s %s" % (
            LABEL, CLUSTER, lab.disk)  # fmt: skip
    else:
        command = "mkfs.gfs2 -O -p lock_dlm -t %s:%s -j 4 %s" % (CLUSTER, LABEL, lab.disk)
    return command + " > /dev/null\n"


def fencing_identity():
    """The role keeps the cluster's fencing user in Keystone from the controller: one read."""
    admin = openstack.connect(cloud=ADMIN_CLOUD)
    admin.identity.find_user("multiattach-fence-%s" % CLUSTER, ignore_missing=True)


def floor_first_converge(lab, fs):
    files = lab.captured[(fs, "two")]
    if fs == "gfs2":
        # From a fresh start the role gives the fencing user the password it writes; the
        # last remove_node (either way's) left Keystone another.
        fencing_password_set(fencing_password(files[MEMBERS[0]]), fencing_user(files[MEMBERS[0]]))
    at_once({
        name: (lambda n=name: lab.guests[n].run(
            read_script(lab, fs) + write_script(files[n])
            + (fence_check(lab.guests[n]) if fs == "gfs2" else "") + start_script(fs)))
        for name in MEMBERS
    })  # fmt: skip
    lab.guests[MEMBERS[0]].run(mkfs_script(lab, fs))
    lab.run(MEMBERS, mount_script(lab, fs))


def floor_no_change(lab, fs):
    if fs == "gfs2":
        fencing_identity()
    lab.run(MEMBERS, read_script(lab, fs))


def floor_add_node(lab, fs):
    files = lab.captured[(fs, "three")]
    lab.attach([JOINING])
    if fs == "gfs2":
        fencing_identity()
    joining = lab.guests[JOINING]
    if fs == "ocfs2":
        members = "o2cb register-cluster %s\n" % CLUSTER
        # The members know the new node before it mounts (o2net takes known nodes only).
        at_once({
            JOINING: lambda: joining.run(
                read_script(lab, fs) + write_script(files[JOINING]) + start_script(fs)),
            **{n: (lambda n=n: lab.guests[n].run(
                read_script(lab, fs) + write_script(files[n], ["/etc/ocfs2/cluster.conf"])
                + members)) for n in MEMBERS},
        })  # fmt: skip
        joining.run(mount_script(lab, fs))
        return
    # GFS2: the members take the new node into corosync's membership before it starts.
    changed = ["/etc/corosync/corosync.conf", "/etc/dlm/dlm.conf"]
    at_once({
        JOINING: lambda: joining.run(
            read_script(lab, fs) + write_script(files[JOINING]) + fence_check(joining)),
        **{n: (lambda n=n: lab.guests[n].run(
            read_script(lab, fs) + write_script(files[n], changed) + "corosync-cfgtool -R > /dev/null\n"))
           for n in MEMBERS},
    })  # fmt: skip
    joining.run(start_script(fs) + mount_script(lab, fs))


def floor_remove_node(lab, fs):
    leaving = lab.guests[JOINING]
    files = lab.captured[(fs, "two")]
    # remove_node's lookup of the server, as the role's first play does.
    lab.conn.compute.find_server(JOINING, ignore_missing=False)
    # What clustered_fs_leave stops, disables and sets aside.
    aside = " ".join(cluster_leave.STACK_FILES[fs])
    # GFS2: the fencing password goes with the node, as clustered_fs_leave removes it.
    forget = "rm %s; mark credentials" % cluster_leave.FENCING_CLOUDS if fs == "gfs2" else ""
    stop = ""
    if cluster_leave.DISABLED[fs]:
        stop += "SYSTEMCTL_SKIP_SYSV=1 systemctl disable --quiet --no-reload %s\n" % " ".join(
            cluster_leave.DISABLED[fs]
        )
    # The stack stops, then systemd rereads fstab and the units unwaited, as the module does.
    stop += "systemctl stop %s\n" % " ".join(cluster_leave.STOP_ORDER[fs])
    stop += " ".join(cluster_leave.RELOAD_UNWAITED) + "\n"
    # The leave's steps timed in the guest, as clustered_fs_leave times its own.
    said = leaving.run(
        f"""
        mark() {{ now=$EPOCHREALTIME; awk -v a="$last" -v b="$now" -v s="$1" 'BEGIN {{ printf "%s %.2f\\n", s, b - a }}'; last=$now; }}
        last=$EPOCHREALTIME
        findmnt -n -o TARGET --source {shlex.quote(lab.disk)} > /dev/null
        umount {MOUNT_POINT}; mark unmount
        sed -i '\\# {MOUNT_POINT} #d' /etc/fstab; mark fstab
        {stop}
        mark stack
        for file in {aside}; do mv "$file" "$file.left"; done; mark set_aside
        {forget}
        """
    )
    lab.steps.append({"fs": fs, "leave": dict(line.split() for line in said.splitlines())})
    if fs == "ocfs2":
        # The role's command (stack_ocfs2.yml): a node that cluster.conf lacks goes.
        dropped = (
            "o2cb register-cluster %s\n"
            "for node in /sys/kernel/config/cluster/%s/node/*; do\n"
            '  grep -Eq "^[[:space:]]*name = ${node##*/}$" /etc/ocfs2/cluster.conf || rmdir "$node"\n'
            "done\n" % (CLUSTER, CLUSTER)
        )
        at_once({n: (lambda n=n: lab.guests[n].run(
            read_script(lab, fs) + write_script(files[n], ["/etc/ocfs2/cluster.conf"]) + dropped))
            for n in MEMBERS})  # fmt: skip
    else:
        # The node that left held the fencing password: the members get a new one, then
        # Keystone, then each member's fence agent signs in with it, as the role does.
        changed = ["/etc/corosync/corosync.conf", "/etc/dlm/dlm.conf"]
        password, clouds = new_fencing_password(files[MEMBERS[0]])
        at_once({n: (lambda n=n: lab.guests[n].run(
            read_script(lab, fs) + write_script(files[n], changed)
            + write_script({cluster_leave.FENCING_CLOUDS: clouds}) + "corosync-cfgtool -R > /dev/null\n"))
            for n in MEMBERS})  # fmt: skip
        fencing_password_set(password, fencing_user(files[MEMBERS[0]]))
        at_once({n: (lambda n=n: lab.guests[n].run(fence_check(lab.guests[n]))) for n in MEMBERS})
    lab.detach([JOINING])


def fencing_entry(text):
    """The one cloud entry of a clouds.yaml as the role writes it."""
    return next(iter(yaml.safe_load(text)["clouds"].values()))


def fencing_password(files):
    """The password of the captured clouds.yaml (mode, base64)."""
    return fencing_entry(base64.b64decode(files[cluster_leave.FENCING_CLOUDS][1]))["auth"][
        "password"
    ]


def new_fencing_password(files):
    """A new password and the members' clouds.yaml (mode, base64) that holds it."""
    mode, data = files[cluster_leave.FENCING_CLOUDS]
    clouds = yaml.safe_load(base64.b64decode(data))
    password = secrets.token_urlsafe(24)
    for entry in clouds["clouds"].values():
        entry["auth"]["password"] = password
    text = yaml.safe_dump(clouds, default_flow_style=False).encode()
    return password, (mode, base64.b64encode(text).decode())


def fencing_user(files):
    """The Keystone user the captured clouds.yaml names (the role's two take turns)."""
    return fencing_entry(base64.b64decode(files[cluster_leave.FENCING_CLOUDS][1]))["auth"][
        "username"
    ]


def fencing_password_set(password, name):
    admin = openstack.connect(cloud=ADMIN_CLOUD)
    user = admin.identity.find_user(name, ignore_missing=False)
    admin.identity.update_user(user, password=password)


FLOOR = {
    "first converge": floor_first_converge,
    "no-change converge": floor_no_change,
    "add_node": floor_add_node,
    "remove_node": floor_remove_node,
}


def ansible_playbook():
    newest = ROOT / ".venv-newest" / "bin" / "ansible-playbook"
    return str(newest if newest.exists() else ROOT / ".venv" / "bin" / "ansible-playbook")


def playbook_command(lab, inventory, fs, playbook, extra=()):
    """The command and environment that run PLAYBOOK (a path under the checkout) on the lab's
    INVENTORY ("two" or "three") for FS, as an operator runs it."""
    command = [
        ansible_playbook(),
        "-i",
        str(lab.inventories[inventory]),
        "-e",
        "clustered_fs_type=" + fs,
        "-e",
        "lab_volume=" + VOLUME,
        *extra,
        str(ROOT / playbook),
    ]
    env = dict(
        os.environ,
        MOLECULE_PROJECT_DIRECTORY=str(ROOT),
        ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"),
        ANSIBLE_PIPELINING="true",
        ANSIBLE_HOST_KEY_CHECKING="false",
        LOCAL_CLOUD_PROFILE="full",
        ANSIBLE_FORCE_COLOR="false",
    )  # its output is read
    return command, env


def run_playbook(lab, inventory, fs, playbook, extra=()):
    """The playbook as playbook_command runs it; the completed process."""
    command, env = playbook_command(lab, inventory, fs, playbook, extra)
    return subprocess.run(
        command, capture_output=True, text=True, check=False, cwd=str(ROOT), env=env
    )


def role_phase(lab, fs, phase):
    """The phase as an operator runs it; the playbook's last lines when it fails."""
    inventory, playbook, extra = {
        "first converge": ("two", "molecule/shared_disk/converge.yml", []),
        "no-change converge": ("two", "molecule/shared_disk/converge.yml", []),
        "add_node": ("three", "playbooks/add_node.yml", ["-e", "node=" + JOINING]),
        "remove_node": ("three", "playbooks/remove_node.yml", ["-e", "node=" + JOINING]),
    }[phase]
    completed = run_playbook(lab, inventory, fs, playbook, extra)
    if completed.returncode != 0:
        raise RuntimeError("%s (%s) failed:\n%s" % (playbook, phase, completed.stdout[-3000:]))
    return completed.stdout


def check(lab, fs, phase, output):
    """The phase's outcome, whichever way ran it; an error naming what is wrong."""
    changed = [int(n) for n in re.findall(r"\bchanged=(\d+)", output or "")]
    if phase == "no-change converge" and output is not None and (not changed or any(changed)):
        raise RuntimeError("the no-change converge changed something:\n" + output[-2000:])
    if phase in ("first converge", "no-change converge") and not lab.mounted(MEMBERS, fs):
        raise RuntimeError("after %s, %s are not both mounted with %s" % (phase, MEMBERS, fs))
    holds = lab.guests[JOINING].server_id in lab.holders()
    if phase == "add_node" and not (holds and lab.mounted(NODES, fs)):
        raise RuntimeError("after add_node, %s does not hold and mount the volume" % JOINING)
    if phase == "remove_node" and (holds or not lab.mounted(MEMBERS, fs)):
        raise RuntimeError(
            "after remove_node, %s still holds the volume, or a member lost its mount" % JOINING
        )


def one_way(lab, fs, way):
    """The four phases one way from a fresh start: {phase: seconds}."""
    lab.reset()
    seconds = {}
    for phase in PHASES:
        started = time.monotonic()
        output = role_phase(lab, fs, phase) if way == "role" else FLOOR[phase](lab, fs)
        seconds[phase] = time.monotonic() - started
        check(lab, fs, phase, output)
        if way == "role" and phase == "first converge":
            lab.capture(fs, "two", MEMBERS)
        if way == "role" and phase == "add_node":
            lab.capture(fs, "three", NODES)
        print(json.dumps({"fs": fs, "way": way, "phase": phase, "seconds": round(seconds[phase], 1)}),
              file=sys.stderr, flush=True)  # fmt: skip
    return seconds


def bench(lab, filesystems, repeat):
    runs = {fs: {way: [] for way in WAYS} for fs in filesystems}
    for fs in filesystems:
        for round_number in range(repeat):
            # The role first in the first round: the floor writes the files it wrote.
            shift = round_number % len(WAYS)
            for way in WAYS[shift:] + WAYS[:shift]:
                runs[fs][way].append(one_way(lab, fs, way))
    return runs


def report(runs):
    lines = [
        "## The guests' pace: the role against the same steps by hand",
        "",
        "Three Nova guests (QEMU TCG), one RBD multiattach volume; each phase a whole process "
        "(the role: ansible-playbook, pipelining; the floor: shell over one kept SSH "
        "connection a guest); medians of the rounds, both ways in a rotating order, in one run.",
        "",
        "| filesystem | phase | goal s | role s (median) | every round | floor s (median) "
        "| every round | role / floor | role within goal | floor within goal |",
        "|---|---|---:|---:|---|---:|---|---:|---|---|",
    ]
    for fs, ways in runs.items():
        for phase in PHASES:
            role = [r[phase] for r in ways["role"]]
            floor = [r[phase] for r in ways["floor"]]
            lines.append(
                "| %s | %s | %d | %.1f | %s | %.1f | %s | %.2f | %s | %s |"
                % (
                    fs, phase, GOALS[phase], statistics.median(role),
                    ", ".join("%.1f" % s for s in role), statistics.median(floor),
                    ", ".join("%.1f" % s for s in floor),
                    statistics.median(role) / statistics.median(floor),
                    "yes" if statistics.median(role) <= GOALS[phase] else "NO",
                    "yes" if statistics.median(floor) <= GOALS[phase] else "NO",
                )
            )  # fmt: skip
    return "\n".join(lines)


def cleanup(lab):
    try:
        lab.reset()
    finally:
        for guest in lab.guests.values():
            guest.close()
        lab.detach(list(NODES))
        lab.conn.block_storage.delete_volume(lab.volume_id, ignore_missing=True)
        lab_guests.delete(lab.conn, list(NODES), KEY_NAME)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fs", default="ocfs2,gfs2")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--keep", action="store_true", help="leave the guests and the volume")
    parser.add_argument(
        "--tasks",
        type=Path,
        help="append the role's task seconds here (tools/task_seconds_report.py reads them)",
    )
    args = parser.parse_args()
    filesystems = [fs for fs in args.fs.split(",") if fs]
    if not filesystems or set(filesystems) - set(FILES) or args.repeat < 1:
        parser.error("--fs takes ocfs2, gfs2 or both (ocfs2,gfs2); --repeat 1 or more")
    if not KEY.exists():
        parser.error("no guest key at %s: run make guest-image first" % KEY)
    os.environ.setdefault("OS_CLIENT_CONFIG_FILE", str(paths.clouds_yaml()))
    if args.tasks:
        os.environ["ANSIBLE_CALLBACK_PLUGINS"] = str(
            ROOT / "tests" / "harness" / "callback_plugins"
        )
        os.environ["TASK_SECONDS_FILE"] = str(args.tasks.resolve())
    conn = openstack.connect(cloud=CLOUD)
    with tempfile.TemporaryDirectory(prefix="pace-ssh-") as control_dir:
        lab = Lab(conn, control_dir)
        try:
            runs = bench(lab, filesystems, args.repeat)
        finally:
            if not args.keep:
                cleanup(lab)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"runs": runs, "floor_leave_steps": lab.steps}, indent=1))
    print(report(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
