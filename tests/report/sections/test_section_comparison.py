"""passhat.report.sections.comparison: the headline's paired comparison is passhat.compare's.

Oracle: passhat.compare on the same data, seed and options (population scope).
"""

from __future__ import annotations

import passhat as ph
from passhat.report.sections.comparison import comparison_table


def test_rows_are_the_population_rows_of_compare() -> None:
    data = ph.load_example("agents")
    opts = {"ci": 0.9, "seed": 4, "n_boot": 300}
    table, sentences = comparison_table(data, ks=[1, 2, 5], baseline="guided", **opts)
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
