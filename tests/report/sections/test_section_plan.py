"""passhat.report.sections.plan: "What to run next" carries the planner's numbers.

Oracles: DESIGN.md's closed forms (f = 10%, q = 95% → 29 runs; zero failures in 5 runs →
upper bound 45.1%) and passhat.planner called directly.
"""

from __future__ import annotations

from report_testdata import results_of

import passhat as ph
from passhat import planner
from passhat.report.build import FLIP_RATE, HALF_WIDTH, MAX_NEXT_ROWS
from passhat.report.sections.plan import plan_section


def _section(data, k, fit=False, **options):  # type: ignore[no-untyped-def]
    """The plan section of a report (without intervals: the plan does not use them)."""
    return plan_section(results_of(data, k=k, model=fit, plan=True, ci=None, **options))


def test_run_counts_are_the_planner_closed_forms() -> None:
    sec = _section(ph.load_example("agents"), [1, 5])
    rows = {r["system"]: r for r in sec.tables[0].rows}
    for row in rows.values():
        assert row["detect_runs"] == 29  # ⌈ln(0.05)/ln(0.9)⌉
        assert row["clean_runs"] == 5
        assert round(row["ruled_out_above"], 3) == 0.451  # 1 − 0.05^(1/5)
        want = planner.runs_for_width(
            half_width=HALF_WIDTH, rate=row["flaky_rate"], method="wilson"
        )
        assert row["width_runs"] == want
    assert FLIP_RATE == 0.10
    table = next(t for t in sec.tables if t.id == "plan_design")
    design = [r for r in table.rows if r["system"] == "baseline"]
    assert [r["design"] for r in design] == [
        "current",
        "best for the same budget",
        "halves the population interval",
    ]
    assert design[0]["runs"] == rows["baseline"]["clean_runs"] * 168


def test_skipped_and_no_design_without_spread() -> None:
    res = results_of(ph.load_example("abcd"), k=[1])  # plan=False
    assert plan_section(res).status == "skipped"
    counts = ph.counts_from_arrays([2, 2], [2, 2], tasks=["a", "b"])  # every run passes
    sec = _section(counts, [1, 2])
    assert any("no design of the budget" in s for s in sec.sentences)
    assert [t.id for t in sec.tables] == ["plan_tasks"]


def test_more_runs_rows_are_the_fits_preposterior() -> None:
    """With a Beta-Binomial fit, the section adds the expected width after as many runs per
    task again (oracle: Fit.more_runs with the same settings, itself checked against an
    independent quadrature in tests/model) and the floor from task sampling."""
    from passhat.report.build import MORE_RUNS_SIMULATIONS

    data = ph.load_example("agents")
    fit = ph.fit(data, model="beta", method="grid", seed=0, k=[1, 5])
    sec = _section(data, [1, 5], fit=fit)
    table = next(t for t in sec.tables if t.id == "plan_more_runs")
    want = fit.more_runs(runs=[5], k=[5], simulations=MORE_RUNS_SIMULATIONS)
    want = want[want["metric"] == "pass_hat_k"]
    assert [r["expected_width"] for r in table.rows] == want["expected_width"].tolist()
    assert [r["runs"] for r in table.rows][:4] == ["now", "+5 per task", "unlimited", "now"]
    floor = want[(want["scope"] == "population") & (want["runs_added"] == float("inf"))]
    for system, w in zip(floor["system"], floor["expected_width"], strict=True):
        line = next(s for s in sec.sentences if s.startswith(f"{system}: 5 more runs"))
        assert f"stays about {w:.3f} wide" in line


def test_next_batch_rows_are_next_runs_answer() -> None:
    """The next batch table is plan.next_runs with as many runs as tasks (oracle: the API)."""
    data = ph.load_example("agents")
    sec = _section(data, [1, 5])
    table = next(t for t in sec.tables if t.id == "plan_next")
    rows = [r for r in table.rows if r["system"] == "guided"]
    res = ph.plan.next_runs(data, budget=168, k=5, system="guided")
    api = res.batch
    # at most MAX_NEXT_ROWS per system (results.json stays small at any number of tasks)
    assert [r["task"] for r in rows] == [str(x) for x in api["task"][:MAX_NEXT_ROWS]]
    assert len(api) > MAX_NEXT_ROWS and len(rows) == MAX_NEXT_ROWS
    assert sum(r["extra_runs"] for r in rows) == api["extra_runs"][:MAX_NEXT_ROWS].sum()
    assert sum(r["shown"] for r in rows) == 10
    assert any(f"{MAX_NEXT_ROWS} of the {len(api)} tasks" in s for s in sec.sentences)
    assert any(s.startswith("guided: " + res.sentences[0][:40]) for s in sec.sentences)


def test_no_clean_task_states_no_bound() -> None:
    """Before: "5 clean runs rule out failure rates above 45.1% on the 0 tasks that never
    failed" when every run failed, and "1 clean runs" with one run per task."""
    import pandas as pd

    def trials(n: int, ok: bool) -> ph.Trials:
        rows = [
            {"task_id": f"t{t}", "trial": r, "success": ok and t > 0}
            for t in range(6)
            for r in range(n)
        ]
        return ph.Trials.from_frame(pd.DataFrame(rows))

    sec = _section(trials(5, False), [1, 5])
    row, sentence = sec.tables[0].rows[0], sec.sentences[0]
    assert "0 tasks" not in sentence and "no failure rate is ruled out" in sentence
    assert row["clean_tasks"] == 0 and row["ruled_out_above"] is None
    one = _section(trials(1, True), [1]).sentences[0]
    assert "1 clean run rules out failure rates above 95.0% on the 5 tasks that never" in one


def test_one_run_per_task_reads_in_the_singular() -> None:
    """Before: "10 tasks × 1 runs", "40 tasks × 1 runs"."""
    import pandas as pd

    rows = [{"task_id": f"t{t}", "trial": 0, "success": t % 3 > 0} for t in range(12)]
    sec = _section(ph.Trials.from_frame(pd.DataFrame(rows)), [1])
    text = " ".join(sec.sentences)
    assert "× 1 run" in text and "1 runs" not in text
