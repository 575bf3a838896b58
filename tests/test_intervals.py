"""Tests of passhat.intervals: per-task intervals, benchmark SE, task bootstrap, estimate(ci=...).

Oracles: statsmodels ``proportion_confint`` (per-task intervals); exact
enumeration of the binomial distribution (variance estimates); naive task
resampling with numpy (category compression); scipy.stats.bootstrap (BCa);
simulation with known truth and Monte-Carlo tolerances (coverage); τ-bench's
published pass^k for the airline data (values).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

import passhat as ph
from passhat.bootstrap import bootstrap_draws, compress, task_bootstrap
from passhat.errors import OptionError
from passhat.intervals import benchmark_se, proportion_interval

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
    with pytest.raises(OptionError, match="ci must"):
        ph.estimate(ph.load_example("abcd"), k=2, ci=bad)  # type: ignore[arg-type]


def test_bad_method_and_n_boot() -> None:
    with pytest.raises(OptionError, match="method must be one of"):
        ph.task_intervals(ph.load_example("abcd"), method="wald")
    with pytest.raises(OptionError, match="n_boot must be"):
        ph.estimate(ph.load_example("abcd"), k=2, ci=0.95, n_boot=50)
    with pytest.raises(OptionError, match="ci_method"):
        task_bootstrap(np.arange(5.0), method="basic")  # type: ignore[arg-type]


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


# ------------------------------------------------------- population scope
def _random_tasks(rng: np.random.Generator, t: int) -> tuple[np.ndarray, np.ndarray]:
    n = rng.choice([3, 5, 8], size=t)
    p = rng.beta(0.6, 0.5, size=t)
    return n, rng.binomial(n, p)


def test_category_compression_gives_identical_draws_to_task_resampling() -> None:
    """Same task indices → same resampled means, whether computed per task or per category."""
    rng = np.random.default_rng(1)
    n, c = _random_tasks(rng, 400)
    w = rng.choice([1.0, 2.0], size=400)
    vals = np.column_stack([c / n, ph.pass_hat_k(n, c, 2), ph.pass_at_k(n, c, 3)])
    comp = compress(np.column_stack([n, c]), vals, w)
    assert comp.freq.size < 60  # few categories for 400 tasks
    idx = rng.integers(0, 400, size=(300, 400))
    naive = (w[idx][..., None] * vals[idx]).sum(axis=1) / w[idx].sum(axis=1)[:, None]
    counts = np.stack([np.bincount(comp.inverse[row], minlength=comp.freq.size) for row in idx])
    np.testing.assert_allclose(bootstrap_draws(counts, comp.values, comp.weights), naive, 1e-12)


def test_multinomial_bootstrap_agrees_with_naive_task_resampling() -> None:
    """Quantiles of the category bootstrap vs explicit task resampling, within MC error."""
    rng = np.random.default_rng(2)
    n, c = _random_tasks(rng, 150)
    v = ph.pass_hat_k(n, c, 2)
    b = 20_000
    boot = task_bootstrap(
        v, keys=np.column_stack([n, c]), n_boot=b, seed=3, method="percentile", ci=0.9
    )
    naive = v[np.random.default_rng(4).integers(0, v.size, size=(b, v.size))].mean(axis=1)
    sd = naive.std()
    for q, col in ((0.05, "lower"), (0.95, "upper")):
        # s.e. of a sample quantile ≈ sqrt(q(1−q)/B)/f(x_q), f ≈ normal density; two samples
        se_q = np.sqrt(q * (1 - q) / b) / (stats.norm.pdf(stats.norm.ppf(q)) / sd)
        assert abs(boot[col][0] - np.quantile(naive, q)) < 4 * np.sqrt(2) * se_q
    assert boot["se"][0] == pytest.approx(sd, rel=0.05)  # s.e. of an s.d. ≈ sd/sqrt(2B)


def test_bca_agrees_with_scipy_bootstrap() -> None:
    """BCa endpoints vs scipy.stats.bootstrap(method='BCa') on the per-task values."""
    rng = np.random.default_rng(5)
    n, c = _random_tasks(rng, 120)
    v = ph.pass_hat_k(n, c, 3)
    ours = task_bootstrap(v, keys=np.column_stack([n, c]), n_boot=20_000, seed=6, method="bca")
    ref = stats.bootstrap(
        (v,), np.mean, n_resamples=20_000, method="BCa", random_state=7, confidence_level=0.95
    )
    sd = ours["se"][0]
    assert ours["method"][0].startswith("task bootstrap BCa")
    for got, want in (
        (ours["lower"][0], ref.confidence_interval.low),
        (ours["upper"][0], ref.confidence_interval.high),
    ):
        # tail quantile MC error ≈ sqrt(.025·.975/B)/φ(1.96)·sd ≈ 0.019 sd per run
        assert abs(got - want) < 0.12 * sd


def test_bca_degenerate_falls_back_to_percentile() -> None:
    r = task_bootstrap(np.ones(20), n_boot=200, seed=0, method="bca")
    assert "percentile (BCa degenerate" in r["method"][0]
    assert r["lower"][0] == r["upper"][0] == 1.0


def test_chunking_keeps_results_and_seed_reproducible(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(8)
    n, c = _random_tasks(rng, 200)
    v = ph.pass_hat_k(n, c, 2)
    kw = {"keys": np.column_stack([n, c]), "n_boot": 1000, "seed": 11}
    a = task_bootstrap(v, **kw)
    b = task_bootstrap(v, **kw)
    pd.testing.assert_frame_equal(a, b)
    import passhat.bootstrap as bs

    monkeypatch.setattr(bs, "_CHUNK_CELLS", 37)  # many small chunks
    c_ = task_bootstrap(v, **kw)
    assert c_["lower"][0] == pytest.approx(a["lower"][0], abs=0.03)


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


# ---------------------------------------------------------- estimate(ci)
def test_estimate_ci_table_has_both_scopes() -> None:
    est = ph.estimate(ph.load_example("agents"), k=[1, 2], ci=0.9, n_boot=500, seed=0)
    t = est.table
    assert {"lower", "upper", "scope", "method"} <= set(t.columns)
    assert len(t) == 2 * 2 * 3 * 2  # systems × k × metrics × scopes
    assert set(t["scope"]) == {"benchmark", "population"}
    assert ((t["lower"] <= t["value"]) & (t["value"] <= t["upper"])).all()
    # population (adds task sampling) is wider than benchmark (within-task only)
    w = t.pivot_table(index=["system", "k", "metric"], columns="scope", values="upper") - (
        t.pivot_table(index=["system", "k", "metric"], columns="scope", values="lower")
    )
    assert (w["population"] > w["benchmark"]).all()
    again = ph.estimate(ph.load_example("agents"), k=[1, 2], ci=0.9, n_boot=500, seed=0)
    pd.testing.assert_frame_equal(t, again.table)
    # without ci the table keeps its old shape
    assert "scope" not in ph.estimate(ph.load_example("agents"), k=1).table.columns


def test_estimate_per_task_table_and_flaky_shares() -> None:
    est = ph.estimate(ph.load_example("abcd"), k=2)
    tasks = est.tasks
    assert tasks["flaky"].tolist() == [False, True, True, False]
    s = est.summary.iloc[0]
    assert (s["flaky_share"], s["all_pass_share"], s["all_fail_share"]) == (0.5, 0.25, 0.25)
    assert tasks["included"].all()


def test_estimate_ci_on_tau_bench(tau_airline_path) -> None:  # type: ignore[no-untyped-def]
    est = ph.estimate(ph.read(tau_airline_path), k=[1, 2, 3, 4], ci=0.95, n_boot=2000, seed=0)
    t = est.table[est.table["metric"] == "pass_hat_k"]
    pop = t[t["scope"] == "population"]
    # τ-bench's published pass^1..4 for gpt-4o airline
    np.testing.assert_allclose(pop["value"], [0.420, 0.273, 0.220, 0.200], atol=5e-4)
    assert ((pop["lower"] < pop["value"]) & (pop["value"] < pop["upper"])).all()
    bench = t[t["scope"] == "benchmark"]
    # k ≥ 3 with n = 4 < 2k: plug-in variance, labelled in method
    assert bench["method"].str.contains("plug-in").tolist() == [False, False, True, True]
