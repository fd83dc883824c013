# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fragment of the attach and detach modules: the OpenStack change options with wait, their
diff, and what the modules do when a compute service fails them."""

from __future__ import annotations

from ansible_collections.multiattach.cloud.plugins.doc_fragments.attributes import (
    ModuleDocFragment as Attributes,
)
from ansible_collections.multiattach.cloud.plugins.doc_fragments.attributes import joined
from ansible_collections.multiattach.cloud.plugins.doc_fragments.openstack import (
    ModuleDocFragment as OpenStack,
)


class ModuleDocFragment:
    ATTACHMENTS = r"""
options:
  abandoned_after:
    description:
      - Seconds this run must read the volume in one transition (V(reserved),
        V(attaching), V(detaching)) without any change before it counts the
        transition as abandoned by a dead compute service and undoes it (see the
        notes). Counted on the module's own clock from its own reads, never
        against Cinder's timestamps, so the controller's clock need not agree
        with the cloud's.
      - The default outlasts Nova's own retries of a detach (libvirt's
        C(device_detach_attempts) 8 x C(device_detach_timeout) 20 s) and an RPC
        timeout after them; raise it where those are raised. At least 10.
      - The undo happens in the same run only when O(timeout) is longer; a run
        that times out first says how long it saw the transition.
    type: int
    default: 300
attributes:
  diff_mode:
    details: Shows the servers that hold the volume before and after.
notes:
  - Nova's API begins an attach (volume and attachment V(reserved)) or a
    detach (volume V(detaching)) and leaves the rest to the server's compute
    service, which rolls back what fails; a compute service that dies in
    between leaves the volume so, and Cinder then refuses every attach and
    detach of it. Once this run has seen such a volume unchanged for
    O(abandoned_after) seconds, the module undoes the transition as Nova does, and warns;
    a detach with Cinder's C(roll_detaching) action; an attach (not one of a
    shelved-offloaded server, which stays V(reserved) by design) with an
    admin's reset-status to V(in-use) and Nova's detach of that server. Then
    it makes the wanted call again. Without admin credentials an abandoned
    attach fails the run with the commands an admin runs.
  - While the compute service of a server is down (also in the minute after
    it restarts, until it reports again) Nova refuses to detach with HTTP 409;
    that refusal is retried until O(timeout), then named with the fix.
"""


ModuleDocFragment.DOCUMENTATION = joined(
    Attributes.DOCUMENTATION,
    OpenStack.DOCUMENTATION,
    OpenStack.CHANGE_SUPPORT,
    OpenStack.WAIT,
    ModuleDocFragment.ATTACHMENTS,
)
