"""passhat.report.sections.summary: the one-screen summary repeats the sections, never recomputes.

Oracles: the sections' own table cells and sentences (every number and line of the summary
must be found there, verbatim), on the two-system example, on τ-bench airline with the model
and its traces, and on a fit that fails its diagnostics.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from report_testdata import malicious_trials, results_of

import passhat as ph
from passhat.report.build import build_report_data
from passhat.report.document import ReportData
from passhat.report.sections.summary import summary_section

FAST = {"n_boot": 200, "seed": 0}


def _rows(rd: ReportData, table_id: str) -> list[dict]:
    return next(t.rows for s in rd.sections for t in s.tables if t.id == table_id)


def _check_numbers(rd: ReportData, kmax: int) -> None:
    summary = rd.section("summary").tables[0]
    head = _rows(rd, "headline")
    spread = _rows(rd, "spread")
    shares = {r["system"]: r for r in _rows(rd, "spread_shares")}
    data = {r["system"]: r for r in _rows(rd, "data_systems")}
    assert [r["system"] for r in summary.rows] == list(data)
    for row in summary.rows:
        system = row["system"]
        for key, metric, k in (
            ("mean", "mean", None),
            ("pass_hat_k", "pass^k", kmax),
            ("pass_at_k", "pass@k", kmax),
        ):
            h = next(
                r for r in head if r["system"] == system and r["metric"] == metric and r["k"] == k
            )
            assert row[key] == h["value"]
            assert (row[f"{key}_lower"], row[f"{key}_upper"]) == (
                h.get("population_lower"),
                h.get("population_upper"),
            )
        s = next(r for r in spread if r["system"] == system and r["k"] == kmax)
        assert row["uniform"] == s["uniform"]
        for key in ("always_pass", "flaky", "always_fail"):
            assert row[key] == shares[system][key]
        assert row["unscored"] == data[system]["unscored"]


def _check_sentences_are_copied(rd: ReportData) -> None:
    others = [s for s in rd.sections if s.id != "summary"]
    said = {line for s in others for line in s.sentences}
    warnings = {f"Warning: {s.title}: {s.note}" for s in others if s.status == "failed"}
    for line in rd.section("summary").sentences:
        assert line in said or line in warnings, line


def test_two_systems_numbers_and_lines_come_from_the_sections() -> None:
    rd = build_report_data(ph.load_example("agents"), k=[1, 2, 5], model=False, **FAST)
    assert rd.sections[0].id == "summary"
    _check_numbers(rd, 5)
    _check_sentences_are_copied(rd)
    lines = rd.section("summary").sentences
    assert lines[0] == rd.section("data").sentences[0]
    # the paired comparison at the largest k, then each system's spread reading
    assert lines[1].startswith("guided − baseline: pass^5")
    assert lines[1] in rd.section("headline").sentences
    spread_lines = rd.section("spread").sentences
    assert lines[2:4] == [
        next(s for s in spread_lines if s.startswith("baseline: ")),
        next(s for s in spread_lines if s.startswith("guided: ")),
    ]
    labels = [c.label for c in rd.section("summary").tables[0].columns]
    assert labels[:3] == [
        "System",
        "Mean success (95% interval)",
        "pass^5: all 5 runs pass (95% interval)",
    ]


def test_tau_bench_with_model_and_traces(tau_airline_path: Path) -> None:
    trials = ph.read_trials(tau_airline_path)
    traces = ph.read_traces(tau_airline_path)  # the model without its comparison (NUTS)
    rd = build_report_data(trials, k=[1, 2, 3, 4], traces=traces, compare_models=False, **FAST)
    _check_numbers(rd, 4)
    _check_sentences_are_copied(rd)
    row = rd.section("summary").tables[0].rows[0]
    # τ-bench's published pass^4 = 0.200 (leaderboard), 14 always-failing tasks of 50
    assert round(row["pass_hat_k"], 3) == 0.200 and row["always_fail"] == 14
    assert rd.section("summary").sentences[-1].startswith("The most frequent divergence point")


def test_a_failed_model_is_a_warning_in_the_summary(tmp_path: Path) -> None:
    trials = malicious_trials()
    fit = ph.fit(trials, method="grid", seed=0, chains=2, draws=40, k=[1, 5])  # ESS too low
    rd = build_report_data(trials, k=[1, 5], model=fit, plan=False, **FAST)
    warning = [s for s in rd.section("summary").sentences if s.startswith("Warning: 4. Model:")]
    assert warning == [f"Warning: 4. Model: {rd.section('model').note}"]
    _check_sentences_are_copied(rd)


def test_without_intervals_or_k_above_one() -> None:
    rd = build_report_data(ph.load_example("abcd"), k=[1], ci=None, model=False, plan=False)
    table = rd.section("summary").tables[0]
    assert [c.key for c in table.columns] == [
        "system",
        "mean",
        "always_pass",
        "flaky",
        "always_fail",
        "unscored",
    ]
    assert table.caption == "Key numbers at k = 1"
    assert table.rows[0]["mean_lower"] is None


@pytest.mark.parametrize("ids", [[], ["data"]])
def test_missing_sections_leave_gaps_not_errors(ids: list[str]) -> None:
    res = results_of(ph.load_example("abcd"), k=[1, 2])
    rd = build_report_data(ph.load_example("abcd"), k=[1, 2], model=False, plan=False, n_boot=200)
    sections = [s for s in rd.sections if s.id in ids]
    sec = summary_section(sections, res)
    assert sec.tables[0].rows == []
    assert sec.sentences == ([rd.section("data").sentences[0]] if ids else [])
