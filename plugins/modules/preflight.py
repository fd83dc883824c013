#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: preflight
short_description: Tell whether a cloud can multiattach, and if not, why and what fixes it
version_added: 0.1.0
description:
  - Runs read-only checks and reports each as V(ok), V(failed) or V(unknown)
    with what was found and, where it failed, the fix.
  - "Checks: compute API microversion (2.60 or later needed); block storage
    API microversion (3.27 or later); volume types with
    C(multiattach=<is> True); backend pools that report the C(multiattach)
    capability (admin); compute nodes with the C(COMPUTE_VOLUME_MULTI_ATTACH)
    trait in Placement (admin); compute nodes as Nova's hypervisors API shows
    them: nova-compute up and enabled, and on libvirt hosts QEMU 2.10 or later
    (admin)."
  - The libvirt version (3.10 or later for a shareable disk) is not in Nova's
    API, which reports only the hypervisor's (QEMU's) version. Check it on the
    compute host with M(multiattach.cloud.libvirt_host_info) or the
    C(compute_shareable_disks) role. A running nova-compute with the libvirt
    driver implies its own minimum (libvirt 8.0.0 and QEMU 6.2.0 for Nova 34),
    well above what multiattach needs.
  - Without an admin role the admin-only checks are V(unknown), not failures.
    V(unknown) means only that the cloud refused to show these credentials
    the answer (HTTP 403). A check whose service fails (HTTP 5xx) or cannot be
    reached is V(failed), naming the error.
author:
  - multiattach.cloud developers (@multiattach)
options:
  checks:
    description:
      - Run only these checks. Empty runs all.
    type: list
    elements: str
    choices:
      - compute_api_microversion
      - block_storage_api_microversion
      - multiattach_volume_types
      - backend_pools_multiattach
      - compute_nodes_multiattach_trait
      - compute_nodes_hypervisor
    default: []
  volume_backend_names:
    description:
      - Limit C(backend_pools_multiattach) to the pools of these backends (their
        C(volume_backend_name)); then every one of them must report the
        capability, not just any pool.
    type: list
    elements: str
    default: []
  compute_nodes:
    description:
      - Limit C(compute_nodes_multiattach_trait) and C(compute_nodes_hypervisor)
        to these compute nodes (their hypervisor hostname, as Placement and
        Nova's hypervisors API name them); then every one of them must qualify,
        not just any one.
    type: list
    elements: str
    default: []
  fail_when_not_ready:
    description:
      - Fail the task when a check failed (unknown checks do not fail it).
        Without it the task reports the checks and succeeds.
    type: bool
    default: false
seealso:
  - {module: "multiattach.cloud.libvirt_host_info", description: "a compute host's libvirt, read on the host"}
  - {module: "multiattach.cloud.volume_type", description: "the multiattach volume type a failed check asks for"}
  - {name: "Cinder", link: "https://docs.openstack.org/cinder/latest/admin/volume-multiattach.html", description: "volume multi-attach, enable and use"}
  - {name: "Nova", link: "https://docs.openstack.org/nova/latest/admin/manage-volumes.html", description: "manage volumes, volume multi-attach"}
extends_documentation_fragment:
  - multiattach.cloud.openstack.INFO
"""

EXAMPLES = r"""
- name: Stop the deployment early if the cloud cannot share volumes
  multiattach.cloud.preflight:
    cloud: mycloud-admin
    fail_when_not_ready: true

- name: Wait until the pools of two backends report multiattach after a restart
  multiattach.cloud.preflight:
    cloud: mycloud-admin
    checks: [backend_pools_multiattach]
    volume_backend_names: [lvm-1, ceph-1]
  register: pools
  until: pools.ready
  retries: 30
  delay: 2

- name: Check as a project user and show the result
  multiattach.cloud.preflight:
    cloud: mycloud
  register: preflight

- name: Show what is missing
  ansible.builtin.debug:
    msg: "{{ preflight.checks | selectattr('status', '!=', 'ok') | list }}"
"""

RETURN = r"""
ready:
  description: True when every check is V(ok).
  returned: always
  type: bool
failed_checks:
  description: Names of the failed checks.
  returned: always
  type: list
  elements: str
unknown_checks:
  description: Names of the checks these credentials could not run (admin-only ones).
  returned: always
  type: list
  elements: str
checks:
  description: One entry per check.
  returned: always
  type: list
  elements: dict
  sample:
    - name: compute_api_microversion
      status: ok
      detail: compute API goes up to 2.100; multiattach needs 2.60
      fix: null
    - name: backend_pools_multiattach
      status: unknown
      detail: backend pools needs an admin role to read; run preflight with admin credentials to
        know
      fix: null
  contains:
    name:
      description: The check.
      type: str
      returned: always
    status:
      description: V(ok), V(failed) or V(unknown).
      type: str
      returned: always
    detail:
      description: What was found.
      type: str
      returned: always
    fix:
      description: What to do; null unless the check failed.
      type: str
      returned: always
"""

from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.module import (
    OpenStackModule,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.preflight import (
    CHECK_NAMES,
    PreflightReading,
)


class PreflightModule(OpenStackModule):
    argument_spec = dict(
        checks=dict(type="list", elements="str", choices=list(CHECK_NAMES), default=[]),
        volume_backend_names=dict(type="list", elements="str", default=[]),
        compute_nodes=dict(type="list", elements="str", default=[]),
        fail_when_not_ready=dict(type="bool", default=False),
    )
    job = PreflightReading


def main():
    PreflightModule()()


if __name__ == "__main__":
    main()
