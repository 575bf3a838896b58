"""Closed-form posterior metrics vs Monte Carlo from Beta draws (no sampler needed).

Oracles: direct products Π_{j<k}; Monte Carlo simulation of p ~ Beta(a, b)
(and of the zero/one-inflated mixture) with tolerances of 5 Monte-Carlo
standard errors, fixed seeds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from passhat.model import metrics as M
from passhat.model.metrics import (
    Groups,
    benchmark_draws,
    benchmark_expected,
    population_metrics,
    rising_ratio,
)

RNG = np.random.default_rng(20261130)


def test_rising_ratio_matches_direct_product():
    for x, y, k in [(0.3, 1.1, 1), (2.0, 5.0, 3), (0.01, 0.02, 7), (40.0, 41.0, 20)]:
        direct = math.prod((x + j) / (y + j) for j in range(k))
        assert rising_ratio(x, y, k) == pytest.approx(direct, rel=1e-10)


@pytest.mark.parametrize(("a", "b"), [(0.6, 0.4), (3.0, 1.5), (0.2, 0.05)])
def test_population_closed_forms_vs_monte_carlo(a, b):
    ks = [1, 2, 5]
    m = population_metrics(np.array([a]), np.array([b]), ks)
    p = RNG.beta(a, b, size=400_000)
    for j, k in enumerate(ks):
        for name, x in (("pass_hat_k", p**k), ("pass_at_k", 1 - (1 - p) ** k)):
            se = x.std() / math.sqrt(len(x))
            assert abs(m[name][0, j] - x.mean()) < 5 * se
    assert abs(m["mean"][0] - p.mean()) < 5 * p.std() / math.sqrt(len(p))
    # ICC = corr of two runs of the same task = 1/(κ+1)
    assert m["icc"][0] == pytest.approx(1 / (a + b + 1))
    y1, y2 = RNG.random(len(p)) < p, RNG.random(len(p)) < p
    r = np.corrcoef(y1, y2)[0, 1]
    assert abs(r - m["icc"][0]) < 5 / math.sqrt(len(p))


def test_inflated_population_vs_monte_carlo():
    a, b, p1, p0 = 1.2, 0.8, 0.3, 0.2
    m = population_metrics(
        np.array([a]), np.array([b]), [3], pi_pass=np.array([p1]), pi_fail=np.array([p0])
    )
    size = 400_000
    comp = RNG.choice(3, p=[p1, p0, 1 - p1 - p0], size=size)
    p = np.where(comp == 0, 1.0, np.where(comp == 1, 0.0, RNG.beta(a, b, size)))
    for name, x in (("pass_hat_k", p**3), ("pass_at_k", 1 - (1 - p) ** 3)):
        assert abs(m[name][0, 0] - x.mean()) < 5 * x.std() / math.sqrt(size)
    y1, y2 = RNG.random(size) < p, RNG.random(size) < p
    assert abs(np.corrcoef(y1, y2)[0, 1] - m["icc"][0]) < 5 / math.sqrt(size)


def _tasks():
    n = np.array([5, 5, 5, 5, 3, 1, 5])
    c = np.array([5, 4, 2, 0, 3, 1, 5])
    w = np.array([1, 1, 1, 1, 2, 1, 1], dtype=float)
    return n, c, w


def test_benchmark_expected_is_rao_blackwell_of_beta_posteriors():
    n, c, w = _tasks()
    g = Groups.from_tasks(n, c, w)
    assert g.mult.sum() == len(n) and (g.weight * g.mult).sum() == pytest.approx(1.0)
    a, b = np.array([0.7]), np.array([0.4])
    out = benchmark_expected(g, a, b, [("pass_hat_k", 3), ("pass_at_k", 2), ("mean", 1)])
    wn = w / w.sum()
    exact_hat = sum(
        wi * math.prod((a[0] + ci + j) / (a[0] + b[0] + ni + j) for j in range(3))
        for ni, ci, wi in zip(n, c, wn, strict=True)
    )
    assert out[("pass_hat_k", 3)][0] == pytest.approx(exact_hat, rel=1e-10)
    exact_mean = sum(
        wi * (a[0] + ci) / (a[0] + b[0] + ni) for ni, ci, wi in zip(n, c, wn, strict=True)
    )
    assert out[("mean", 1)][0] == pytest.approx(exact_mean, rel=1e-10)


def test_benchmark_draws_have_exact_conditional_mean_and_variance():
    """Fix (a, b); the draws of Σ w_i p_i^k must have mean Σ w_i E and variance Σ w_i² Var."""
    n, c, w = _tasks()
    g = Groups.from_tasks(n, c, w)
    S = 200_000
    a, b = np.full(S, 0.7), np.full(S, 0.4)
    d = benchmark_draws(g, a, b, [("pass_hat_k", 3)], rng=np.random.default_rng(1))[
        ("pass_hat_k", 3)
    ]
    wn = w / w.sum()
    a1, b1 = 0.7 + c, 0.4 + n - c
    e1 = rising_ratio(a1, a1 + b1, 3)
    e2 = rising_ratio(a1, a1 + b1, 6)
    mean, var = (wn * e1).sum(), (wn**2 * (e2 - e1**2)).sum()
    assert abs(d.mean() - mean) < 5 * math.sqrt(var / S)
    # variance of a sample variance: se ≈ var * sqrt(2/S) (normal-ish); allow 5 se + kurtosis slack
    assert d.var() == pytest.approx(var, rel=5 * math.sqrt(2 / S) * 3)


def test_large_groups_clt_matches_exact_draws(monkeypatch):
    """Groups of > 30 identical tasks are summed by a normal draw; compare with exact draws."""
    n = np.array([5] * 40 + [5] * 35 + [2])
    c = np.array([4] * 40 + [1] * 35 + [1])
    g = Groups.from_tasks(n, c, np.ones(len(n)))
    S = 40_000
    a = np.full(S, 1.1)
    b = np.full(S, 0.6)
    req = [("pass_hat_k", 2), ("mean", 1)]
    clt = benchmark_draws(g, a, b, req, rng=np.random.default_rng(2))
    monkeypatch.setattr(M, "EXACT_GROUP_MAX", 10**6)
    exact = benchmark_draws(g, a, b, req, rng=np.random.default_rng(3))
    for r in req:
        se = math.sqrt(clt[r].var() / S + exact[r].var() / S)
        assert abs(clt[r].mean() - exact[r].mean()) < 5 * se
        assert clt[r].std() == pytest.approx(exact[r].std(), rel=0.05)


def test_benchmark_draws_inflated_components():
    """With π₁ = 1 every task is always-pass: the benchmark value is 1 for every draw."""
    n, c, _ = _tasks()
    keep = c == n
    g = Groups.from_tasks(n[keep], c[keep], np.ones(keep.sum()))
    S = 100
    d = benchmark_draws(
        g,
        np.full(S, 0.5),
        np.full(S, 0.5),
        [("pass_hat_k", 4)],
        rng=np.random.default_rng(0),
        pi_pass=np.full(S, 1.0),
        pi_fail=np.zeros(S),
    )
    assert np.allclose(d[("pass_hat_k", 4)], 1.0)
