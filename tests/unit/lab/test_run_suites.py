"""tools/run_suites.py: suites at once, then in turn; any failure (pytest's 5 too) fails the run."""

import subprocess
import sys

from local_cloud import paths

RUNNER = paths.ROOT / "tools" / "run_suites.py"


def run(tmp_path, *args):
    return subprocess.run(
        [sys.executable, str(RUNNER), "--logs", str(tmp_path / "logs"), *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_at_once_suites_overlap_and_each_output_is_printed_whole(tmp_path):
    marker = tmp_path / "first-started"
    done = run(
        tmp_path,
        "--at-once",
        # the second waits for the first to have started: they must run at the same time
        "first=touch %s; echo one; sleep 2; echo two" % marker,
        "second=for i in $(seq 50); do [ -e %s ] && break; sleep 0.1; done; "
        "[ -e %s ] && echo three" % (marker, marker),
        "--then",
        "last=echo four",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "one\ntwo\n" in done.stdout and "three\n" in done.stdout
    # the one that ended first is printed first; the --then suite after both
    assert done.stdout.index("===== second") < done.stdout.index("===== first")
    assert done.stdout.index("===== last") > done.stdout.index("===== first")
    assert (tmp_path / "logs" / "first.log").read_text() == "one\ntwo\n"


def test_every_suite_runs_and_the_failures_are_named(tmp_path):
    done = run(
        tmp_path,
        "--at-once",
        "fails=exit 1",
        "passes=true",
        "--then",
        "no-tests=exit 5",
        "after=echo ran",
    )
    assert done.returncode == 1
    summary = done.stdout[done.stdout.index("===== suites") :]
    assert "fails" in summary and "FAILED (exit 1)" in summary
    assert "FAILED (exit 5)" in summary and "ran\n" in done.stdout
    assert summary.count("passed") == 2


def test_a_suite_without_a_command_is_refused(tmp_path):
    done = run(tmp_path, "--at-once", "nothing")
    assert done.returncode == 2 and "is not NAME=COMMAND" in done.stderr
