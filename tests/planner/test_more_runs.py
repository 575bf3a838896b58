"""``plan.more_runs``: the expected width after m more runs per task, with the variance split.

Oracles: the two computations it combines are tested on their own (tests/model: an independent
quadrature, the martingale identity); here they must agree with each other — the floor's
variance (these tasks' rates known) is the task-sampling share of today's variance, computed by
a different code path (grid draws of p vs the fit's draws) — and with the Fit they come from.
"""

from __future__ import annotations

import numpy as np
import pytest

import passhat as ph


@pytest.fixture(scope="module")
def table():
    return ph.plan.more_runs(ph.load_example("agents"), runs=[2, 10], k=[5], simulations=300)


def test_floor_is_the_task_sampling_share(table):
    for _system, part in table[
        (table["scope"] == "population") & (table["metric"] != "pass_at_k")
    ].groupby(["system", "metric"]):
        by_m = part.set_index("runs_added")
        ratio = (by_m.loc[np.inf, "expected_sd"] / by_m.loc[0.0, "expected_sd"]) ** 2
        assert ratio == pytest.approx(1 - by_m.loc[0.0, "within_task_share"], abs=0.06)
        assert by_m.loc[0.0, "expected_width"] > by_m.loc[2.0, "expected_width"]
        assert by_m.loc[2.0, "expected_width"] > by_m.loc[10.0, "expected_width"]
        assert by_m.loc[10.0, "expected_width"] > by_m.loc[np.inf, "expected_width"]


def test_more_runs_of_a_fit_is_the_fits_table(table):
    data = ph.load_example("agents")
    f = ph.fit(data, k=[5], method="grid", model="beta", seed=0, progress=False)
    again = ph.plan.more_runs(f, runs=[2, 10], simulations=300)
    cols = ["system", "metric", "k", "scope", "runs_added", "expected_width"]
    assert again[cols].equals(table[cols])
    direct = f.more_runs([2, 10], simulations=300)
    np.testing.assert_allclose(direct["expected_sd"], table["expected_sd"])
    s = f.summary(k=[5])
    row = s[(s["metric"] == "pass_hat_k") & (s["scope"] == "population")].iloc[0]
    got = table[
        (table["system"] == row["system"])
        & (table["metric"] == "pass_hat_k")
        & (table["scope"] == "population")
    ]
    assert (got["within_task_share"] == row["within_task_share"]).all()


def test_reasoning_quotes_the_table(table):
    r = table.attrs["reasoning"]
    p = table[
        (table["system"] == "baseline")
        & (table["metric"] == "pass_hat_k")
        & (table["scope"] == "population")
    ].set_index("runs_added")
    assert f"from {p.loc[0.0, 'expected_width']:.3f} to {p.loc[10.0, 'expected_width']:.3f}" in r
    assert f"no number of runs below {p.loc[np.inf, 'expected_width']:.3f}" in r
