# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fragment of the attach and detach modules: the OpenStack change options with wait, their
diff, and what the modules do when a compute service fails them."""

from __future__ import annotations

from ansible_collections.multiattach.cloud.plugins.doc_fragments.attributes import ModuleDocFragment as Attributes
from ansible_collections.multiattach.cloud.plugins.doc_fragments.attributes import joined
from ansible_collections.multiattach.cloud.plugins.doc_fragments.openstack import ModuleDocFragment as OpenStack


class ModuleDocFragment:
    ATTACHMENTS = r"""
options: {}
attributes:
  diff_mode:
    details: Shows the servers that hold the volume before and after.
notes:
  - Nova's API begins an attach (volume and attachment C(reserved)) or a
    detach (volume C(detaching)) and leaves the rest to the server's compute
    service, which rolls back what fails; a compute service that dies in
    between leaves the volume so, and Cinder then refuses every attach and
    detach of it. Once such a volume has not changed for 120 s, longer than
    any RPC timeout, the module undoes the transition as Nova does, and warns;
    a detach with Cinder's C(roll_detaching) action; an attach (not one of a
    shelved-offloaded server, which stays C(reserved) by design) with an
    admin's reset-status to C(in-use) and Nova's detach of that server. Then
    it makes the wanted call again. Without admin credentials an abandoned
    attach fails the run with the commands an admin runs.
  - While the compute service of a server is down (also in the minute after
    it restarts, until it reports again) Nova refuses to detach with HTTP 409;
    that refusal is retried until I(timeout), then named with the fix.
"""


ModuleDocFragment.DOCUMENTATION = joined(
    Attributes.DOCUMENTATION, OpenStack.DOCUMENTATION, OpenStack.CHANGE_SUPPORT, OpenStack.WAIT,
    ModuleDocFragment.ATTACHMENTS)
