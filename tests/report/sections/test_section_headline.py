"""passhat.report.sections.headline: the headline rows are the estimator's numbers.

Oracle: passhat.estimate (the same values; intervals of both scopes around them).
"""

from __future__ import annotations

import json

import pytest

import passhat as ph
from passhat.report.sections.headline import headline_section


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
    est = ph.estimate(ph.load_example("abcd"), k=[1, 2, 3])
    sec = headline_section(est, ks=[1, 2, 3], ci=None, model_rows=None)
    got = [(r["metric"], r["k"]) for r in sec.tables[0].rows]
    assert got == [("mean", None), ("pass@k", 2), ("pass^k", 2), ("pass@k", 3), ("pass^k", 3)]
    # no intervals: no interval columns, and the sentence names pass^3 without one
    assert [c.key for c in sec.tables[0].columns] == ["system", "metric", "k", "value"]
    assert f"pass^3 = {est.value('pass_hat_k', 3):.1%}, the share" in sec.sentences[0]
