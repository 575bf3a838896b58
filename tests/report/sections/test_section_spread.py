"""passhat.report.sections.spread: sentences and tables carry passhat.spread's numbers.

Oracles: passhat.spread (ratio, flaky share, contributions, the heterogeneity test, the
intervals) and passhat.estimate (the population-scope pass^k interval); the sentences are
checked against the rows they read.
"""

from __future__ import annotations

import pandas as pd
import pytest
from report_testdata import results_of

import passhat as ph
from passhat.report.sections.spread import MAX_CONTRIB_ROWS, spread_section
from passhat.spread import CLUSTERED, compare_consistency, describe_parts, describe_row


def _section(data, k, **options):  # type: ignore[no-untyped-def]
    """The spread section of the report's results, and the report's spread."""
    res = results_of(data, k=k, **options)
    return spread_section(res), res.spread


def test_sentences_written_from_numbers(example_report) -> None:
    sp = ph.spread(ph.load_example("agents"), k=[1, 2, 5])
    text = example_report.paths.html.read_text(encoding="utf-8")
    for system in ("baseline", "guided"):
        row = sp.row(system, 5)
        # the plain-language sentence carries the computed ratio and flaky share
        assert f"{row['ratio']:.1f}× what a uniform spread would give" in text
        assert f"{row['flaky_share']:.0%} of tasks" in text


def test_section_sentences_are_describe_row_and_compare_consistency() -> None:
    sec, sp = _section(ph.load_example("agents"), [1, 5], ci=0.9, n_boot=300, seed=2)
    oracle = ph.spread(ph.load_example("agents"), k=[1, 5], ci=0.9, n_boot=300, seed=2)
    pd.testing.assert_frame_equal(sp.table, oracle.table)
    want = [f"{s}: {p}" for s in ("baseline", "guided") for p in describe_parts(sp.reading(s, 5))]
    assert sec.sentences[:4] == want
    # the two parts are describe_row's two sentences
    assert " ".join(describe_parts(sp.reading("guided", 5))) == describe_row(
        sp.reading("guided", 5)
    )
    assert sec.sentences[4] == compare_consistency(sp.rows, 5)
    assert "most consistent" not in " ".join(sec.sentences)
    for i, (system, h) in enumerate(sp.heterogeneity.set_index("system").iterrows()):
        assert sec.sentences[2 * i].startswith(f"{system}: ")
        assert (f"; {CLUSTERED}" in sec.sentences[2 * i]) == bool(h["clustered"])


def test_interval_is_the_population_interval_of_estimate() -> None:
    data = ph.load_example("agents")
    sp = ph.spread(data, k=[1, 5], ci=0.9, n_boot=300, seed=2)
    est = ph.estimate(data, k=[1, 5], ci=0.9, n_boot=300, seed=2)
    t = est.table
    for r in sp.table.itertuples():
        want = t[
            (t["system"] == r.system)
            & (t["k"] == r.k)
            & (t["metric"] == "pass_hat_k")
            & (t["scope"] == "population")
        ].iloc[0]
        assert (r.pass_hat_k_lower, r.pass_hat_k_upper) == (want["lower"], want["upper"])
        assert r.method == want["method"] and r.scope == "population"
    sec, report_sp = _section(data, [1, 5], ci=0.9, n_boot=300, seed=2)
    pd.testing.assert_frame_equal(report_sp.table, sp.table)
    labels = [c.label for c in sec.tables[0].columns]
    assert "90% interval (population)" in labels
    assert "90% interval of the ratio (population)" in labels
    # the test table: one row per system, the spread's heterogeneity rows
    test_table = next(tb for tb in sec.tables if tb.id == "spread_test")
    got = pd.DataFrame(test_table.rows).set_index("system")
    want_het = sp.heterogeneity.set_index("system")
    assert got["p_value"].to_dict() == want_het["p_value"].to_dict()
    assert got["clustered"].to_dict() == want_het["clustered"].to_dict()
    assert "Tarone" in test_table.note and "α = 0.1" in test_table.note


def test_contributions_are_the_largest_per_system() -> None:
    sec, sp = _section(ph.load_example("agents"), [1, 5], ci=None)
    table = next(tb for tb in sec.tables if tb.id == "spread_contributions")
    rows = pd.DataFrame(table.rows)
    cb = sp.contributions[sp.contributions["k"] == 5]
    for system, part in rows.groupby("system"):
        want = cb[cb["system"] == system].head(MAX_CONTRIB_ROWS)
        assert part["task"].tolist() == want["task"].tolist()
        assert part["contribution"].to_numpy() == pytest.approx(want["contribution"].to_numpy())


def test_shares_table_counts_where_the_failing_runs_are() -> None:
    sec, _ = _section(ph.load_example("agents"), [1, 5], ci=None)
    table = next(tb for tb in sec.tables if tb.id == "spread_shares")
    for r in table.rows:
        assert r["failures_always_fail"] + r["failures_flaky"] == r["failures"]
    assert {c.key for c in table.columns} >= {"failures", "failures_always_fail", "failures_flaky"}
