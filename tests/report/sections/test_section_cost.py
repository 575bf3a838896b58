"""passhat.report.sections.cost: the cost section is the estimate's cost result.

Oracle: ``passhat estimate FILE --cost --json`` on the same file with the same k, level,
resamples and seed (its ``cost`` rows); absent without a cost column.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
from report_testdata import EXTRAS_CSV, results_of

import passhat as ph
from passhat.errors import ValidationError
from passhat.report.sections.cost import cost_section


def test_rows_are_the_cost_result(extras_results, extras_oracle) -> None:
    sec = cost_section(extras_results)
    assert sec is not None and sec.status == "ok"
    rows = sec.tables[0].rows
    want = extras_oracle["cost"]
    assert len(rows) == len(want) == 2 * 3
    for r, w in zip(rows, want, strict=True):
        assert (r["system"], r["k"]) == (w["system"], w["k"])
        for key, value in w.items():
            if isinstance(value, float):
                assert r[key] == pytest.approx(value, rel=1e-11), key  # JSON: 12 digits
    # pass^k per unit cost and its interval: the inverse of cost per all-k-pass and its ends
    for r in rows:
        assert r["pass_hat_k_per_cost"] == pytest.approx(1 / r["cost_per_all_k_pass"])
        assert r["pass_hat_k_per_cost_lower"] == pytest.approx(1 / r["cost_per_all_k_pass_upper"])
        assert r["pass_hat_k_per_cost_upper"] == pytest.approx(1 / r["cost_per_all_k_pass_lower"])


def test_cost_by_hand_on_the_fixture(extras_results) -> None:
    """Cost per run by hand (each task's mean cost per run, averaged over tasks)."""
    runs = pd.read_csv(EXTRAS_CSV)
    plain = runs[runs["system"] == "plain"]
    per_run = plain.groupby("task_id")["cost"].mean().mean()
    row = next(r for r in cost_section(extras_results).tables[0].rows if r["system"] == "plain")
    assert row["cost_per_run"] == pytest.approx(per_run, rel=1e-12)
    assert row["total_cost"] == pytest.approx(plain["cost"].sum(), rel=1e-12)
    mean = extras_results.estimate.value("mean", 1, "plain")
    assert row["cost_per_success"] == pytest.approx(per_run / mean, rel=1e-12)


#: One system, the other data-driven sections off: each report here takes ~0.3 s.
ONLY_COST = {"k": [1], "scores": False, "by": False}


def _plain() -> pd.DataFrame:
    runs = pd.read_csv(EXTRAS_CSV)
    return runs[runs["system"] == "plain"].reset_index(drop=True)


def test_absent_without_a_cost_column() -> None:
    data = ph.Trials.from_frame(_plain().drop(columns="cost"))
    assert cost_section(results_of(data, **ONLY_COST)) is None


def test_absent_when_turned_off() -> None:
    data = ph.Trials.from_frame(_plain())
    assert cost_section(results_of(data, **ONLY_COST, cost=False)) is None


def test_a_detected_missing_cost_is_said_and_an_asked_one_refused() -> None:
    runs = _plain()
    runs.loc[7, "cost"] = math.nan
    data = ph.Trials.from_frame(runs)
    sec = cost_section(results_of(data, **ONLY_COST))
    assert sec is not None and sec.status == "skipped" and "no cost" in sec.note
    assert "task_01" in sec.note  # the first run without a cost, by name
    with pytest.raises(ValidationError, match="no cost"):
        results_of(data, **ONLY_COST, cost=True)


# ------------------------------------------------------------------ cost_of="duration"
def _with_duration() -> ph.Trials:
    """The fixture's two systems with duration_s := 100 × cost + 3 (seconds) and the cost
    column kept: the sections must read the durations, not the costs."""
    runs = pd.read_csv(EXTRAS_CSV)
    runs["duration_s"] = 100 * runs["cost"] + 3
    return ph.Trials.from_frame(runs)


def _words(sec) -> str:  # type: ignore[no-untyped-def]
    t = sec.tables[0]
    return " ".join([sec.title, *sec.sentences, t.caption, t.note or "",
                     *[c.label for c in t.columns]])  # fmt: skip


def test_duration_sections_are_the_duration_results() -> None:
    """Oracle: estimate(...).with_cost_of("duration") and compare_cost(cost_of="duration") on
    the same tasks; the wording says duration and seconds, never cost."""
    from passhat.report.sections.cost_comparison import cost_comparison_section

    data = _with_duration()
    res = results_of(data, k=[1, 2], scores=False, by=False, cost_of="duration", ci=0.9)
    sec = cost_section(res)
    assert sec is not None and sec.status == "ok" and sec.title == "Duration"
    want = ph.estimate(data, k=[1, 2], matched=True).with_cost_of("duration").cost
    assert want is not None
    got = [r["cost_per_success"] for r in sec.tables[0].rows]
    assert got == pytest.approx(want.table["cost_per_success"].tolist(), rel=1e-12)
    words = _words(sec)
    assert "cost" not in words.lower() and "seconds" in words and "Duration per success" in words
    cmp = cost_comparison_section(res)
    assert cmp is not None and cmp.status == "ok" and cmp.title == "Duration comparison"
    words = _words(cmp)
    assert "cost" not in words.lower().replace("compare_cost_coverage", "")
    assert res.cost_comparison.settings.cost_of == "duration"  # type: ignore[union-attr]


def test_durations_are_never_shown_by_default() -> None:
    """Runs with durations and no cost: no section unless cost_of="duration" asks."""
    runs = _with_duration().frame.drop(columns="cost")
    data = ph.Trials.from_frame(runs[runs["system"] == "plain"].reset_index(drop=True))
    assert cost_section(results_of(data, **ONLY_COST)) is None
    sec = cost_section(results_of(data, **ONLY_COST, cost_of="duration"))
    assert sec is not None and sec.title == "Duration"
