"""Tests of passhat.bootstrap: the category (n, c, w) task bootstrap.

Oracles: naive task resampling with numpy (category compression, quantiles);
scipy.stats.bootstrap (BCa); leave-one-out means computed task by task
(jackknife); per-task random signs drawn one by one (sign flips: mean 0 and
variance Σ d_i² / T²).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import passhat as ph
from passhat.bootstrap import (
    bootstrap_draws,
    bound_bootstrap_draws,
    compress,
    draw_stats,
    interval_from_draws,
    jackknife,
    sign_flip_draws,
    task_bootstrap,
)
from passhat.errors import OptionError


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


def test_bad_method() -> None:
    with pytest.raises(OptionError, match="ci_method"):
        task_bootstrap(np.arange(5.0), method="basic")  # type: ignore[arg-type]


def test_jackknife_equals_leave_one_task_out() -> None:
    """Oracle: the weighted mean without task i, computed task by task."""
    rng = np.random.default_rng(12)
    n, c = _random_tasks(rng, 40)
    w = rng.choice([1.0, 3.0], size=40)
    vals = np.column_stack([c / n, ph.pass_hat_k(n, c, 2)])
    cats = compress(np.column_stack([n, c]), vals, w)
    jack = jackknife(cats)
    for i in range(40):
        keep = np.arange(40) != i
        naive = (w[keep] @ vals[keep]) / w[keep].sum()
        np.testing.assert_allclose(jack[cats.inverse[i]], naive, rtol=1e-12)


def test_percentile_interval_is_the_quantiles_of_the_draws() -> None:
    """Oracle: numpy quantiles of the same draws at α/2 and 1 − α/2."""
    rng = np.random.default_rng(13)
    n, c = _random_tasks(rng, 60)
    vals = ph.pass_hat_k(n, c, 2)[:, None]
    cats = compress(np.column_stack([n, c]), vals, np.ones(60))
    draws = draw_stats(cats, n_boot=500, rng=np.random.default_rng(1))
    lo, hi, labels = interval_from_draws(
        vals.mean(axis=0), draws, cats, ci=0.8, method="percentile"
    )
    assert lo[0] == pytest.approx(np.quantile(draws[:, 0], 0.1), rel=1e-12)
    assert hi[0] == pytest.approx(np.quantile(draws[:, 0], 0.9), rel=1e-12)
    assert labels == ["percentile"]
    # the same seed gives the same draws
    again = draw_stats(cats, n_boot=500, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(draws, again)


def test_sign_flip_draws_match_per_task_random_signs() -> None:
    """Oracle: mean 0 and variance Σ d_i² / T² of the mean of d_i·s_i, s_i = ±1 (MC error)."""
    rng = np.random.default_rng(14)
    d = rng.choice([-0.5, -0.2, 0.0, 0.2, 0.6], size=(50, 1))
    cats = compress(d, d, np.ones(50))
    b = 20_000
    flips = sign_flip_draws(cats, n_boot=b, rng=np.random.default_rng(2))
    var = float((d**2).sum() / 50**2)
    assert flips.shape == (b, 1)
    assert abs(flips.mean()) < 4 * np.sqrt(var / b)
    # s.e. of a sample variance ≈ var·sqrt(2/B) for a near-normal statistic
    assert flips.var() == pytest.approx(var, rel=4 * np.sqrt(2 / b))
    naive = (d[:, 0] * rng.choice([-1.0, 1.0], size=(b, 50))).mean(axis=1)
    assert abs(np.quantile(flips, 0.9) - np.quantile(naive, 0.9)) < 0.1 * np.sqrt(var)


# ----------------------------------------------------------------- the cluster bootstrap
def _cluster_setup() -> tuple[object, np.ndarray, np.ndarray, np.ndarray]:
    """Five clusters of unequal sizes (1 to 4 tasks) and unequal weights, two columns."""
    from passhat.bootstrap import compress

    n = np.array([4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4])
    c = np.array([0, 1, 4, 2, 2, 3, 0, 4, 4, 1, 3])
    w = np.array([1.0, 1.0, 2.0, 1.0, 1.0, 1.0, 3.0, 1.0, 1.0, 1.0, 1.0])
    clusters = np.array([0, 0, 1, 2, 2, 2, 3, 4, 4, 4, 4])
    vals = np.column_stack([c / n, (c / n) ** 2])
    return compress(np.column_stack([n, c]), vals, w), vals, w, clusters


def test_one_task_per_cluster_is_the_task_categories() -> None:
    """Each task its own cluster: the cluster categories are the task categories, exactly
    (frequencies, values, weights and order), so the draws are the task bootstrap's."""
    from passhat.bootstrap import cluster_categories

    cats, _, _, _ = _cluster_setup()
    cc = cluster_categories(cats, np.arange(cats.inverse.size)[::-1])  # any labels
    assert cc.freq.tolist() == cats.freq.tolist()
    assert np.array_equal(cc.values, cats.values)
    assert np.array_equal(cc.weights, cats.weights)
    a = draw_stats(cats, n_boot=500, rng=np.random.default_rng(3))
    b = draw_stats(cc, n_boot=500, rng=np.random.default_rng(3))
    assert np.array_equal(a, b)


def test_cluster_bootstrap_moments_match_exact_enumeration() -> None:
    """Oracle: all 5^5 equally likely ordered resamples of 5 clusters (unequal sizes and
    weights), each cluster carrying all its tasks, give the exact mean and variance of the
    resampled weighted mean. 200 000 draws; tolerances 4 Monte-Carlo s.e. (the variance's
    from the draws' fourth central moment)."""
    import itertools

    from passhat.bootstrap import cluster_categories

    cats, vals, w, clusters = _cluster_setup()
    g = int(clusters.max()) + 1
    s_cl = np.array([(w[clusters == j, None] * vals[clusters == j]).sum(axis=0) for j in range(g)])
    w_cl = np.array([w[clusters == j].sum() for j in range(g)])
    exact = np.array(
        [s_cl[list(pick)].sum(axis=0) / w_cl[list(pick)].sum()
         for pick in itertools.product(range(g), repeat=g)]
    )  # fmt: skip
    cc = cluster_categories(cats, clusters)
    assert int(cc.freq.sum()) == g
    b = 200_000
    draws = draw_stats(cc, n_boot=b, rng=np.random.default_rng(11))
    mu, var = exact.mean(axis=0), exact.var(axis=0)
    m4 = ((draws - draws.mean(axis=0)) ** 4).mean(axis=0)
    assert np.all(np.abs(draws.mean(axis=0) - mu) < 4 * np.sqrt(var / b))
    assert np.all(np.abs(draws.var(axis=0) - var) < 4 * np.sqrt((m4 - var**2) / b))
    # the task bootstrap ignores the clusters: its variance is smaller here (clusters of
    # alike tasks), the reason for the cluster bootstrap
    assert np.all(draw_stats(cats, n_boot=20_000, rng=np.random.default_rng(1)).var(axis=0) < var)


def test_cluster_bootstrap_variance_of_equal_clusters_is_the_closed_form() -> None:
    """Equal clusters of equally weighted tasks: the resampled mean is the mean of G
    resampled cluster means, whose variance is (1/G)·(1/G)Σ(ȳ_g − ȳ)² exactly."""
    from passhat.bootstrap import cluster_categories, compress

    rng = np.random.default_rng(5)
    g, m = 8, 3
    v = rng.integers(0, 5, size=g * m) / 4.0
    cats = compress(v[:, None], v[:, None], np.ones(v.size))
    cc = cluster_categories(cats, np.repeat(np.arange(g), m))
    ybar = v.reshape(g, m).mean(axis=1)
    closed = float(np.mean((ybar - ybar.mean()) ** 2) / g)
    f = cc.freq.astype(float)
    exact = float(f @ (cc.values[:, 0] - ybar.mean()) ** 2 / f.sum() / g)
    assert exact == pytest.approx(closed, rel=1e-12)
    b = 100_000
    d = draw_stats(cc, n_boot=b, rng=np.random.default_rng(2))[:, 0]
    m4 = float(np.mean((d - d.mean()) ** 4))
    assert abs(d.var() - closed) < 4 * np.sqrt((m4 - closed**2) / b)


def test_bound_bootstrap_is_clopper_pearson_on_0_1_values() -> None:
    # Oracle: x ones of T with one Exp(1) pseudo-task at 0 (lower) / 1 (upper) are
    # Beta(x, T − x + 1) / Beta(x + 1, T − x), the Clopper–Pearson bounds (scipy).
    t, x = 30, 3
    v = np.r_[np.ones(x), np.zeros(t - x)][:, None]
    lo, hi = bound_bootstrap_draws(
        compress(v, v, np.ones(t)), n_boot=40000, rng=np.random.default_rng(1)
    )
    # MC s.e. of a 5% / 95% quantile of 40000 draws is < 0.001 here; 0.004 is > 4 s.e.
    assert np.quantile(lo, 0.05) == pytest.approx(stats.beta.ppf(0.05, x, t - x + 1), abs=0.004)
    assert np.quantile(hi, 0.95) == pytest.approx(stats.beta.ppf(0.95, x + 1, t - x), abs=0.004)
    assert stats.kstest(hi[:2000, 0], stats.beta(x + 1, t - x).cdf).pvalue > 1e-3


def test_bound_bootstrap_reaches_the_bound_and_takes_bounds_per_column() -> None:
    z = np.zeros((30, 2))
    z[:3, 1] = 0.5
    cats = compress(z, z, np.ones(30))
    lo, hi = bound_bootstrap_draws(
        cats, n_boot=500, rng=np.random.default_rng(2), low=[0.0, 0.5], high=[1.0, 0.5]
    )
    assert np.all(lo[:, 0] == 0.0)  # every task at 0: the lower end is 0, not a Jeffreys bound
    assert np.all(hi[:, 0] > 0.0)
    assert np.all(lo[:, 1] <= hi[:, 1]) and np.all(hi[:, 1] <= 0.5 + 1e-12)
    again = bound_bootstrap_draws(
        cats, n_boot=500, rng=np.random.default_rng(2), low=[0, 0.5], high=[1, 0.5]
    )
    assert np.array_equal(lo, again[0]) and np.array_equal(hi, again[1])
