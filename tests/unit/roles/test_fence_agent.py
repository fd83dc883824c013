"""clustered_fs's fence device (files/multiattach-fence-openstack): a reboot is Nova's hard
reboot, done when the compute host reports it; the delay is dlm.conf's as it is now; every
other action is fence_openstack's answer, and only a "Not Found" for a server this project
deleted becomes "fenced"."""

import subprocess

import pytest
from harness.fence_agent import load_fence_agent

from ansible_collections.multiattach.cloud.plugins.module_utils.host import cluster_records

PLUG = "0f4c1e9a-6b2d-4f7e-8a3c-1d2e3f4a5b6c"
STDIN = "action=off\ncloud=multiattach-fencing\nplug=%s\ndelay=15\n" % PLUG
REBOOT = STDIN.replace("action=off", "action=reboot")
# The agent's stdin: the wrapper has waited the delay itself.
PASSED = STDIN.replace("delay=15\n", "")
NOT_FOUND = "2026-11-28 ERROR: Failed: Not Found: Instance could not be found. (HTTP 404)\n"


agent = load_fence_agent()
NO_CONF = "/nonexistent/dlm.conf"


def fence(
    stdin, run=None, nova=None, log=None, conf=NO_CONF, slept=None, cinder=None, roles=("fencer",)
):
    """The wrapper's main with fakes: NOVA answers as the compute adapter (a callable for an
    adapter that fails), CINDER as the block storage one, sleeps are recorded in SLEPT and never
    taken."""
    adapter_for = nova if callable(nova) and not isinstance(nova, Nova) else (lambda cloud: nova)
    return agent.main(
        [],
        stdin,
        run or fence_openstack(0)[0],
        adapter_for,
        log if log is not None else [].append,
        (slept if slept is not None else []).append,
        conf,
        lambda compute: cinder,
        lambda compute: list(roles),
    )


class Response:
    def __init__(self, status_code, body=None, headers=None):
        self.status_code = status_code
        self.body = body or {}
        self.headers = headers or {}
        self.text = str(self.body)

    def json(self):
        return self.body


TERMINATED = Response(
    200,
    {"instanceAction": {"events": [{"event": "compute_terminate_instance", "result": "Success"}]}},
)


class Nova:
    """A compute adapter: SERVER answers the server's GET, ACTIONS its os-instance-actions,
    DETAIL each action's events."""

    def __init__(self, server, actions, detail=TERMINATED, project="p-ours", rebooted=()):
        self.server, self.actions, self.detail, self.asked = server, actions, detail, []
        self.project, self.rebooted, self.posted = project, list(rebooted), []

    def get_project_id(self):
        return self.project

    def get(self, url, raise_exc, headers=None):
        self.asked.append((url, headers))
        if url.endswith("/os-instance-actions"):
            return self.actions
        if "/os-instance-actions/req-reboot" in url:
            return (
                self.reboot_progress.pop(0)
                if len(self.reboot_progress) > 1
                else self.reboot_progress[0]
            )
        return self.detail if "/os-instance-actions/" in url else self.server

    def post(self, url, json, raise_exc, headers=None):
        """REBOOTED: the answers to the reboot, one per call (the last repeats)."""
        self.posted.append((url, json))
        return self.rebooted.pop(0) if len(self.rebooted) > 1 else self.rebooted[0]

    reboot_progress = ()


def fence_openstack(rc, out="", err=""):
    calls = []

    def run(argv, **options):
        calls.append((argv, options["input"]))
        run.envs.append(options["env"])
        return subprocess.CompletedProcess(argv, rc, out, err)

    run.envs = []
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
    run, calls = fence_openstack(0, "Success: Powered OFF\n")
    asked = []
    assert fence(STDIN, run, asked.append) == 0
    assert calls == [([agent.AGENT], PASSED)] and asked == []
    # Root's ~/.config/openstack/clouds.yaml never shadows the role's /etc/openstack entry.
    assert run.envs[-1]["HOME"] == agent.AGENT_HOME and "PATH" in run.envs[-1]
    # fence_openstack reads $HOME/.config/openstack/clouds.yaml first: the role's own file, the
    # one clustered_fs_info and clustered_fs_leave know, never /etc/openstack/clouds.yaml.
    assert agent.AGENT_HOME + "/.config/openstack/clouds.yaml" == agent.CLOUDS
    assert agent.CLOUDS == cluster_records.FENCING_CLOUDS
    assert cluster_records.FENCING_HOME == agent.AGENT_HOME
    assert capsys.readouterr().out == "Success: Powered OFF\n"
    run, calls = fence_openstack(1, err="Failed: Unauthorized (HTTP 401)\n")
    assert fence(STDIN, run, asked.append) == 1
    assert asked == [], "only Not Found is asked about"


def test_a_server_this_project_deleted_counts_as_fenced(capsys):
    run, unused = fence_openstack(1, err=NOT_FOUND)
    nova = Nova(Response(404), DELETED)
    logged = []
    assert fence(STDIN, run, nova, logged.append) == 0
    assert "was deleted in this project" in capsys.readouterr().out
    assert logged[1:] == [
        "server %s was deleted in this project and terminated by its compute host: "
        "it can write nothing more, so it counts as fenced (off)" % PLUG
    ]
    version = {"OpenStack-API-Version": "compute 2.51"}
    assert nova.asked[1:] == [
        ("/servers/%s/os-instance-actions" % PLUG, version),
        ("/servers/%s/os-instance-actions/req-2" % PLUG, version),
    ]
    status = STDIN.replace("action=off", "action=status")
    assert fence(status, run, nova, logged.append) == agent.EXIT_OFF
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
    assert fence(STDIN, run, Nova(server, actions)) == 1


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
    assert fence(STDIN, run, Nova(Response(404), DELETED, detail)) == 1


def test_on_is_never_taken_for_done_and_a_failed_second_question_keeps_the_failure(capsys):
    run, unused = fence_openstack(1, err=NOT_FOUND)
    nova = Nova(Response(404), DELETED)
    assert fence(STDIN.replace("action=off", "action=on"), run, nova) == 1

    def unreachable(cloud):
        raise OSError("Connection refused")

    assert fence(STDIN, run, unreachable) == 1
    assert "cannot ask Nova again: OSError: Connection refused" in capsys.readouterr().err


def test_options_come_from_stdin_and_arguments():
    options = agent.options_of(["--cloud=c2", "--port=p2"], "# dlm\naction=off\nplug=p1\n")
    assert options == {"action": "off", "plug": "p1", "cloud": "c2", "port": "p2"}
    assert agent.options_of(["--port=p2"], "")["plug"] == "p2"


def reboot_answer(status=202):
    return Response(status, {}, {"x-openstack-request-id": "req-reboot"})


def reboot_events(*results):
    return Response(
        200,
        {
            "instanceAction": {
                "events": [{"event": "compute_reboot_instance", "result": r} for r in results]
            }
        },
    )


def test_a_reboot_is_novas_hard_reboot_done_when_its_compute_host_reports_it(capsys):
    run, calls = fence_openstack(0)
    nova = Nova(Response(200), DELETED, rebooted=[reboot_answer()])
    nova.reboot_progress = [reboot_events(), reboot_events(None), reboot_events("Success")]
    logged, slept = [], []
    assert fence(REBOOT, run, nova, logged.append, slept=slept) == 0
    assert calls == [], "fence_openstack's reboot is a clean stop: never used"
    assert nova.posted == [("/servers/%s/action" % PLUG, {"reboot": {"type": "HARD"}})]
    assert slept == [15, agent.REBOOT_POLL_SECONDS, agent.REBOOT_POLL_SECONDS]
    assert "hard-rebooted by Nova (request req-reboot)" in capsys.readouterr().out
    assert logged[-1].startswith("Success: server %s hard-rebooted" % PLUG)


def test_a_reboot_waits_out_a_task_under_way_and_fails_on_a_failed_or_unreported_one(
    monkeypatch, capsys
):
    nova = Nova(Response(200), DELETED, rebooted=[reboot_answer(409), reboot_answer()])
    nova.reboot_progress = [reboot_events("Success")]
    assert fence(REBOOT, nova=nova) == 0
    assert len(nova.posted) == 2
    nova = Nova(Response(200), DELETED, rebooted=[reboot_answer()])
    nova.reboot_progress = [reboot_events("Error")]
    assert fence(REBOOT, nova=nova) == 1
    assert "failed the hard reboot" in capsys.readouterr().out
    ticks = iter(range(0, 10000, 100))
    monkeypatch.setattr(agent.time, "monotonic", lambda: next(ticks))
    nova = Nova(Response(200), DELETED, rebooted=[reboot_answer()])
    nova.reboot_progress = [reboot_events(None)]
    assert agent.main([], REBOOT, None, lambda cloud: nova, [].append, [].append, NO_CONF) == 1
    assert "did not report the hard reboot" in capsys.readouterr().out


def test_a_refused_reboot_fails_named_and_a_missing_server_is_fenced_only_if_deleted_here(capsys):
    nova = Nova(
        Response(200), DELETED, rebooted=[Response(403, {"forbidden": "Policy doesn't allow"})]
    )
    assert fence(REBOOT, nova=nova) == 1
    assert "refused the hard reboot of server %s (HTTP 403)" % PLUG in capsys.readouterr().out
    nova = Nova(Response(404), DELETED, rebooted=[Response(404)])
    assert fence(REBOOT, nova=nova) == 0
    assert "counts as fenced (reboot)" in capsys.readouterr().out
    never = Nova(Response(404), Response(404), rebooted=[Response(404)])
    assert fence(REBOOT, nova=never) == 1

    def unreachable(cloud):
        raise OSError("Connection refused")

    assert fence(REBOOT, nova=unreachable) == 1
    assert "cannot ask Nova for the hard reboot" in capsys.readouterr().out


def test_the_delay_is_dlm_confs_as_it_is_now(tmp_path):
    conf = tmp_path / "dlm.conf"
    other = "1b2c3d4e-0000-4000-8000-000000000001"
    run, calls = fence_openstack(0)
    # The member with the lowest node ID left: the line DLM read at start (delay=15) is stale.
    conf.write_text(
        "enable_fencing=1\ndevice os /usr/sbin/multiattach-fence-openstack cloud=c action=reboot\n"
        "connect os node=2 plug=%s delay=20\nconnect os node=3 plug=%s\n" % (other, PLUG)
    )
    slept = []
    assert fence(STDIN, run, conf=str(conf), slept=slept) == 0
    assert slept == [] and calls == [([agent.AGENT], PASSED)]
    assert fence(STDIN.replace(PLUG, other), run, conf=str(conf), slept=slept) == 0
    assert slept == [20]
    # No file, or a plug it no longer names: what DLM passed.
    assert fence(STDIN, run, conf=str(tmp_path / "none"), slept=slept) == 0
    assert slept == [20, 15]
    assert agent.live_delay("gone", "7", str(conf)) == 7
    assert agent.live_delay(PLUG, "x", str(tmp_path / "none")) == 0
    # Status and on never wait.
    assert (
        fence(
            STDIN.replace("action=off", "action=status"),
            run,
            Nova(Response(200), Response(200)),
            conf=str(conf),
            slept=slept,
        )
        == 0
    )
    assert slept == [20, 15]


def test_novas_own_request_header_is_followed_and_none_fails_at_once(capsys):
    nova = Nova(
        Response(200),
        DELETED,
        rebooted=[
            Response(
                202, {}, {"x-compute-request-id": "req-reboot", "x-openstack-request-id": "req-gw"}
            )
        ],
    )
    nova.reboot_progress = [reboot_events("Success")]
    assert fence(REBOOT, nova=nova) == 0
    slept = []
    nova = Nova(Response(200), DELETED, rebooted=[Response(202)])
    assert fence(REBOOT, nova=nova, slept=slept) == 1
    assert "named no request" in capsys.readouterr().out
    assert slept == [15], "no wait for a request that cannot be followed"


def test_a_garbled_delay_in_dlm_conf_keeps_what_dlm_passed(tmp_path):
    conf = tmp_path / "dlm.conf"
    conf.write_text("connect os node=3 plug=%s delay=15s\n" % PLUG)
    assert agent.live_delay(PLUG, "15", str(conf)) == 15


def test_a_status_also_reads_what_the_fence_itself_needs(capsys):
    status = STDIN.replace("action=off", "action=status")
    run, unused = fence_openstack(0, "Status: ON\n")
    assert fence(status, run, Nova(Response(200), Response(200))) == 0
    # A policy that hides the instance actions: every hard reboot would wait out its deadline.
    assert fence(status, run, Nova(Response(200), Response(403))) == 1
    assert "Nova answers 403 for its instance actions" in capsys.readouterr().out
    # A cloud older than compute API 2.51.
    assert fence(status, run, Nova(Response(406), Response(200))) == 1

    def unreachable(cloud):
        raise OSError("Connection refused")

    assert fence(status, run, unreachable) == 1
    assert (
        "cannot reach Nova, Cinder or Keystone as the wrapper does: OSError"
        in capsys.readouterr().out
    )


class Cinder:
    """A block storage adapter: ANSWER for every volume read."""

    def __init__(self, answer):
        self.answer, self.asked = answer, []

    def get(self, url, raise_exc):
        self.asked.append(url)
        return self.answer


def test_a_status_reads_each_attached_volume_as_novas_hard_reboot_does(capsys):
    status = STDIN.replace("action=off", "action=status")
    run, unused = fence_openstack(0, "Status: ON\n")
    attached = Response(
        200, {"server": {"os-extended-volumes:volumes_attached": [{"id": "v-1"}, {"id": "v-2"}]}}
    )
    cinder = Cinder(Response(200))
    assert fence(status, run, Nova(attached, Response(200)), cinder=cinder) == 0
    assert cinder.asked == ["/volumes/v-1", "/volumes/v-2"]
    # A Cinder without fencing_policy's volume:get rule: the hard reboot would fail after the
    # power is cut, so the check fails now, naming the volume and the fix.
    assert fence(status, run, Nova(attached, Response(200)), cinder=Cinder(Response(404))) == 1
    said = capsys.readouterr().out
    assert "Cinder answers 404 for volume v-1 attached to server" in said
    assert "volume:get" in said


@pytest.mark.parametrize("roles", [["admin"], ["multiattach_fencer", "member"], ["Reader"]])
def test_a_status_fails_when_the_credential_holds_a_default_role(capsys, roles):
    """An operator's credential given whole (clustered_fs_fencing_cloud), or a fencing user in a
    group: the token's roles are the effective ones."""
    status = STDIN.replace("action=off", "action=status")
    run, unused = fence_openstack(0, "Status: ON\n")
    assert fence(status, run, Nova(Response(200), Response(200)), roles=roles) == 1
    said = capsys.readouterr().out
    assert "the fencing credential holds role" in said and "far more than fence" in said
    assert fence(status, run, Nova(Response(200), Response(200)), roles=["multiattach_fencer"]) == 0


def test_a_broken_clouds_yaml_is_named_without_its_lines(capsys):
    import yaml

    def broken(cloud):
        raise yaml.YAMLError("while scanning\n  password: s3cret:x")

    assert fence(REBOOT, nova=broken) == 1
    out = capsys.readouterr().out
    assert "YAMLError in %s" % agent.CLOUDS in out and "s3cret" not in out
