"""passhat.report.sections.spread: sentences and tables carry passhat.spread's numbers.

Oracles: passhat.spread (ratio, flaky share, contributions) and passhat.estimate (the
population-scope pass^k interval attached to the spread table).
"""

from __future__ import annotations

import pandas as pd
import pytest

import passhat as ph
from passhat.report.sections.spread import MAX_CONTRIB_ROWS, attach_intervals, spread_section


def test_sentences_written_from_numbers(example_report) -> None:
    sp = ph.spread(ph.load_example("agents"), k=[1, 2, 5])
    text = example_report.paths.html.read_text(encoding="utf-8")
    for system in ("baseline", "guided"):
        row = sp.row(system, 5)
        # the plain-language sentence carries the computed ratio and flaky share
        assert f"{row['ratio']:.1f}× what a uniform spread would give" in text
        assert f"{row['flaky_share']:.0%} of tasks" in text


def test_attached_interval_is_the_population_interval_of_estimate() -> None:
    data = ph.load_example("agents")
    sp = ph.spread(data, k=[1, 5])
    est = ph.estimate(data, k=[1, 5], ci=0.9, n_boot=300, seed=2)
    attach_intervals(sp, est.table)
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
    sec = spread_section(sp, ks=[1, 5], ci=0.9)
    assert any(c.label == "90% interval (population)" for c in sec.tables[0].columns)


def test_contributions_are_the_largest_per_system() -> None:
    sp = ph.spread(ph.load_example("agents"), k=[1, 5])
    rows = pd.DataFrame(spread_section(sp, ks=[1, 5], ci=None).tables[2].rows)
    cb = sp.contributions[sp.contributions["k"] == 5]
    for system, part in rows.groupby("system"):
        want = cb[cb["system"] == system].head(MAX_CONTRIB_ROWS)
        assert part["task"].tolist() == want["task"].tolist()
        assert part["contribution"].to_numpy() == pytest.approx(want["contribution"].to_numpy())
