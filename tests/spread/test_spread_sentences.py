"""passhat.spread.sentences: every sentence checked against the numbers it summarises.

Oracles: the row's own numbers (formatted the way the sentence formats them), the
heterogeneity test's decision, counts by hand on τ-bench's gpt-4o airline file (116 failing
runs, 56 of them in always-fail tasks), and simulation: on homogeneous data the sentence
claims clustering in ≤ α of replicates (+ Monte Carlo error).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat._format import fmt_ratio
from passhat.spread import CLUSTERED, SpreadRow, compare_consistency, describe_row
from passhat.spread.sentences import describe_parts


def _row(**over: Any) -> SpreadRow:
    row: dict[str, Any] = {
        "k": 5,
        "mean": 0.42,
        "pass_hat_k": 0.2,
        "uniform": 0.42**5,
        "ratio": 0.2 / 0.42**5,
        "gap": 0.22,
        "flaky_share": 0.52,
        "tasks_for_80": 0.36,
        "tasks_for_80_model": 0.51,
        "tasks_for_80_model_lower": 0.41,
        "tasks_for_80_model_upper": 0.61,
        "ratio_lower": 2.9,
        "ratio_upper": 9.9,
        "failures_always_fail_share": 56 / 116,
        "failures_flaky_share": 60 / 116,
        "p_value": 0.0005,
        "clustered": True,
        "testable": True,
        "test_reason": "",
    }
    row.update(over)
    return SpreadRow(**row)


def test_clustered_row_carries_its_numbers() -> None:
    r = _row()
    text = describe_row(r)
    head = f"pass^5 is {fmt_ratio(r.ratio)}× what a uniform spread would give ({r.uniform:.1%})"
    assert head in text
    assert "for tasks like these the ratio lies in 2.9–9.9" in text
    assert f"{CLUSTERED} (Tarone's test, p = 0.0005)" in text
    assert "52% of tasks have both outcomes and carry the whole 22.0-point gap" in text
    assert "in this sample 36% of tasks carry 80% of it" in text
    assert "puts the share of tasks like these that carry 80% at 51% (41%–61%)" in text
    # the failing runs are told apart from the gap: 52% in flaky tasks, 48% in always-fail ones
    assert "Of the failing runs, 52% are in tasks with both outcomes and 48% in tasks that " in text
    assert "concentrate" not in text


def test_not_rejected_says_the_data_do_not_show_it() -> None:
    text = describe_row(_row(clustered=False, p_value=0.31, ratio=1.3, ratio_lower=1.0))
    assert "the data do not show failures clustered beyond" in text and "p = 0.31" in text
    assert f"; {CLUSTERED}" not in text  # never the bare claim
    assert "1.0–9.9" in text


def test_untestable_says_why() -> None:
    text = describe_row(_row(clustered=False, testable=False, test_reason="every run passed"))
    assert "whether failures cluster cannot be tested (every run passed)" in text
    assert CLUSTERED not in text


def test_row_without_a_test_makes_no_claim() -> None:
    r = _row(clustered=None, p_value=math.nan, testable=None, ratio_lower=None, ratio_upper=None)
    text = describe_row(r)
    assert CLUSTERED not in text and "Tarone" not in text and "ratio lies in" not in text


def test_sample_ratio_below_one() -> None:
    # not rejected: the sample ratio below 1 is read as no sign of clustering
    text = describe_row(_row(ratio=0.83, clustered=False, p_value=0.9))
    assert f"{fmt_ratio(0.83)}× what a uniform spread would give" in text
    assert "no sign that failures cluster" in text
    # rejected (the test sees a spread the sample ratio does not): no contradiction
    text = describe_row(_row(ratio=0.98, clustered=True, p_value=0.01))
    assert "no sign" not in text and CLUSTERED in text


def test_ratio_near_one_and_undefined() -> None:
    assert "matches a uniform spread" in describe_row(_row(ratio=1.0, clustered=False))
    text = describe_row(_row(ratio=math.nan, mean=0.0, uniform=0.0, pass_hat_k=0.0, gap=0.0))
    assert "nan" not in text and "∞" not in text and "no gap" in text


def test_no_gap_and_k_one() -> None:
    text = describe_row(_row(gap=0.0, flaky_share=0.0))
    assert text.endswith("Every task's runs agree, so there is no gap between mean and pass^k.")
    assert describe_row(SpreadRow(k=1, mean=0.42)).startswith("At k = 1, pass^1 equals the mean")


def test_tau_bench_sentence_tells_gap_from_failures(tau_airline_path) -> None:
    """Issue 12: "failures concentrate in 52% of tasks (the flaky ones)" was wrong on τ-bench,
    where 56 of the 116 failing runs are in tasks that always fail."""
    data = ph.read(tau_airline_path)
    sp = ph.spread(data, k=[1, 4], seed=0)
    counts = data.counts()
    n, c = counts["n"].values[0], counts["c"].values[0]
    assert int((n - c).sum()) == 116 and int(n[c == 0].sum()) == 56
    text = sp.sentence(str(counts["system"].values[0]), 4)
    assert "concentrate" not in text
    assert f"{60 / 116:.0%} are in tasks with both outcomes and {56 / 116:.0%} in tasks" in text
    assert "52% of tasks have both outcomes and carry the whole" in text


@pytest.mark.integration  # Monte-Carlo check
def test_homogeneous_data_rarely_claim_clustering() -> None:
    """30 tasks × 5 runs at one rate 0.7 (the issue's case): the sentence claims clustering
    in ≤ α of replicates (+ Monte Carlo error), end to end through passhat.spread."""
    rng = np.random.default_rng(21)
    reps, claims = 100, 0
    for i in range(reps):
        counts = ph.counts_from_arrays(np.full(30, 5), rng.binomial(5, 0.7, size=30))
        sp = ph.spread(counts, k=5, n_boot=199, seed=i)
        claims += CLUSTERED in sp.sentence("system", 5).replace(
            "do not show failures clustered", ""
        )
    assert claims / reps <= 0.05 + 2.33 * math.sqrt(0.05 * 0.95 / reps)


@pytest.mark.integration  # Monte-Carlo check
def test_clustered_data_do_claim_clustering() -> None:
    rng = np.random.default_rng(22)
    reps, claims = 30, 0
    for i in range(reps):
        p = rng.beta(1.4, 0.6, size=30)  # μ = 0.7, κ = 2
        counts = ph.counts_from_arrays(np.full(30, 5), rng.binomial(5, p))
        claims += f"; {CLUSTERED}" in ph.spread(counts, k=5, n_boot=199, seed=i).sentence(
            "system", 5
        )
    assert claims / reps >= 0.9


# ------------------------------------------------------------ compare_consistency
def _table(**cols: list[Any]) -> list[SpreadRow]:
    base: dict[str, list[Any]] = {"system": ["a", "b"], "k": [4, 4]}
    base.update(cols)
    return [SpreadRow(**r) for r in pd.DataFrame(base).to_dict(orient="records")]


def test_consistency_separated_by_intervals() -> None:
    t = _table(
        consistency=[0.8, 0.5],
        consistency_lower=[0.7, 0.4],
        consistency_upper=[0.9, 0.6],
        pass_hat_k=[0.3, 0.2],
    )
    s = compare_consistency(t, 4)
    assert "a 0.80, b 0.50" in s
    assert "a keeps more of its per-run success than b (their intervals do not overlap)" in s
    assert "passes more" not in s  # a also has the higher pass^4: nothing to warn about


def test_consistency_not_separable_and_other_system_passes_more() -> None:
    """Issue 12: "the most consistent system at k = 4 is X (0.72)" while the other system had
    the higher pass^4 and the data did not settle which is better."""
    t = _table(
        consistency=[0.72, 0.65],
        consistency_lower=[0.5, 0.45],
        consistency_upper=[0.9, 0.8],
        pass_hat_k=[0.25, 0.30],
    )
    s = compare_consistency(t, 4)
    assert "most consistent" not in s
    assert "the intervals of a and b overlap, so these data do not rank their consistency" in s
    assert "b has the higher pass^4 (30.0% vs 25.0%)" in s


def test_consistency_tie_and_no_intervals() -> None:
    tie = compare_consistency(_table(consistency=[0.701, 0.699], pass_hat_k=[0.3, 0.3]), 4)
    assert "a and b are level" in tie and "passes more" not in tie
    plain = compare_consistency(_table(consistency=[0.6, 0.7], pass_hat_k=[0.3, 0.2]), 4)
    assert "b 0.70, a 0.60" in plain and "b's is higher in this sample (no intervals" in plain
    assert "a has the higher pass^4 (30.0% vs 20.0%)" in plain
    # equal pass^k: no "passes more" remark
    same = compare_consistency(_table(consistency=[0.6, 0.7], pass_hat_k=[0.3, 0.3]), 4)
    assert "passes more" not in same
    # one system with a defined consistency: nothing to compare
    assert compare_consistency(_table(consistency=[0.6, math.nan], pass_hat_k=[0.3, 0.0]), 4) == ""


def test_consistency_sentence_from_spread(agents_trials) -> None:
    sp = ph.spread(agents_trials, k=[1, 5], ci=0.9, n_boot=300, seed=0)
    s = sp.consistency_sentence(5)
    assert s == compare_consistency(sp.rows, 5)
    rows = sp.table[sp.table["k"] == 5].set_index("system")
    for system, r in rows.iterrows():
        assert f"{system} {r['consistency']:.2f}" in s
    lo = rows["consistency_lower"]
    hi = rows["consistency_upper"]
    top = rows["consistency"].idxmax()
    other = rows.index[rows.index != top][0]
    separated = lo[top] > hi[other]
    assert ("do not overlap" in s) == separated and ("do not rank" in s) == (not separated)


def test_a_measured_ratio_outside_its_interval_says_why() -> None:
    """Before: "pass^5 is 0.0× ...; for tasks like these the ratio lies in 1.0–508", the
    measured ratio outside its interval without a word (one task with 3 of 5 runs passing)."""
    text = describe_row(_row(ratio=0.0, pass_hat_k=0.0, ratio_lower=1.0, ratio_upper=508.0))
    assert "ratio lies in 1.0–508 (the measured ratio, of these runs, lies outside" in text
    assert "cannot fall below 1" in text
    above = describe_row(_row(ratio=12.0, ratio_lower=2.9, ratio_upper=9.9))
    assert "(the measured ratio, of these runs, lies outside it)" in above
    assert "below 1" not in above
    inside = describe_row(_row(ratio=5.0))
    assert "outside" not in inside


def test_no_sign_of_clustering_is_not_claimed_when_the_test_cannot_run() -> None:
    """One task: the sample ratio can be below 1, but whether failures cluster cannot be
    tested, so the sentence must not also say there is 'no sign' of it."""
    row = SpreadRow(
        k=5,
        mean=0.7,
        pass_hat_k=0.083,
        uniform=0.168,
        ratio=0.5,
        gap=0.617,
        flaky_share=1.0,
        tasks_for_80=1.0,
        clustered=False,
        testable=False,
        test_reason="fewer than two tasks with decided runs",
    )
    first = describe_parts(row)[0]
    assert "cannot be tested" in first and "no sign" not in first
    tested = replace(row, testable=True, p_value=0.6)
    assert "no sign that failures cluster" in describe_parts(tested)[0]
