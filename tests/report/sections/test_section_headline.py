"""passhat.report.sections.headline: the headline rows are the estimator's numbers.

Oracle: passhat.estimate (the same values; intervals of both scopes around them).
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from report_testdata import results_of

import passhat as ph
from passhat.report.sections.headline import headline_section


def _section(data, k, **options):  # type: ignore[no-untyped-def]
    """The headline section of the report's results, and the report's estimate."""
    res = results_of(data, k=k, **options)
    return headline_section(res), res.estimate


def test_results_json_numbers_match_estimators(example_report) -> None:
    doc = json.loads(example_report.paths.json.read_text(encoding="utf-8"))
    est = ph.estimate(ph.load_example("agents"), k=[1, 2, 5])
    head = next(s for s in doc["sections"] if s["id"] == "headline")
    rows = head["tables"][0]["rows"]
    for r in rows:
        metric = {"mean": "mean", "pass@k": "pass_at_k", "pass^k": "pass_hat_k"}[r["metric"]]
        expect = est.value(metric, r["k"] or 1, system=r["system"])
        assert r["value"] == pytest.approx(expect, abs=1e-11)
        # every interval has both scopes, and the table note names both methods
        assert r["benchmark_lower"] <= r["value"] <= r["benchmark_upper"]
        assert r["population_lower"] <= r["value"] <= r["population_upper"]
    note = head["tables"][0]["note"]
    assert "Benchmark scope:" in note and "Population scope:" in note and "bootstrap" in note


def test_mean_once_and_pass_metrics_only_above_k_1() -> None:
    sec, est = _section(ph.load_example("abcd"), [1, 2, 3], ci=None)
    got = [(r["metric"], r["k"]) for r in sec.tables[0].rows]
    assert got == [("mean", None), ("pass@k", 2), ("pass^k", 2), ("pass@k", 3), ("pass^k", 3)]
    # no intervals: no interval columns, and the sentence names pass^3 without one
    assert [c.key for c in sec.tables[0].columns] == ["system", "metric", "k", "value"]
    assert f"pass^3 = {est.value('pass_hat_k', 3):.1%}, the chance" in sec.sentences[0]


def test_sentences_carry_the_estimates_and_intervals() -> None:
    sec, est = _section(ph.load_example("agents"), [1, 4], ci=0.9, n_boot=300, seed=1)
    oracle = ph.estimate(ph.load_example("agents"), k=[1, 4], ci=0.9, n_boot=300, seed=1,
                         matched=True, predictive=168)  # fmt: skip
    pd.testing.assert_frame_equal(est.table, oracle.table)
    t = est.table
    wide = est.wide().set_index(["system", "k"])
    for i, system in enumerate(("baseline", "guided")):
        s = sec.sentences[i]
        w = wide.loc[(system, 4)]
        pop = t[
            (t["system"] == system)
            & (t["k"] == 4)
            & (t["metric"] == "pass_hat_k")
            & (t["scope"] == "population")
        ].iloc[0]
        assert s.startswith(f"{system}: mean success {w['mean']:.1%} per run")
        assert f"pass^4 = {w['pass_hat_k']:.1%}" in s
        lo, hi = pop["lower"], pop["upper"]
        assert f"(90% interval for the expected value over tasks like these {lo:.1%}–{hi:.1%})" in s
        assert f"pass@4 = {w['pass_at_k']:.1%}" in s
        # pass^k is a chance averaged over tasks, not "the share of tasks whose runs all pass"
        assert "the chance that 4 runs of a task all pass, averaged over the tasks" in s
        assert "the share of tasks whose" not in s
    assert "so it also covers which tasks were drawn" in sec.sentences[2]


def test_sentence_with_n_above_k_is_not_the_observed_all_pass_share() -> None:
    # 2 tasks × 4 runs with 3/4 and 4/4: pass^2 = (C(3,2)/C(4,2) + 1)/2 = 0.75, while the share
    # of tasks whose observed runs all pass is 0.5; the sentence gives 0.75 as a chance
    sec, _ = _section(ph.counts_from_arrays([4, 4], [3, 4]), [1, 2], ci=None)
    assert "pass^2 = 75.0%, the chance that 2 runs of a task all pass" in sec.sentences[0]


def test_an_estimate_outside_its_interval_is_named_and_explained() -> None:
    """10 tasks × 5 runs, none passing all 5: the unbiased pass^5 is 0, while the intervals of
    fewer than 30 tasks come from the hierarchical posterior, which keeps pass^5 above 0. The
    section names the row and the scopes, and says why (oracle: the interval lookup itself)."""
    c = [1, 2, 3, 4, 2, 3, 4, 1, 3, 2]
    data = ph.counts_from_arrays([5] * 10, c, system="B")
    sec, _ = _section(data, [1, 5], ci=0.95, n_boot=300, seed=0)
    row = next(r for r in sec.tables[0].rows if r["metric"] == "pass^k")
    assert row["value"] == 0.0
    scopes = ("benchmark", "population", "predictive")  # the report adds the predictive one
    missed = [s for s in scopes if row[f"{s}_lower"] > 0]
    assert missed  # the premise: the posterior interval leaves 0 out
    said = next(s for s in sec.sentences if s.startswith("The estimate lies outside"))
    assert f"B pass^k (k = 5): {', '.join(missed)} scope" in said
    assert "pulls each task's rate toward the others" in said
    # the agents example: every estimate inside its intervals, no such sentence
    quiet, _ = _section(ph.load_example("agents"), [1, 4], ci=0.95, n_boot=300, seed=1)
    assert not any(s.startswith("The estimate lies outside") for s in quiet.sentences)


def test_sentences_at_k_one_read_in_the_singular() -> None:
    """Before: "the chance that 1 runs of a task all pass ... at least one of 1 runs passes"."""
    sec, _ = _section(ph.load_example("abcd"), [1], ci=None)
    text = " ".join(sec.sentences)
    assert "the chance that a run of a task passes" in text and "1 runs" not in text
