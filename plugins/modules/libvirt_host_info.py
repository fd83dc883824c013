#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_host_info
short_description: Tell whether a compute host's libvirt can give guests a shareable disk
version_added: 0.1.0
description:
  - Reads the libvirt and QEMU versions through libvirt-python (a read-only
    connection), checks them against the minimum for shareable disks
    (libvirt 3.10 and QEMU 2.10), probes whether the instances directory's
    filesystem takes O_DIRECT (what C(cache='none') needs), and reports the
    SELinux and AppArmor state with what a shared disk means for sVirt isolation.
  - Nova attaches a multiattach volume to a libvirt guest as a disk with
    C(<shareable/>) and C(cache='none'); raw format only.
author:
  - multiattach.cloud developers (@multiattach)
seealso:
  - {module: "multiattach.cloud.libvirt_shareable_disk", description: "give a guest a shareable disk"}
  - {module: "multiattach.cloud.preflight", description: "the compute nodes as Nova and Placement report them"}
  - {name: "libvirt domain XML", link: "https://libvirt.org/formatdomain.html#hard-drives-floppy-disks-cdroms", description: "disks, shareable and cache"}
extends_documentation_fragment:
  - multiattach.cloud.libvirt
options:
  instances_path:
    description:
      - Where Nova keeps instance files (C([DEFAULT] instances_path) of nova.conf).
        The O_DIRECT probe writes and removes one 4 KiB file there; C(/) is
        refused.
      - In check mode nothing is written; an existing file of 4 KiB or more
        there (or one directory below, such as an instance's disk) is read
        with O_DIRECT instead, and without one the probe is skipped.
    type: path
    default: /var/lib/nova/instances
  probe_o_direct:
    description:
      - Probe O_DIRECT in O(instances_path). Without it RV(o_direct.supported)
        is null and only the versions and security modules are read.
    type: bool
    default: true
  min_libvirt_version:
    description:
      - The lowest libvirt version accepted.
    type: str
    default: "3.10.0"
  min_qemu_version:
    description:
      - The lowest QEMU version accepted.
    type: str
    default: "2.10.0"
  fail_when_unsupported:
    description:
      - Fail the task, naming each problem and its fix, when the host cannot
        give guests a shareable disk. Without it the task only reports.
    type: bool
    default: false
attributes:
  check_mode:
    support: full
    details: Writes nothing; the O_DIRECT probe reads an existing file instead of writing one.
  diff_mode:
    support: none
    details: Nothing is changed.
"""

EXAMPLES = r"""
- name: Check that this compute host can share disks between guests
  multiattach.cloud.libvirt_host_info:
    instances_path: /var/lib/nova/instances
    fail_when_unsupported: true
  register: libvirt_host

- name: Show the versions found
  ansible.builtin.debug:
    msg: "libvirt {{ libvirt_host.libvirt_version }}, QEMU {{ libvirt_host.hypervisor_version }}"
"""

RETURN = r"""
supported:
  description: True when the versions allow shareable disks and O_DIRECT did not fail.
  returned: always
  type: bool
problems:
  description: One sentence per problem found, with its fix.
  returned: always
  type: list
  elements: str
libvirt_version:
  description: The libvirt daemon's version.
  returned: always
  type: str
  sample: 9.0.0
hypervisor:
  description: The hypervisor driver libvirt reports (C(QEMU) for qemu URIs).
  returned: always
  type: str
hypervisor_version:
  description: The hypervisor's version (QEMU's for qemu URIs).
  returned: always
  type: str
  sample: 7.2.0
o_direct:
  description: Whether the instances directory's filesystem takes O_DIRECT, and what was seen.
  returned: always
  type: dict
  sample: {"supported": true, "detail": "an O_DIRECT write and read of 4096 bytes in /var/lib/nova/instances worked"}
  contains:
    supported:
      description: True when an O_DIRECT write and read worked; null when not probed.
      type: bool
      returned: always
    detail:
      description: What the probe saw.
      type: str
      returned: always
selinux:
  description: C(enforcing), C(permissive) or V(absent).
  returned: always
  type: str
apparmor:
  description: C(enabled), C(disabled) or V(absent).
  returned: always
  type: str
security_models:
  description: The security drivers libvirt applies to guests (from its capabilities).
  returned: always
  type: list
  elements: str
isolation:
  description: What a shared disk means for guest isolation on this host.
  returned: always
  type: str
"""

from ansible_collections.multiattach.cloud.plugins.module_utils.host.libvirt_host import (
    LibvirtHostReading,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.host.libvirt_module import (
    LibvirtModule,
)


class LibvirtHostInfoModule(LibvirtModule):
    argument_spec = dict(
        instances_path=dict(type="path", default="/var/lib/nova/instances"),
        probe_o_direct=dict(type="bool", default=True),
        min_libvirt_version=dict(type="str", default="3.10.0"),
        min_qemu_version=dict(type="str", default="2.10.0"),
        fail_when_unsupported=dict(type="bool", default=False),
    )
    libvirt_failure = (
        "libvirt at {uri} failed to answer: {error}. Check that libvirtd runs and its log"
    )
    job = LibvirtHostReading


def main():
    LibvirtHostInfoModule()()


if __name__ == "__main__":
    main()
