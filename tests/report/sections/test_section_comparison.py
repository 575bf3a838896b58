"""passhat.report.sections.comparison: the headline's paired comparison is passhat.compare's.

Oracle: passhat.compare on the same data, seed and options (population scope): the report's
comparison is computed once with the report's seed, and the section shows it.
"""

from __future__ import annotations

import pandas as pd
import pytest
from report_testdata import results_of

import passhat as ph
from passhat._format import p_clause
from passhat.report.sections.comparison import comparison_sentence, comparison_table


def _table(data, ks, **opts):  # type: ignore[no-untyped-def]
    return comparison_table(results_of(data, k=ks, **opts))


def test_rows_are_the_population_rows_of_compare() -> None:
    data = ph.load_example("agents")
    opts = {"ci": 0.9, "seed": 4, "n_boot": 300}
    table, sentences = _table(data, [1, 2, 5], baseline="guided", **opts)
    cmp = ph.compare(data, k=[1, 2, 5], intersect=True, baseline="guided", **opts).table
    pop = cmp[cmp["scope"] == "population"]
    got = [(r["metric"], r["k"]) for r in table.rows]
    # the mean once (it does not depend on k); pass@k and pass^k only for k > 1
    assert got == [("mean", None), ("pass@k", 2), ("pass^k", 2), ("pass@k", 5), ("pass^k", 5)]
    for r in table.rows:
        metric = {"mean": "mean", "pass@k": "pass_at_k", "pass^k": "pass_hat_k"}[r["metric"]]
        want = pop[(pop["metric"] == metric) & (pop["k"] == (r["k"] or 1))].iloc[0]
        assert (r["baseline"], r["candidate"]) == ("guided", "baseline")
        assert r["difference"] == want["difference"]
        assert (r["diff_lower"], r["diff_upper"]) == (want["lower"], want["upper"])
    assert len(sentences) == 1 and sentences[0].startswith("baseline − guided: pass^5 differs by")
    assert any(c.label == "90% interval" for c in table.columns)


def test_sentence_verdict_follows_the_interval() -> None:
    data = ph.load_example("agents")
    table, sentences = _table(data, [1, 5], ci=0.9, seed=4, n_boot=300, baseline="baseline")
    r = next(r for r in table.rows if r["metric"] == "pass^k" and r["k"] == 5)
    s = sentences[0]
    assert f"pass^5 differs by {r['difference'] * 100:+.1f} points" in s
    assert f"90% interval {r['diff_lower'] * 100:+.1f} to {r['diff_upper'] * 100:+.1f}" in s
    assert p_clause(r["p_value"]) in s  # the one p-value format (CLI and report)
    if r["diff_lower"] > 0:
        assert s.endswith("the interval excludes zero: guided has the higher pass^5.")
    elif r["diff_upper"] < 0:
        assert s.endswith("the interval excludes zero: baseline has the higher pass^5.")
    else:
        assert s.endswith("the data do not settle which is better.")


@pytest.mark.parametrize(
    ("diff", "lo", "hi", "ends"),
    [
        (0.05, 0.01, 0.09, "the interval excludes zero: b has the higher pass^4."),
        (-0.05, -0.09, -0.01, "the interval excludes zero: a has the higher pass^4."),
        (
            0.05,
            -0.02,
            0.12,
            "the interval includes zero, so the data do not settle which is better.",
        ),
        (
            0.0,
            -0.03,
            0.03,
            "the interval includes zero, so the data do not settle which is better.",
        ),
        (0.02, None, None, "the data do not settle which is better."),
    ],
    ids=["higher", "lower", "not-separable", "tie", "no-interval"],
)
def test_sentence_cases(diff, lo, hi, ends) -> None:
    row = {
        "candidate": "b",
        "baseline": "a",
        "difference": diff,
        "diff_lower": lo,
        "diff_upper": hi,
        "p_value": 0.5,
    }
    s = comparison_sentence(row, k=4, level=0.95)
    assert s.startswith("b − a: pass^4 ") and s.endswith(ends)
    if diff == 0:
        assert "is the same on these tasks (0.0 points, 95% interval -3.0 to +3.0" in s
        assert "differs" not in s
    if lo is None:
        assert "no interval" in s
    else:
        assert f"95% interval {lo * 100:+.1f} to {hi * 100:+.1f}, p = 0.5000)" in s


def test_a_difference_outside_its_interval_is_explained() -> None:
    """Before: "B − A: pass^5 differs by +100.0 points (95% interval -39.5 to +89.2, p = 0.26)"
    with no word on why the estimate lies outside its interval (one task: the posterior pools).
    Since the paired fallback (issue 28, item 2) the one-task interval holds its estimate; a
    difference outside its interval is still explained in the sentence."""
    rows = [
        {"system": s, "task_id": "t1", "trial": r, "success": s == "B" or r % 2 == 0}
        for s in ("A", "B")
        for r in range(5)
    ]
    data = ph.Trials.from_frame(pd.DataFrame(rows))
    table, sentences = _table(data, [1, 5], ci=0.95, seed=0, n_boot=200, baseline="A")
    r = next(r for r in table.rows if r["metric"] == "pass^k" and r["k"] == 5)
    assert r["difference"] == 1.0 and r["diff_lower"] <= 1.0 <= r["diff_upper"]
    assert "outside" not in sentences[0] and "outside" not in (table.note or "")
    row = {"candidate": "B", "baseline": "A", "difference": 1.0, "diff_lower": -0.395,
           "diff_upper": 0.892, "p_value": 0.26}  # fmt: skip
    assert "lies outside the interval" in comparison_sentence(row, k=5, level=0.95)
    # inside its interval: no such note
    row = {"candidate": "b", "baseline": "a", "difference": 0.05, "diff_lower": 0.01,
           "diff_upper": 0.09, "p_value": 0.02}  # fmt: skip
    assert "outside" not in comparison_sentence(row, k=4, level=0.95)


def test_one_run_per_task_still_gets_its_sentence() -> None:
    """With one run per task only k = 1 exists; the table keeps the mean row alone (pass^1
    is the mean), and the summary's comparison sentence used to be missing: a significant
    difference went unmentioned at the top of the report. Oracle: passhat.compare's
    population row of the mean on the same data and seed."""
    c_a = [1, 0] * 7 + [1]
    c_b = [1] * 14 + [0]
    frame = pd.DataFrame(
        {
            "system": ["base"] * 15 + ["cand"] * 15,
            "task_id": [f"t{i}" for i in range(15)] * 2,
            "trial": 0,
            "success": [bool(x) for x in c_a + c_b],
        }
    )
    data = ph.Trials.from_frame(frame)
    table, sentences = _table(data, [1], ci=0.95, seed=0, n_boot=500, baseline="base")
    assert [r["metric"] for r in table.rows] == ["mean"]
    row = table.rows[0]
    cmp = ph.compare(data, k=1, baseline="base", intersect=True, seed=0, n_boot=500).table
    want = cmp[(cmp["scope"] == "population") & (cmp["metric"] == "mean")].iloc[0]
    assert row["difference"] == pytest.approx(14 / 15 - 8 / 15)
    assert (row["diff_lower"], row["p_value"]) == (want["lower"], want["p_value"])
    assert len(sentences) == 1
    assert sentences[0].startswith(f"cand − base: pass^1 differs by {row['difference'] * 100:+.1f}")
