"""Whether the fencing password is renewed (issue 50 point 2): whenever a server Keystone
recorded as a holder is no longer a member, whichever way it left."""

import pytest

from ansible_collections.multiattach.cloud.plugins.filter.fencing_renewal import (
    fencing_renewal as the_filter,
)
from ansible_collections.multiattach.cloud.plugins.module_utils.fencing_renewal import (
    fencing_renewal,
)


def recorded(held_by, user_id="u1"):
    return {"identity": {"user_id": user_id}, "holders_recorded": held_by}


ONE_COPY = ["sha-a"]


@pytest.mark.parametrize(
    "result, members, copies, asked, renew, why",
    [
        # Nothing changed: the same members hold the same password.
        (recorded(["s1", "s2"]), ["s1", "s2"], ONE_COPY, False, False, None),
        # A member joined: it gets the password, nobody left.
        (recorded(["s1", "s2"]), ["s1", "s2", "s3"], ONE_COPY, False, False, None),
        # A holder is gone (remove_node, lost, dropped from the inventory, a run cut short).
        (recorded(["s1", "s2", "s3"]), ["s1", "s2"], ONE_COPY, False, True, "servers s3 held it"),
        # Copies that differ: a renewal cut short while writing.
        (recorded(["s1", "s2"]), ["s1", "s2"], ["a", "b"], False, True, "copies differ"),
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
        # The pre-check did not run (credentials given whole): only copies or a request.
        (None, ["s1"], ONE_COPY, False, False, None),
    ],
)
def test_the_renewal_decision(result, members, copies, asked, renew, why):
    decided = fencing_renewal(result, members, copies, asked)
    assert decided["renew"] is renew
    assert (decided["why"] is None) if why is None else (why in decided["why"])


def test_a_gone_holder_is_named_even_when_other_reasons_hold_too():
    decided = fencing_renewal(recorded(["s1", "s9", "s8"]), ["s1"], ["a", "b"], True)
    assert decided["departed"] == ["s8", "s9"]
    assert decided["why"] == "servers s8, s9 held it and are no longer members"


def test_the_filter_takes_a_skipped_pre_check_as_none_and_refuses_garbage():
    assert the_filter({"skipped": True, "changed": False}, ["s1"], ONE_COPY)["renew"] is False
    assert the_filter(recorded(["s0"]), ["s1"], ONE_COPY)["departed"] == ["s0"]
    from ansible.errors import AnsibleFilterError

    with pytest.raises(AnsibleFilterError, match="fencing_identity's result"):
        the_filter("not a result", ["s1"], ONE_COPY)


def test_an_upgrade_from_the_former_file_is_handed_over_like_a_renewal():
    # No member holds the role's own file yet; they hold the password where it was written before.
    decided = fencing_renewal(recorded(None), ["s1", "s2"], [], False, former=True)
    assert decided["renew"] is True and "/etc/openstack/clouds.yaml" in decided["why"]
    # Once the members hold the new file, the former copy is no reason.
    assert (
        fencing_renewal(recorded(["s1", "s2"]), ["s1", "s2"], ONE_COPY, False, True)["renew"]
        is False
    )
