# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Several multiattach volumes, each made and held by its own servers, worked at once.

Cinder takes one attach or detach of a volume at a time but works different volumes side by
side, so each volume gets a thread of its own. Everything that can be refused is refused
before the first write: every entry's servers are resolved from one listing and every volume
is planned (type, size, status) first; a typo in one entry makes no volume at all.
"""

from __future__ import annotations

import collections
import concurrent.futures
import traceback

from ansible_collections.multiattach.cloud.plugins.module_utils.change import Change, Plan, Step
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.attachments import (
    VolumeAttachmentsChange,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.errors import (
    describe_error,
    is_anticipated,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.servers import ServerIndex
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volume_change import (
    VolumeChange,
    checked_multiattach_type,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volumes import (
    find_one_volume,
)

# A thread per volume up to this many; more volumes wait for a free thread.
MAX_THREADS = 10

# One volume's changes and their plans; `held` and `held_plan` are None for a volume still to
# be made (its attachments are planned once it exists).
Planned = collections.namedtuple("Planned", "change plan held held_plan")


def check_entries(volumes):
    """Refuse a list whose entries cannot be planned: names missing or given twice."""
    if not volumes:
        raise ModuleFailure(
            "volumes is empty: list the shared volumes, each with its name and servers"
        )
    names = [entry.get("name") for entry in volumes]
    unnamed = [str(index) for index, name in enumerate(names) if not name]
    if unnamed:
        raise ModuleFailure(
            "volumes entries %s have no name: give each volume its name" % ", ".join(unnamed)
        )
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ModuleFailure(
            "volumes lists %s more than once: give each volume one entry (one entry may list "
            "all its servers)" % ", ".join(twice)
        )


def failure_text(error):
    """(message, traceback or None) for an error met while working one volume."""
    if isinstance(error, ModuleFailure):
        return error.msg, None
    if is_anticipated(error):
        return describe_error(error), None
    return "%s: %s" % (type(error).__name__, error), "".join(
        traceback.format_exception(type(error), error, error.__traceback__)
    )


class SharedVolumesChange(Change):
    """shared_volumes: every volume of the list present, each held by its servers.

    read() lists the servers, checks each type and reads each volume, all at once (threads),
    then plans every volume and, for a volume that exists, its attachments from that read;
    it refuses if any entry was refused. plan() makes one step that works every volume in its
    thread."""

    def __init__(self, conn, *, volumes, wait, timeout, abandoned_after):
        check_entries(volumes)
        self.conn = conn
        self.entries = volumes
        self.wait = wait
        self.timeout = timeout
        self.abandoned_after = abandoned_after
        self.index = None
        self.types = {}

    def volume_change(self, entry):
        return VolumeChange(
            self.conn,
            name=entry["name"],
            size=entry["size"],
            volume_type=entry["volume_type"],
            availability_zone=None,
            description=None,
            metadata=None,
            bootable=None,
            read_only=None,
            source_volume=None,
            state="present",
            # Servers attach to an available volume only.
            wait=True,
            timeout=self.timeout,
            checked_type=self.types.get(entry["volume_type"]),
        )

    def attachments_change(self, entry, volume_id):
        return VolumeAttachmentsChange(
            self.conn,
            volume=volume_id,
            servers=entry["servers"],
            exclusive=entry["exclusive"],
            wait=self.wait,
            timeout=self.timeout,
            abandoned_after=self.abandoned_after,
            index=self.index,
        )

    def read(self):
        # Signed in once, then the server listing, each type's check and each volume's read
        # all at once: none needs another, and done one after the other they would sit on
        # the path to the first write. Cinder's versions are read once, in this thread,
        # while the listing runs (each volume's thread would otherwise read them itself).
        self.conn.authorize()
        # An entry without volume_type keeps its volume's own type (VolumeChange checks that
        # it is multiattach); one that must be made without it is refused by its plan.
        type_names = sorted(
            {entry["volume_type"] for entry in self.entries if entry["volume_type"]}
        )
        with concurrent.futures.ThreadPoolExecutor(
            max_workers=min(MAX_THREADS, 1 + len(type_names) + len(self.entries))
        ) as pool:
            listing = pool.submit(ServerIndex, self.conn)
            self.conn.block_storage.get_endpoint_data()
            # Each type once, not once a volume (most lists share one type).
            type_checks = {
                name: pool.submit(checked_multiattach_type, self.conn, name) for name in type_names
            }
            volume_reads = {
                entry["name"]: pool.submit(find_one_volume, self.conn, entry["name"])
                for entry in self.entries
            }
        self.index = listing.result()
        problems = []
        # An entry is named once for its servers: its attachments' plan would name them again.
        unresolved = set()
        for entry in self.entries:
            try:
                self.index.resolve(entry["servers"])
            except ModuleFailure as failure:
                problems.append("volume %s: %s" % (entry["name"], failure.msg))
                unresolved.add(entry["name"])
        for type_name, check in type_checks.items():
            refusal = check.exception()
            if isinstance(refusal, ModuleFailure):
                problems += [
                    "volume %s: %s" % (entry["name"], refusal.msg)
                    for entry in self.entries
                    if entry["volume_type"] == type_name
                ]
            else:
                self.types[type_name] = check.result()
        planned = {}
        for entry in self.entries:
            unchecked = entry["volume_type"] and entry["volume_type"] not in self.types
            if unchecked or entry["name"] in unresolved:
                continue
            read = volume_reads[entry["name"]]
            error = read.exception()
            if error is not None:
                problems.append("volume %s: %s" % (entry["name"], failure_text(error)[0]))
                continue
            try:
                planned[entry["name"]] = self.plan_volume(entry, read.result())
            except ModuleFailure as failure:
                problems.append("volume %s: %s" % (entry["name"], failure.msg))
        if problems:
            raise ModuleFailure("nothing was changed: %s" % "; ".join(problems))
        return planned

    def plan_volume(self, entry, current):
        change = self.volume_change(entry)
        plan = change.plan(current)
        if current is None:
            return Planned(change, plan, None, None)
        held = self.attachments_change(entry, current.id)
        return Planned(change, plan, held, held.plan(current))

    def plan(self, current):
        before, after, result = {}, {}, []
        for entry in self.entries:
            volume_plan, held_plan = current[entry["name"]].plan, current[entry["name"]].held_plan
            planned = dict(name=entry["name"], created=volume_plan.before is None)
            if held_plan is None:
                wanted = sorted(set(self.index.resolve(entry["servers"]).values()))
                planned.update(
                    changed=True,
                    volume=volume_plan.result["volume"],
                    servers=[
                        {"server_id": s, "server_name": self.index.names[s], "action": "attached"}
                        for s in wanted
                    ],
                    attached=wanted,
                    detached=[],
                )
                servers_before, servers_after = [], sorted(self.index.names[s] for s in wanted)
            else:
                planned.update(held_plan.result, changed=volume_plan.changed or held_plan.changed)
                servers_before = held_plan.before["servers"]
                servers_after = held_plan.after["servers"]
            result.append(planned)
            before[entry["name"]] = {"volume": volume_plan.before, "servers": servers_before}
            after[entry["name"]] = {"volume": volume_plan.after, "servers": servers_after}
        changing = [r["name"] for r in result if r["changed"]]
        steps = (
            [Step("provision %s" % ", ".join(changing), lambda: self.provision_all(current))]
            if changing
            else []
        )
        return Plan(before, after, steps, result=dict(volumes=result))

    def report(self, plan, result):
        # A volume's own result is as volume_attachments reports it: described once.
        described = []
        for entry in result["volumes"]:
            entry = dict(entry)
            # openstacksdk's Volume is a dict too, told apart by its attributes.
            if entry.get("volume") is not None and hasattr(entry["volume"], "is_multiattach"):
                entry["volume"] = self.describe_volume(entry["volume"])
            described.append(entry)
        return super().report(plan, dict(result, volumes=described))

    def describe_volume(self, volume):
        return self.attachments_change({"servers": [], "exclusive": False}, volume.id).described(
            volume
        )

    def provision_all(self, current):
        done = self.at_once(lambda entry: self.provision(entry, current[entry["name"]]))
        results = [done[entry["name"]] for entry in self.entries]
        failed = [r for r in results if r.get("failed")]
        if failed:
            raise ModuleFailure(
                "%d of %d volumes failed (the others are done, see volumes): %s"
                % (
                    len(failed),
                    len(results),
                    "; ".join("volume %s: %s" % (r["name"], r["msg"]) for r in failed),
                ),
                volumes=results,
                changed=any(r["changed"] for r in results),
            )
        warnings = [w for r in results for w in r.pop("warnings", ())]
        return dict(volumes=results, warnings=warnings)

    def provision(self, entry, planned):
        change, volume_plan, held, held_plan = planned
        made = change.apply(volume_plan, check_mode=False)
        warnings = list(made.get("warnings", ()))
        if held is None:
            held = self.attachments_change(entry, made["volume"]["id"])
            held_plan = held.plan(change.created_volume)
        result = dict(held.apply(held_plan, check_mode=False))
        result.pop("diff", None)
        warnings += result.pop("warnings", ())
        result.update(
            name=entry["name"],
            created=volume_plan.before is None,
            changed=made["changed"] or result["changed"],
        )
        if warnings:
            result["warnings"] = ["volume %s: %s" % (entry["name"], w) for w in warnings]
        return result

    def at_once(self, work):
        """{name: WORK(entry)} for every entry, in threads; a failure goes into the entry's
        result."""
        results = {}
        with concurrent.futures.ThreadPoolExecutor(
            max_workers=min(MAX_THREADS, len(self.entries))
        ) as pool:
            futures = {entry["name"]: pool.submit(work, entry) for entry in self.entries}
        for name, future in futures.items():
            error = future.exception()
            if error is None:
                results[name] = future.result()
                continue
            message, trace = failure_text(error)
            results[name] = dict(name=name, changed=False, failed=True, msg=message)
            if trace:
                results[name]["exception"] = trace
        return results
