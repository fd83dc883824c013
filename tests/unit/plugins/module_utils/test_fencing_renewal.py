"""Which fencing user the members hold after a run, and whether it gets a new password (issue 50
point 2): renewed whenever a server Keystone recorded as a holder is no longer a member,
whichever way it left; a hand-over cut short is finished without stranding a member."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.multiattach.cloud.plugins.filter.fencing_renewal import (
    fencing_renewal as the_filter,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.fencing_renewal import (
    fencing_renewal,
)

USERS = ["fence-c", "fence-c.2"]
FIRST, SECOND = USERS


def recorded(held_by, user_id="u1", taken=True):
    return {
        "identity": {"user_id": user_id},
        "holders_recorded": held_by,
        "password_taken": taken if user_id else None,
    }


def copy(user=FIRST, digest="sha-a", holders=("node-1", "node-2")):
    return {"user": user, "digest": digest, "holders": list(holders)}


ONE_COPY = [copy()]


def decide(first, members, copies, asked=False, former=False, second=None):
    checked = {FIRST: first, SECOND: second or recorded(None, user_id=None)}
    if first is None:
        checked = {}
    return fencing_renewal(USERS, checked, members, copies, asked, former)


@pytest.mark.parametrize(
    "result, members, copies, asked, renew, why",
    [
        # Nothing changed: the same members hold the same password.
        (recorded(["s1", "s2"]), ["s1", "s2"], ONE_COPY, False, False, None),
        # A member joined: it gets the password, nobody left.
        (recorded(["s1", "s2"]), ["s1", "s2", "s3"], ONE_COPY, False, False, None),
        # A holder is gone (remove_node, lost, dropped from the inventory, a run cut short).
        (recorded(["s1", "s2", "s3"]), ["s1", "s2"], ONE_COPY, False, True, "servers s3 held it"),
        # Copies of one user that differ: a renewal of the one-user days cut short.
        (
            recorded(["s1", "s2"]),
            ["s1", "s2"],
            [copy(digest="a"), copy(digest="b")],
            False,
            True,
            "copies differ",
        ),
        (recorded(["s1", "s2"]), ["s1", "s2"], ONE_COPY, True, True, "asked"),
        # A user made before the record, whose password members hold: renewed once.
        (recorded(None), ["s1", "s2"], ONE_COPY, False, True, "names no servers"),
        # A new cluster: no user, no copies; nothing to renew (its password is new anyway).
        (recorded(None, user_id=None), ["s1"], [], False, False, None),
        # A user whose members lost their copies: a new password anyway, not a renewal.
        (recorded(None), ["s1"], [], False, False, None),
        # The user was deleted in Keystone (revoked) while members hold its password: a new
        # one, never the user made again with the old password.
        (recorded(["s1"], user_id=None), ["s1"], ONE_COPY, False, True, "no user"),
        (recorded(None, user_id=None), ["s1"], ONE_COPY, False, True, "no user"),
        # Keystone refuses the members' password (changed or disabled there, perhaps to revoke
        # it): a new one on the other user, never the old one set again.
        (recorded(["s1"], taken=False), ["s1"], ONE_COPY, False, True, "refuses the password"),
        # The only copies name a user outside the pair (credentials an operator gave before):
        # the pair's first user is made with a new password, not "deleted".
        (recorded(None, user_id=None), ["s1"], [copy(user="theirs")], False, False, None),
        # The pre-check did not run (credentials given whole): only copies or a request.
        (None, ["s1"], ONE_COPY, False, False, None),
    ],
)
def test_the_renewal_decision(result, members, copies, asked, renew, why):
    decided = decide(result, members, copies, asked)
    assert decided["renew"] is renew
    assert (decided["why"] is None) if why is None else (why in decided["why"])
    # A renewal hands over to the user nobody holds; the one held is retired after.
    assert (decided["target"], decided["retired"]) == (
        (SECOND, FIRST) if renew else (FIRST, SECOND)
    )


def test_a_gone_holder_is_named_even_when_other_reasons_hold_too():
    decided = decide(
        recorded(["s1", "s9", "s8"]), ["s1"], [copy(digest="a"), copy(digest="b")], True
    )
    assert decided["departed"] == ["s8", "s9"]
    assert decided["why"] == "servers s8, s9 held it and are no longer members"


def test_the_members_on_the_second_user_renew_to_the_first():
    decided = decide(
        recorded(None, user_id=None),
        ["s1"],
        [copy(user=SECOND)],
        asked=True,
        second=recorded(["s1"]),
    )
    assert (decided["renew"], decided["target"], decided["retired"]) == (True, FIRST, SECOND)


# A hand-over cut short: node-1 still on the first user, node-2 on the second.
SPLIT = [copy(FIRST, "a", ["node-1"]), copy(SECOND, "b", ["node-2"])]


def test_a_cut_hand_over_goes_on_with_the_user_only_members_held():
    """The second user's password, made for the members when s3 left, goes to node-1 as it is:
    no member loses a working password, and the first user (which s3 knew) is retired."""
    decided = decide(
        recorded(["s1", "s2", "s3"]), ["s1", "s2"], SPLIT, second=recorded(["s1", "s2"])
    )
    assert (decided["renew"], decided["target"], decided["retired"]) == (False, SECOND, FIRST)
    assert decided["departed"] == ["s3"]
    assert "goes to every member as it is" in decided["spread"]


@pytest.mark.parametrize(
    "first, second, asked, target, why",
    [
        # The second user's password no longer works (reset, then the run cut before the
        # write), and the first's record names a server that left: the second is renewed.
        (
            recorded(["s1", "s2", "s3"]),
            recorded(["s1", "s2"], taken=False),
            False,
            SECOND,
            "s3 held it",
        ),
        # Both records name a server that left: neither copy can go to all as it is.
        (
            recorded(["s1", "s2", "s3"]),
            recorded(["s1", "s2", "s4"]),
            False,
            FIRST,
            "s3, s4 held it",
        ),
        # Asked for a new password: renewed, the first user (as many holders) taking it.
        (recorded(["s1", "s2"]), recorded(["s1", "s2"]), True, FIRST, "asked"),
    ],
)
def test_a_cut_hand_over_renews_when_no_copy_can_go_to_all(first, second, asked, target, why):
    decided = decide(first, ["s1", "s2"], SPLIT, asked=asked, second=second)
    assert (decided["renew"], decided["target"]) == (True, target)
    assert why in decided["why"]
    assert decided["spread"] is None


def test_the_filter_reads_a_looped_pre_check_and_refuses_garbage():
    looped = {
        "results": [
            dict(recorded(["s0"]), item=FIRST),
            dict(recorded(None, user_id=None), item=SECOND),
        ]
    }
    decided = the_filter(looped, USERS, ["s1"], ONE_COPY)
    assert decided["departed"] == ["s0"] and decided["target"] == SECOND
    assert the_filter({"skipped": True}, USERS, ["s1"], ONE_COPY)["renew"] is False
    with pytest.raises(AnsibleFilterError, match="registered result"):
        the_filter("not a result", USERS, ["s1"], ONE_COPY)
    with pytest.raises(AnsibleFilterError, match="two fencing users"):
        the_filter(looped, [FIRST], ["s1"], ONE_COPY)
    with pytest.raises(AnsibleFilterError, match="user, digest, holders"):
        the_filter(looped, USERS, ["s1"], [{"user": FIRST, "password": "x"}])


def test_an_upgrade_from_the_former_file_is_handed_over_like_a_renewal():
    # No member holds the role's own file yet; they hold the password where it was written before.
    decided = decide(recorded(None), ["s1", "s2"], [], False, former=True)
    assert decided["renew"] is True and "/etc/openstack/clouds.yaml" in decided["why"]
    # Once the members hold the new file, the former copy is no reason.
    assert decide(recorded(["s1", "s2"]), ["s1", "s2"], ONE_COPY, False, True)["renew"] is False


def test_the_copies_are_told_apart_by_user_and_digest_never_by_password():
    from ansible_collections.multiattach.cloud.plugins.filter.fencing_copies import (
        fencing_copies,
    )

    path = "/etc/multiattach/fencing/.config/openstack/clouds.yaml"

    def node(user, digest, present=True):
        return {
            "fencing_cloud_present": present,
            "fencing_cloud_user": user,
            "files": {path: {"sha256": digest}},
        }

    nodes = [node(FIRST, "a"), node(SECOND, "b"), node(FIRST, "a"), node(None, None, False)]
    names = ["node-1", "node-2", "node-3", "node-4"]

    assert fencing_copies(names, nodes, path) == [
        {"user": FIRST, "digest": "a", "holders": ["node-1", "node-3"]},
        {"user": SECOND, "digest": "b", "holders": ["node-2"]},
    ]
    with pytest.raises(AnsibleFilterError, match="one clustered_fs_info read for each member"):
        fencing_copies(names, nodes[:2], path)


def test_a_departed_holder_of_the_user_that_goes_is_named_too():
    """The second user is left from a hand-over an unreachable member held up; nobody holds it
    now, and it is deleted at the end of the run: the servers that knew it are said."""
    decided = decide(recorded(["s1", "s2"]), ["s1", "s2"], ONE_COPY, second=recorded(["s1", "s9"]))
    assert (decided["renew"], decided["retired"], decided["retired_exists"]) == (
        False,
        SECOND,
        True,
    )
    assert decided["departed"] == ["s9"]
