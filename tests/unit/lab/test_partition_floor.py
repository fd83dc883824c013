"""tools/partition_floor.py: settings read per filesystem, figures read from the playbooks' lines."""

import argparse
import importlib.util
import subprocess
import sys

import pytest
from local_cloud import paths

TOOL = paths.ROOT / "tools" / "partition_floor.py"
spec = importlib.util.spec_from_file_location("partition_floor", TOOL)
partition_floor = importlib.util.module_from_spec(spec)
spec.loader.exec_module(partition_floor)


def test_settings_become_the_roles_variables():
    assert partition_floor.setting_vars("ocfs2", "11:10000") == {
        "clustered_fs_ocfs2_dead_threshold": 11,
        "clustered_fs_ocfs2_idle_timeout_ms": 10000,
    }
    assert partition_floor.setting_vars("gfs2", "1000") == {"clustered_fs_corosync_token_ms": 1000}


@pytest.mark.parametrize("fs, text", [("ocfs2", "11"), ("ocfs2", "11:ten"), ("gfs2", "11:10000")])
def test_a_setting_in_the_wrong_form_is_refused_naming_the_form(fs, text):
    with pytest.raises(
        argparse.ArgumentTypeError,
        match="DEAD_THRESHOLD:IDLE_TIMEOUT_MS" if fs == "ocfs2" else "TOKEN_MS",
    ):
        partition_floor.setting_vars(fs, text)


def test_a_bad_setting_fails_before_any_playbook_runs():
    done = subprocess.run(
        [sys.executable, str(TOOL), "--fs", "gfs2", "fast"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "'fast': GFS2 settings are TOKEN_MS" in done.stderr


def test_figures_are_read_from_each_playbooks_line():
    partition = (
        'ok: [node-2] => {\n    "msg": "partition: fence 12.3 s, resume 14.0 s,  stall 7.91 s"\n}'
    )
    assert partition_floor.step_figures("partition.yml", partition) == {
        "fence": 12.3,
        "resume": 14.0,
        "stall": 7.91,
    }
    # a long line may be folded by the yaml callback
    soak = (
        "msg: 'soak: node-1 kept its boot, 0 warnings, 2048 MiB synced, load 6.12'\n"
        "msg: 'soak: node-2 kept its boot, 3 warnings, 1024 MiB\n      synced, load 6.12'"
    )
    assert partition_floor.step_figures("soak.yml", soak) == {
        "warnings": {"node-1": 0, "node-2": 3},
        "mib_synced": {"node-1": 2048, "node-2": 1024},
        "load": 6.12,
    }
    # the yaml callback's form, as ansible.cfg sets it
    running = "ok: [node-1] => \n    msg: 'running: dead_threshold 11 idle_timeout_ms 10000'\n" * 2
    assert partition_floor.step_figures("retime.yml", running) == {
        "running": ["dead_threshold 11 idle_timeout_ms 10000"]
    }
    # a failed partition prints no figures line: no figures, not an error
    assert partition_floor.step_figures("partition.yml", "fatal: [node-2]: FAILED!") == {}
