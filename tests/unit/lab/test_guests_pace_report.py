"""The guests' pace bench: its report from made-up figures, and its refusal of a no-change
converge that changed something."""

import base64

import pytest
import yaml
from bench import guests_pace_bench as pace

FAST = {"first converge": 50, "no-change converge": 6, "add_node": 45, "remove_node": 25}
FLOOR = {"first converge": 25, "no-change converge": 0.5, "add_node": 20, "remove_node": 12}


def row(report, fs, phase):
    return next(
        line.split(" | ")
        for line in report.splitlines()
        if line.startswith("| %s | %s |" % (fs, phase))
    )


def test_the_report_gives_medians_ratios_and_each_goal_for_both_ways():
    slow_remove = dict(FAST, remove_node=34)
    runs = {
        "ocfs2": {"role": [FAST, FAST, dict(FAST, add_node=70)], "floor": [FLOOR] * 3},
        "gfs2": {"role": [slow_remove] * 3, "floor": [dict(FLOOR, remove_node=31)] * 3},
    }
    report = pace.report(runs)
    add = row(report, "ocfs2", "add_node")
    assert add[3:5] == ["45.0", "45.0, 45.0, 70.0"] and add[7] == "2.25"
    assert add[8:] == ["yes", "yes |"]
    remove = row(report, "gfs2", "remove_node")
    assert remove[3] == "34.0" and remove[8:] == ["NO", "NO |"]


def test_a_no_change_converge_that_changed_something_is_refused():
    recap = "node-1 : ok=9 changed=0 unreachable=0\nnode-2 : ok=9 changed=1 unreachable=0\n"
    with pytest.raises(RuntimeError, match="changed something"):
        pace.check(None, "ocfs2", "no-change converge", recap)


def test_the_floors_new_fencing_password_replaces_only_the_password():
    clouds = {
        "clouds": {
            "multiattach-fencing-lab": {
                "auth": {
                    "auth_url": "http://192.0.2.1:5000/v3",
                    "username": "u",
                    "password": "old",
                },
                "identity_api_version": 3,
            }
        }
    }
    captured = {
        pace.cluster_leave.FENCING_CLOUDS: (
            "600",
            base64.b64encode(yaml.safe_dump(clouds).encode()),
        )
    }
    password, (mode, data) = pace.new_fencing_password(captured)
    written = yaml.safe_load(base64.b64decode(data))
    assert pace.fencing_password(captured) == "old"
    assert mode == "600" and password not in ("", "old")
    clouds["clouds"]["multiattach-fencing-lab"]["auth"]["password"] = password
    assert written == clouds
