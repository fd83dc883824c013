"""The benchmark's report: ratios to the floor and the goals, from made-up figures."""

from bench import attach_bench


def cell(seconds, paths):
    reads = sum(n for p, n in paths.items() if p.split()[1] == "GET")
    return {"seconds": seconds, "result": "ok", "reads": reads, "all_requests": 0,
            "requests": {}, "paths": paths}


DISCOVERY = {"identity GET /v3": 1, "compute GET /v2.1": 1, "block-storage GET /v3/": 2}


def rows(a_attach, b_attach, rerun_paths):
    phases = {"attach": cell(1, {}), "re-run": cell(1, dict(DISCOVERY)), "detach half": cell(1, {})}
    tools = {tool: dict(phases) for tool in "abcd"}
    tools["a"] = dict(phases, attach=cell(a_attach, {}), **{"re-run": cell(1, rerun_paths)})
    tools["b"] = dict(phases, attach=cell(b_attach, {}))
    tools["d"] = dict(phases, attach=cell(10.0, {}))
    return tools


def test_goals_met_and_missed_are_told_apart():
    rerun = dict(DISCOVERY, **{"compute GET /v2.1/servers": 1, "block-storage GET /v3/volumes/ID": 1})
    report = attach_bench.report({10: rows(12.0, 20.0, rerun)}, {"x": 1.0}, repeat=1)

    assert "| (a) within 1.3x of the floor | 10 | 1.20x | yes |" in report
    assert "| (b) within 1.5x of the floor per server | 10 | 2.00x | NO |" in report
    assert "6 reads (2 of resources, the rest version discovery) | resources yes |" in report


def test_a_rerun_that_reads_more_resources_misses_the_goal():
    rerun = dict(DISCOVERY, **{"compute GET /v2.1/servers": 3, "block-storage GET /v3/volumes/ID": 1})
    report = attach_bench.report({10: rows(14.0, 12.0, rerun)}, {"x": 1.0}, repeat=1)

    assert "| (a) within 1.3x of the floor | 10 | 1.40x | NO |" in report
    assert "(4 of resources, the rest version discovery) | NO |" in report


def test_every_tool_runs_untimed_once_before_the_first_timed_one(monkeypatch):
    calls = []

    class FakeLab:
        names = ["s00", "s01", "s02"]
        current = []

        def detach_all(self):
            calls.append("detach all")

        def holders(self):
            return []
    for tool in "abcd":
        monkeypatch.setitem(attach_bench.RUNNERS, tool,
                            lambda lab, action, names, tool=tool: calls.append((tool, action, names)))
    attach_bench.warm_up(FakeLab())
    ran = [call for call in calls if call != "detach all"]
    assert sorted({tool for tool, _action, _names in ran}) == ["a", "b", "c", "d"]
    assert all(names == ["s00", "s01"] for _tool, _action, names in ran)
    assert {action for _tool, action, _names in ran} == {"attach", "detach"}
