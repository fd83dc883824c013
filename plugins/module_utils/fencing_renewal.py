# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether a cluster's fencing password is renewed (role clustered_fs, filter fencing_renewal).

Whoever was root on a server that held the password knows it. Keystone records the servers that
held it (fencing_identity's holders); a recorded server that is no longer a member is gone,
whichever way it left and however many runs ago, so the members get a new password. Copies that
differ (a renewal cut short while writing) and an operator's request renew it too; a user whose
record names nobody (made before the record) is renewed once, as nobody can tell who held it;
and a user Keystone no longer has while members hold its password is never made again with it.
"""

from __future__ import annotations


def fencing_renewal(recorded, members, copies, asked=False, former=False):
    """{renew, departed, why} from the pre-check's fencing_identity result RECORDED (None when
    it did not run), the members' server UUIDs MEMBERS, the distinct digests of the members'
    copies COPIES, the operator's request ASKED, and FORMER: members hold the password only
    where an earlier version of the role wrote it (an upgrade, handed over like a renewal)."""
    recorded = recorded or {}
    held_by = recorded.get("holders_recorded")
    user_exists = (recorded.get("identity") or {}).get("user_id") is not None
    departed = sorted(set(held_by or []) - set(members))
    if departed:
        why = "servers %s held it and are no longer members" % ", ".join(departed)
    elif len(copies) > 1:
        why = "the members' copies differ (a renewal cut short)"
    elif asked:
        why = "asked (clustered_fs_fencing_new_password)"
    elif former and not copies:
        why = (
            "the members hold it in /etc/openstack/clouds.yaml, where an earlier version of the "
            "role wrote it"
        )
    elif user_exists and held_by is None and copies:
        why = "Keystone's record of the user names no servers that held it"
    elif "identity" in recorded and not user_exists and copies:
        # Deleted in Keystone (an operator revoking it, perhaps): making it again with the
        # members' password would bring back what was revoked.
        why = "Keystone has no user for the password the members hold (deleted)"
    else:
        why = None
    return {"renew": why is not None, "departed": departed, "why": why}
