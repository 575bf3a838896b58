"""Tests of passhat.betabinom: the Beta-Binomial posterior grid below the model.

Oracles: scipy.stats.betabinom (the likelihood, up to the binomial
coefficients), scipy.stats.beta (moments), the model package's own log prior
(the same numbers), and brute-force sums over the grid.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

from passhat.betabinom import (
    HyperPrior,
    log_pmf,
    log_prior,
    loglik,
    posterior_grid,
    rising_moments,
    suff_stats,
)


@pytest.mark.parametrize(
    ("n", "c"),
    [
        ([5, 5, 5, 3, 1, 5], [5, 2, 0, 1, 1, 5]),  # small counts: the log-sum branch
        ([400, 1000, 7], [13, 990, 7]),  # large counts: the log-gamma branch
    ],
)
def test_loglik_matches_scipy_betabinom(n: list[int], c: list[int]) -> None:
    nn, cc = np.array(n), np.array(c)
    st = suff_stats(nn, cc)
    for theta, lam in [(0.3, -1.0), (-2.0, 2.5), (4.0, 0.0)]:
        mu, kappa = special.expit(theta), np.exp(lam)
        a, b = mu * kappa, (1 - mu) * kappa
        want = stats.betabinom.logpmf(cc, nn, a, b).sum() - np.sum(
            special.gammaln(nn + 1) - special.gammaln(cc + 1) - special.gammaln(nn - cc + 1)
        )
        assert float(loglik(np.array(theta), np.array(lam), st)) == pytest.approx(want, rel=1e-10)


def test_log_prior_is_the_models() -> None:
    from passhat.model import Priors
    from passhat.model.build import log_prior as model_log_prior

    pri = Priors(mu_alpha=2.0, mu_beta=0.7, log_kappa_mean=0.4, log_kappa_sd=1.3)
    hp = HyperPrior(mu_alpha=2.0, mu_beta=0.7, log_kappa_mean=0.4, log_kappa_sd=1.3)
    t, lam = np.linspace(-5, 5, 7), np.linspace(-3, 3, 7)
    np.testing.assert_array_equal(log_prior(t, lam, hp), model_log_prior(t, lam, pri))


def test_nodes_and_coarsened_grid_hold_the_whole_mass() -> None:
    g = posterior_grid([5, 5, 3], [5, 0, 2], [7, 2, 1], size=128)
    nodes = g.nodes()
    assert nodes.weight.sum() == pytest.approx(1.0)
    prob, _ = g.density()
    # the mean of μ over the kept nodes equals the full grid's (dropped tail ≤ 1e-10)
    full_mu = (prob * special.expit(g.theta)[:, None]).sum()
    assert nodes.weight @ nodes.mu == pytest.approx(full_mu, abs=1e-9)
    coarse = g.coarsened(4)
    assert coarse.weight.size == 32 * 32
    assert coarse.weight.sum() == pytest.approx(1.0)
    assert coarse.weight @ coarse.mu == pytest.approx(full_mu, abs=2e-3)


def test_all_pass_posterior_is_proper_and_below_one() -> None:
    nodes = posterior_grid([4] * 25, [4] * 25).nodes()
    assert np.isfinite(nodes.weight).all()
    mean_mu = nodes.weight @ nodes.mu
    assert 0.8 < mean_mu < 1.0


def test_rising_moments_are_beta_moments() -> None:
    x, y = np.array([0.3, 2.0, 7.5]), np.array([1.1, 3.0, 8.0])
    got = rising_moments(x, y, 6)
    j = np.arange(1, 7)
    for i in range(3):
        # E p^j of Beta(x, y − x) = B(x + j, y − x) / B(x, y − x)
        want = np.exp(special.betaln(x[i] + j, y[i] - x[i]) - special.betaln(x[i], y[i] - x[i]))
        np.testing.assert_allclose(got[i], want, rtol=1e-12)


def test_log_pmf_is_scipys_betabinom_and_broadcasts() -> None:
    # Oracle: scipy.stats.betabinom.logpmf, element by element.
    y = np.arange(6)[:, None, None]
    n = np.array([5.0, 7.0])[None, :, None]
    a = np.array([0.3, 2.0, 40.0])[None, None, :]
    b = np.array([1.7, 0.1, 5.0])[None, None, :]
    got = log_pmf(y, n, a, b)
    assert got.shape == (6, 2, 3)
    np.testing.assert_allclose(got, stats.betabinom.logpmf(y, n, a, b), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.exp(log_pmf(np.arange(8), 7, 2.0, 0.1)).sum(), 1.0, rtol=1e-12)
    # An all-pass posterior's tiny β: y = n must not round β + (n − y) to 0.
    assert np.isfinite(log_pmf(np.arange(11), 10, 3.0, 1e-300)).all()
