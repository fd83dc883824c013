# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which of a cluster's two fencing users the members hold after a run, and whether it gets a
new password (role clustered_fs, filter fencing_renewal).

Two users take turns: a renewal gives the user the members do not hold a new password, writes it
to every member, and only then deletes the other, so a run cut anywhere leaves every member on a
user Keystone still takes.

Whoever was root on a server that held the password knows it. Keystone records the servers that
held it (fencing_identity's holders); a recorded server that is no longer a member is gone,
whichever way it left and however many runs ago, so the members get a new password. An
operator's request renews it too; a user whose record names nobody (made before the record) is
renewed once, as nobody can tell who held it; and a user Keystone no longer has, or whose
password it refuses (changed or disabled there), while members hold the password is never given
it again.

Copies that differ come from a run cut short. When the members hold the two users, the one whose
password Keystone still takes and whose record names members only is written to every member as
it is (nobody who left knows it, and no member loses a working password on the way); otherwise
the password is renewed.
"""

from __future__ import annotations


def _departed(checked, members):
    return sorted(set((checked or {}).get("holders_recorded") or []) - set(members))


def _exists(checked):
    return ((checked or {}).get("identity") or {}).get("user_id") is not None


def _adoptable(name, checked, members, copies):
    """Whether the members may all take user NAME's copy as it is."""
    mine = [copy for copy in copies if copy["user"] == name]
    recorded = (checked or {}).get("holders_recorded")
    return (
        len(mine) == 1
        and _exists(checked)
        and (checked or {}).get("password_taken") is True
        and recorded is not None
        and not set(recorded) - set(members)
    )


def _held_by(name, copies):
    return sum(len(copy["holders"]) for copy in copies if copy["user"] == name)


def _split(users, checked, members, copies, asked):
    """The decision when the members hold both users (a hand-over cut short)."""
    departed = sorted(set().union(*(_departed(checked.get(name), members) for name in users)))
    fit = [name for name in users if _adoptable(name, checked.get(name), members, copies)]
    if fit and not asked:
        target = max(fit, key=lambda name: (_held_by(name, copies), -users.index(name)))
        return {
            "renew": False,
            "departed": departed,
            "why": None,
            "target": target,
            "spread": (
                "the members hold two fencing users (a hand-over cut short): user %s's password, "
                "which Keystone takes and only members held, goes to every member as it is" % target
            ),
        }
    # Renewed: the user given a new password is one whose copy no longer works, or else the one
    # fewer members hold (those lose their fence until their copy is written, in this run).
    refused = [name for name in users if checked.get(name, {}).get("password_taken") is not True]
    target = (
        refused[0]
        if refused
        else min(users, key=lambda name: (_held_by(name, copies), users.index(name)))
    )
    if departed:
        why = "servers %s held it and are no longer members" % ", ".join(departed)
    elif asked:
        why = "asked (clustered_fs_fencing_new_password)"
    else:
        why = "the members hold two fencing users, and neither can go to all as it is"
    return {"renew": True, "departed": departed, "why": why, "target": target, "spread": None}


def fencing_renewal(users, checked, members, copies, asked=False, former=False):
    """{renew, departed, why, target, retired, spread}: USERS, the pair's two names in order;
    CHECKED, {name: the pre-check's fencing_identity result for it} (empty when it did not run);
    MEMBERS, the members' server UUIDs; COPIES, the distinct copies the members hold as
    [{user, digest, holders}] (no password); ASKED, the operator's request; FORMER, the members
    hold the password only where an earlier version of the role wrote it (an upgrade, handed over
    like a renewal). TARGET is the user the members hold after the run, RETIRED the other (deleted
    once every member holds TARGET; RETIRED_EXISTS, Keystone has it), SPREAD a sentence when a copy
    goes to every member as it is."""
    users, checked = list(users), dict(checked or {})
    held = []
    for copy in copies:
        if copy["user"] in users and copy["user"] not in held:
            held.append(copy["user"])
    if len(held) > 1:
        decided = _split(users, checked, members, copies, asked)
    else:
        in_use = held[0] if held else users[0]
        decided = _one_user(in_use, checked.get(in_use), members, copies, asked, former, bool(held))
        decided["target"] = _other(users, in_use) if decided["renew"] else in_use
        decided["spread"] = None
        # The other user, when Keystone still has it, goes at the end of the run: the servers its
        # record names that left are said too.
        decided["departed"] = sorted(
            set(decided["departed"]) | set(_departed(checked.get(_other(users, in_use)), members))
        )
    decided["retired"] = _other(users, decided["target"])
    decided["retired_exists"] = _exists(checked.get(decided["retired"]))
    return decided


def _other(users, name):
    """The user of the pair USERS that is not NAME."""
    return users[1] if name == users[0] else users[0]


def _one_user(in_use, recorded, members, copies, asked, former, held=True):
    """The decision when the members hold one user (or none): renewed or kept. HELD: a copy names
    IN_USE (not only a user outside the pair)."""
    recorded = recorded or {}
    held_by = recorded.get("holders_recorded")
    departed = _departed(recorded, members)
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
    elif held and _exists(recorded) and recorded.get("password_taken") is False:
        # Changed, disabled or locked in Keystone (an operator revoking it, perhaps): setting the
        # members' password again would undo that.
        why = "Keystone refuses the password the members hold (changed or disabled there)"
    elif held and _exists(recorded) and held_by is None and copies:
        why = "Keystone's record of the user names no servers that held it"
    elif held and "identity" in recorded and not _exists(recorded) and copies:
        # Deleted in Keystone (an operator revoking it, perhaps): making it again with the
        # members' password would bring back what was revoked.
        why = "Keystone has no user for the password the members hold (deleted)"
    else:
        why = None
    return {"renew": why is not None, "departed": departed, "why": why}


def copies_held(names, nodes, path):
    """The distinct copies of the fencing credentials at PATH the members hold, as
    [{user, digest, holders}] in the members' order: NAMES, the members' inventory names; NODES,
    each one's clustered_fs_info read (fencing_cloud_present, fencing_cloud_user, files)."""
    copies = {}
    for name, node in zip(names, nodes):
        node = node or {}
        if not node.get("fencing_cloud_present"):
            continue
        digest = ((node.get("files") or {}).get(path) or {}).get("sha256") or ""
        user = node.get("fencing_cloud_user") or ""
        copies.setdefault((user, digest), []).append(name)
    return [
        {"user": user, "digest": digest, "holders": holders}
        for (user, digest), holders in copies.items()
    ]
