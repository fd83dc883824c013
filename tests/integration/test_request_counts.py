"""A re-run with nothing to do reads only, with as many requests for 3 servers as for 1."""

import pytest
from harness.ansible_runner import run_module
from harness.api_requests import RequestCounter

# Counts the requests the whole cloud serves: make test runs it alone.
pytestmark = pytest.mark.serial

ATTACHMENTS = "multiattach.cloud.volume_attachments"


def no_op_rerun_requests(lab, servers):
    args = {
        "cloud": "local-admin",
        "volume": lab["shared"].name,
        "servers": servers,
        "exclusive": True,
    }
    first = run_module(ATTACHMENTS, args)
    assert not first.get("failed"), first.get("msg")
    counter = RequestCounter().start()
    rerun = run_module(ATTACHMENTS, args)
    assert rerun["changed"] is False
    return counter.count()


def test_a_no_op_rerun_makes_a_constant_number_of_read_requests(lab):
    one = no_op_rerun_requests(lab, lab["names"][:1])
    three = no_op_rerun_requests(lab, lab["names"])
    run_module(
        ATTACHMENTS,
        {"cloud": "local-admin", "volume": lab["shared"].name, "servers": [], "exclusive": True},
    )

    assert one == three, (one, three)
    assert {key[1] for key in three} == {"GET"}, three
    # Besides these three reads (the attachment listing gives each attachment's
    # attach_mode), openstacksdk fetches the services' version documents
    # (GET /v3/, GET /v2.1) to negotiate microversions: constant too, counted above.
    resource_reads = {key: n for key, n in three.items() if key[2] not in ("/v3/", "/v2.1")}
    assert resource_reads == {
        ("compute", "GET", "/v2.1/servers"): 1,
        ("block-storage", "GET", "/v3/volumes/detail"): 1,
        ("block-storage", "GET", "/v3/attachments/detail"): 1,
    }, three


WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


def writes_of_rerun(module, args):
    first = run_module(module, args)
    assert not first.get("failed"), first.get("msg")
    counter = RequestCounter(services=("compute", "block-storage", "identity")).start()
    again = run_module(module, args)
    assert again["changed"] is False, (module, again)
    # The module's own sign-in (POST /v3/auth/tokens) is a read of credentials, not a change.
    return {
        key: n
        for key, n in counter.count().items()
        if key[1] in WRITE_METHODS and key != ("identity", "POST", "/v3/auth/tokens")
    }


def test_identical_reruns_of_every_changing_module_make_no_write_call(lab, admin_cloud):
    # A type of its own: Cinder refuses to change the extra specs of a type in use.
    type_args = {
        "cloud": "local-admin",
        "name": lab["type"] + "-rerun",
        "description": "lab type",
        "extra_specs": {"custom:tier": "gold"},
    }
    volume_args = {
        "cloud": "local-admin",
        "name": lab["shared"].name,
        "size": 1,
        "metadata": {"role": "scratch"},
    }
    server_volume_args = {
        "cloud": "local-admin",
        "volume": lab["shared"].name,
        "server": lab["names"][0],
    }
    attachments_args = {
        "cloud": "local-admin",
        "volume": lab["shared"].name,
        "servers": lab["names"][:2],
    }
    try:
        assert writes_of_rerun("multiattach.cloud.volume_type", type_args) == {}
        assert writes_of_rerun("multiattach.cloud.volume", volume_args) == {}
        assert writes_of_rerun("multiattach.cloud.server_volume", server_volume_args) == {}
        assert writes_of_rerun(ATTACHMENTS, attachments_args) == {}
    finally:
        run_module(
            ATTACHMENTS,
            {
                "cloud": "local-admin",
                "volume": lab["shared"].name,
                "servers": [],
                "exclusive": True,
            },
        )
        run_module("multiattach.cloud.volume_type", dict(type_args, state="absent"))
