"""The computed power of compare's sign-flip test (passhat.planner.flip_approx) and the default
method of ``plan.power``.

Oracles: exact Beta-Binomial moments of the per-task difference at ρ = 0 (independent
systems: scipy's betabinom pmf, outer product); a normal distribution's moments (scipy); the
simulated power of compare's test (:func:`passhat.planner.flip_power.compare_power`, exact
sign-flip p-values, fixed seed) with a tolerance of 3 Monte-Carlo s.e. plus 0.01 for the
approximation; the share of simulated benchmarks with fewer than 10 differing tasks.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import stats

from passhat import planner as plan
from passhat.errors import OptionError
from passhat.planner.copula import copula_model
from passhat.planner.flip_approx import (
    difference_moments,
    fallback_share,
    flip_power,
    normal_moments,
)
from passhat.planner.flip_power import Draws, FlipSettings, compare_power, simulated_counts
from passhat.planner.moments import _estimator

PRIOR = plan.Assumptions(mean=0.6, icc=0.3)


@pytest.mark.parametrize(
    ("metric", "k", "runs", "delta"),
    [("mean", 1, 5, 0.1), ("pass_hat_k", 2, 4, 0.12), ("pass_at_k", 2, 3, -0.1)],
)
def test_moments_are_the_exact_beta_binomial_ones_for_independent_systems(
    metric: str, k: int, runs: int, delta: float
) -> None:
    model = copula_model(PRIOR, delta, k, metric, 0.0)
    d = difference_moments(model, runs=runs)
    c = np.arange(runs + 1)
    u = _estimator(c.astype(float), runs, k, metric)
    pa = stats.betabinom.pmf(c, runs, *model.ab_a)
    pb = stats.betabinom.pmf(c, runs, *model.ab_b)
    diff = u[None, :] - u[:, None]  # [a, b] = U_B(b) − U_A(a)
    joint = pa[:, None] * pb[None, :]
    for j in range(7):
        assert d.raw[j] == pytest.approx(float((joint * diff**j).sum()), abs=2e-6)
    assert d.p_zero == pytest.approx(float(joint[np.isclose(diff, 0)].sum()), abs=2e-6)
    assert d.step == 1 / (runs if metric == "mean" else math.comb(runs, k))


def test_normal_moments_are_a_normal_distributions() -> None:
    d = normal_moments(0.07, 0.4, runs=6, k=2, metric="pass_hat_k")
    for j in range(1, 7):
        assert d.raw[j] == pytest.approx(stats.norm(0.07, 0.4).moment(j), rel=1e-12)
    assert d.step == 1 / 15 and math.isnan(d.p_zero)


@pytest.mark.parametrize(
    ("mean", "icc", "metric", "k", "delta", "runs", "tasks"),
    [
        (0.6, 0.3, "mean", 1, 0.15, 3, 40),
        (0.6, 0.3, "mean", 1, 0.2, 1, 50),
        (0.7, 0.4, "pass_hat_k", 2, 0.15, 4, 45),
    ],
)
def test_the_power_is_compares_simulated_power(
    mean: float, icc: float, metric: str, k: int, delta: float, runs: int, tasks: int
) -> None:
    model = copula_model(plan.Assumptions(mean=mean, icc=icc), delta, k, metric, 0.5)
    sim = compare_power(
        model, Draws(seed=11, replicates=1500), tasks=tasks, runs=runs,
        sim=FlipSettings(alpha=0.05, n_flips=10_000, seed=11),
    )  # fmt: skip
    assert sim.shares["fallback"] < 0.005  # (almost) only the sign-flip branch: computed
    computed = flip_power(difference_moments(model, runs=runs), tasks=tasks, alpha=0.05)
    assert 0.3 < sim.power < 0.9  # a design where the power is informative
    assert abs(computed - sim.power) <= 3 * sim.mc_error + 0.01


def test_the_size_at_no_difference_is_alpha_up_to_the_lattice() -> None:
    # a fine lattice and many tasks: the conditional test is the normal one, size α
    fine = normal_moments(0.0, 0.3, runs=100_000, k=1, metric="mean")
    assert flip_power(fine, tasks=100_000, alpha=0.05) == pytest.approx(0.05, abs=5e-4)
    # a coarse lattice: compare's test is conservative, and so is the computed size
    model = copula_model(PRIOR, 0.0, 1, "mean", 0.5)
    computed = flip_power(difference_moments(model, runs=3), tasks=40, alpha=0.05)
    sim = compare_power(
        model, Draws(seed=3, replicates=2000), tasks=40, runs=3,
        sim=FlipSettings(alpha=0.05, n_flips=10_000, seed=3),
    )  # fmt: skip
    assert computed < 0.05 and abs(computed - sim.power) <= 3 * sim.mc_error + 0.005


def test_the_power_grows_with_the_tasks() -> None:
    d = difference_moments(copula_model(PRIOR, 0.1, 1, "mean", 0.5), runs=3)
    powers = [flip_power(d, tasks=t, alpha=0.05) for t in range(5, 400, 3)]
    assert all(b > a for a, b in itertools.pairwise(powers))
    # every task differs by one step the same way: 2/2^T, below α from 6 tasks (exact test)
    same = normal_moments(1 / 3, 0.0, runs=3, k=1, metric="mean")
    assert flip_power(same, tasks=9, alpha=0.05) == 1.0
    assert flip_power(same, tasks=5, alpha=0.05) == 0.0


def test_the_fallback_share_is_the_share_of_benchmarks_with_few_differing_tasks() -> None:
    model = copula_model(PRIOR, 0.3, 1, "mean", 0.5)
    ca, cb = simulated_counts(model, Draws(seed=5, replicates=4000), tasks=20, runs=3)
    few = (np.count_nonzero(ca != cb, axis=1) < 10).astype(float)
    se = math.sqrt(few.mean() * (1 - few.mean()) / few.size)
    computed = fallback_share(difference_moments(model, runs=3), tasks=20)
    assert abs(computed - few.mean()) <= 4 * se and 0.02 < computed < 0.2


# ------------------------------------------------------------------ plan.power's methods
def test_the_default_method_is_compares_test_computed() -> None:
    r = plan.power(delta=0.1, tasks=100, runs_per_task=5, prior=PRIOR, correlation=0.5)
    q = r.quantities
    d = difference_moments(copula_model(PRIOR, 0.1, 1, "mean", 0.5), runs=5)
    assert q["method"] == "sign-flip" and float(r) == flip_power(d, tasks=100, alpha=0.05)
    assert q["power_sign_flip"] == float(r) < q["power_t_test"]
    assert "sign-flip test" in r.reasoning and "conditional variance" in r.method
    assert f"{q['power_t_test'] * 100:.1f}%" in r.reasoning  # the t-test beside it


def test_the_tasks_are_the_fewest_whose_computed_power_reaches_the_target() -> None:
    r = plan.power(delta=0.1, runs_per_task=3, power=0.8, prior=PRIOR)
    t = int(r)
    d = difference_moments(copula_model(PRIOR, 0.1, 1, "mean", 0.5), runs=3)
    assert flip_power(d, tasks=t, alpha=0.05) >= 0.8 > flip_power(d, tasks=t - 1, alpha=0.05)
    assert t > int(plan.power(delta=0.1, runs_per_task=3, power=0.8, prior=PRIOR, method="t-test"))
    n = plan.power(delta=0.1, tasks=t, power=0.8, prior=PRIOR)
    assert int(n) == 3  # fewer runs fall short at the tasks 3 runs need
    with pytest.raises(OptionError, match="add tasks"):
        plan.power(delta=0.05, tasks=10, power=0.95, prior=PRIOR, max_runs_per_task=8)


def test_analytic_is_the_t_test_with_a_deprecation_warning() -> None:
    ask = {"delta": 0.1, "tasks": 60, "runs_per_task": 4, "prior": PRIOR}
    with pytest.warns(DeprecationWarning, match="method='t-test'"):
        old = plan.power(**ask, method="analytic")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = plan.power(**ask, method="t-test")
    assert float(old) == float(new) and new.quantities["method"] == "t-test"
    assert "not the test compare runs" in new.method
    with pytest.raises(OptionError, match="'sign-flip', 'simulation' or 't-test'"):
        plan.power(**ask, method="exact")


def test_a_pilot_spread_gets_the_lattice_correction_of_a_normal_difference() -> None:
    class Spread:  # a measured spread: sd(delta, n, rho) and a baseline
        baseline, metric, k, rho = 0.6, "mean", 1, 0.5
        correlation_kind = "correlation of per-task values"

        def sd(self, delta: float, n: int, rho: float | None = None) -> float:
            return 0.35

        def assumptions(self) -> tuple[str, ...]:
            return ("measured",)

    r = plan.power(delta=0.1, tasks=80, runs_per_task=3, pilot=Spread())
    d = normal_moments(0.1, 0.35, runs=3, k=1, metric="mean")
    assert float(r) == flip_power(d, tasks=80, alpha=0.05)
    assert "normal per-task difference with the measured SD" in r.method


def test_above_the_exact_limit_the_difference_is_normal_with_the_models_sd() -> None:
    from passhat.planner.copula import CopulaSpread
    from passhat.planner.flip_approx import EXACT_MAX_RUNS
    from passhat.planner.power import _PowerFunction

    n = EXACT_MAX_RUNS + 1
    with pytest.raises(OptionError, match="at most 1,000 runs per task"):
        difference_moments(copula_model(PRIOR, 0.1, 1, "mean", 0.5), runs=n)
    spread = CopulaSpread(PRIOR, k=1, metric="mean", correlation=None)
    power_at = _PowerFunction("sign-flip", spread, None, 0.05)  # what plan.power solves with
    d = normal_moments(0.1, spread.sd(0.1, n), runs=n, k=1, metric="mean")
    assert power_at(0.1, 60, n) == flip_power(d, tasks=60, alpha=0.05)
    exact = power_at(0.1, 60, EXACT_MAX_RUNS)
    assert power_at(0.1, 60, n) == pytest.approx(exact, abs=0.005)  # no jump at the limit
