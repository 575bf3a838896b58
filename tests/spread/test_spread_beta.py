"""passhat.spread.beta: Beta moments, mixed-task share, κ from a pair, the gap concentration.

Oracles: scipy's Beta and BetaBinomial moments, a simulation with known truth (κ recovered
from measured runs), and brute force for the gap concentration (sorting p − p^k over 2·10⁶
Beta draws).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import passhat as ph
from passhat.errors import OptionError
from passhat.spread import beta_gap_concentration, beta_mixed_share, beta_moment, solve_beta_kappa
from passhat.spread.beta import impossible


def test_beta_moment_and_mixed_share_match_scipy() -> None:
    rng = np.random.default_rng(1)
    for _ in range(20):
        mu, kappa, k = rng.uniform(0.05, 0.95), rng.lognormal(0, 1.5), int(rng.integers(1, 12))
        a, b = mu * kappa, (1 - mu) * kappa
        assert beta_moment(mu, kappa, k) == pytest.approx(stats.beta(a, b).moment(k), rel=1e-9)
        bb = stats.betabinom(k, a, b)
        assert beta_mixed_share(mu, kappa, k) == pytest.approx(1 - bb.pmf(0) - bb.pmf(k), abs=1e-12)


def test_known_truth_recovers_kappa() -> None:
    """Simulate p ~ Beta(μκ, (1−μ)κ), n = 5 runs; pass^5 measured from the runs, then
    spread_from_summary recovers κ within 4 standard errors (delta method on the measured
    pass^5, whose SE is the per-task spread / √T)."""
    rng = np.random.default_rng(7)
    mu, kappa, T, n = 0.7, 1.5, 40_000, 5
    p = rng.beta(mu * kappa, (1 - mu) * kappa, size=T)
    c = rng.binomial(n, p)
    counts = ph.counts_from_arrays(np.full(T, n), c)
    row = ph.spread(counts, k=5, seed=0).row("system", 5)
    per_task = ph.pass_hat_k(n, c, 5)
    se = per_task.std(ddof=1) / math.sqrt(T)
    k_hat = solve_beta_kappa(row["mean"], row["pass_hat_k"], 5)
    h = 1e-4
    slope = (
        solve_beta_kappa(row["mean"], row["pass_hat_k"] + h, 5)
        - solve_beta_kappa(row["mean"], row["pass_hat_k"] - h, 5)
    ) / (2 * h)
    # the mean is estimated too; add its part the same way
    se_mu = (c / n).std(ddof=1) / math.sqrt(T)
    slope_mu = (
        solve_beta_kappa(row["mean"] + h, row["pass_hat_k"], 5)
        - solve_beta_kappa(row["mean"] - h, row["pass_hat_k"], 5)
    ) / (2 * h)
    tol = 4 * math.hypot(slope * se, slope_mu * se_mu)
    assert abs(k_hat - kappa) < tol, (k_hat, tol)
    # and the predicted share of mixed tasks matches the observed one within 4 SE
    mixed = ((c > 0) & (c < n)).mean()
    pred = float(beta_mixed_share(mu, kappa, n))
    assert abs(row["flaky_share"] - mixed) < 1e-12
    assert abs(mixed - pred) < 4 * math.sqrt(pred * (1 - pred) / T)


def _brute_concentration(mu: float, kappa: float, k: int, level: float, n: int = 2_000_000):
    """Sort p − p^k of n Beta draws, worst first; the share of draws whose sum reaches level."""
    p = np.random.default_rng(0).beta(mu * kappa, (1 - mu) * kappa, size=n)
    g = np.sort(p - p**k)[::-1]
    cum = np.cumsum(g) / g.sum()
    return (np.argmax(cum >= level) + 1) / n


@pytest.mark.parametrize(
    ("mu", "kappa", "k", "level"),
    [
        (0.7, 2.0, 5, 0.8),
        (0.7, 2.0, 5, 0.5),
        (0.3, 0.5, 3, 0.8),
        (0.9, 10.0, 2, 0.8),
        (0.774, 1.0, 5, 0.8),
        (0.2, 0.3, 10, 0.95),
    ],
)
def test_gap_concentration_matches_brute_force(mu, kappa, k, level) -> None:
    got = float(beta_gap_concentration(mu, kappa, k, level))
    # the brute-force share has Monte Carlo error of order 1/√n on a smooth curve
    assert got == pytest.approx(_brute_concentration(mu, kappa, k, level), abs=2e-3)


def test_gap_concentration_limits_and_bounds() -> None:
    # every task at μ: all gaps equal, so x% of tasks carry x% of the gap
    assert float(beta_gap_concentration(0.6, math.inf, 4, 0.8)) == pytest.approx(0.8)
    # a nearly homogeneous Beta tends to the same limit
    assert float(beta_gap_concentration(0.6, 1e5, 4, 0.8)) == pytest.approx(0.8, abs=0.01)
    # no gap (every task all-pass or all-fail; μ at the edge): undefined
    assert math.isnan(float(beta_gap_concentration(0.6, 0.0, 4, 0.8)))
    assert math.isnan(float(beta_gap_concentration(1.0, 2.0, 4, 0.8)))
    # sorted worst first, a share of tasks carries at least its share of the gap
    rng = np.random.default_rng(3)
    mu, kap = rng.uniform(0.05, 0.95, 200), rng.lognormal(0, 2, 200)
    got = beta_gap_concentration(mu, kap, 5, 0.8)
    assert np.all((got > 0) & (got <= 0.8 + 1e-12))
    # more of the gap needs more tasks
    assert np.all(beta_gap_concentration(mu, kap, 5, 0.9) >= got - 1e-12)
    with pytest.raises(OptionError):
        beta_gap_concentration(0.5, 1.0, 1, 0.8)
    with pytest.raises(OptionError):
        beta_gap_concentration(0.5, 1.0, 3, 1.5)


def test_impossible_pairs() -> None:
    assert impossible(0.5, 0.9, 5) and impossible(0.5, 0.4, 1)
    assert not impossible(0.5, 0.5, 1) and not impossible(0.5, 0.01, 5)  # below mean^k: possible
    assert not impossible(0.5, 0.5, 5) and not impossible(1.0, 1.0, 5)


def test_solve_at_huge_k_is_quiet_and_exact() -> None:
    """At k = 10⁶ E[p^k] underflows to 0 for small κ on the way to the root: the solver
    printed numpy's "divide by zero in log" on stderr (twice, on `passhat spread`). Oracle:
    the solved κ reproduces pass^k through beta_moment; no warning is raised."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kappa = solve_beta_kappa(0.9, 0.5, 10**6)
    assert float(beta_moment(0.9, kappa, 10**6)) == pytest.approx(0.5, rel=1e-9)


@pytest.mark.parametrize(("mu", "kappa"), [(0.774, 1.43), (0.3, 7.0), (0.9, float("inf"))])
def test_one_run_is_never_mixed_exactly(mu: float, kappa: float) -> None:
    """n = 1: the share of mixed tasks is exactly 0 (one run has one outcome); the subtraction
    1 − E[p] − E[1 − p] left 1e-16, which `passhat spread --mean 0.774 --pass-hat 0.530 --k 5`
    printed as 0.000000000000%. Oracle: the definition, and scipy's BetaBinomial for n = 2."""
    assert float(beta_mixed_share(mu, kappa, 1)) == 0.0
    got = beta_mixed_share(mu, kappa, np.array([1, 2]))
    assert got[0] == 0.0
    if np.isfinite(kappa):
        bb = stats.betabinom(2, mu * kappa, (1 - mu) * kappa)
        assert got[1] == pytest.approx(1 - bb.pmf(0) - bb.pmf(2), abs=1e-12)
