# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a node records of its cluster, and what the cluster says of the shared filesystem.

- The node IDs in the stack's own configuration (corosync.conf's nodeid, o2cb's cluster.conf
  number): once written, that file is the record of each member's identity, which must not
  change while the cluster lives. The role takes IDs from these records, never from the
  inventory's order.
- Which nodes hold the filesystem mounted, as the cluster itself knows it: OCFS2's slot map
  (mounted.ocfs2 -f), GFS2's DLM lockspace members (dlm_tool ls). A node still listed there
  must not be dropped from the cluster's configuration. A lockspace is seen only by its own
  members, so GFS2's running corosync ring (its cmap) tells which nodes are still in the
  cluster at all.
- The corosync authkey's digest (never the key), and o2cb's self-fencing settings as they run.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil

COROSYNC_CONF = "/etc/corosync/corosync.conf"
DLM_CONF = "/etc/dlm/dlm.conf"
COROSYNC_AUTHKEY = "/etc/corosync/authkey"
O2CB_CONF = "/etc/ocfs2/cluster.conf"
O2CB_CLUSTER = "/sys/kernel/config/cluster/{cluster}"
O2CB_SETTINGS = ("idle_timeout_ms", "keepalive_delay_ms", "reconnect_delay_ms", "fence_method")
KERNEL_SETTINGS = ("panic", "panic_on_oops")
PROC_SYS_KERNEL = "/proc/sys/kernel"
# The role's templates record the highest node ID ever given, so that no new node takes the
# ID of one that left (a running dlm_controld keeps the fencing settings it read for an ID).
HIGHEST_ID = re.compile(r"^#.*node IDs given so far run up to (?P<id>[0-9]+)", re.MULTILINE)
DMI = "/sys/class/dmi/id"
# The fencing identity's clouds.yaml, the role's alone: the fence wrapper runs fence_openstack
# with FENCING_HOME as its HOME, and fence_openstack reads ~/.config/openstack/clouds.yaml
# first. /etc/openstack/clouds.yaml stays the operator's; the role wrote its entry there before
# (FORMER_FENCING_CLOUDS), and takes it away where it is all that file holds.
FENCING_HOME = "/etc/multiattach/fencing"
FENCING_CLOUDS = FENCING_HOME + "/.config/openstack/clouds.yaml"
FORMER_FENCING_CLOUDS = "/etc/openstack/clouds.yaml"
CLOUD_ENTRY = re.compile(r"^  (\S[^:\n]*):\s*$", re.MULTILINE)


def _read(path):
    try:
        with open(path) as handle:
            return handle.read()
    except OSError:
        return None


def corosync_nodes(text, cluster_name=None):
    """corosync.conf's nodelist as {name: {id, address}} (nodes without name or nodeid skipped);
    nothing when the file is another cluster's (Debian's package ships one for "debian")."""
    nodes, stack, current, totem = {}, [], None, {}
    for raw in (text or "").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.endswith("{"):
            stack.append(line[:-1].strip())
            if stack[-2:] == ["nodelist", "node"]:
                current = {}
        elif line == "}":
            if stack[-2:] == ["nodelist", "node"] and current is not None:
                if "name" in current and current.get("nodeid", "").isdigit():
                    nodes[current["name"]] = dict(
                        id=int(current["nodeid"]), address=current.get("ring0_addr")
                    )
                current = None
            if stack:
                stack.pop()
        elif ":" in line and current is not None:
            key, value = line.split(":", 1)
            current[key.strip()] = value.strip()
        elif ":" in line and stack == ["totem"]:
            key, value = line.split(":", 1)
            totem[key.strip()] = value.strip()
    if cluster_name is not None and totem.get("cluster_name") != cluster_name:
        return {}
    return nodes


def o2cb_conf_nodes(text, cluster_name):
    """cluster.conf's nodes of CLUSTER_NAME as {name: {id, address}}."""
    nodes, current = {}, None
    blocks = []
    for raw in (text or "").splitlines():
        line = raw.strip()
        if line.startswith("#"):
            continue
        if line.endswith(":") and not raw[:1].isspace():
            current = {"_section": line[:-1]}
            blocks.append(current)
        elif "=" in line and current is not None:
            key, value = line.split("=", 1)
            current[key.strip()] = value.strip()
    for block in blocks:
        if (
            block["_section"] == "node"
            and block.get("cluster") == cluster_name
            and "name" in block
            and block.get("number", "").isdigit()
        ):
            nodes[block["name"]] = dict(id=int(block["number"]), address=block.get("ip_address"))
    return nodes


def recorded_nodes(filesystem, cluster_name):
    """(nodes, the highest ID ever given or None) from the stack's configuration file."""
    text = _read(COROSYNC_CONF if filesystem == "gfs2" else O2CB_CONF)
    nodes = (
        corosync_nodes(text, cluster_name)
        if filesystem == "gfs2"
        else o2cb_conf_nodes(text, cluster_name)
    )
    highest = HIGHEST_ID.search(text or "")
    return nodes, int(highest.group("id")) if highest else None


def _named(recorded, node_ids):
    """NODE_IDS (numbers) by the names RECORDED gives them, else 'nodeid N'."""
    by_id = {node["id"]: name for name, node in recorded.items()}
    return [by_id.get(node_id, "nodeid %d" % node_id) for node_id in node_ids]


def fenced_as(recorded, text=None):
    """GFS2: {node name: the Nova server ID its fence device acts on}, from dlm.conf's connect
    lines (node=ID plug=UUID), named by RECORDED's IDs, else 'nodeid N'."""
    text = _read(DLM_CONF) if text is None else text
    servers = {}
    for line in (text or "").splitlines():
        fields = line.split("#", 1)[0].split()
        if len(fields) < 3 or fields[0] != "connect":
            continue
        options = dict(field.split("=", 1) for field in fields[2:] if "=" in field)
        node, plug = options.get("node", ""), options.get("plug", "")
        if node.isdigit() and plug:
            [name] = _named(recorded, [int(node)])
            servers[name] = plug.lower()
    return servers


def server_identity(dmi=None):
    """The Nova server this node is (SMBIOS: Nova's libvirt driver gives the instance's UUID as
    the system UUID and "OpenStack Nova" as the product): (uuid or None, product name)."""
    dmi = dmi or DMI
    product = (_read(os.path.join(dmi, "product_name")) or "").strip()
    uuid = (_read(os.path.join(dmi, "product_uuid")) or "").strip().lower()
    return (uuid or None) if product == "OpenStack Nova" else None, product


def has_cloud(name, path=FENCING_CLOUDS):
    """Whether clouds.yaml at PATH has an entry NAME (read as text: no YAML parser needed)."""
    return (
        bool(re.search(r"^\s+%s:\s*$" % re.escape(name), _read(path) or "", re.MULTILINE))
        if name
        else False
    )


def cloud_user(name, path=FENCING_CLOUDS):
    """The username of entry NAME in clouds.yaml at PATH as the role writes it (one entry; read as
    text: no YAML parser needed); None when there is no such entry. Never the password."""
    if not has_cloud(name, path):
        return None
    found = re.search(r"^\s+username:\s*(\S+?)\s*$", _read(path) or "", re.MULTILINE)
    return found.group(1).strip("'\"") if found else None


def cloud_names(path=FENCING_CLOUDS):
    """The names of the clouds in clouds.yaml at PATH, as the role writes it (two-space indent;
    read as text: no YAML parser needed); None when there is no such file."""
    try:
        with open(path) as handle:
            return CLOUD_ENTRY.findall(handle.read())
    except FileNotFoundError:
        return None


def authkey_digest(path=COROSYNC_AUTHKEY):
    """The sha256 of corosync's authkey, so nodes compare keys without moving them; None when absent."""
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None


def ocfs2_mounted_by(run, disk, recorded, unread=None):
    """The node names OCFS2's slot map lists for DISK (mounted.ocfs2 -f). Numbers the tool
    cannot name are named by the configuration's record, else kept as 'node number N'. A
    failed read is said in UNREAD."""
    unread = [] if unread is None else unread
    if not shutil.which("mounted.ocfs2"):
        return []
    rc, out = run(["mounted.ocfs2", "-f", disk])[:2]
    if rc != 0:
        unread.append("mounted.ocfs2 -f exited %d" % rc)
    lines = out.splitlines() if rc == 0 else []
    if len(lines) < 2 or "Nodes" not in lines[0]:
        return []
    if "not mounted" in lines[1].lower():
        return []
    listed = lines[1][lines[0].index("Nodes") :].strip()
    by_number = {str(node["id"]): name for name, node in recorded.items()}
    names = []
    for entry in re.split(r"\s*,\s*", listed):
        entry = entry.strip()
        if entry.isdigit():
            entry = by_number.get(entry, "node number " + entry)
        if entry:
            names.append(entry)
    return names


def dlm_lockspace_members(text):
    """dlm_tool ls as {lockspace: [node IDs]}."""
    spaces, name = {}, None
    for line in (text or "").splitlines():
        fields = line.split()
        if len(fields) >= 2 and fields[0] == "name":
            name = fields[1]
            spaces[name] = []
        elif fields and fields[0] == "members" and name is not None:
            spaces[name] = [int(field) for field in fields[1:] if field.isdigit()]
    return spaces


NEW_CHANGE = re.compile(r"^new change\s+member \d+ joined \d+ remove \d+ failed (?P<failed>\d+)")


def dlm_lockspace_gaps(text, lockspace):
    """What keeps dlm_tool ls from telling the lockspace's members for sure: its members read as
    an error, or a change for a failed node still waiting (on its fence or recovery), in which
    the failed node may still count."""
    gaps, name = [], None
    for line in (text or "").splitlines():
        fields = line.split()
        if len(fields) >= 2 and fields[0] == "name":
            name = fields[1]
        if name != lockspace:
            continue
        if fields[:2] == ["members", "error"]:
            gaps.append("dlm_tool ls: the members of lockspace %s read as an error" % lockspace)
        changing = NEW_CHANGE.match(line.strip())
        if changing and int(changing.group("failed")) > 0:
            gaps.append(
                "dlm_tool ls: lockspace %s is still recovering from a failed node (%s)"
                % (lockspace, line.strip())
            )
    return gaps


def gfs2_mounted_by(run, signatures, recorded, unread=None):
    """The nodes in the DLM lockspace of the GFS2 on the disk (its lock table's second part,
    which blkid gives as LABEL). Seen only from a node that has it mounted itself. A failed
    read, or a change for a failed node still waiting, is said in UNREAD."""
    unread = [] if unread is None else unread
    label = next((line[len("LABEL=") :] for line in signatures if line.startswith("LABEL=")), "")
    lockspace = label.split(":", 1)[-1]
    if not lockspace or not shutil.which("dlm_tool"):
        return []
    rc, out = run(["dlm_tool", "ls"])[:2]
    if rc != 0:
        unread.append("dlm_tool ls exited %d" % rc)
    listing = out if rc == 0 else ""
    unread.extend(dlm_lockspace_gaps(listing, lockspace))
    return _named(recorded, dlm_lockspace_members(listing).get(lockspace, []))


RING_MEMBER = re.compile(
    r"^runtime\.members\.(?P<id>[0-9]+)\.status \(str\) = joined$", re.MULTILINE
)


def ring_members(run, recorded, unread=None):
    """The nodes the running corosync ring has joined (its cmap's runtime.members), named by
    the configuration's record, else 'nodeid N'; empty when corosync does not answer (said in
    UNREAD)."""
    unread = [] if unread is None else unread
    if not shutil.which("corosync-cmapctl"):
        return []
    rc, out = run(["corosync-cmapctl", "-b", "runtime.members"])[:2]
    if rc != 0:
        unread.append("corosync-cmapctl exited %d" % rc)
    joined = sorted(
        int(match.group("id")) for match in RING_MEMBER.finditer(out if rc == 0 else "")
    )
    return _named(recorded, joined)


def mounted_by(run, filesystem, disk, signatures, recorded, unread=None):
    if not disk:
        return []
    if filesystem == "ocfs2":
        return ocfs2_mounted_by(run, disk, recorded, unread)
    return gfs2_mounted_by(run, signatures, recorded, unread)


def _setting(path):
    value = _read(path)
    if value is None:
        return None
    value = value.strip()
    return int(value) if value.lstrip("-").isdigit() else value


def self_fencing(cluster_name):
    """What decides how an OCFS2 node fences itself, as it runs now: the kernel's panic
    settings, and o2cb's timeouts and fence method (null while the cluster is offline)."""
    cluster = O2CB_CLUSTER.format(cluster=cluster_name)
    settings = {
        "kernel_" + name: _setting(os.path.join(PROC_SYS_KERNEL, name)) for name in KERNEL_SETTINGS
    }
    settings.update({name: _setting(os.path.join(cluster, name)) for name in O2CB_SETTINGS})
    settings["dead_threshold"] = _setting(os.path.join(cluster, "heartbeat", "dead_threshold"))
    return settings
