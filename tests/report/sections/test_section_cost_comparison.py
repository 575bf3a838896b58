"""passhat.report.sections.cost_comparison: the report's paired cost comparison is
``passhat.compare_cost`` on the report's tasks with its options.

Oracle: :func:`passhat.compare_cost` called directly on the same runs with the report's k,
level, resamples, seed, baseline, weights and matched tasks (the report's exclusions applied
by hand); absent with one system, without a cost column and without intervals.
"""

from __future__ import annotations

import pandas as pd
import pytest
from report_testdata import EXTRAS_CSV, EXTRAS_K, FAST_RESULTS, results_of

import passhat as ph
from passhat.report.sections.cost_comparison import cost_comparison_section

#: The other data-driven sections off (each report here takes well under a second).
ONLY_COST = {"scores": False, "by": False}


def _api(data: ph.Trials, **extra):  # type: ignore[no-untyped-def]
    first = str(data.frame["system"].iloc[0])
    return ph.compare_cost(data, k=extra.pop("k", EXTRAS_K), ci=0.95, seed=0, intersect=True,
                           n_boot=FAST_RESULTS["n_boot"], baseline=first, **extra)  # fmt: skip


def test_rows_are_compare_cost_on_the_same_tasks(extras_results) -> None:  # type: ignore[no-untyped-def]
    sec = cost_comparison_section(extras_results)
    assert sec is not None and sec.status == "ok" and sec.id == "cost_comparison"
    want = _api(ph.read(EXTRAS_CSV)).table
    pd.testing.assert_frame_equal(extras_results.cost_comparison.table, want)
    rows = sec.tables[0].rows
    assert len(rows) == len(want)
    for r, (_, w) in zip(rows, want.iterrows(), strict=True):
        for key in ("base_value", "cand_value", "difference", "ratio_lower", "ratio_upper"):
            assert r[key] == pytest.approx(w[key], rel=1e-15, nan_ok=True), key
    labels = [c.label for c in sec.tables[0].columns]
    assert any("population scope: tasks like these" in label for label in labels)
    assert sec.sentences[0].startswith(f"{want['candidate'].iloc[0]} against ")


def test_the_reports_exclusions_and_weights_carry_over() -> None:
    """--min-runs leaves a task out of the report: the cost comparison leaves it out too, and
    the report's weights are compare_cost's."""
    runs = pd.read_csv(EXTRAS_CSV)
    short = runs[~((runs["task_id"] == "task_03") & (runs["trial"] >= 3))]  # 3 runs left
    data = ph.Trials.from_frame(short.reset_index(drop=True))
    res = results_of(data, k=[1, 2], min_runs=4, on_short="exclude", weights="category",
                     **ONLY_COST)  # fmt: skip
    assert "task_03" in set(res.estimate.excluded["task"])
    kept = ph.Trials.from_frame(runs[runs["task_id"] != "task_03"].reset_index(drop=True))
    want = _api(kept, k=[1, 2], weights="category").table
    got = res.cost_comparison.table
    assert res.cost_comparison.settings.weights == "category"
    assert got["tasks"].iloc[0] == want["tasks"].iloc[0] == runs["task_id"].nunique() - 1
    for col in ("base_value", "cand_value", "ratio", "ratio_lower", "ratio_upper"):
        assert got[col].to_numpy() == pytest.approx(want[col].to_numpy(), rel=1e-12), col


@pytest.mark.parametrize(
    ("change", "options"),
    [
        ("one_system", {}),
        ("no_cost", {}),
        ("keep", {"ci": None}),
        ("keep", {"cost": False}),
    ],
)
def test_absent(change: str, options: dict) -> None:  # type: ignore[type-arg]
    runs = pd.read_csv(EXTRAS_CSV)
    if change == "one_system":
        runs = runs[runs["system"] == runs["system"].iloc[0]]
    elif change == "no_cost":
        runs = runs.drop(columns="cost")
    res = results_of(ph.Trials.from_frame(runs.reset_index(drop=True)), k=[1], **ONLY_COST,
                     **options)  # fmt: skip
    assert res.cost_comparison is None and cost_comparison_section(res) is None


def test_a_comparison_that_cannot_be_made_is_said() -> None:
    """The candidate's runs all without a cost: the cost section is left out (said there),
    and so is the comparison."""
    runs = pd.read_csv(EXTRAS_CSV)
    second = runs["system"].unique()[1]
    runs.loc[runs["system"] == second, "cost"] = float("nan")
    res = results_of(ph.Trials.from_frame(runs), k=[1], **ONLY_COST)
    from passhat.report.sections.cost import cost_section

    assert res.cost is None and cost_section(res).status == "skipped"  # type: ignore[union-attr]
    assert res.cost_comparison is None and cost_comparison_section(res) is None


def test_a_failed_comparison_is_a_skipped_section_with_its_reason() -> None:
    """A comparison that raised (kept as its message) is shown as skipped, not dropped."""
    import dataclasses

    res = results_of(ph.read(EXTRAS_CSV), k=[1], **ONLY_COST)
    failed = dataclasses.replace(res, cost_comparison="no matched task with a cost for both")
    sec = cost_comparison_section(failed)
    assert sec is not None and sec.status == "skipped"
    assert sec.note == "Not shown: no matched task with a cost for both."
