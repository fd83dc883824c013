# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Can this cloud multiattach? Each check says ok, failed or unknown, why, and the fix."""

from __future__ import annotations

from ansible_collections.multiattach.cloud.plugins.module_utils.change import Reading
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.errors import (
    describe_error,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.microversions import (
    BLOCK_STORAGE_ATTACHMENTS,
    COMPUTE_MULTIATTACH,
    as_tuple,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.sdk import (
    ksa_exceptions,
    sdk_exceptions,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.volume_types import (
    is_multiattach_type,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.versions import (
    MIN_SHAREABLE_QEMU,
    version_text,
    version_tuple,
)

MULTIATTACH_TRAIT = "COMPUTE_VOLUME_MULTI_ATTACH"
# Nova's libvirt driver reports QEMU's version for both virt types (qemu, kvm), as one number.
LIBVIRT_HYPERVISOR_TYPES = ("QEMU", "KVM")
SERVICE_FIX = (
    "check that the service named above runs and its log; run preflight again once it answers"
)
ADMIN_ONLY = "needs an admin role to read; run preflight with admin credentials to know"


def check(name, status, detail, fix=None):
    return {"name": name, "status": status, "detail": detail, "fix": fix}


def max_microversion(proxy):
    data = proxy.get_endpoint_data()
    return tuple(data.max_microversion) if data and data.max_microversion else None


def microversion_check(name, proxy, api, needed, what, fix):
    """ok when the API's highest microversion reaches NEEDED (what needs it: WHAT), else failed."""
    found = max_microversion(proxy)
    detail = "%s goes up to %s; %s needs %s" % (api, version_text(found), what, needed)
    if found and found >= as_tuple(needed):
        return check(name, "ok", detail)
    return check(name, "failed", detail, fix)


def check_compute_microversion(conn, unused_scope):
    return microversion_check(
        "compute_api_microversion",
        conn.compute,
        "compute API",
        COMPUTE_MULTIATTACH,
        "attaching a volume that is already attached (multiattach)",
        "upgrade Nova to Queens (17) or later",
    )


def check_block_storage_microversion(conn, unused_scope):
    return microversion_check(
        "block_storage_api_microversion",
        conn.block_storage,
        "block storage API",
        BLOCK_STORAGE_ATTACHMENTS,
        "Nova's multiattach flow (the attachments API)",
        "upgrade Cinder to Queens (12) or later",
    )


def check_volume_types(conn, unused_scope):
    names = sorted(t.name for t in conn.block_storage.types() if is_multiattach_type(t))
    if names:
        return check(
            "multiattach_volume_types",
            "ok",
            "volume types with multiattach='<is> True': %s" % ", ".join(names),
        )
    return check(
        "multiattach_volume_types",
        "failed",
        "no volume type visible to these credentials has multiattach='<is> True'",
        "create one with multiattach.cloud.volume_type (or the cinder_multiattach role)",
    )


def check_backend_pools(conn, scope):
    try:
        pools = list(conn.block_storage.backend_pools())
    except sdk_exceptions.ForbiddenException:
        return check("backend_pools_multiattach", "unknown", "backend pools " + ADMIN_ONLY)
    wanted = scope.get("volume_backend_names")
    if wanted:
        names_of = {p.name: (p.capabilities or {}).get("volume_backend_name") for p in pools}
        pools = [p for p in pools if names_of[p.name] in wanted]
        missing = sorted(set(wanted) - {names_of[p.name] for p in pools})
        if missing:
            return check(
                "backend_pools_multiattach",
                "failed",
                "no pool reports volume_backend_name %s (pools seen: %s)"
                % (", ".join(missing), ", ".join(sorted(names_of)) or "none"),
                "check that cinder-volume runs with the backend enabled "
                "(enabled_backends) and has reported to the scheduler",
            )
        capable = sorted(p.name for p in pools if (p.capabilities or {}).get("multiattach"))
        incapable = sorted(p.name for p in pools if p.name not in capable)
        if not incapable:
            return check(
                "backend_pools_multiattach",
                "ok",
                "every pool of %s reports the multiattach capability: %s"
                % (", ".join(wanted), ", ".join(capable)),
            )
        return check(
            "backend_pools_multiattach",
            "failed",
            "pools without the multiattach capability: %s" % ", ".join(incapable),
            "use a Cinder driver that supports multiattach for these backends",
        )
    capable = sorted(p.name for p in pools if (p.capabilities or {}).get("multiattach"))
    if capable:
        return check(
            "backend_pools_multiattach",
            "ok",
            "pools reporting the multiattach capability: %s" % ", ".join(capable),
        )
    return check(
        "backend_pools_multiattach",
        "failed",
        "none of the %d backend pools reports the multiattach capability%s"
        % (len(pools), ": " + ", ".join(sorted(p.name for p in pools)) if pools else ""),
        "use a Cinder backend whose driver supports multiattach (configure it with the "
        "cinder_multiattach role); volumes of a multiattach type go to error otherwise",
    )


def check_compute_traits(conn, scope):
    try:
        providers = sorted(p.name for p in conn.placement.resource_providers())
        capable = sorted(
            p.name for p in conn.placement.resource_providers(required=MULTIATTACH_TRAIT)
        )
    except sdk_exceptions.ForbiddenException:
        return check(
            "compute_nodes_multiattach_trait",
            "unknown",
            "Placement resource providers " + ADMIN_ONLY,
        )
    fix = (
        "use a virt driver that supports multiattach (libvirt >= 3.10 with QEMU >= 2.10); "
        "prepare hosts with the compute_shareable_disks role"
    )
    wanted = scope.get("compute_nodes")
    if wanted:
        unknown = sorted(set(wanted) - set(providers))
        lacking = sorted(set(wanted) & set(providers) - set(capable))
        if unknown:
            return check(
                "compute_nodes_multiattach_trait",
                "failed",
                "Placement knows no compute node named %s (it knows: %s)"
                % (", ".join(unknown), ", ".join(providers) or "none"),
                "name the node as Nova does (its hypervisor_hostname) and check that "
                "nova-compute runs there",
            )
        if lacking:
            return check(
                "compute_nodes_multiattach_trait",
                "failed",
                "compute nodes without the %s trait: %s" % (MULTIATTACH_TRAIT, ", ".join(lacking)),
                fix,
            )
        return check(
            "compute_nodes_multiattach_trait",
            "ok",
            "every compute node asked for has the %s trait: %s"
            % (MULTIATTACH_TRAIT, ", ".join(sorted(wanted))),
        )
    if capable:
        return check(
            "compute_nodes_multiattach_trait",
            "ok",
            "%d of %d compute nodes have the %s trait: %s"
            % (len(capable), len(providers), MULTIATTACH_TRAIT, ", ".join(capable)),
        )
    return check(
        "compute_nodes_multiattach_trait",
        "failed",
        "no compute node has the %s trait (%d resource providers)"
        % (MULTIATTACH_TRAIT, len(providers)),
        fix,
    )


def _qemu_version(hypervisor):
    return version_tuple(int(hypervisor.hypervisor_version or 0))


def _hypervisor_problem(hypervisor):
    """Why this compute node cannot hold a shared volume now, with the fix; None if it can."""
    name = hypervisor.name
    if hypervisor.state != "up":
        return (
            "%s: its nova-compute is down" % name,
            "start nova-compute on %s and check it reports (openstack compute service list)" % name,
        )
    if hypervisor.status != "enabled":
        reason = (hypervisor.service_details or {}).get("disabled_reason")
        return (
            "%s: its nova-compute is disabled%s" % (name, " (%s)" % reason if reason else ""),
            "enable it: openstack compute service set --enable HOST nova-compute",
        )
    if hypervisor.hypervisor_type in LIBVIRT_HYPERVISOR_TYPES:
        found = _qemu_version(hypervisor)
        if found < MIN_SHAREABLE_QEMU:
            return (
                "%s: QEMU %s; a shareable disk needs QEMU %s (and libvirt 3.10)"
                % (name, version_text(found), version_text(MIN_SHAREABLE_QEMU)),
                "upgrade QEMU and libvirt on %s (the compute_shareable_disks role checks "
                "both on the host)" % name,
            )
    return None


def _hypervisor_text(hypervisor):
    if hypervisor.hypervisor_type in LIBVIRT_HYPERVISOR_TYPES:
        return "%s (QEMU %s)" % (hypervisor.name, version_text(_qemu_version(hypervisor)))
    return "%s (%s)" % (hypervisor.name, hypervisor.hypervisor_type)


def check_compute_hypervisors(conn, scope):
    try:
        hypervisors = sorted(conn.compute.hypervisors(details=True), key=lambda h: h.name)
    except sdk_exceptions.ForbiddenException:
        return check("compute_nodes_hypervisor", "unknown", "Nova's hypervisors " + ADMIN_ONLY)
    wanted = scope.get("compute_nodes")
    if wanted:
        unknown = sorted(set(wanted) - {h.name for h in hypervisors})
        if unknown:
            return check(
                "compute_nodes_hypervisor",
                "failed",
                "Nova knows no compute node named %s (it knows: %s)"
                % (", ".join(unknown), ", ".join(h.name for h in hypervisors) or "none"),
                "name the node as Nova does (its hypervisor_hostname) and check that "
                "nova-compute runs there",
            )
        hypervisors = [h for h in hypervisors if h.name in wanted]
    problems = [(h, _hypervisor_problem(h)) for h in hypervisors]
    fit = [h for h, problem in problems if problem is None]
    unfit = [problem for unused_h, problem in problems if problem is not None]
    fit_text = ", ".join(_hypervisor_text(h) for h in fit)
    if unfit and (wanted or not fit):
        return check(
            "compute_nodes_hypervisor",
            "failed",
            "; ".join(detail for detail, unused_fix in unfit),
            "; ".join(fix for unused_detail, fix in unfit),
        )
    if not fit:
        return check(
            "compute_nodes_hypervisor",
            "failed",
            "Nova has no compute node",
            "start nova-compute on a host and map it to a cell "
            "(nova-manage cell_v2 discover_hosts)",
        )
    detail = "compute nodes up, enabled, QEMU %s or later where libvirt: %s" % (
        version_text(MIN_SHAREABLE_QEMU),
        fit_text,
    )
    if unfit:
        detail += "; not fit: " + "; ".join(d for d, unused_fix in unfit)
    return check("compute_nodes_hypervisor", "ok", detail)


CHECKS = (
    ("compute_api_microversion", check_compute_microversion),
    ("block_storage_api_microversion", check_block_storage_microversion),
    ("multiattach_volume_types", check_volume_types),
    ("backend_pools_multiattach", check_backend_pools),
    ("compute_nodes_multiattach_trait", check_compute_traits),
    ("compute_nodes_hypervisor", check_compute_hypervisors),
)


CHECK_NAMES = tuple(name for name, unused_check in CHECKS)


def run_checks(conn, names=None, scope=None):
    """Run the checks called NAMES (all when empty), limited to SCOPE.

    SCOPE may hold volume_backend_names and compute_nodes: then those backends'
    pools and those compute nodes must all qualify, not just any one of them.
    """
    results = []
    for name, one_check in CHECKS:
        if names and name not in names:
            continue
        try:
            results.append(one_check(conn, scope or {}))
        except sdk_exceptions.ForbiddenException as error:
            # Only "these credentials may not look" leaves the answer open.
            results.append(check(name, "unknown", "could not check: %s" % describe_error(error)))
        except (sdk_exceptions.SDKException, ksa_exceptions.ClientException) as error:
            # A service that errs (HTTP 5xx) or cannot be reached cannot multiattach either.
            results.append(
                check(
                    name,
                    "failed",
                    "the cloud failed to answer: %s" % describe_error(error),
                    SERVICE_FIX,
                )
            )
    return results


def summary(results):
    failed = [r["name"] for r in results if r["status"] == "failed"]
    unknown = [r["name"] for r in results if r["status"] == "unknown"]
    # Not "failed": Ansible reads a result's "failed" key as the task's own outcome.
    return {"ready": not failed and not unknown, "failed_checks": failed, "unknown_checks": unknown}


class PreflightReading(Reading):
    """The preflight module: the checks asked for; a failure naming each failed check and its
    fix when fail_when_not_ready is set."""

    def __init__(self, conn, *, checks, volume_backend_names, compute_nodes, fail_when_not_ready):
        self.conn = conn
        self.checks = checks
        self.scope = dict(volume_backend_names=volume_backend_names, compute_nodes=compute_nodes)
        self.fail_when_not_ready = fail_when_not_ready

    def read(self, check_mode):
        checks = run_checks(self.conn, self.checks, self.scope)
        result = dict(summary(checks), checks=checks)
        if result["failed_checks"] and self.fail_when_not_ready:
            raise ModuleFailure(
                "this cloud cannot multiattach yet: %s"
                % "; ".join(
                    "%s (%s; fix: %s)" % (c["name"], c["detail"], c["fix"])
                    for c in checks
                    if c["status"] == "failed"
                ),
                changed=False,
                **result,
            )
        return result
