"""Tests of passhat.scopes: the rule that picks each scope's interval, and its arithmetic.

Oracles: the model package's own posterior (``passhat.fit(method="grid")``,
draw-based: Monte-Carlo tolerance) for the hierarchical branches; the
unbiased per-task variance estimates summed by hand for the normal benchmark
interval; the plain task bootstrap (``task_bootstrap``) for the bootstrap
branch; the Jeffreys interval (scipy.stats.beta) for the Bayesian bootstrap
on all-pass data; a Monte-Carlo rebuild of the predictive interval from its
stated parts (exact draws of T′ new rates from the posterior grid where every task's
estimate is the same).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import passhat as ph
from passhat.betabinom import posterior_grid
from passhat.bootstrap import task_bootstrap
from passhat.scopes import MIN_FLAKY, MIN_SIDE, MIN_TASKS, columns, scope_intervals


def _row(iv, metric: str, k: int, scope: str):  # type: ignore[no-untyped-def]
    return iv[(iv["metric"] == metric) & (iv["k"] == k) & (iv["scope"] == scope)].iloc[0]


def test_rule_constants_are_the_documented_ones() -> None:
    assert (MIN_TASKS, MIN_SIDE, MIN_FLAKY) == (30, 10, 10)
    assert columns([2, 5])[0] == ("mean", 2)


def test_few_tasks_use_the_hierarchical_model_like_fit() -> None:
    n = np.full(12, 3)
    c = np.array([3, 3, 2, 0, 3, 1, 3, 3, 3, 2, 3, 0])
    iv = scope_intervals(
        n, c, np.ones(12), [1, 2], ci=0.9, n_boot=8000, rng=np.random.default_rng(0)
    )
    fit = ph.fit(
        ph.counts_from_arrays(n, c), k=[1, 2], model="beta", method="grid", seed=1, draws=4000
    )
    summ = fit.summary(ci=0.9)
    for metric, k in [("mean", 1), ("pass_hat_k", 2), ("pass_at_k", 2)]:
        for scope in ("population", "benchmark"):
            got = _row(iv, metric, k, scope)
            want = summ[(summ["metric"] == metric) & (summ["k"] == k) & (summ["scope"] == scope)]
            assert "hierarchical" in got["method"] and "fewer than 30 tasks" in got["method"]
            assert got["lower"] == pytest.approx(float(want["lower"].iloc[0]), abs=0.02)
            assert got["upper"] == pytest.approx(float(want["upper"].iloc[0]), abs=0.02)


def test_many_spread_tasks_use_bootstrap_and_normal_interval() -> None:
    rng = np.random.default_rng(1)
    t = 120
    n = rng.integers(4, 9, size=t)
    c = rng.binomial(n, rng.beta(1, 1, size=t))
    w = rng.choice([1.0, 2.0], size=t)  # declared weights
    iv = scope_intervals(n, c, w, [2], ci=0.9, n_boot=20000, rng=rng)
    # population: the plain task bootstrap of the same values (MC tolerance)
    vals = ph.pass_hat_k(n, c, 2)
    boot = task_bootstrap(
        vals, keys=np.column_stack([n, c]), weights=w, ci=0.9, n_boot=20000, seed=2
    )
    pop = _row(iv, "pass_hat_k", 2, "population")
    assert pop["method"].startswith("task bootstrap BCa")
    assert pop["lower"] == pytest.approx(boot["lower"][0], abs=0.006)
    assert pop["upper"] == pytest.approx(boot["upper"][0], abs=0.006)
    # benchmark: value ± z sqrt(Σ w² V̂) / Σ w with the unbiased V̂ (every n ≥ 2k = 4 here)
    bench = _row(iv, "pass_hat_k", 2, "benchmark")
    assert bench["method"].startswith("normal") and "model-based" not in bench["method"]
    v = ph.pass_hat_k_variance_estimate(n, c, 2)
    est = float(w @ vals / w.sum())
    se = np.sqrt(np.sum(w**2 * v)) / w.sum()
    z = stats.norm.isf(0.05)
    assert bench["lower"] == pytest.approx(est - z * se, rel=1e-9)
    assert bench["upper"] == pytest.approx(est + z * se, rel=1e-9)


def test_normal_benchmark_uses_the_models_variance_where_n_below_2k() -> None:
    """n = 3 < 2k = 4: Var(U|p) averaged over p_i's posterior; with 3000 tasks the posterior
    of (a, b) sits on the truth, so the oracle is the quadrature at the true (a, b)."""
    from scipy import integrate

    a, b, t = 2.0, 1.0, 3000
    rng = np.random.default_rng(6)
    n = np.full(t, 3)
    c = rng.binomial(3, rng.beta(a, b, size=t))
    iv = scope_intervals(n, c, np.ones(t), [2], ci=0.9, n_boot=500, rng=rng)
    bench = _row(iv, "pass_hat_k", 2, "benchmark")
    assert "model-based variance where n < 4" in bench["method"]

    def e_var(ci: int) -> float:
        post = stats.beta(a + ci, b + 3 - ci)
        return integrate.quad(lambda p: float(ph.pass_hat_k_variance(3, p, 2)) * post.pdf(p), 0, 1)[
            0
        ]

    counts = np.bincount(c, minlength=4)
    se = np.sqrt(sum(counts[j] * e_var(j) for j in range(4))) / t
    z = stats.norm.isf(0.05)
    assert (bench["upper"] - bench["lower"]) / (2 * z) == pytest.approx(se, rel=0.03)


def test_many_all_pass_tasks_use_the_bayesian_bootstrap() -> None:
    t = 60
    iv = scope_intervals(
        np.full(t, 4),
        np.full(t, 4),
        np.ones(t),
        [4],
        ci=0.9,
        n_boot=40000,
        rng=np.random.default_rng(3),
    )
    pop = _row(iv, "pass_hat_k", 4, "population")
    assert "pseudo-task at the bound" in pop["method"]
    # every task all-pass: the Clopper–Pearson interval of T successes in T trials,
    # [(α/2)^(1/T), 1] (reports/extremes: the Jeffreys interval it replaced under-covers)
    assert pop["lower"] == pytest.approx(stats.beta.ppf(0.05, t, 1), abs=0.003)
    assert pop["upper"] == 1.0
    bench = _row(iv, "pass_hat_k", 4, "benchmark")
    assert "hierarchical posterior of these tasks" in bench["method"]
    assert bench["upper"] - bench["lower"] > 1e-3


def test_predictive_is_wider_than_population() -> None:
    rng = np.random.default_rng(4)
    for t in (15, 80):
        n = np.full(t, 5)
        c = rng.binomial(5, rng.beta(2, 1, size=t))
        iv = scope_intervals(n, c, np.ones(t), [1, 5], ci=0.9, n_boot=4000, rng=rng, predictive=10)
        width = iv.assign(w=iv["upper"] - iv["lower"]).pivot_table(
            index=["metric", "k"], columns="scope", values="w"
        )
        assert (width["predictive"] > width["population"]).all()


def test_predictive_is_the_models_where_every_task_estimate_is_the_same() -> None:
    """50 tasks × 5 runs, none all-pass: every task's pass^5 estimate is 0, so the estimates
    say nothing about the task-to-task spread; the new benchmark's interval is the model's
    posterior predictive, not the Bayesian bootstrap's draws (up to the Jeffreys bound of 0 of
    50, about 0.04) widened by a spread, which covered 1.000 in the coverage study. Where the
    estimates do vary (pass^2) the rule keeps them. Oracle: the posterior grid of these data
    rebuilt by hand, 50 new rates drawn exactly from Beta(a, b) at nodes drawn with their
    weights, and the equal-tailed 90% interval of their mean p^5 (Monte-Carlo tolerance)."""
    t = 50
    n = np.full(t, 5)
    c = np.r_[np.full(7, 1), np.full(3, 2), np.zeros(t - 10, dtype=int)]
    iv = scope_intervals(
        n, c, np.ones(t), [2, 5], ci=0.9, n_boot=20000, rng=np.random.default_rng(5), predictive=t
    )
    pred5, pop5 = _row(iv, "pass_hat_k", 5, "predictive"), _row(iv, "pass_hat_k", 5, "population")
    assert "pseudo-task" in pop5["method"]
    assert "equal-tailed interval of the hierarchical posterior predictive" in pred5["method"]
    assert "every task's estimate 0" in pred5["method"]
    pred2 = _row(iv, "pass_hat_k", 2, "predictive")
    assert pred2["method"].endswith("population draws + task spread Var g(p) / 50")
    nodes = posterior_grid([5, 5, 5], [0, 1, 2], [40, 7, 3], size=256).nodes()
    rng = np.random.default_rng(0)
    pick = rng.choice(nodes.weight.size, size=40_000, p=nodes.weight)
    p = rng.beta(nodes.a[pick, None], nodes.b[pick, None], size=(pick.size, t))
    lo, hi = np.quantile((p**5).mean(axis=1), [0.05, 0.95])
    assert pred5["upper"] == pytest.approx(hi, rel=0.05)
    assert pred5["lower"] == pytest.approx(lo, rel=0.2)
    assert pred5["upper"] < pop5["upper"] / 3


@given(
    data=st.lists(st.tuples(st.integers(1, 6), st.floats(0, 1)), min_size=1, max_size=45),
    seed=st.integers(0, 1000),
)
def test_no_zero_width_interval_anywhere(data: list[tuple[int, float]], seed: int) -> None:
    """All-pass, all-fail, one task, n = 1: every interval has width and stays in [0, 1]."""
    n = np.array([d[0] for d in data])
    c = np.floor(np.array([d[1] for d in data]) * (n + 1)).clip(0, n).astype(int)
    iv = scope_intervals(
        n, c, np.ones(n.size), [1], ci=0.9, n_boot=300, rng=np.random.default_rng(seed)
    )
    assert ((iv["upper"] - iv["lower"]) > 1e-6).all(), iv
    assert ((iv["lower"] >= 0) & (iv["upper"] <= 1)).all()


def test_single_all_pass_task_and_all_fail_tasks() -> None:
    for n, c in (([5], [5]), ([5] * 40, [0] * 40), ([1] * 8, [1] * 8)):
        iv = scope_intervals(
            np.array(n),
            np.array(c),
            np.ones(len(n)),
            [1],
            ci=0.95,
            n_boot=500,
            rng=np.random.default_rng(0),
        )
        assert ((iv["upper"] - iv["lower"]) > 1e-3).all(), (n, c, iv)


def test_predictive_intervals_leave_the_other_intervals_as_estimate_gives_them() -> None:
    """The report asks estimate for predictive intervals; `passhat estimate` does not. Drawing
    them from the shared stream shifted every later system's draws, so the report's guided
    pass^5 population interval was 67.3%-80.4% where `passhat estimate --seed 3` says
    67.9%-80.4% (agents example, k = 1, 2, 5). Oracle: the same call without predictive=,
    row for row, exactly."""
    data = ph.load_example("agents")
    opts = {"k": [1, 5], "ci": 0.95, "n_boot": 400, "seed": 3}
    plain = ph.estimate(data, **opts).table
    with_pred = ph.estimate(data, predictive=168, **opts).table
    assert (with_pred["scope"] == "predictive").any()
    kept = with_pred[with_pred["scope"] != "predictive"].reset_index(drop=True)
    assert len(kept) == len(plain) and plain["system"].nunique() == 2
    pd.testing.assert_frame_equal(kept, plain.reset_index(drop=True))


def _spread_tasks(t: int = 80, seed: int = 4) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return np.full(t, 6), rng.binomial(6, rng.beta(1.5, 1.5, size=t))


def test_one_task_per_cluster_gives_the_task_bootstrap_interval() -> None:
    """Oracle: with one task per cluster the cluster bootstrap is the task bootstrap: the same
    seed gives the same interval, to the last bit, in every column (BCa and percentile)."""
    n, c = _spread_tasks()
    for how in ("bca", "percentile"):
        plain = scope_intervals(
            n, c, np.ones(n.size), [1, 3], ci=0.9, n_boot=2000,
            rng=np.random.default_rng(8), ci_method=how,
        )  # fmt: skip
        clus = scope_intervals(
            n, c, np.ones(n.size), [1, 3], ci=0.9, n_boot=2000,
            rng=np.random.default_rng(8), ci_method=how, clusters=[f"g{i}" for i in range(n.size)],
        )  # fmt: skip
        pop = plain["scope"] == "population"
        assert plain.loc[pop, "method"].str.startswith("task bootstrap").all()
        assert clus.loc[pop, "method"].str.startswith("cluster bootstrap").all()
        assert clus.loc[pop, "method"].str.contains(f"{n.size} clusters").all()
        assert np.array_equal(
            plain[["lower", "upper"]].to_numpy(), clus[["lower", "upper"]].to_numpy()
        )


def test_clusters_widen_the_population_scope_only() -> None:
    """Clusters of alike tasks (the cluster decides the rate): the population interval is
    wider than the task bootstrap's; the benchmark interval is the same."""
    rng = np.random.default_rng(2)
    g = np.repeat(np.arange(10), 8)
    c = rng.binomial(6, rng.beta(1.0, 1.0, size=10)[g])
    n = np.full(c.size, 6)
    a = scope_intervals(
        n, c, np.ones(c.size), [2], ci=0.9, n_boot=2000, rng=np.random.default_rng(0)
    )
    b = scope_intervals(
        n, c, np.ones(c.size), [2], ci=0.9, n_boot=2000, rng=np.random.default_rng(0), clusters=g
    )
    width = (b["upper"] - b["lower"]) / (a["upper"] - a["lower"])
    pop = a["scope"] == "population"
    assert (width[pop] > 1.5).all()
    bench = ~pop
    assert np.allclose(a.loc[bench, ["lower", "upper"]], b.loc[bench, ["lower", "upper"]])
    assert b.loc[pop, "method"].str.contains("fewer than 20 clusters").all()


def test_one_cluster_gives_no_population_interval() -> None:
    n, c = _spread_tasks(40)
    iv = scope_intervals(
        n, c, np.ones(n.size), [1], ci=0.9, n_boot=200, rng=np.random.default_rng(0),
        clusters=np.zeros(n.size),
    )  # fmt: skip
    pop = iv[iv["scope"] == "population"]
    assert pop[["lower", "upper"]].isna().all().all()
    assert pop["method"].str.contains("one cluster").all()


def test_analytic_replaces_the_task_bootstrap_only_where_the_rule_bootstraps() -> None:
    """ci_method="analytic": where the rule takes the task bootstrap the population interval is
    :func:`passhat.analytic.analytic_interval` of the per-task estimates (oracle: that
    function on the uncompressed tasks, and the hand logit-t), named with its rule; the
    Bayesian bootstrap's columns (few tasks on a side) and the benchmark scope keep theirs."""
    from scipy import special, stats

    from passhat.analytic import analytic_interval
    from passhat.scopes import column_values, columns

    rng = np.random.default_rng(11)
    n = np.full(60, 4)
    c = rng.binomial(4, rng.beta(1.0, 4.0, size=60))
    args = (n, c, np.ones(60), [1, 4])
    opts = {"ci": 0.9, "n_boot": 500}
    ana = scope_intervals(*args, rng=np.random.default_rng(0), ci_method="analytic", **opts)
    bca = scope_intervals(*args, rng=np.random.default_rng(0), **opts)
    pop = ana[ana["scope"] == "population"].reset_index(drop=True)
    boot = bca[bca["scope"] == "population"]["method"].str.startswith("task bootstrap").to_numpy()
    assert boot.any() and not boot.all()  # pass^4: fewer than 10 tasks above the estimate
    cols = columns([1, 4])
    vals = column_values(n.astype(float), c.astype(float), cols)
    lo, hi, _ = analytic_interval(vals, np.ones(60), np.ones(60), ci=0.9)
    for j, row in pop.iterrows():
        if boot[j]:
            assert row["method"].startswith("analytic logit-t interval (delta method, t on 59 df)")
            assert "rule: ci_method analytic; ≥ 30 tasks, ≥ 10 on each side" in row["method"]
            assert (row["lower"], row["upper"]) == pytest.approx((lo[j], hi[j]), abs=1e-12)
            v = vals[:, j]
            half = stats.t.ppf(0.95, 59) * stats.sem(v) / (v.mean() * (1 - v.mean()))
            hand = special.expit(special.logit(v.mean()) + np.array([-half, half]))
            assert (row["lower"], row["upper"]) == pytest.approx(tuple(hand), rel=1e-10)
        else:
            assert row["method"].startswith("Bayesian bootstrap")
    bench = ana["scope"] == "benchmark"
    assert np.allclose(ana.loc[bench, ["lower", "upper"]], bca.loc[bench, ["lower", "upper"]])


def test_analytic_leaves_few_tasks_and_clusters_to_their_methods() -> None:
    """Below 30 tasks the hierarchical posterior stays (the same interval as with BCa);
    with clusters the cluster bootstrap stays (BCa) and says the option does not apply."""
    n, c = _spread_tasks(t=20)
    few = [
        scope_intervals(
            n, c, np.ones(20), [2], ci=0.9, n_boot=300, rng=np.random.default_rng(1), ci_method=how
        )
        for how in ("analytic", "bca")
    ]
    pd.testing.assert_frame_equal(few[0], few[1])
    n, c = _spread_tasks()
    clus = scope_intervals(
        n, c, np.ones(n.size), [2], ci=0.9, n_boot=300, rng=np.random.default_rng(1),
        ci_method="analytic", clusters=np.arange(n.size) % 25,
    )  # fmt: skip
    pop = clus[clus["scope"] == "population"]
    assert pop["method"].str.contains("cluster bootstrap BCa").all()
    assert pop["method"].str.contains("ci_method analytic does not apply to clusters").all()


def test_analytic_with_a_new_benchmark_still_resamples_for_it() -> None:
    """predictive= with "analytic": the new benchmark's interval comes from task-bootstrap
    draws on a side stream, so the population and benchmark rows are those without it."""
    n, c = _spread_tasks()
    opts = {"ci": 0.9, "n_boot": 400, "ci_method": "analytic"}
    plain = scope_intervals(n, c, np.ones(n.size), [2], rng=np.random.default_rng(5), **opts)
    pred = scope_intervals(
        n, c, np.ones(n.size), [2], rng=np.random.default_rng(5), predictive=50, **opts
    )
    kept = pred[pred["scope"] != "predictive"].reset_index(drop=True)
    pd.testing.assert_frame_equal(kept, plain)
    new = pred[pred["scope"] == "predictive"]
    assert len(new) == 3
    assert new["method"].str.contains("population draws + task spread", regex=False).all()
    wider = new["upper"].to_numpy() - new["lower"].to_numpy()
    pop = plain[plain["scope"] == "population"]
    assert (wider > (pop["upper"] - pop["lower"]).to_numpy()).all()


def test_all_zero_but_few_tasks_reach_the_boundary() -> None:
    # 27 of 30 tasks fail all 10 runs, 3 pass 1–3 runs: pass^10 of every task is 0. The
    # interval is Clopper–Pearson's [0, 1 − 0.05^(1/30)] (scipy), which holds the estimate 0
    # and a truth such as E p^10 = 2.7e-5 of Beta(0.2, 5) (the Jeffreys-type end, ≈ 6.5e-5,
    # did not: reports/extremes).
    t = 30
    c = np.r_[np.zeros(27, int), [1, 2, 3]]
    iv = scope_intervals(
        np.full(t, 10), c, np.ones(t), [10], ci=0.9, n_boot=20000, rng=np.random.default_rng(5)
    )
    hat = _row(iv, "pass_hat_k", 10, "population")
    assert hat["lower"] == 0.0
    assert hat["upper"] == pytest.approx(stats.beta.ppf(0.95, 1, t), abs=0.004)
    assert "pseudo-task at the bound" in hat["method"]
    at = _row(iv, "pass_at_k", 10, "population")  # 3 of 30 tasks at 1, the rest at 0
    assert at["lower"] == pytest.approx(stats.beta.ppf(0.05, 3, t - 2), abs=0.004)
    assert at["upper"] == pytest.approx(stats.beta.ppf(0.95, 4, t - 3), abs=0.006)
    mean = _row(iv, "mean", 10, "population")  # values 0.1–0.3: the half pseudo-tasks
    assert "half a pseudo-task" in mean["method"]
    assert 0.0 < mean["lower"] < 0.02 < mean["upper"]


def test_all_zero_but_few_is_reproducible_with_a_seed() -> None:
    t = 30
    c = np.r_[np.zeros(28, int), [4, 10]]
    args = (np.full(t, 10), c, np.ones(t), [1, 10])
    a = scope_intervals(*args, ci=0.9, n_boot=2000, rng=np.random.default_rng(11))
    b = scope_intervals(*args, ci=0.9, n_boot=2000, rng=np.random.default_rng(11))
    pd.testing.assert_frame_equal(a, b)
    hat = _row(a, "pass_hat_k", 10, "population")  # one task of 30 at 1: Clopper–Pearson
    assert hat["lower"] == pytest.approx(stats.beta.ppf(0.05, 1, t), abs=0.002)


def test_few_tasks_none_flaky_join_the_model_with_clopper_pearson() -> None:
    # 20 tasks × 1 run, one success: the model alone covered 0.80 at 90% near a share of 0.04
    # (reports/extremes); joined, the interval holds the Clopper–Pearson one (scipy).
    t = 20
    c = np.r_[1, np.zeros(t - 1, int)]
    iv = scope_intervals(
        np.ones(t, int), c, np.ones(t), [1], ci=0.9, n_boot=20000, rng=np.random.default_rng(6)
    )
    pop = _row(iv, "mean", 1, "population")
    assert "joined with the Bayesian bootstrap with one pseudo-task" in pop["method"]
    assert pop["lower"] <= stats.beta.ppf(0.05, 1, t) + 0.003
    assert pop["upper"] >= stats.beta.ppf(0.95, 2, t - 1) - 0.006
    flaky = scope_intervals(
        np.full(t, 2), np.r_[1, np.zeros(t - 1, int)], np.ones(t), [1], ci=0.9, n_boot=500,
        rng=np.random.default_rng(6),
    )  # fmt: skip
    assert "joined" not in _row(flaky, "mean", 1, "population")["method"]
