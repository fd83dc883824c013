"""tools/task_seconds_report.py: runs told apart by process, module runs counted per guest
(controller-only actions and skipped tasks are not round trips), the slowest tasks first."""

import task_seconds_report as report


def record(pid, t, **fields):
    return dict(fields, pid=pid, t=t)


def test_each_process_is_a_run_named_by_its_first_play_and_counted_per_guest():
    records = [
        record(1, 0.0, play="Find the shared volume the guests hold"),
        record(2, 0.5, play="Attach the shared volume to one more server"),
        record(1, 1.0, task="Read", action="multiattach.cloud.clustered_fs_info", host="node-1", status="ok", seconds=4.0),
        record(1, 1.1, task="Read", action="multiattach.cloud.clustered_fs_info", host="node-2", status="ok", seconds=4.5),
        record(1, 1.2, task="Plan", action="ansible.builtin.set_fact", host="node-1", status="ok", seconds=0.1),
        record(1, 2.0, task="Write", action="multiattach.cloud.config_files", host="node-1", status="skipped", seconds=0.0),
        record(1, 9.0, task="Mount", action="ansible.builtin.shell", host="node-1", status="changed", seconds=6.0, steps={"unmount": 4.5}),
        record(2, 3.0, task="Attach", action="multiattach.cloud.volume_attachments", host="localhost", status="changed", seconds=1.5),
    ]  # fmt: skip
    runs = report.runs_of(records)
    assert [run["plays"][0] for run in runs] == [
        "Find the shared volume the guests hold",
        "Attach the shared volume to one more server",
    ]
    first = report.summary(runs[0], top=2)
    assert first["seconds"] == 9.0
    assert first["module_runs_per_guest"] == {"node-1": 2, "node-2": 1}
    assert first["slowest"] == [("Mount", (6.0, {"unmount": 4.5})), ("Read", (4.5, None))]
    assert report.summary(runs[1], top=2)["module_runs_per_guest"] == {}
