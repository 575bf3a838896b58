"""passhat.report.sections.flaky: every flaky task, lowest rate first, with its interval.

Oracles: the estimate's per-task table (flaky = both outcomes among decided runs) and
the rule written out: at most MAX_FLAKY_ROWS shown per system, the rest kept in the data.
"""

from __future__ import annotations

import pandas as pd
import pytest
from report_testdata import results_of

import passhat as ph
from passhat.report.sections import flaky as flaky_module
from passhat.report.sections.flaky import flaky_section


def _section(data, k, **options):  # type: ignore[no-untyped-def]
    """The flaky section of the report's results, and the report's estimate."""
    res = results_of(data, k=k, **options)
    return flaky_section(res), res.estimate


def test_rows_are_the_flaky_tasks_lowest_rate_first() -> None:
    sec, est = _section(ph.load_example("agents"), [1, 5])
    rows = pd.DataFrame(sec.tables[0].rows)
    tasks = est.tasks
    oracle = ph.estimate(ph.load_example("agents"), k=[1, 5]).tasks  # the intervals: Wilson
    pd.testing.assert_frame_equal(tasks, oracle)
    want = tasks[tasks["flaky"] & tasks["included"]]
    assert len(rows) == len(want) == 58  # 37 baseline + 21 guided
    assert rows["system"].tolist() == sorted(rows["system"], key=["baseline", "guided"].index)
    for system, part in rows.groupby("system"):
        assert part["rate"].is_monotonic_increasing
        assert set(part["task"]) == set(want.loc[want["system"] == system, "task"])
        assert ((part["c"] > 0) & (part["c"] < part["n"])).all()
        assert (part["rate_lower"] <= part["rate"]).all() and (
            part["rate"] <= part["rate_upper"]
        ).all()
    assert sec.sentences[0].startswith("baseline: 37 flaky task(s). With 5 runs each")
    assert sec.tables[0].hidden_rows == 0 and rows["shown"].all()


def test_rows_beyond_the_cap_go_to_the_task_file_not_the_json(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(flaky_module, "MAX_FLAKY_ROWS", 10)
    sec, est = _section(ph.load_example("agents"), [1, 5])
    rows = pd.DataFrame(sec.tables[0].rows)
    assert len(rows) == 20 and sec.tables[0].hidden_rows == (37 - 10) + (21 - 10)
    assert rows.groupby("system")["shown"].sum().tolist() == [10, 10]
    assert sec.tables[0].note.startswith("38 more flaky tasks are in tasks.parquet")
    # the rows kept are each system's lowest rates
    flaky = est.tasks[est.tasks["flaky"]]
    for system, part in rows.groupby("system"):
        worst = flaky[flaky["system"] == system]["rate"].nsmallest(10)
        assert part["rate"].max() <= worst.max()


def test_no_flaky_task() -> None:
    counts = ph.counts_from_arrays([3, 3], [3, 0], tasks=["a", "b"])
    sec, _ = _section(counts, 1, ci=None)
    assert sec.tables[0].rows == []
    assert sec.sentences == ["No task had both outcomes: every task's decided runs agree."]


def test_sentences_say_where_the_failing_runs_are() -> None:
    sec, est = _section(ph.load_example("agents"), [1, 5])
    tasks = est.tasks[est.tasks["included"]]
    for i, system in enumerate(("baseline", "guided")):
        mine = tasks[tasks["system"] == system]
        fails = int((mine["n"] - mine["c"]).sum())
        in_flaky = int((mine["n"] - mine["c"])[mine["flaky"]].sum())
        in_fail = int(mine["n"][mine["c"] == 0].sum())
        assert in_flaky + in_fail == fails  # always-pass tasks have no failing run
        assert (
            f"They hold {in_flaky} of the system's {fails} failing runs ({in_flaky / fails:.0%}); "
            f"the other {in_fail} are in tasks that always fail." in sec.sentences[i]
        )


def test_tau_bench_failing_runs(tau_airline_path) -> None:
    """Issue 12: on τ-bench 56 of the 116 failing runs are in tasks that always fail."""
    sec, _ = _section(ph.read(tau_airline_path), [1, 4])
    assert sec.sentences[0].startswith("gpt-4o-airline: 26 flaky task(s). With 4 runs each")
    assert (
        "They hold 60 of the system's 116 failing runs (52%); the other 56 are in tasks that "
        in (sec.sentences[0])
    )


def test_a_system_without_flaky_tasks_is_named() -> None:
    # s1: a 3/3, b 0/3 (no flaky task); s2: a 1/3, b 2/3
    wins = {("s1", "a"): 3, ("s1", "b"): 0, ("s2", "a"): 1, ("s2", "b"): 2}
    rows = [
        {"system": s, "task_id": t, "trial": r, "success": r < w}
        for (s, t), w in wins.items()
        for r in range(3)
    ]
    sec, _ = _section(ph.Trials.from_frame(pd.DataFrame(rows)), 1)
    assert sec.sentences[0] == "s1: no flaky task; every task's decided runs agree."
    assert sec.sentences[1].startswith("s2: 2 flaky task(s).")
    assert (
        "They hold 3 of the system's 3 failing runs (100%); the other 0 are in"
        in (sec.sentences[1])
    )
