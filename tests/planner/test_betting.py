"""Tests of passhat.planner.betting: the mixture-of-constant-bets e-values behind the gates.

Oracles
-------
* Brute force: the wealth multiplied out observation by observation, in any order.
* Likelihood ratios: a constant bet on a binary stream is the likelihood ratio of a
  Bernoulli alternative against the null (Robbins' mixture martingale).
* Exact enumeration of every outcome of one and two rounds of three unequal tasks whose
  mean is the null: the expected e-value is ≤ 1 (the AM–GM argument of the module).
* Optional stopping by simulation (the guarantee itself): under the null, checked after
  every run up to 1,000 runs, the chance of ever reaching 1/α is ≤ α + Monte-Carlo
  error, while the fixed-n exact test (the planner's Clopper–Pearson bound) checked the
  same way exceeds α several times over — the reason the sequential gate exists.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import passhat as ph
from passhat.planner.betting import (
    FRACTIONS,
    GRID,
    _slopes,
    bounds,
    failure_boundary,
    further_steps,
    log_evalue,
    log_evalue_path,
)

ALPHA = 0.05


def _brute(xs: np.ndarray, scales: np.ndarray, m: float, side: str, lo: float, hi: float) -> float:
    cmax = scales.max()
    lam = FRACTIONS / (cmax * (m - lo)) if side == "above" else FRACTIONS / (cmax * (hi - m))
    wealth = np.ones(GRID)
    for x, c in zip(xs, scales, strict=True):
        wealth *= 1 + lam * c * ((x - m) if side == "above" else (m - x))
    return float(np.log(wealth.mean()))


@pytest.mark.parametrize("side", ["above", "below"])
def test_counts_equal_the_product_over_observations(side: str) -> None:
    rng = np.random.default_rng(0)
    xs = rng.choice([-1.0, 0.0, 1.0], size=60, p=[0.2, 0.5, 0.3])
    scales = rng.choice([0.5, 1.0, 2.0], size=60)
    kinds = sorted(set(zip(xs.tolist(), scales.tolist(), strict=True)))
    values = np.array([v for v, _ in kinds])
    sc = np.array([c for _, c in kinds])
    counts = np.array([np.sum((xs == v) & (scales == c)) for v, c in kinds])
    got = log_evalue(values, counts, null=0.1, side=side, scale=sc, lo=-1, hi=1)
    assert got == pytest.approx(_brute(xs, scales, 0.1, side, -1, 1), rel=1e-10)
    perm = rng.permutation(60)  # order does not matter: the bets are constant
    assert _brute(xs[perm], scales[perm], 0.1, side, -1, 1) == pytest.approx(got, rel=1e-10)


def test_constant_bets_are_bernoulli_likelihood_ratios() -> None:
    """λ = u/(1 − m) on m − x is the likelihood ratio of Bernoulli(m(1 − u)) against m."""
    m, n, s = 0.2, 40, 3
    logs = np.array([n - s, s]) @ _slopes(np.array([0.0, 1.0]), np.ones(2), m, "below", 0, 1)
    f = m * (1 - FRACTIONS)
    lr = s * np.log(f / m) + (n - s) * np.log((1 - f) / (1 - m))
    np.testing.assert_allclose(logs, lr, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("side", ["above", "below"])
def test_expected_evalue_of_unequal_tasks_at_the_null_is_at_most_one(side: str) -> None:
    """Exact enumeration: three tasks with rates 0.1, 0.3, 0.5 (mean 0.3 = null)."""
    rates = np.array([0.1, 0.3, 0.5])
    m = rates.mean()
    for rounds in (1, 2):
        expect = 0.0
        for outcome in itertools.product([0, 1], repeat=3 * rounds):
            x = np.array(outcome).reshape(rounds, 3)
            prob = float(np.prod(np.where(x == 1, rates, 1 - rates)))
            fails = int(x.sum())
            le = log_evalue([0, 1], [3 * rounds - fails, fails], null=m, side=side)
            expect += prob * math.exp(le)
        assert expect <= 1 + 1e-12
        assert expect > 0.5  # not trivially small
    # and at a single task the null mean gives exactly 1 (a martingale)
    e1 = 0.3 * math.exp(log_evalue([0, 1], [0, 1], null=0.3, side=side)) + 0.7 * math.exp(
        log_evalue([0, 1], [1, 0], null=0.3, side=side)
    )
    assert e1 == pytest.approx(1.0, rel=1e-12)


def test_path_matches_single_evaluations() -> None:
    counts = np.array([[5, 0], [10, 1], [50, 2]])
    path = log_evalue_path([0, 1], counts, null=0.1, side="below")
    want = [log_evalue([0, 1], c, null=0.1, side="below") for c in counts]
    np.testing.assert_allclose(path, want, rtol=1e-12)


def test_bounds_are_the_crossings() -> None:
    counts = [180, 20]
    lower, upper = bounds([0, 1], counts, alpha=ALPHA)
    target = math.log(1 / ALPHA)
    assert lower < 0.1 < upper
    assert log_evalue([0, 1], counts, null=upper + 1e-5, side="below") >= target
    assert log_evalue([0, 1], counts, null=upper - 1e-5, side="below") < target
    assert log_evalue([0, 1], counts, null=lower - 1e-5, side="above") >= target
    assert log_evalue([0, 1], counts, null=lower + 1e-5, side="above") < target
    # wider than the fixed-n Clopper–Pearson interval at the same level per side
    cp_lo, cp_hi = stats.beta.ppf([ALPHA, 1 - ALPHA], [20, 21], [181, 180])
    assert lower < cp_lo and upper > cp_hi


def test_further_steps_brute_force() -> None:
    counts, step = np.array([40.0, 1.0]), np.array([9.8, 0.2])  # 2% failures per round
    r, side = further_steps([0, 1], counts, step, null=0.1, alpha=ALPHA)
    target = math.log(1 / ALPHA)
    brute = next(
        i
        for i in range(10_000)
        for s in ("above", "below")
        if log_evalue([0, 1], counts + i * step, null=0.1, side=s) >= target
    )
    assert (r, side) == (brute, "below")
    # at the null no number of steps decides
    assert further_steps([0, 1], [90, 10], [9, 1], null=0.1, alpha=ALPHA) == (None, None)


def test_failure_boundary_brute_force() -> None:
    bnd = failure_boundary(300, null=0.05, side="below", alpha=ALPHA)
    target = math.log(1 / ALPHA)
    for n in (1, 50, 81, 82, 150, 300):
        ok = [
            s
            for s in range(n + 1)
            if log_evalue([0, 1], [n - s, s], null=0.05, side="below") >= target
        ]
        assert bnd[n] == (max(ok) if ok else -1)
    up = failure_boundary(100, null=0.05, side="above", alpha=ALPHA)
    for n in (1, 5, 40, 100):
        ok = [
            s
            for s in range(n + 1)
            if log_evalue([0, 1], [n - s, s], null=0.05, side="above") >= target
        ]
        assert up[n] == (min(ok) if ok else n + 1)


def _cp_boundary(n_max: int, f0: float, alpha: float) -> np.ndarray:
    """Fixed-n exact test: most failures whose one-sided Clopper–Pearson bound is < f0."""
    out = np.full(n_max + 1, -1)
    for n in range(1, n_max + 1):
        s = np.arange(n + 1)
        ok = np.flatnonzero(stats.beta.ppf(1 - alpha, s + 1, n - s) < f0)
        out[n] = ok[-1] if ok.size else -1
    return out


def _optional_stopping(f0: float, reps: int, seed: int, n_max: int = 1000) -> tuple[float, float]:
    """Share of null streams (failure rate = f0) that ever pass, checked after every run."""
    rng = np.random.default_rng(seed)
    fails = np.cumsum(rng.random((reps, n_max)) < f0, axis=1)
    seq = failure_boundary(n_max, null=f0, side="below", alpha=ALPHA)[1:]
    fixed = _cp_boundary(n_max, f0, ALPHA)[1:]
    return float((fails <= seq).any(axis=1).mean()), float((fails <= fixed).any(axis=1).mean())


def test_cp_boundary_is_the_planners_bound() -> None:
    cp = _cp_boundary(100, 0.05, ALPHA)
    for n in (59, 80, 100):
        x = int(cp[n])
        assert float(ph.plan.failure_upper_bound(runs=n, failures=x)) < 0.05
        assert float(ph.plan.failure_upper_bound(runs=n, failures=x + 1)) >= 0.05


def test_optional_stopping_fast() -> None:
    """A failure rate exactly at the bound, checked after every run up to 1,000 runs."""
    reps = 2000
    seq, fixed = _optional_stopping(0.05, reps, seed=1)
    mc = 3 * math.sqrt(ALPHA * (1 - ALPHA) / reps)
    assert seq <= ALPHA + mc
    # the fixed-n 5% test, peeked at after every run, "passes" far more often than 5%
    assert fixed > 3 * ALPHA


@pytest.mark.slow
@pytest.mark.parametrize("f0", [0.01, 0.05, 0.2])
def test_optional_stopping_slow(f0: float) -> None:
    reps = 20_000
    seq, fixed = _optional_stopping(f0, reps, seed=2)
    mc = 3 * math.sqrt(ALPHA * (1 - ALPHA) / reps)
    assert seq <= ALPHA + mc
    assert fixed > 2 * ALPHA


def test_fail_side_optional_stopping() -> None:
    """The "fail" decision under a rate exactly at the bound: also ≤ α after every run."""
    reps, n_max, f0 = 2000, 1000, 0.05
    rng = np.random.default_rng(3)
    fails = np.cumsum(rng.random((reps, n_max)) < f0, axis=1)
    up = failure_boundary(n_max, null=f0, side="above", alpha=ALPHA)[1:]
    share = float((fails >= up).any(axis=1).mean())
    assert share <= ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / reps)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="strictly inside"):
        log_evalue([0, 1], [1, 1], null=1.0, side="above")
    with pytest.raises(ValueError, match=r"values must lie in"):
        log_evalue([0, 2], [1, 1], null=0.5, side="above")
    with pytest.raises(ValueError, match="same length"):
        log_evalue([0, 1], [1, 1, 1], null=0.5, side="above")
