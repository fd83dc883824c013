"""The local cloud's process helper: start once, stop exactly its own processes."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from local_cloud import paths

PROCS = [str(paths.LAB), "--python", sys.executable, "procs"]


def procs(run_dir, *args):
    return subprocess.run(
        [*PROCS, "--run-dir", str(run_dir), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def record(run_dir, name):
    return json.loads((run_dir / (name + ".proc.json")).read_text())


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers signal 0; it is gone for our purposes.
    with open("/proc/%d/stat" % pid, encoding="utf-8") as handle:
        return handle.read().rsplit(")", 1)[1].split()[0] != "Z"


@pytest.fixture
def run_dir(tmp_path):
    yield tmp_path
    procs(tmp_path, "stop")


def test_start_twice_starts_one_process(run_dir):
    first = procs(run_dir, "start", "--log", str(run_dir / "s.log"), "sleeper", "--", "sleep", "60")
    second = procs(
        run_dir, "start", "--log", str(run_dir / "s.log"), "sleeper", "--", "sleep", "60"
    )
    assert first.returncode == 0 and "started" in first.stdout
    assert (
        second.returncode == 0
        and "already running as PID %d" % record(run_dir, "sleeper")["pid"] in second.stdout
    )


def test_stop_kills_the_whole_process_group_and_nothing_else(run_dir):
    bystander = subprocess.Popen(["sleep", "60"])
    try:
        procs(
            run_dir,
            "start",
            "--log",
            str(run_dir / "f.log"),
            "forker",
            "--",
            "bash",
            "-c",
            "sleep 60 & echo $! > child.pid; wait",
        )
        deadline = time.time() + 5
        while not (run_dir / "child.pid").exists() and time.time() < deadline:
            time.sleep(0.05)
        child = int((run_dir / "child.pid").read_text())
        leader = record(run_dir, "forker")["pid"]
        assert alive(child) and alive(leader)

        result = procs(run_dir, "stop")

        assert result.returncode == 0 and "forker: stopped" in result.stdout
        assert not alive(child) and not alive(leader)
        assert bystander.poll() is None, "stop must not touch processes it did not start"
        assert not (run_dir / "forker.proc.json").exists()
    finally:
        bystander.kill()
        bystander.wait()


def test_status_fails_when_a_daemon_died(run_dir):
    procs(run_dir, "start", "--log", str(run_dir / "s.log"), "sleeper", "--", "sleep", "60")
    assert procs(run_dir, "status").returncode == 0
    os.kill(record(run_dir, "sleeper")["pid"], signal.SIGKILL)
    time.sleep(0.2)
    result = procs(run_dir, "status")
    assert result.returncode == 1 and "DEAD" in result.stdout


def test_status_fails_when_nothing_was_started(run_dir):
    assert procs(run_dir, "status").returncode == 1


def test_a_reused_pid_is_not_taken_for_ours(run_dir):
    """A PID file left by a crash may name a PID that another program now has."""
    stranger = subprocess.Popen(["sleep", "60"])
    try:
        (run_dir / "ghost.proc.json").write_text(
            json.dumps(
                {"name": "ghost", "pid": stranger.pid, "argv": ["x"], "start_time": 1, "started": 0}
            )
        )
        assert procs(run_dir, "status").returncode == 1
        procs(run_dir, "stop")
        assert stranger.poll() is None, "a stranger with a reused PID must survive stop"
    finally:
        stranger.kill()
        stranger.wait()


def test_a_command_that_exits_at_once_is_reported(run_dir):
    result = procs(run_dir, "start", "--log", str(run_dir / "b.log"), "broken", "--", "false")
    assert result.returncode == 1
    assert "exited at once" in result.stderr and "b.log" in result.stderr
    assert not (run_dir / "broken.proc.json").exists()


def test_records_of_other_programs_in_the_run_dir_are_ignored(run_dir):
    (run_dir / "mysqld.pid").write_text("12345\n")
    (run_dir / "junk.proc.json").write_text("42")
    procs(run_dir, "start", "--log", str(run_dir / "s.log"), "sleeper", "--", "sleep", "60")
    result = procs(run_dir, "status")
    assert result.returncode == 0 and "sleeper" in result.stdout


def test_status_counts_every_process_of_a_group_and_its_memory(run_dir):
    procs(
        run_dir,
        "start",
        "--log",
        str(run_dir / "f.log"),
        "forker",
        "--",
        "bash",
        "-c",
        "sleep 60 & sleep 60 & wait",
    )
    time.sleep(0.3)
    result = procs(run_dir, "status")
    line = next(l for l in result.stdout.splitlines() if l.startswith("forker"))
    assert " 3 processes" in line
    total = next(l for l in result.stdout.splitlines() if l.startswith("total"))
    assert float(total.split()[-3]) > 0


def test_restart_runs_the_same_command_again_with_a_new_pid(run_dir):
    procs(run_dir, "start", "--log", str(run_dir / "s.log"), "sleeper", "--", "sleep", "60")
    before = record(run_dir, "sleeper")

    result = procs(run_dir, "restart", "sleeper")

    after = record(run_dir, "sleeper")
    assert result.returncode == 0, result.stderr
    assert after["pid"] != before["pid"] and alive(after["pid"]) and not alive(before["pid"])
    assert after["argv"] == ["sleep", "60"] and after["log"] == str(run_dir / "s.log")


def test_restart_of_an_unknown_name_fails_and_says_why(run_dir):
    result = procs(run_dir, "restart", "nobody")
    assert result.returncode == 1 and "cannot restart nobody" in result.stderr


def test_start_all_starts_each_once_and_reports_one_that_exits_at_once(run_dir):
    daemons = [
        {"name": "one", "log": str(run_dir / "one.log"), "argv": ["sleep", "60"]},
        {"name": "two", "argv": ["sleep", "60"]},
        {"name": "broken", "log": str(run_dir / "b.log"), "argv": ["false"]},
    ]
    first = subprocess.run(
        [*PROCS, "--run-dir", str(run_dir), "start-all", "--log-dir", str(run_dir)],
        input=json.dumps(daemons),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    again = subprocess.run(
        [*PROCS, "--run-dir", str(run_dir), "start-all"],
        input=json.dumps(daemons[:1]),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert first.returncode == 1, first.stderr
    assert "one: started" in first.stdout and "two: started" in first.stdout
    assert "broken: exited at once" in first.stderr and "b.log" in first.stderr
    assert not (run_dir / "broken.proc.json").exists()
    assert alive(record(run_dir, "one")["pid"]) and alive(record(run_dir, "two")["pid"])
    assert record(run_dir, "two")["log"] == str(run_dir / "two.log")
    assert again.returncode == 0
    assert "one: already running as PID %d" % record(run_dir, "one")["pid"] in again.stdout


def test_start_all_refuses_input_that_is_not_a_list_of_daemons(run_dir):
    result = subprocess.run(
        [*PROCS, "--run-dir", str(run_dir), "start-all"],
        input='[{"name": "x"}]',
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2 and "JSON list of {name, argv, log}" in result.stderr
    assert 'without argv, log' in result.stderr
