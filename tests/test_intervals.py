"""Tests of passhat.intervals: per-task intervals, benchmark SE, both scopes per system.

Oracles: statsmodels ``proportion_confint`` (per-task intervals); exact
enumeration of the binomial distribution (variance estimates); simulation
with known truth and Monte-Carlo tolerances (coverage); the engine's own
functions (benchmark_se, task_bootstrap) for the table that combines them.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

import passhat as ph
from passhat.bootstrap import task_bootstrap
from passhat.errors import OptionError
from passhat.intervals import benchmark_se, estimate_intervals, proportion_interval

SM_NAME = {"wilson": "wilson", "clopper-pearson": "beta", "jeffreys": "jeffreys"}


# ------------------------------------------------------------ per task
@pytest.mark.parametrize("method", ["wilson", "clopper-pearson", "jeffreys"])
@pytest.mark.parametrize("ci", [0.8, 0.95, 0.99])
def test_proportion_interval_matches_statsmodels(method: str, ci: float) -> None:
    n = np.concatenate([np.full(k + 1, k) for k in range(1, 31)])
    c = np.concatenate([np.arange(k + 1) for k in range(1, 31)])
    lo, hi = proportion_interval(n, c, method=method, ci=ci)
    ref_lo, ref_hi = proportion_confint(c, n, alpha=1 - ci, method=SM_NAME[method])
    np.testing.assert_allclose(lo, ref_lo, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(hi, ref_hi, rtol=1e-10, atol=1e-12)


def test_task_intervals_transform_and_table() -> None:
    ds = ph.counts_from_arrays([5, 5, 5, 5, 0], [5, 4, 2, 0, 0], tasks=list("ABCDE"))
    ti = ph.task_intervals(ds, method="clopper-pearson", ci=0.9, k=[2, 3])
    ref_lo, ref_hi = proportion_confint([5, 4, 2, 0], [5] * 4, alpha=0.1, method="beta")
    np.testing.assert_allclose(ti["rate_lower"][:4], ref_lo, atol=1e-12)
    np.testing.assert_allclose(ti["pass_hat_3_lower"][:4], np.asarray(ref_lo) ** 3, atol=1e-12)
    np.testing.assert_allclose(
        ti["pass_at_2_upper"][:4], 1 - (1 - np.asarray(ref_hi)) ** 2, atol=1e-12
    )
    # point values are the unbiased estimates (seeds: .6 and .1 for B, C at k = 2)
    np.testing.assert_allclose(ti["pass_hat_2"][:4], [1.0, 0.6, 0.1, 0.0])
    assert ti["flaky"].tolist() == [False, True, True, False, False]
    assert ti["all_pass"].tolist() == [True, False, False, False, False]
    assert ti["all_fail"].tolist() == [False, False, False, True, False]
    # a task with no decided run has no interval
    assert np.isnan(ti["rate_lower"].iloc[4]) and np.isnan(ti["rate"].iloc[4])
    assert ti["method"].iloc[0] == "clopper-pearson 0.9"


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, "x"])
def test_ci_outside_unit_interval_is_an_option_error(bad: object) -> None:
    with pytest.raises(OptionError, match="ci must"):
        proportion_interval(5, 3, ci=bad)  # type: ignore[arg-type]


def test_bad_method() -> None:
    with pytest.raises(OptionError, match="method must be one of"):
        ph.task_intervals(ph.load_example("abcd"), method="wald")


# ------------------------------------------------------ benchmark scope
@pytest.mark.parametrize(("n", "k"), [(4, 1), (6, 2), (10, 3), (12, 5)])
def test_benchmark_variance_estimate_is_unbiased_by_enumeration(n: int, k: int) -> None:
    """E[V̂] over c ~ Binomial(n, p) equals the exact variance (brute-force enumeration)."""
    for p in (0.1, 0.5, 0.83):
        c = np.arange(n + 1)
        pmf = stats.binom.pmf(c, n, p)
        v_hat = np.array([benchmark_se([n], [cc], k=k)[0] ** 2 for cc in c])
        # se² is floored at 0 per call; recompute unfloored from the estimator itself
        v_raw = ph.pass_hat_k_variance_estimate(np.full(n + 1, n), c, k)
        assert np.all(np.isclose(v_hat, np.maximum(v_raw, 0)))
        u = ph.pass_hat_k(np.full(n + 1, n), c, k)
        exact = np.sum(pmf * (u - p**k) ** 2)
        assert np.sum(pmf * v_raw) == pytest.approx(exact, abs=1e-12)
        assert float(ph.pass_hat_k_variance(n, p, k)) == pytest.approx(exact, abs=1e-12)


def test_benchmark_se_mean_formula_and_plugin_branch() -> None:
    # mean, n ≥ 2: V̂ = c(n−c)/(n²(n−1)); equal weights over 3 tasks → Σ V̂ / 9
    n, c = np.array([10, 8, 5]), np.array([5, 2, 5])
    se, n_plug = benchmark_se(n, c, k=1, metric="mean")
    assert n_plug == 0
    assert se**2 == pytest.approx(np.sum(c * (n - c) / (n**2 * (n - 1))) / 9)
    # n < 2k: exact variance at the shrunk rate (c + 1/2)/(n + 1)
    se, n_plug = benchmark_se([5, 5], [4, 1], k=3, metric="pass_hat_k")
    assert n_plug == 2
    pv = ph.pass_hat_k_variance(np.array([5, 5]), np.array([4.5, 1.5]) / 6, 3)
    assert se**2 == pytest.approx(pv.sum() / 4)
    # pass@k uses failures: equals pass^k SE of the complement counts
    se_at, _ = benchmark_se([10, 10], [7, 3], k=2, metric="pass_at_k")
    se_hat, _ = benchmark_se([10, 10], [3, 7], k=2, metric="pass_hat_k")
    assert se_at == pytest.approx(se_hat)


# ------------------------------------------------------------ both scopes
def test_estimate_intervals_combine_benchmark_se_and_task_bootstrap() -> None:
    """Oracle: benchmark_se (value ± z·SE) and task_bootstrap on the same tasks and seed."""
    n = np.array([6, 6, 6, 4, 4, 8])
    c = np.array([6, 3, 0, 2, 4, 5])
    ds = ph.counts_from_arrays(n, c)
    per = ph.per_task_metrics(ds, [1, 2]).assign(n=ds["n"], c=ds["c"])
    w = np.full((1, 6), 1 / 6)
    got = estimate_intervals(per, np.ones((1, 6), bool), w, [1, 2], ci=0.9, n_boot=400, seed=3)
    assert len(got) == 2 * 3 * 2  # k × metric × scope
    z = stats.norm.isf(0.05)
    row = got[(got["metric"] == "pass_hat_k") & (got["k"] == 2)].set_index("scope")
    value = float(ph.pass_hat_k(n, c, 2).mean())
    se, _ = benchmark_se(n, c, k=2, metric="pass_hat_k")
    assert row.loc["benchmark", "lower"] == pytest.approx(max(0.0, value - z * se))
    assert row.loc["benchmark", "upper"] == pytest.approx(min(1.0, value + z * se))
    # one draw matrix for every column: [mean, pass@1, pass@2, pass^1, pass^2]
    cols = [c / n, ph.pass_at_k(n, c, 1), ph.pass_at_k(n, c, 2)]
    cols += [ph.pass_hat_k(n, c, 1), ph.pass_hat_k(n, c, 2)]
    boot = task_bootstrap(
        np.column_stack(cols), keys=np.column_stack([n, c]), ci=0.9, n_boot=400, seed=3
    )
    assert row.loc["population", "lower"] == pytest.approx(boot["lower"][4])
    assert row.loc["population", "upper"] == pytest.approx(boot["upper"][4])
    assert row.loc["population", "method"] == boot["method"][4]


# ------------------------------------------------------------ coverage
def _coverage(
    a: float, b: float, t: int, n: int, k: int, reps: int, seed: int
) -> tuple[float, float]:
    """Share of reps whose population / benchmark interval covers E[p^k] / mean_i p_i^k."""
    rng = np.random.default_rng(seed)
    truth_pop = float(np.prod([(a + j) / (a + b + j) for j in range(k)]))  # E[p^k], Beta
    hit_pop = hit_bench = 0
    for _ in range(reps):
        p = rng.beta(a, b, size=t)
        c = rng.binomial(n, p)
        nn = np.full(t, n)
        v = ph.pass_hat_k(nn, c, k)
        r = task_bootstrap(v, keys=c, n_boot=1000, seed=rng, method="percentile")
        hit_pop += r["lower"][0] <= truth_pop <= r["upper"][0]
        se, _ = benchmark_se(nn, c, k=k)
        z = stats.norm.isf(0.025)
        truth_bench = float(np.mean(p**k))
        hit_bench += v.mean() - z * se <= truth_bench <= v.mean() + z * se
    return hit_pop / reps, hit_bench / reps


@pytest.mark.parametrize(
    ("a", "b", "t", "n", "k"),
    [(2.0, 2.0, 100, 10, 2), (0.5, 0.3, 300, 10, 1)],
)
def test_coverage_short(a: float, b: float, t: int, n: int, k: int) -> None:
    """Coverage within 3 binomial MC s.e. (+0.01 for bootstrap's small-T undercoverage)."""
    reps = 300
    pop, bench = _coverage(a, b, t, n, k, reps, seed=100 + t)
    tol = 3 * np.sqrt(0.95 * 0.05 / reps) + 0.01
    assert abs(pop - 0.95) < tol, pop
    assert abs(bench - 0.95) < tol, bench
