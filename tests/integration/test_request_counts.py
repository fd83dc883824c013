"""A re-run with nothing to do reads only, with as many requests for 3 servers as for 1."""
from ansible_runner import run_module
from api_requests import RequestCounter

ATTACHMENTS = "multiattach.cloud.volume_attachments"


def no_op_rerun_requests(lab, servers):
    args = {"cloud": "local-admin", "volume": lab["shared"].name, "servers": servers,
            "exclusive": True}
    first = run_module(ATTACHMENTS, args)
    assert not first.get("failed"), first.get("msg")
    counter = RequestCounter().start()
    rerun = run_module(ATTACHMENTS, args)
    assert rerun["changed"] is False
    return counter.count()


def test_a_no_op_rerun_makes_a_constant_number_of_read_requests(lab):
    one = no_op_rerun_requests(lab, lab["names"][:1])
    three = no_op_rerun_requests(lab, lab["names"])
    run_module(ATTACHMENTS, {"cloud": "local-admin", "volume": lab["shared"].name,
                             "servers": [], "exclusive": True})

    assert one == three, (one, three)
    assert {key[1] for key in three} == {"GET"}, three
    # Besides these two reads, openstacksdk fetches the services' version documents
    # (GET /v3/, GET /v2.1) to negotiate microversions: constant too, counted above.
    resource_reads = {key: n for key, n in three.items() if key[2] not in ("/v3/", "/v2.1")}
    assert resource_reads == {("compute", "GET", "/v2.1/servers"): 1,
                              ("block-storage", "GET", "/v3/volumes/detail"): 1}, three
