"""The benchmark's report: ratios to the floor and the goals, from made-up figures."""

from bench import attach_bench


def cell(seconds, paths, requests=10):
    reads = sum(n for p, n in paths.items() if p.split()[1] == "GET")
    return {
        "seconds": seconds,
        "inner_seconds": seconds / 2,
        "result": "ok",
        "reads": reads,
        "client_requests": requests,
        "refused": 0,
        "all_requests": 0,
        "requests": {},
        "paths": paths,
    }


DISCOVERY = {"identity GET /v3": 1, "compute GET /v2.1": 1, "block-storage GET /v3/": 2}


def rows(a_attach, b_attach, rerun_paths, a_requests=10):
    phases = {"attach": cell(1, {}), "re-run": cell(1, dict(DISCOVERY)), "detach half": cell(1, {})}
    tools = {tool: dict(phases) for tool in "abcde"}
    tools["a"] = dict(
        phases, attach=cell(a_attach, {}, a_requests), **{"re-run": cell(1, rerun_paths)}
    )
    tools["b"] = dict(phases, attach=cell(b_attach, {}))
    # The floor of a phase is the faster form: sequential attaches, pipelined detaches.
    tools["d"] = dict(phases, attach=cell(10.0, {}), **{"detach half": cell(4.0, {})})
    tools["e"] = dict(phases, attach=cell(11.0, {}), **{"detach half": cell(2.0, {})})
    return tools


def test_goals_met_and_missed_are_told_apart():
    rerun = dict(
        DISCOVERY, **{"compute GET /v2.1/servers": 1, "block-storage GET /v3/volumes/ID": 1}
    )
    report = attach_bench.report({10: rows(12.0, 20.0, rerun)}, {"x": 1.0}, repeat=1)

    assert "| 10 | attach | 1.20x time, 1.00x requests (floor: d) | yes |" in report
    assert "| 10 | detach half | 0.50x time, 1.00x requests (floor: e) | yes |" in report
    assert "| (b) within 1.5x of the floor per server | 10 | attach | 2.00x | NO |" in report
    assert "6 reads (2 of resources, the rest version discovery) | resources yes |" in report


def test_a_rerun_that_reads_more_resources_misses_the_goal():
    rerun = dict(
        DISCOVERY, **{"compute GET /v2.1/servers": 3, "block-storage GET /v3/volumes/ID": 1}
    )
    report = attach_bench.report({10: rows(14.0, 12.0, rerun)}, {"x": 1.0}, repeat=1)

    assert "| 10 | attach | 1.40x time, 1.00x requests (floor: d) | NO |" in report
    assert "(4 of resources, the rest version discovery) | NO |" in report


def test_too_many_requests_miss_the_goal_even_at_the_floors_pace():
    rerun = dict(DISCOVERY, **{"compute GET /v2.1/servers": 1})
    report = attach_bench.report({30: rows(10.0, 12.0, rerun, a_requests=16)}, {"x": 1.0}, repeat=1)

    assert "| 30 | attach | 1.00x time, 1.60x requests (floor: d) | NO |" in report


def test_without_a_module_only_the_floors_are_reported():
    report = attach_bench.report({10: {t: rows(1.0, 1.0, {})[t] for t in "de"}}, {}, repeat=3)

    assert "(d) floor, sequential" in report and "(e) floor, pipelined" in report
    assert "| (a)" not in report


def test_every_tool_runs_untimed_once_before_the_first_timed_one(monkeypatch):
    calls = []

    class FakeLab:
        names = ["s00", "s01", "s02"]
        current = []

        def detach_all(self):
            calls.append("detach all")

        def holders(self):
            return []

    for tool in "abcde":
        monkeypatch.setitem(
            attach_bench.RUNNERS,
            tool,
            lambda lab, action, names, tool=tool: calls.append((tool, action, names)),
        )
    attach_bench.warm_up(FakeLab(), "abcde")
    ran = [call for call in calls if call != "detach all"]
    assert sorted({tool for tool, _action, _names in ran}) == ["a", "b", "c", "d", "e"]
    assert all(names == ["s00", "s01"] for _tool, _action, names in ran)
    assert {action for _tool, action, _names in ran} == {"attach", "detach"}


def test_the_paced_floor_is_the_floor_where_it_is_the_fastest():
    tools = rows(12.0, 20.0, dict(DISCOVERY))
    tools["f"] = dict(tools["d"], **{"detach half": cell(1.0, {})})
    report = attach_bench.report({10: tools}, {"x": 1.0}, repeat=1)

    assert "| 10 | attach | 1.20x time, 1.00x requests (floor: d) | yes |" in report
    assert "| 10 | detach half | 1.00x time, 1.00x requests (floor: f) | yes |" in report


def test_detach_all_has_its_goal_and_the_parallel_floor_counts_as_a_floor():
    tools = rows(12.0, 12.0, dict(DISCOVERY))
    for tool in "abde":
        tools[tool]["detach all"] = cell(5.0, {})
    tools["a"]["detach all"] = cell(2.5, {})
    tools["g"] = {"attach": cell(20.0, {}), "re-run": cell(1.0, {}), "detach all": cell(2.0, {})}
    report = attach_bench.report({10: tools}, {"x": 1.0}, repeat=1)

    assert "| 10 | detach all | 1.25x time, 1.00x requests (floor: g) | NO |" in report
    # Less each one's re-run (1 s): 1.5 s of work against the floor's 1.0 s.
    assert "| 10 | detach all | 1.50x (1.50 s against 1.00 s, floor: g) | NO |" in report
    assert "| 10 | attach | 1.20x time, 1.00x requests (floor: d) | yes |" in report
    # Rows of a, b, d, e, g and the two goals'; openstack.cloud (c) has none: its detach waits
    # for "available".
    assert report.count("| detach all |") == 7


def test_many_clusters_tells_the_goal_and_what_ansibles_own_process_adds():
    from bench import clusters_bench

    def way(*seconds):
        return [{"seconds": s, "inner_seconds": s} for s in seconds]

    runs = {
        "playbook": way(5.2, 5.0, 5.4),
        "floor": way(4.0, 4.1, 3.9),
        "floor in ansible-playbook": way(4.9, 5.1, 5.0),
    }
    text = clusters_bench.report(runs, 5, 4)
    assert (
        "| the playbook (one task, a thread a volume) within 1.3x of the floor | 1.30x | yes |"
        in text
    )
    assert "floor in ansible-playbook less the floor): 1.00 s" in text
    assert "the playbook less the floor in ansible-playbook: +0.20 s (1.04x)" in text
    runs["playbook"] = way(5.5, 5.4, 5.6)
    assert "| 1.38x | NO |" in clusters_bench.report(runs, 5, 4)
