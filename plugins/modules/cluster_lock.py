#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: cluster_lock
short_description: Take or let go of a cluster's lease, so that one run at a time changes it
version_added: 0.2.0
description:
  - A membership change, mkfs and a fencing credential's renewal each decide from what the
    cluster's members record; two runs that read the same records at once decide alike (two
    joining nodes would get one node ID). The R(multiattach.cloud.clustered_fs,role) role and the
    C(remove_node) playbook take the cluster's lease on its first member before they read
    anything, and let go of it at the end.
  - The lease is a file, C(/var/lib/multiattach/<cluster_name>.lease), written under C(flock(2)),
    so two runs never both hold it. It names its holder (O(owner)) and ends by itself after
    O(lease_seconds), so a run killed before it let go blocks the next one only that long.
  - A run that finds the lease held by another waits up to O(wait_seconds), then fails naming
    the holder, since when and until when it holds it, and what to do; nothing is changed.
  - Taking a lease the run already holds renews it. Letting go of a lease another run holds
    leaves it alone.
author:
  - multiattach.cloud developers (@multiattach)
seealso:
  - {module: "multiattach.cloud.config_files", description: "refuses to write a file that changed since the run read it, the second guard"}
  - {name: "flock(2)", link: "https://man7.org/linux/man-pages/man2/flock.2.html", description: "the lock under which the lease is read and written"}
options:
  cluster_name:
    description: The cluster's name; one lease per cluster.
    type: str
    required: true
  owner:
    description:
      - Who holds the lease - one run, named so that an operator who finds it held knows whom to
        ask (user, controller, playbook, a run ID). The same O(owner) renews or lets go.
    type: str
    required: true
  state:
    description: V(held) takes (or renews) the lease; V(released) lets go of it.
    type: str
    choices: [held, released]
    default: held
  wait_seconds:
    description: How long to wait for a lease another run holds before failing.
    type: int
    default: 600
  lease_seconds:
    description: How long the lease lasts once taken, unless let go of or renewed first.
    type: int
    default: 3600
extends_documentation_fragment:
  - multiattach.cloud.attributes
attributes:
  check_mode:
    support: full
    details: Takes nothing and lets go of nothing; warns when another run holds the lease.
  diff_mode:
    support: none
    details: A lease is no configuration.
  platform:
    platforms: posix
"""

EXAMPLES = r"""
- name: Take the cluster's lease on its first member
  multiattach.cloud.cluster_lock:
    cluster_name: multiattach
    owner: "ops@controller run 3f9c (add_node)"
  delegate_to: "{{ groups['clustered_fs_nodes'] | first }}"
  run_once: true

- name: Let go of it
  multiattach.cloud.cluster_lock:
    cluster_name: multiattach
    owner: "ops@controller run 3f9c (add_node)"
    state: released
  delegate_to: "{{ groups['clustered_fs_nodes'] | first }}"
  run_once: true
"""

RETURN = r"""
path:
  description: The lease's file on this node.
  returned: always
  type: str
  sample: /var/lib/multiattach/multiattach.lease
holder:
  description: Who holds the lease once the run is done (in check mode, who holds it now); null for nobody.
  returned: always
  type: str
  sample: "ops@controller run 3f9c (add_node)"
held:
  description: Whether this run holds the lease (in check mode, would hold it).
  returned: always
  type: bool
waited:
  description: Whole seconds this run waited for another run's lease.
  returned: when state is held
  type: int
  sample: 0
"""

from ansible_collections.multiattach.cloud.plugins.module_utils.host.cluster_lock import (
    ClusterLockChange,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.module import CollectionModule


class ClusterLockModule(CollectionModule):
    argument_spec = dict(
        cluster_name=dict(type="str", required=True),
        owner=dict(type="str", required=True),
        state=dict(type="str", default="held", choices=["held", "released"]),
        wait_seconds=dict(type="int", default=600),
        lease_seconds=dict(type="int", default=3600),
    )
    job = ClusterLockChange

    def describe(self, error):
        if isinstance(error, OSError):
            return "cannot use the lease %s: %s" % (
                error.filename or "file",
                error.strerror or error,
            )
        return None


def main():
    ClusterLockModule()()


if __name__ == "__main__":
    main()
