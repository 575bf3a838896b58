"""passhat.spread.heterogeneity: Tarone's test of one common success rate with independent runs.

Oracles: Tarone's (1979) formula written out term by term; the exact conditional p-value by
enumerating every assignment of the successes to the runs; the statistic's N(0, 1) limit
under H0; and simulation with known truth — the size on homogeneous data (≤ α + Monte Carlo
error) and the power under Beta spreads of task rates.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import passhat as ph
from passhat.errors import OptionError, ValidationError
from passhat.spread import heterogeneity_test

ALPHA = 0.05


def _tarone(n: list[int], c: list[int]) -> float:
    """Tarone (1979), eq. for Z, one term at a time."""
    p = sum(c) / sum(n)
    s = sum((ci - ni * p) ** 2 for ni, ci in zip(n, c, strict=True)) / (p * (1 - p))
    return (s - sum(n)) / math.sqrt(2 * sum(ni * (ni - 1) for ni in n))


def _mc_bound(alpha: float, reps: int) -> float:
    """α plus 2.33 Monte Carlo standard errors (one-sided 99%)."""
    return alpha + 2.33 * math.sqrt(alpha * (1 - alpha) / reps)


def test_statistic_is_tarones_formula() -> None:
    rng = np.random.default_rng(0)
    for _ in range(10):
        n = rng.integers(2, 9, size=15).tolist()
        c = [int(rng.integers(0, ni + 1)) for ni in n]
        if sum(c) in (0, sum(n)):
            continue
        t = heterogeneity_test(n, c, n_draws=100, seed=0)
        assert t.statistic == pytest.approx(_tarone(n, c), rel=1e-12)
        assert t.rate == pytest.approx(sum(c) / sum(n))
        assert (t.tasks, t.runs) == (15, sum(n))


def test_permutation_p_value_matches_exact_enumeration() -> None:
    n, c = [2, 2, 3, 3, 2], [2, 0, 3, 0, 1]
    runs = np.repeat(np.arange(len(n)), n)  # task of each run
    total, succ = sum(n), sum(c)
    z_obs = _tarone(n, c)
    hits = count = 0
    for chosen in itertools.combinations(range(total), succ):  # every assignment, equally likely
        x = np.bincount(runs[list(chosen)], minlength=len(n)).tolist()
        count += 1
        hits += _tarone(n, x) >= z_obs - 1e-9
    exact = hits / count
    t = heterogeneity_test(n, c, n_draws=20_000, seed=1, method="permutation")
    mc_se = math.sqrt(exact * (1 - exact) / 20_000)
    assert t.kind == "permutation"
    assert abs(t.p_value - exact) < 4 * mc_se + 1 / 20_001


def test_statistic_is_standard_normal_under_h0_for_many_tasks() -> None:
    rng = np.random.default_rng(2)
    z = []
    for _ in range(300):
        n = np.full(3000, 5)
        t = heterogeneity_test(n, rng.binomial(n, 0.5), method="normal")
        z.append(t.statistic)
    assert abs(np.mean(z)) < 4 / math.sqrt(300)
    assert abs(np.std(z, ddof=1) - 1) < 0.15


@pytest.mark.parametrize(
    ("tasks", "runs", "rate"),
    [(30, 5, 0.7), (10, 2, 0.9), (20, 3, 0.5), (50, 2, 0.95)],
)
def test_size_on_homogeneous_data(tasks: int, runs: int, rate: float) -> None:
    """Every task at one rate: the test claims clustering in ≤ α of replicates (+ MC error)."""
    rng = np.random.default_rng(tasks * 100 + runs)
    reps = 400
    claims = 0
    old_rule = 0
    for _ in range(reps):
        n = np.full(tasks, runs)
        c = rng.binomial(n, rate)
        claims += heterogeneity_test(n, c, n_draws=199, seed=rng).rejects(ALPHA)
        mean = float(np.mean(c / n))
        hat = float(np.mean(ph.pass_hat_k(n, c, runs)))
        old_rule += mean > 0 and hat / mean**runs > 1.05
    assert claims / reps <= _mc_bound(ALPHA, reps), claims / reps
    if (tasks, runs, rate) == (30, 5, 0.7):
        # the case: the sample ratio alone said "clustered" in ~43% of replicates
        assert old_rule / reps > 0.3


def test_size_of_the_parametric_p_value_for_many_tasks() -> None:
    rng = np.random.default_rng(5)
    reps = 150
    claims = 0
    for _ in range(reps):
        n = rng.integers(2, 6, size=3000)  # unequal runs: three distinct n values
        t = heterogeneity_test(n, rng.binomial(n, 0.6), n_draws=1500, seed=rng)
        assert t.kind == "parametric"  # 3000 tasks × 1500 draws: beyond the permutation budget
        claims += t.rejects(ALPHA)
    assert claims / reps <= _mc_bound(ALPHA, reps)


@pytest.mark.parametrize(
    ("kappa", "least_power"),
    [(2.0, 0.9), (5.0, 0.5)],  # measured 0.99 and 0.74 (500 replicates)
)
def test_power_under_a_clustered_truth(kappa: float, least_power: float) -> None:
    """p_i ~ Beta(0.7κ, 0.3κ), 30 tasks × 5 runs: the test detects the spread."""
    rng = np.random.default_rng(int(kappa * 10))
    reps = 150
    hits = 0
    for _ in range(reps):
        n = np.full(30, 5)
        c = rng.binomial(n, rng.beta(0.7 * kappa, 0.3 * kappa, size=30))
        hits += heterogeneity_test(n, c, n_draws=199, seed=rng).rejects(ALPHA)
    assert hits / reps >= least_power, hits / reps


@pytest.mark.parametrize(
    ("n", "c", "why"),
    [
        ([4, 4, 4], [4, 4, 4], "every decided run passed"),
        ([4, 4, 4], [0, 0, 0], "every decided run failed"),
        ([1, 1, 1, 1], [1, 0, 1, 0], "no task has two decided runs"),
        ([5, 0], [3, 0], "fewer than two tasks"),
    ],
)
def test_untestable_data_say_why_and_never_reject(n, c, why) -> None:
    t = heterogeneity_test(n, c, n_draws=100, seed=0)
    assert not t.testable and why in t.reason and t.p_value == 1.0
    assert not t.rejects(0.5) and t.kind == "none"


def test_bad_input() -> None:
    with pytest.raises(ValidationError):
        heterogeneity_test([3, 3], [4, 1])
    with pytest.raises(ValidationError):
        heterogeneity_test([3, 3], [1])
    with pytest.raises(OptionError):
        heterogeneity_test([3, 3], [1, 2], n_draws=10)
    with pytest.raises(OptionError):
        heterogeneity_test([3, 3], [1, 2], method="bogus")  # type: ignore[arg-type]
