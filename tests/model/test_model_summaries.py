"""Posterior tables: summary with its variance split, task posteriors, posterior predictive check.

Oracles: the unbiased estimator of benchmark pass^k (within the posterior interval); the
closed forms E[p_i | a, b, data] = (a + c_i)/(κ + n_i) and E[p_i² | …] per draw; the observed
data (PPC totals). The variance split has its own tests (test_model_split.py: an independent
quadrature).
"""

from __future__ import annotations

import numpy as np
import pytest

import passhat as ph
from passhat.model.split import variance_split


def test_summary_columns_and_variance_split(agents_grid):
    s = agents_grid.summary(k=[1, 5], ci=0.9)
    assert {"system", "metric", "k", "scope", "mean", "lower", "upper"} <= set(s.columns)
    assert {"within_task_share", "task_sampling_share", "method", "diagnostics"} <= set(s.columns)
    pop = s[(s["scope"] == "population") & (s["metric"] != "icc")]
    np.testing.assert_allclose(pop["within_task_share"] + pop["task_sampling_share"], 1.0)
    assert (pop["task_sampling_share"] > 0.4).all()  # 168 tasks × 5 runs: tasks weigh most
    assert ((s["lower"] <= s["mean"]) & (s["mean"] <= s["upper"])).all()
    # benchmark pass^5 posterior mean vs the unbiased estimator (different estimands of the same
    # quantity; the model shrinks 5/5 tasks a little): within the posterior interval.
    est = ph.estimate(ph.load_example("agents"), k=5)
    for sysname in agents_grid.systems:
        row = s[
            (s["system"] == sysname)
            & (s["metric"] == "pass_hat_k")
            & (s["k"] == 5)
            & (s["scope"] == "benchmark")
        ].iloc[0]
        assert row["lower"] - 0.02 <= est.value("pass_hat_k", 5, sysname) <= row["upper"] + 0.02


def test_summary_split_is_the_law_of_total_variance_split(agents_grid):
    """The population rows carry variance_split's within share, computed from the fit's draws
    with its seeded stream (so the summary's numbers are exactly the function's)."""
    s = agents_grid.summary(k=[5])
    for si, system in enumerate(agents_grid.systems):
        n, c, _, _ = agents_grid._tasks(si)
        rng = np.random.default_rng([agents_grid.seed, si, 104729 + 3])
        req = [("mean", 1), ("pass_at_k", 5), ("pass_hat_k", 5)]
        want = variance_split(n, c, agents_grid._hyper(si), req, priors=agents_grid.priors, rng=rng)
        for metric, k in req:
            row = s[
                (s["system"] == system)
                & (s["metric"] == metric)
                & (s["k"] == 5)
                & (s["scope"] == "population")
            ]
            got = float(row["within_task_share"].iloc[0])
            assert got == pytest.approx(want[(metric, k)]["within_task_share"], rel=1e-9)
            assert 0 < want[(metric, k)]["within_task_share"] < 1


def test_task_posterior_closed_form(agents_grid):
    tp = agents_grid.task_posterior(k=[2])
    assert len(tp) == 2 * 168
    row = tp.iloc[0]
    si = agents_grid.systems.index(row["system"])
    mu = agents_grid.idata.posterior["mu"].values[..., si].ravel()
    ka = agents_grid.idata.posterior["kappa"].values[..., si].ravel()
    a, _b = mu * ka, (1 - mu) * ka
    exact = np.mean((a + row["c"]) / (ka + row["n"]))
    assert row["p_mean"] == pytest.approx(exact)
    exact2 = np.mean((a + row["c"]) * (a + row["c"] + 1) / ((ka + row["n"]) * (ka + row["n"] + 1)))
    assert row["p_k_mean"] == pytest.approx(exact2)
    assert ((tp["p_lower"] <= tp["p_mean"]) & (tp["p_mean"] <= tp["p_upper"])).all()


def test_ppc_table_and_plot(agents_grid):
    t = agents_grid.ppc()
    for _s, part in t.groupby("system"):
        assert part["observed"].sum() == 168
        assert part["expected"].sum() == pytest.approx(168)
        assert len(part) == 6  # c = 0..5 of 5 runs
        # the fitted model reproduces the U shape: the observed counts of all-fail and
        # all-pass tasks lie within (a widened) predictive interval
        ends = part[part["bin"].isin([0, 5])]
        assert (
            (ends["observed"] >= ends["lower"] - 5) & (ends["observed"] <= ends["upper"] + 5)
        ).all()
    fig = ph.plot_ppc(agents_grid)
    assert len(fig.axes) == 2


def test_inflated_summary_names_its_model(mock_nuts):
    """The method column of a NUTS fit of the inflated model (its shape only: PyMC's mock
    sampler; the inflated fit's numbers are checked in test_model_inflated.py, integration)."""
    inflated = ph.fit(
        ph.load_example("agents"),
        k=[5],
        model="inflated",
        method="nuts",
        sampler="pymc",
        seed=21,
        draws=200,
    )
    assert inflated.method == "nuts"
    s = inflated.summary(k=[5])
    # at k ≤ 5 runs the rows estimate's rule trusts are model-free and say so; every other
    # row names the model
    from passhat.model.text import BENCHMARK_RULE, POPULATION_RULE

    bench = s["scope"] == "benchmark"
    assert (s.loc[bench, "method"] == BENCHMARK_RULE).all()
    free = s["method"].isin([BENCHMARK_RULE, POPULATION_RULE])
    assert s.loc[~free, "method"].str.contains("inflated").all() and (~free).any()


def test_a_mean_outside_its_interval_is_said() -> None:
    # One task, 0 of 9 runs: benchmark pass^9 = E[p^9 | data] with p | a, b ~ Beta(a, b + 9).
    # The posterior of that is so skewed that its mean lies above its 97.5% quantile; the old
    # output showed both with no word. Oracle for the regime: the row itself, mean > upper.
    from passhat.model.summaries import mean_outside_note

    f = ph.fit(ph.counts_from_arrays([9], [0]), k=[1, 9], method="grid", model="beta", seed=0)
    s = f.summary(k=[1, 9])
    row = s[(s["metric"] == "pass_hat_k") & (s["k"] == 9) & (s["scope"] == "benchmark")].iloc[0]
    assert row["mean"] > row["upper"] >= row["lower"] >= 0.0
    note = mean_outside_note(s)
    assert len(note) == 1 and "pass^9 (benchmark)" in note[0] and "skewed" in note[0]
    assert note[0] in repr(f)
    inside = s[(s["mean"] >= s["lower"]) & (s["mean"] <= s["upper"])]
    assert mean_outside_note(inside) == []
