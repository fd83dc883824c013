"""Report the VM scenario's phases from the figures `make molecule` wrote.

    vm_phases.py .cache/molecule/phases-ocfs2.json [...]

tools/molecule_phases.py timed each phase from molecule's own output and wrote
them to the JSON file; this prints them as one Markdown table, a column per file.
"""

import json
import os
import sys
import time

ROWS = [
    ("create: image", "image build (cached after the first run)"),
    ("create: enable_multiattach", "enable_multiattach playbook"),
    ("create: servers ACTIVE", "servers ACTIVE (Nova)"),
    ("create: boot (start to SSH)", "boot both guests to SSH"),
    ("create: attach (provision_shared_volume)", "attach (provision_shared_volume)"),
    ("converge", "cluster FS: first converge"),
    ("idempotence", "cluster FS: idempotence converge"),
    ("verify", "verify (testinfra)"),
    ("day 2: add_node", "day 2: add_node (third guest joins)"),
    ("day 2: remove_node refused (busy)", "day 2: remove_node refused, mount busy"),
    ("day 2: remove_node", "day 2: remove_node"),
    ("lost member: until recovered", "lost member: kill to journal recovered"),
    ("lost member: remove_node", "lost member: remove_node"),
    ("lost member: replacement joins", "lost member: replacement made, booted, joined"),
    ("offline fsck", "offline fsck and remount"),
]


def seconds_of(figures, name):
    """Seconds of phase NAME (a molecule action or a marked task); repeats summed apart."""
    found = []
    for phase in figures["phases"]:
        if phase["phase"] == name:
            found.append(phase["seconds"])
        if name in phase["tasks"]:
            found.append(phase["tasks"][name])
    return " + ".join("%.0f" % s for s in found) if found else "-"


def main(paths):
    runs = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            runs.append((path, json.load(handle), os.path.getmtime(path)))
    if not runs:
        print("No VM scenario figures yet: run `make molecule` (and MOLECULE_FS=gfs2).")
        return 0
    columns = [os.path.basename(p).replace(".json", "") for p, _f, _m in runs]
    lines = [
        "## VM scenario phases",
        "",
        "| phase | " + " | ".join(columns) + " |",
        "|---|" + "---:|" * len(runs),
    ]
    for name, label in ROWS:
        lines.append("| %s | %s |" % (label, " | ".join(seconds_of(f, name) for _p, f, _m in runs)))
    lines.append(
        "| lost member: the others' longest write stall (s) | %s |"
        % " | ".join(
            "%.2f" % f["recovery_stall_seconds"] if "recovery_stall_seconds" in f else "-"
            for _p, f, _m in runs
        )
    )
    lines.append(
        "| **total (s)** | %s |" % " | ".join("%.0f" % f["total_seconds"] for _p, f, _m in runs)
    )
    lines.append(
        "| peak memory above start (MiB) | %s |"
        % " | ".join("%.0f" % f["peak_used_mib"] for _p, f, _m in runs)
    )
    lines.append(
        "| QEMU peak RSS (MiB) | %s |"
        % " | ".join("%.0f" % f["peak_qemu_rss_mib"] for _p, f, _m in runs)
    )
    lines.append("| exit status | %s |" % " | ".join(str(f["exit"]) for _p, f, _m in runs))
    lines.append(
        "| measured | %s |"
        % " | ".join(time.strftime("%Y-%m-%d %H:%M", time.localtime(m)) for _p, _f, m in runs)
    )
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
