"""clustered_fs's dlm.service wait (files/multiattach-dlm-ring-wait), run by /bin/sh against a
scripted dlm_tool: it ends only once dlm_controld is quorate, caught up with the ring, and the
ring has stayed the same for its settling time; it keeps waiting otherwise."""

import os
import subprocess

import pytest
from local_cloud import paths

SCRIPT = paths.ROOT / "roles" / "clustered_fs" / "files" / "multiattach-dlm-ring-wait"
FAKE = """#!/bin/sh
n=$(cat "{count}" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > "{count}"
line=$(sed -n "${{n}}p" "{lines}"); [ -n "$line" ] || line=$(tail -n 1 "{lines}")
[ "$line" = down ] && exit 1
echo "$line"; echo "daemon now $n fence_pid 0"
"""


def wait_with(tmp_path, lines, timeout):
    """Run the wait while dlm_tool status answers LINES, one a call (the last one from then on)."""
    (tmp_path / "lines").write_text("\n".join(lines) + "\n")
    fake = tmp_path / "dlm_tool"
    fake.write_text(FAKE.format(count=tmp_path / "count", lines=tmp_path / "lines"))
    fake.chmod(0o755)
    env = dict(os.environ, PATH="%s:%s" % (tmp_path, os.environ["PATH"]))
    done = subprocess.run(
        ["/bin/sh", str(SCRIPT)],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return done, int((tmp_path / "count").read_text())


def test_it_ends_once_a_quorate_caught_up_ring_stays_the_same(tmp_path):
    done, calls = wait_with(
        tmp_path,
        [
            "down",
            "cluster nodeid 1 quorate 0 ring seq 10 10",
            "cluster nodeid 1 quorate 1 ring seq 12 10",
            "cluster nodeid 1 quorate 1 ring seq 12 12",
            "cluster nodeid 1 quorate 1 ring seq 14 14",
        ],
        timeout=20,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == (
        "waiting for a quorate ring that dlm_controld has caught up with: no status yet"
    )
    assert "(ring seq 14, unchanged for 2000 ms)" in done.stdout.splitlines()[-1]
    # ring 14 first seen at the 5th call, then polled every 0.5 s for 2 s: 5 calls more or so.
    assert calls >= 9


def test_a_ring_without_quorum_or_not_caught_up_keeps_it_waiting(tmp_path):
    for line in (
        "cluster nodeid 1 quorate 0 ring seq 10 10",
        "cluster nodeid 1 quorate 1 ring seq 12 10",
    ):
        with pytest.raises(subprocess.TimeoutExpired):
            wait_with(tmp_path, [line], timeout=3)
