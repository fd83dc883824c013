"""clustered_fs's fence device (files/multiattach-fence-openstack): fence_openstack's answer
passes through, and only its "Not Found" for a server this project deleted becomes "fenced"."""

import subprocess

import pytest
from harness.fence_agent import load_fence_agent

PLUG = "0f4c1e9a-6b2d-4f7e-8a3c-1d2e3f4a5b6c"
STDIN = "action=reboot\ncloud=multiattach-fencing\nplug=%s\ndelay=15\n" % PLUG
NOT_FOUND = "2026-11-28 ERROR: Failed: Not Found: Instance could not be found. (HTTP 404)\n"


agent = load_fence_agent()


class Response:
    def __init__(self, status_code, body=None):
        self.status_code = status_code
        self.body = body or {}

    def json(self):
        return self.body


TERMINATED = Response(
    200,
    {"instanceAction": {"events": [{"event": "compute_terminate_instance", "result": "Success"}]}},
)


class Nova:
    """A compute adapter: SERVER answers the server's GET, ACTIONS its os-instance-actions,
    DETAIL each action's events."""

    def __init__(self, server, actions, detail=TERMINATED, project="p-ours"):
        self.server, self.actions, self.detail, self.asked = server, actions, detail, []
        self.project = project

    def get_project_id(self):
        return self.project

    def get(self, url, raise_exc, headers=None):
        self.asked.append((url, headers))
        if url.endswith("/os-instance-actions"):
            return self.actions
        return self.detail if "/os-instance-actions/" in url else self.server


def fence_openstack(rc, out="", err=""):
    calls = []

    def run(argv, **options):
        calls.append((argv, options["input"]))
        return subprocess.CompletedProcess(argv, rc, out, err)

    return run, calls


DELETED = Response(
    200,
    {
        "instanceActions": [
            {"action": "create", "request_id": "req-1", "project_id": "p-ours"},
            {"action": "delete", "request_id": "req-2", "project_id": "p-ours"},
        ]
    },
)


def test_the_agents_answer_passes_through_and_nova_is_not_asked_again(capsys):
    run, calls = fence_openstack(0, "Success: Rebooted\n")
    asked = []
    assert agent.main([], STDIN, run, asked.append) == 0
    assert calls == [([agent.AGENT], STDIN)] and asked == []
    assert capsys.readouterr().out == "Success: Rebooted\n"
    run, calls = fence_openstack(1, err="Failed: Unauthorized (HTTP 401)\n")
    assert agent.main([], STDIN, run, asked.append) == 1
    assert asked == [], "only Not Found is asked about"


def test_a_server_this_project_deleted_counts_as_fenced(capsys):
    run, unused = fence_openstack(1, err=NOT_FOUND)
    nova = Nova(Response(404), DELETED)
    logged = []
    assert agent.main([], STDIN, run, lambda cloud: nova, logged.append) == 0
    assert "was deleted in this project" in capsys.readouterr().out
    assert logged == [
        "server %s was deleted in this project and terminated by its compute host: "
        "it can write nothing more, so it counts as fenced (reboot)" % PLUG
    ]
    version = {"OpenStack-API-Version": "compute 2.51"}
    assert nova.asked[1:] == [
        ("/servers/%s/os-instance-actions" % PLUG, version),
        ("/servers/%s/os-instance-actions/req-2" % PLUG, version),
    ]
    status = STDIN.replace("action=reboot", "action=status")
    assert agent.main([], status, run, lambda cloud: nova, logged.append) == agent.EXIT_OFF
    assert "Status: OFF" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("server", "actions"),
    [
        (Response(404), Response(404)),  # never a server of this project (or another's)
        (Response(404), Response(200, {"instanceActions": [{"action": "create"}]})),
        (Response(200), DELETED),  # Nova still knows it: the agent's failure stands
        # An admin's credentials read another project's deleted server: nothing of this project.
        (
            Response(404),
            Response(
                200,
                {
                    "instanceActions": [
                        {"action": "create", "request_id": "req-1", "project_id": "p-theirs"},
                        {"action": "delete", "request_id": "req-2", "project_id": "p-ours"},
                    ]
                },
            ),
        ),
        # Evacuated, then deleted: the terminate is the new host's; the old may still run it.
        (
            Response(404),
            Response(
                200,
                {
                    "instanceActions": [
                        DELETED.body["instanceActions"][0],
                        {"action": "evacuate", "request_id": "req-e", "project_id": "p-ours"},
                        DELETED.body["instanceActions"][1],
                    ]
                },
            ),
        ),
    ],
)
def test_a_wrong_or_foreign_uuid_still_fails(server, actions):
    run, unused = fence_openstack(1, err=NOT_FOUND)
    assert agent.main([], STDIN, run, lambda cloud: Nova(server, actions)) == 1


@pytest.mark.parametrize(
    "events",
    [
        [],  # deleted in Nova's database alone, its host out of reach: it may still run
        [{"event": "compute_terminate_instance", "result": "Error"}],
    ],
)
def test_a_delete_its_compute_host_did_not_carry_out_is_no_fence(events):
    run, unused = fence_openstack(1, err=NOT_FOUND)
    detail = Response(200, {"instanceAction": {"events": events}})
    assert agent.main([], STDIN, run, lambda cloud: Nova(Response(404), DELETED, detail)) == 1


def test_on_is_never_taken_for_done_and_a_failed_second_question_keeps_the_failure(capsys):
    run, unused = fence_openstack(1, err=NOT_FOUND)
    nova = Nova(Response(404), DELETED)
    assert agent.main([], STDIN.replace("reboot", "on"), run, lambda cloud: nova) == 1

    def unreachable(cloud):
        raise OSError("Connection refused")

    assert agent.main([], STDIN, run, unreachable) == 1
    assert "cannot ask Nova again: Connection refused" in capsys.readouterr().err


def test_options_come_from_stdin_and_arguments():
    options = agent.options_of(["--cloud=c2", "--port=p2"], "# dlm\naction=off\nplug=p1\n")
    assert options == {"action": "off", "plug": "p1", "cloud": "c2", "port": "p2"}
    assert agent.options_of(["--port=p2"], "")["plug"] == "p2"
