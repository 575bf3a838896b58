"""passhat.report.sections.scores: the partial-credit section is the estimate's score rows.

Oracle: ``passhat estimate FILE --scores --json`` on the same file with the same k, level,
resamples and seed (its ``estimates`` rows and ``curve``); the section is absent without a
score column, and without partial credit (0/1 scores) unless asked for.
"""

from __future__ import annotations

import pandas as pd
import pytest
from report_testdata import EXTRAS_CSV, EXTRAS_K, results_of

import passhat as ph
from passhat.errors import ValidationError
from passhat.report.sections.scores import scores_section

LABELS = {"mean score": "mean_score", "best of k": "best_of_k", "worst of k": "worst_of_k"}


def _oracle_rows(oracle: dict, scope: str) -> dict:  # type: ignore[type-arg]
    return {
        (r["system"], r["metric"], r["k"]): r
        for r in oracle["estimates"]
        if r["scope"] == scope and r["metric"] in LABELS.values()
    }


def test_score_rows_are_estimates_with_both_scopes(extras_results, extras_oracle) -> None:
    sec = scores_section(extras_results)
    assert sec is not None and sec.status == "ok"
    rows = sec.tables[0].rows
    # the mean score once per system, best / worst of k for k > 1
    assert len(rows) == 2 * (1 + 2 * 2)
    for scope in ("benchmark", "population"):
        want = _oracle_rows(extras_oracle, scope)
        for r in rows:
            metric = LABELS[r["metric"]]
            w = want[(r["system"], metric, r["k"] if r["k"] is not None else EXTRAS_K[0])]
            assert r["value"] == pytest.approx(w["value"], abs=1e-12)
            assert r[f"{scope}_lower"] == pytest.approx(w["lower"], abs=1e-12)
            assert r[f"{scope}_upper"] == pytest.approx(w["upper"], abs=1e-12)


def test_threshold_curve_table_is_the_estimate_curve(extras_results, extras_oracle) -> None:
    table = scores_section(extras_results).tables[1]
    want = pd.DataFrame(extras_oracle["curve"])
    assert len(table.rows) == want[["system", "threshold"]].drop_duplicates().shape[0]
    for r in table.rows:
        part = want[(want["system"] == r["system"]) & (want["threshold"] == r["threshold"])]
        for w in part.to_dict(orient="records"):
            assert r[f"pass_hat_{w['k']}"] == pytest.approx(w["pass_hat_k"], abs=1e-12)
            assert r[f"pass_at_{w['k']}"] == pytest.approx(w["pass_at_k"], abs=1e-12)
    # success = score >= 0.5 in the fixture: the curve at t = 0.5 is the headline's pass^k
    est = extras_results.estimate
    at_half = [r for r in table.rows if r["threshold"] == 0.5]
    for r in at_half:
        assert r["pass_hat_5"] == pytest.approx(est.value("pass_hat_k", 5, r["system"]), abs=1e-12)


def test_sentences_name_worst_of_k_and_the_cluster_caveat(extras_results) -> None:
    sec = scores_section(extras_results)
    worst = extras_results.estimate.value("worst_of_k", 5, "plain")
    assert any(s.startswith("plain:") and f"{worst:.3f}" in s for s in sec.sentences)
    assert any("treat the tasks as independent" in s for s in sec.sentences)
    assert sec.figures == ["threshold_curve"]


#: One system, the other data-driven sections off: each report here takes ~0.3 s.
ONLY_SCORES = {"k": [1, 2], "by": False, "cost": False}


def _plain() -> pd.DataFrame:
    runs = pd.read_csv(EXTRAS_CSV)
    return runs[runs["system"] == "plain"].reset_index(drop=True)


def test_absent_without_a_score_column() -> None:
    data = ph.Trials.from_frame(_plain().drop(columns="score"))
    assert scores_section(results_of(data, **ONLY_SCORES)) is None


def test_absent_when_turned_off() -> None:
    assert (
        scores_section(results_of(ph.Trials.from_frame(_plain()), **ONLY_SCORES, scores=False))
        is None
    )


def test_zero_one_scores_only_when_asked() -> None:
    runs = _plain()
    zero_one = ph.Trials.from_frame(runs.assign(score=runs["success"].astype(float)))
    assert scores_section(results_of(zero_one, **ONLY_SCORES)) is None  # would repeat the headline
    asked = scores_section(results_of(zero_one, **ONLY_SCORES, scores=[0.5, 1.0]))
    assert asked is not None and asked.status == "ok"
    assert sorted({r["threshold"] for r in asked.tables[1].rows}) == [0.5, 1.0]


def test_an_unusable_detected_score_column_is_said_and_an_asked_one_refused() -> None:
    runs = _plain()
    runs.loc[3, "score"] = 1.5
    data = ph.Trials.from_frame(runs)
    sec = scores_section(results_of(data, **ONLY_SCORES))
    assert sec is not None and sec.status == "skipped"
    assert "outside [0, 1]" in sec.note and "task_00" in sec.note
    with pytest.raises(ValidationError, match="outside"):
        results_of(data, **ONLY_SCORES, scores=True)
