"""Tests of passhat.hierarchical: intervals from the Beta-Binomial posterior.

Oracles: closed-form Beta moments (scipy.stats.beta), numerical integration
(scipy.integrate.quad) of the exact per-task variance over a Beta posterior,
numpy's inverted-CDF quantiles, and Monte-Carlo agreement between the exact
and the normal-approximation branches of the latent draws.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

import passhat as ph
from passhat.betabinom import GridNodes
from passhat.hierarchical import (
    expected_task_variance,
    latent_draws,
    population_spread,
    population_values,
    predictive_draws,
    weighted_quantiles,
)


def _node(a: float, b: float) -> GridNodes:
    one = np.ones(1)
    return GridNodes(a=a * one, b=b * one, mu=one * a / (a + b), kappa=one * (a + b), weight=one)


def test_population_values_are_beta_moments() -> None:
    a, b = 0.7, 2.3
    got = population_values(_node(a, b), [("mean", 1), ("pass_hat_k", 3), ("pass_at_k", 4)])[0]
    dist = stats.beta(a, b)
    want = [dist.mean(), dist.moment(3), 1 - stats.beta(b, a).moment(4)]
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize(("metric", "k"), [("mean", 1), ("pass_hat_k", 5), ("pass_at_k", 3)])
def test_population_spread_by_quadrature(metric: str, k: int) -> None:
    """Var g(p) under Beta(a, b) by numerical integration, averaged over two weighted nodes."""
    a_s, b_s, w = np.array([0.3, 4.0]), np.array([2.0, 0.4]), np.array([0.25, 0.75])
    nodes = GridNodes(a=a_s, b=b_s, mu=a_s / (a_s + b_s), kappa=a_s + b_s, weight=w)

    def g(p: float) -> float:
        if metric == "mean":
            return p
        return p**k if metric == "pass_hat_k" else 1 - (1 - p) ** k

    want = 0.0
    for a, b, wt in zip(a_s, b_s, w, strict=True):
        pdf = stats.beta(a, b).pdf
        m1 = integrate.quad(lambda p, f=pdf: g(p) * f(p), 0, 1)[0]
        m2 = integrate.quad(lambda p, f=pdf: g(p) ** 2 * f(p), 0, 1)[0]
        want += wt * (m2 - m1 * m1)
    assert population_spread(nodes, [(metric, k)])[0] == pytest.approx(want, rel=1e-6)


def test_weighted_quantiles() -> None:
    rng = np.random.default_rng(0)
    v = rng.random((101, 2))
    probs = [0.05, 0.5, 0.95]
    np.testing.assert_array_equal(
        weighted_quantiles(v, np.ones(101), probs),
        np.quantile(v, probs, axis=0, method="inverted_cdf"),
    )
    # integer weights = repeated values
    w = rng.integers(1, 5, size=101)
    np.testing.assert_array_equal(
        weighted_quantiles(v, w.astype(float), probs),
        np.quantile(np.repeat(v, w, axis=0), probs, axis=0, method="inverted_cdf"),
    )


@pytest.mark.parametrize(("metric", "k"), [("mean", 1), ("pass_hat_k", 2), ("pass_at_k", 3)])
def test_expected_task_variance_by_quadrature(metric: str, k: int) -> None:
    a, b, n, c = 0.8, 0.5, 4, 3
    got = expected_task_variance(_node(a, b), [n], [c], [(metric, k)])[0, 0]
    post = stats.beta(a + c, b + n - c)
    var = ph.pass_at_k_variance if metric == "pass_at_k" else ph.pass_hat_k_variance
    want = integrate.quad(lambda p: float(var(n, p, k)) * post.pdf(p), 0, 1)[0]
    assert got == pytest.approx(want, rel=1e-8)


def test_latent_draws_mean_and_normal_branch() -> None:
    """One node: the draws' mean is Σ w E[g(p_i)]; big groups (normal branch) agree with exact."""
    a, b = 2.0, 1.0
    node = _node(a, b)
    col = [("pass_hat_k", 2)]
    rng = np.random.default_rng(1)
    n, c = np.array([5.0, 5.0]), np.array([5.0, 1.0])
    w = np.array([1.0, 3.0])
    e = [stats.beta(a + ci, b + ni - ci).moment(2) for ni, ci in zip(n, c, strict=True)]
    for freq in ([10, 20], [100, 200]):  # exact draws, then the normal approximation
        d = latent_draws(node, n, c, w, np.array(freq), col, n_draws=20000, rng=rng)[:, 0]
        want = (w * freq) @ e / (w @ freq)
        assert d.mean() == pytest.approx(want, abs=4 * d.std() / np.sqrt(d.size))
        # the spread of a mean over f tasks: sd of Σ w g / Σ w f
        m2 = [stats.beta(a + ci, b + ni - ci).moment(4) for ni, ci in zip(n, c, strict=True)]
        var = np.asarray(m2) - np.asarray(e) ** 2
        sd = np.sqrt(np.sum(np.asarray(freq) * w**2 * var)) / (w @ freq)
        assert d.std() == pytest.approx(sd, rel=0.05)


def test_latent_draws_resampling_tasks_is_wider() -> None:
    node = _node(1.0, 1.0)
    rng = np.random.default_rng(2)
    args = (np.array([3.0, 3.0]), np.array([0.0, 3.0]), np.ones(2), np.array([5, 5]))
    fixed = latent_draws(node, *args, [("mean", 1)], n_draws=5000, rng=rng)
    moving = latent_draws(node, *args, [("mean", 1)], n_draws=5000, rng=rng, resample_tasks=True)
    assert moving.std() > 1.5 * fixed.std()


@pytest.mark.parametrize("new_tasks", [8, 500, 2000])  # exact draws, then the moment-matched Beta
def test_predictive_draws_moments(new_tasks: int) -> None:
    a, b = 1.5, 0.5
    d = predictive_draws(
        _node(a, b), [("pass_hat_k", 2)], new_tasks, n_draws=40000, rng=np.random.default_rng(3)
    )[:, 0]
    m1, m2 = stats.beta(a, b).moment(2), stats.beta(a, b).moment(4)
    assert d.mean() == pytest.approx(m1, abs=4 * d.std() / np.sqrt(d.size))
    assert d.var() == pytest.approx((m2 - m1**2) / new_tasks, rel=0.05)


def test_predictive_draws_exact_for_a_skewed_benchmark_of_50() -> None:
    """The mean of p^5 over 50 tasks with p ~ Beta(0.2, 5) (near all-fail): tiny and skewed.
    Oracle: 100 000 direct simulations of 50 rates each (numpy); the 5% and 95% quantiles
    must agree within Monte-Carlo error (a Beta matched to the mean and variance put the 5%
    quantile about eight times too low)."""
    a, b, t = 0.2, 5.0, 50
    rng = np.random.default_rng(11)
    want = np.quantile((rng.beta(a, b, size=(100_000, t)) ** 5).mean(axis=1), [0.05, 0.95])
    d = predictive_draws(
        _node(a, b), [("pass_hat_k", 5)], t, n_draws=40_000, rng=np.random.default_rng(12)
    )[:, 0]
    got = np.quantile(d, [0.05, 0.95])
    assert got == pytest.approx(want, rel=0.1)
