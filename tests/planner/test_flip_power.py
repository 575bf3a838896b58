"""The power of compare's own test by simulation (passhat.planner.flip_power).

Oracles: brute force over every sign pattern (the exact p-value); compare's own enumerated
test (passhat.signflip) on the same differences; compare's engine
(passhat.compare.engine.paired_table) run on benchmarks drawn independently from the same model
(known truth: its rejection share is the power); the paired t-test's closed form where the two
tests agree (many runs per task, many tasks). Tolerances from the Monte-Carlo errors (fixed seeds).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from passhat import planner as plan
from passhat.compare.engine import paired_table
from passhat.planner.copula import analytic_power, copula_model, sd_difference, simulate_counts
from passhat.planner.flip_power import (
    Draws,
    FlipSettings,
    compare_power,
    flip_pvalues,
    simulate_compare_power,
)
from passhat.signflip import flip_sums, invert_flips

A = plan.Assumptions


def _brute_force_p(d: np.ndarray) -> float:
    """P(|Σ sᵢdᵢ| ≥ |Σ dᵢ|) over all 2^T sign vectors, counted one by one."""
    obs = abs(int(d.sum()))
    hits = sum(abs(int(np.dot(s, d))) >= obs for s in itertools.product((-1, 1), repeat=d.size))
    return hits / 2**d.size


def test_flip_pvalues_are_the_brute_force_enumeration() -> None:
    rng = np.random.default_rng(4)
    d = rng.integers(-6, 7, size=(40, 11))
    d[0] = 0  # no difference at all: p = 1
    d[1] = 3  # all equal and positive: p = 2/2^11
    expected = [_brute_force_p(row) for row in d]
    got = flip_pvalues(d)
    assert got[0] == 1.0 and got[1] == pytest.approx(2 / 2**11, abs=1e-12)
    np.testing.assert_allclose(got, expected, atol=1e-10)


def test_flip_pvalues_agree_with_compares_enumerated_test() -> None:
    # compare enumerates the sign sums of categories of equal differences (passhat.signflip)
    rng = np.random.default_rng(8)
    for _ in range(20):
        d = rng.integers(-3, 4, size=14)
        values, freq = np.unique(d, return_counts=True)
        flips = flip_sums(freq, n_flips=1, rng=rng)
        assert flips.exact
        _, _, p = invert_flips(values[:, None] / 3.0, np.ones(values.size), flips, ci=0.95)
        assert flip_pvalues(d[None, :])[0] == pytest.approx(p[0], abs=1e-9)


def _engine_power(model, *, tasks: int, runs: int, replicates: int, n_boot: int, seed: int):
    """Rejection share of compare's engine on independently drawn benchmarks (± its MC error)."""
    rng = np.random.default_rng(seed)
    ca, cb = simulate_counts(model, tasks=tasks, runs=runs, replicates=replicates, rng=rng)
    c = np.empty((2 * replicates, tasks))
    c[0::2], c[1::2] = ca, cb
    pairs = [(2 * i, 2 * i + 1) for i in range(replicates)]
    table = paired_table(
        np.full(c.shape, float(runs)), c, np.ones(tasks), pairs, [model.k],
        ci=0.95, n_boot=n_boot, rng=rng,
    )  # fmt: skip
    rows = table[
        (table["scope"] == "population")
        & (table["metric"] == model.metric)
        & (table["k"] == model.k)
    ]
    assert len(rows) == replicates
    share = float((rows["p_value"] <= 0.05).mean())
    return share, math.sqrt(share * (1 - share) / replicates)


@pytest.mark.parametrize(
    "metric,k,tasks,runs,delta",
    [
        ("mean", 1, 30, 3, 0.1),
        pytest.param("pass_hat_k", 2, 24, 3, 0.15, marks=pytest.mark.integration),  # 20 s
    ],
)
def test_compare_power_is_the_rejection_share_of_compares_engine(metric, k, tasks, runs, delta):
    """Known truth: benchmarks drawn from the model (another generator, another way of drawing
    the runs) and tested by compare's engine itself; the shares agree within 4 MC errors."""
    model = copula_model(A(mean=0.6, icc=0.3), delta, k, metric, 0.5)
    sim = compare_power(
        model, Draws(seed=3, replicates=1500), tasks=tasks, runs=runs,
        sim=FlipSettings(alpha=0.05, n_flips=1000, seed=3),
    )  # fmt: skip
    share, se = _engine_power(model, tasks=tasks, runs=runs, replicates=300, n_boot=1000, seed=11)
    assert abs(sim.power - share) < 4 * math.hypot(sim.mc_error, se)
    assert sum(sim.shares.values()) == pytest.approx(1.0)


@pytest.mark.integration  # 20 s: compare's fallback fits both systems' posteriors
def test_the_fallback_branch_is_compares_engine() -> None:
    # 12 tasks × 1 run: most benchmarks have fewer than 10 differing tasks (compare's fallback)
    model = copula_model(A(mean=0.5, icc=0.3), 0.15, 1, "mean", 0.5)
    sim = compare_power(
        model, Draws(seed=5, replicates=300), tasks=12, runs=1,
        sim=FlipSettings(alpha=0.05, n_flips=500, seed=5),
    )  # fmt: skip
    assert sim.shares["fallback"] > 0.5
    share, se = _engine_power(model, tasks=12, runs=1, replicates=150, n_boot=500, seed=12)
    assert abs(sim.power - share) < 4 * math.hypot(sim.mc_error, se) + 1e-9


def test_with_many_runs_and_tasks_it_is_the_t_tests_closed_form() -> None:
    # a fine lattice of differences and 300 tasks: the permutation and t-tests have the same
    # power to first order (their gap, ~δ²/σ² of the critical value, is below 0.01 here)
    model = copula_model(A(mean=0.6, icc=0.3), 0.04, 1, "mean", 0.5)
    sd = sd_difference(model, 40)
    closed = analytic_power(0.04, sd, 300, 0.05)
    r = simulate_compare_power(
        tasks=300, runs_per_task=40, delta=0.04, prior=A(mean=0.6, icc=0.3), replicates=1500,
        seed=2,
    )  # fmt: skip
    assert abs(r["power"] - closed) < 4 * r["mc_error"] + 0.01


def test_common_random_numbers_make_power_grow_with_the_design() -> None:
    model = copula_model(A(mean=0.6, icc=0.3), 0.1, 1, "mean", 0.5)
    draws = Draws(seed=1, replicates=400)
    settings = FlipSettings(alpha=0.05, n_flips=10_000, seed=1)
    powers = [compare_power(model, draws, tasks=t, runs=4, sim=settings).power for t in (40, 80)]
    assert powers[0] < powers[1]
    ca40 = draws.columns(40)
    np.testing.assert_array_equal(ca40, Draws(seed=1, replicates=400).columns(80)[:, :, :40])


def test_exact_pvalues_are_what_compares_random_flips_estimate() -> None:
    """compare's random-flip p-value of each benchmark (its engine, 20,000 flips) is a binomial
    estimate of the exact p-value: standardised differences have mean ≈ 0 and SD ≈ 1."""
    model = copula_model(A(mean=0.6, icc=0.3), 0.1, 1, "mean", 0.5)
    rng = np.random.default_rng(5)
    reps, tasks, runs, flips = 60, 100, 5, 20_000
    ca, cb = simulate_counts(model, tasks=tasks, runs=runs, replicates=reps, rng=rng)
    c = np.empty((2 * reps, tasks))
    c[0::2], c[1::2] = ca, cb
    table = paired_table(
        np.full(c.shape, float(runs)), c, np.ones(tasks), [(2 * i, 2 * i + 1) for i in range(reps)],
        [1], ci=0.95, n_boot=flips, rng=rng,
    )  # fmt: skip
    rows = table[(table["scope"] == "population") & (table["metric"] == "mean")]
    p_compare = rows.sort_values("a")["p_value"].to_numpy()
    p_exact = flip_pvalues((cb - ca).astype(np.int64))
    one = p_exact > 1 - 1e-9  # Σ d = 0: every sign pattern is as extreme
    assert np.all(p_compare[one] == 1.0)
    keep = (p_exact > 1e-3) & ~one  # below 1e-3 compare's floor 1/(flips + 1) dominates
    z = (p_compare - p_exact)[keep] / np.sqrt(p_exact * (1 - p_exact) / flips)[keep]
    assert keep.sum() >= 30
    assert abs(z.mean()) < 4 / math.sqrt(keep.sum()) and 0.6 < z.std() < 1.5
