"""The discrete model's identified values (:mod:`passhat.model.histogram`).

Oracles: the unbiased estimates by brute force over subsets of runs, the Dirichlet's mean of a
linear form, and a simulated two-point benchmark (half the tasks at p = 0.4, half at 0.95,
200 tasks × 5 runs) where the NPMLE's own pass@5 lies below the histogram's.
"""

from __future__ import annotations

import numpy as np
import pytest

import passhat as ph
from passhat.model.histogram import identified, identified_values, task_values
from passhat.model.metrics import Groups


def test_identified_up_to_the_fewest_runs():
    g = Groups.from_tasks([3, 5, 4], [1, 2, 4], [1.0, 1.0, 1.0])
    assert identified(g, "mean", 1)
    assert identified(g, "pass_hat_k", 3) and identified(g, "pass_at_k", 3)
    assert not identified(g, "pass_hat_k", 4) and not identified(g, "icc", 1)


def test_task_values_are_the_unbiased_estimates():
    """C(c, k)/C(n, k) and 1 − C(n − c, k)/C(n, k): 4 of 5 runs, k = 2 → 6/10 and 1."""
    g = Groups.from_tasks([5, 5], [4, 0], [1.0, 1.0])
    order = np.argsort(g.c)
    np.testing.assert_allclose(task_values(g, "pass_hat_k", 2)[order], [0.0, 0.6])
    np.testing.assert_allclose(task_values(g, "pass_at_k", 2)[order], [0.0, 1.0])
    np.testing.assert_allclose(task_values(g, "mean", 1)[order], [0.0, 0.8])


def test_draws_do_not_depend_on_the_requests():
    """The same generator state gives the same draws whatever else is asked (so a metric
    computed alone or with others is the same number)."""
    g = Groups.from_tasks([4] * 6, [0, 1, 2, 3, 4, 4], [1.0] * 6)
    for scope in ("population", "benchmark"):
        one = identified_values(g, [("pass_at_k", 2)], 50, scope=scope,
                                rng=np.random.default_rng(3))  # fmt: skip
        two = identified_values(g, [("pass_hat_k", 3), ("pass_at_k", 2), ("pass_at_k", 9)], 50,
                                scope=scope, rng=np.random.default_rng(3))  # fmt: skip
        np.testing.assert_array_equal(one[("pass_at_k", 2)], two[("pass_at_k", 2)])
        assert ("pass_at_k", 9) not in two  # above the runs: not identified


@pytest.fixture(scope="module")
def two_point() -> tuple[np.ndarray, ph.Fit]:
    rng = np.random.default_rng([0, 200, 5, 1])  # fit_shapes' replicate 1 of this design
    p = np.where(rng.random(200) < 0.5, 0.4, 0.95)
    c = rng.binomial(5, p)
    f = ph.fit(ph.counts_from_arrays(np.full(200, 5), c), k=[5, 6], model="discrete", seed=1,
               chains=2, draws=250, progress=False)  # fmt: skip
    return c, f


def test_two_point_pass_at_n_is_the_histograms_not_the_npmles(two_point):
    """pass@5 at n = 5 is the share of tasks with a success: the population draws' mean is
    the Dirichlet mean (#{c > 0} + ½)/(T + 1) within 4 Monte-Carlo s.e.; the NPMLE's own value
    (1 − Σ_j w_j (1 − p_j)^5 from the stored node weights) is lower by more than 0.01 on this
    replicate (its spurious mass near p = 0: the bias this module removes). The benchmark's
    Rao–Blackwellised value is the share itself."""
    c, f = two_point
    got = f.metric("pass_at_k", [5]).values.ravel()
    want = (np.sum(c > 0) + 0.5) / (c.size + 1)
    assert abs(got.mean() - want) < 4 * got.std() / np.sqrt(got.size)
    w = f.idata.posterior["node_weight"].values[:, :, 0, :].reshape(got.size, -1)
    p = f.idata.posterior["node"].values
    npmle = 1.0 - w @ (1.0 - p) ** 5
    assert got.mean() - npmle.mean() > 0.01
    rb = f.metric("pass_at_k", [5], scope="benchmark", rao_blackwell=True).values.ravel()
    np.testing.assert_allclose(rb, np.mean(c > 0), rtol=1e-12)


def test_above_the_runs_the_nodes_extrapolate(two_point):
    """k = 6 > n: the value is the NPMLE's, Σ_j w_j p_j^6 per draw."""
    _, f = two_point
    w = f.idata.posterior["node_weight"].values[:, :, 0, :].reshape(-1, 101)
    p = f.idata.posterior["node"].values
    got = f.metric("pass_hat_k", [6]).values.ravel()
    np.testing.assert_allclose(got, w @ p**6, rtol=1e-10)


def test_informative_follows_estimates_rule():
    """The normal benchmark interval of estimate: ≥ 30 tasks, ≥ 10 with both outcomes, se > 0."""
    from passhat.model.histogram import informative

    flaky = Groups.from_tasks([4] * 30, [2] * 10 + [4] * 20, [1.0] * 30)
    assert informative(flaky, "mean", 1) and informative(flaky, "pass_at_k", 4)
    assert not informative(flaky, "pass_at_k", 5)  # above the runs
    few = Groups.from_tasks([4] * 29, [2] * 29, [1.0] * 29)  # 29 tasks
    assert not informative(few, "mean", 1)
    nine = Groups.from_tasks([4] * 40, [2] * 9 + [4] * 31, [1.0] * 40)  # 9 with both outcomes
    assert not informative(nine, "mean", 1)


def test_every_models_benchmark_at_k_up_to_n_is_the_unbiased_estimate():
    """A Beta fit (model="beta") of 40 tasks × 4 runs: its benchmark rows for k ≤ 4 are the
    unbiased estimate ± z·se (oracle: passhat.estimators and intervals.benchmark_se; the mean
    of 1000 draws within 4 s.e. of U, the 5%/95% quantiles within 0.15 se of U ∓ 1.645 se),
    their method says so, and the population rows and k = 6 are the model's."""
    from passhat.estimators import pass_at_k
    from passhat.intervals import benchmark_se
    from passhat.model.text import BENCHMARK_RULE

    rng = np.random.default_rng(5)
    n, c = np.full(40, 4), rng.binomial(4, rng.beta(2.0, 1.0, 40))
    f = ph.fit(ph.counts_from_arrays(n, c), k=[3, 6], model="beta", seed=2, chains=2, draws=500,
               progress=False)  # fmt: skip
    s = f.summary(k=[3, 6], ci=0.9)
    row = s[(s["metric"] == "pass_at_k") & (s["k"] == 3) & (s["scope"] == "benchmark")].iloc[0]
    u = float(np.mean(pass_at_k(n, c, 3)))
    se, _ = benchmark_se(n, c, k=3, metric="pass_at_k")
    assert row["mean"] == pytest.approx(u, abs=4 * se / np.sqrt(1000))
    assert row["lower"] == pytest.approx(u - 1.6449 * se, abs=0.15 * se)
    assert row["upper"] == pytest.approx(min(1.0, u + 1.6449 * se), abs=0.15 * se)
    assert row["method"] == BENCHMARK_RULE
    above = s[(s["k"] == 6) & (s["metric"] != "mean")]  # k above the runs: the model's
    assert above["method"].str.contains("Beta-Binomial").all() and len(above) == 4
    from passhat.model.histogram import informative
    from passhat.model.text import POPULATION_RULE

    g = Groups.from_tasks(n, c, np.ones(40))
    pop = s[(s["scope"] == "population") & (s["k"] == 3) & (s["metric"] != "icc")]
    for r in pop.itertuples():  # the population rows follow estimate's rule too
        free = informative(g, r.metric, 3, scope="population")
        assert (r.method == POPULATION_RULE) == free
    assert "intervals: benchmark scope, mean and k ≤ 3" in "\n".join(
        f.summarize(k=[3, 6], ci=0.9).view().parts[0].lines  # shown with --quiet too
    )


def test_benchmark_rows_are_estimates_where_n_reaches_2k_and_plug_in_below():
    """fit's k ≤ n benchmark rows: estimate's normal interval where n ≥ 2k (the unbiased
    per-task variance; oracle: ph.estimate on the same counts), and below 2k the unbiased
    estimate ± z · benchmark_se (the larger of the exact variance at the shrunk rate
    (c + ½)/(n + 1) and the conservative model-free bound, not the Beta model's expected
    variance that estimate takes: reports/bench_variance), clipped to [0, 1], which the method
    says. The draws'
    5%/95% quantiles are within 0.1 se of the closed form (the Monte-Carlo error of a normal
    quantile from 4000 draws is about 0.03 se). 40 tasks × 4 runs, k = 2 (n = 2k), 3 and 4."""
    from passhat.intervals import benchmark_se

    rng = np.random.default_rng(5)
    n, c = np.full(40, 4), rng.binomial(4, rng.beta(2.0, 1.0, 40))
    counts = ph.counts_from_arrays(n, c)
    f = ph.fit(counts, k=[2, 3, 4], model="beta", seed=2, chains=4, draws=1000, progress=False)
    s = f.summary(k=[2, 3, 4], ci=0.9).set_index(["metric", "k", "scope"])
    est = ph.estimate(counts, k=[2, 3, 4], ci=0.9, n_boot=2000, seed=0).table
    est = est[est["scope"] == "benchmark"].set_index(["metric", "k"])
    for metric in ("pass_at_k", "pass_hat_k"):
        for kk in (2, 3, 4):
            row = s.loc[(metric, kk, "benchmark")]
            se, _ = benchmark_se(n, c, k=kk, metric=metric)
            u = float(est.loc[(metric, kk), "value"])
            want = (max(0.0, u - 1.6449 * se), min(1.0, u + 1.6449 * se))
            if kk == 2:  # n = 2k: the same interval as estimate's
                want = (est.loc[(metric, kk), "lower"], est.loc[(metric, kk), "upper"])
            assert row["lower"] == pytest.approx(want[0], abs=0.1 * se), (metric, kk)
            assert row["upper"] == pytest.approx(want[1], abs=0.1 * se), (metric, kk)
            assert "(c + ½)/(n + 1)" in row["method"]


def test_unequal_weights_keep_the_models_population_scope():
    """fit weights the benchmark scope only: with unequal task weights its population scope
    stays the (unweighted) model, not the Bayesian bootstrap labelled as estimate's rule."""
    from passhat.model.histogram import informative

    n, c = [4] * 40, [0, 1, 2, 4] * 10
    equal = Groups.from_tasks(n, c, [1.0] * 40)
    unequal = Groups.from_tasks(n, c, [1.0] * 20 + [5.0] * 20)
    assert informative(equal, "mean", 1, scope="population")
    assert not informative(unequal, "mean", 1, scope="population")
    assert informative(unequal, "mean", 1, scope="benchmark")  # weights enter the benchmark


def test_binary_values_with_few_on_a_side_take_estimates_bound():
    """Where every task's value is 0 or 1 (pass@n) and fewer than 10 tasks lie on a side of
    the estimate, the population draws are estimate's Clopper–Pearson-type bound: their 5% and
    95% quantiles are the Beta(x, T − x + 1) and Beta(x + 1, T − x) quantiles for x tasks at 1
    of T (oracle: scipy.stats.beta.ppf, and passhat.scopes.bound_interval on the same values),
    and the fit's row says so. 40 tasks × 3 runs, 4 of them never passing: pass@3 = 36/40."""
    from scipy import stats

    from passhat.bootstrap import compress
    from passhat.model.histogram import informative, population_bound
    from passhat.model.text import POPULATION_BOUND_RULE
    from passhat.scopes import bound_interval

    n, c = np.full(40, 3), np.array([0] * 4 + [1, 2, 3] * 12)
    g = Groups.from_tasks(n, c, np.ones(40))
    assert population_bound(g, "pass_at_k", 3) and informative(
        g, "pass_at_k", 3, scope="population"
    )
    assert not population_bound(g, "pass_at_k", 2)  # values 2/3: not 0 or 1
    d = identified_values(g, [("pass_at_k", 3)], 4000, scope="population",
                          rng=np.random.default_rng(0))[("pass_at_k", 3)]  # fmt: skip
    lo, hi = np.quantile(d, [0.05, 0.95])
    assert lo == pytest.approx(stats.beta.ppf(0.05, 36, 5), abs=2e-3)
    assert hi == pytest.approx(stats.beta.ppf(0.95, 37, 4), abs=2e-3)
    v = (c > 0).astype(float)[:, None]
    want = bound_interval(compress(v, v, np.ones(40)), alpha=0.1, n_boot=1,
                          rng=np.random.default_rng(0))[:, 0]  # fmt: skip
    np.testing.assert_allclose([lo, hi], want, atol=2e-3)
    f = ph.fit(ph.counts_from_arrays(n, c), k=[3], model="beta", seed=1, chains=2, draws=300,
               progress=False)  # fmt: skip
    row = f.summary(k=[3], ci=0.9).query("metric == 'pass_at_k' and scope == 'population'")
    assert row["method"].iloc[0] == POPULATION_BOUND_RULE
    assert row["lower"].iloc[0] == pytest.approx(stats.beta.ppf(0.05, 36, 5), abs=0.01)
    lines = "\n".join(f.summarize(k=[3], ci=0.9).view().parts[0].lines)
    assert "the Clopper–Pearson bounds of the share of tasks at 1" in lines
