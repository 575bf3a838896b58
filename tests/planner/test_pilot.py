"""Power from paired pilot runs: the moment estimator of the per-task difference's spread.

Oracles: simulation with known truth — pilot runs drawn from the Gaussian-copula model, whose
σ_d(n′) and correlation of per-task values are exact (Beta-Binomial moments and Gauss–Hermite
quadrature, passhat.planner.copula); the unbiased per-task variance estimate
U² − C(c, 2k)/C(n, 2k) of passhat.estimators (Hoeffding) for the within part at the pilot's n.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import passhat as ph
from passhat.errors import InputError, OptionError
from passhat.estimators import pass_hat_k_variance_estimate
from passhat.planner.copula import _task_cov, copula_model, sd_difference, simulate_counts
from passhat.planner.moments import _task_spread_var
from passhat.planner.pilot import pilot_from_counts

A = ph.plan.Assumptions
PRIOR = A(mean=0.6, icc=0.3)


@pytest.mark.parametrize(
    ("metric", "k", "n_pilot", "n_study"),
    [("mean", 1, 3, 10), ("pass_hat_k", 2, 4, 6), ("pass_at_k", 2, 5, 4), ("pass_hat_k", 3, 6, 12)],
)
def test_pilot_estimate_of_sd_difference_is_unbiased(metric, k, n_pilot, n_study):
    """σ̂_d²(n′) averaged over 2,000 simulated pilots (30 tasks each) against the exact σ_d²(n′)
    of the model that generated them: within 4 Monte-Carlo standard errors."""
    model = copula_model(PRIOR, 0.08, k, metric, 0.6)
    truth = sd_difference(model, n_study) ** 2
    rng = np.random.default_rng(7)
    reps, tasks = 2000, 30
    ca, cb = simulate_counts(model, tasks=tasks, runs=n_pilot, replicates=reps, rng=rng)
    n = np.full((2, tasks), float(n_pilot))
    est = np.array(
        [
            pilot_from_counts(n, np.stack([ca[r], cb[r]]), metric=metric, k=k).sd(0.08, n_study)
            ** 2
            for r in range(reps)
        ]
    )
    assert est.mean() == pytest.approx(truth, abs=4 * est.std(ddof=1) / math.sqrt(reps))


def test_pilot_with_unequal_runs_per_task_stays_unbiased():
    """Tasks with 4 and with 8 pilot runs: s_d² still estimates the mean of Var d_i."""
    model = copula_model(PRIOR, 0.05, 1, "mean", 0.4)
    truth = sd_difference(model, 5) ** 2
    rng = np.random.default_rng(3)
    reps = 2000
    a4, b4 = simulate_counts(model, tasks=15, runs=4, replicates=reps, rng=rng)
    a8, b8 = simulate_counts(model, tasks=15, runs=8, replicates=reps, rng=rng)
    n = np.concatenate([np.full((2, 15), 4.0), np.full((2, 15), 8.0)], axis=1)
    est = np.array(
        [
            pilot_from_counts(
                n, np.stack([np.r_[a4[r], a8[r]], np.r_[b4[r], b8[r]]]), metric="mean", k=1
            ).sd(0.05, 5)
            ** 2
            for r in range(reps)
        ]
    )
    assert est.mean() == pytest.approx(truth, abs=4 * est.std(ddof=1) / math.sqrt(reps))


def test_pilot_correlation_converges_to_the_models():
    """20,000 pilot tasks: ρ̂ and the task spreads match the copula's exact values."""
    k, metric, rho = 2, "pass_hat_k", 0.5
    model = copula_model(PRIOR, 0.1, k, metric, rho)
    ca, cb = simulate_counts(
        model, tasks=20_000, runs=4, replicates=1, rng=np.random.default_rng(1)
    )
    p = pilot_from_counts(np.full((2, 20_000), 4.0), np.stack([ca[0], cb[0]]), metric=metric, k=k)
    va = _task_spread_var(*model.ab_a, k, metric)
    vb = _task_spread_var(*model.ab_b, k, metric)
    corr = _task_cov(model.ab_a, model.ab_b, rho, k, metric) / math.sqrt(va * vb)
    assert p.var_g_a == pytest.approx(va, rel=0.08)
    assert p.var_g_b == pytest.approx(vb, rel=0.08)
    assert p.rho == pytest.approx(corr, abs=0.04)


def test_within_part_at_the_pilots_runs_is_the_unbiased_variance_estimate():
    rng = np.random.default_rng(0)
    n = np.stack([np.full(40, 6.0), np.full(40, 6.0)])
    c = rng.binomial(6, rng.beta(2, 1, (2, 40))).astype(float)
    p = pilot_from_counts(n, c, metric="pass_hat_k", k=3)
    wa, wb = p.within(6)
    assert wa == pytest.approx(pass_hat_k_variance_estimate(n[0], c[0], 3).mean(), abs=1e-12)
    assert wb == pytest.approx(pass_hat_k_variance_estimate(n[1], c[1], 3).mean(), abs=1e-12)


def test_power_from_a_large_pilot_matches_the_models_power():
    """A pilot of 8,000 tasks from the model (B = A + 0.05, ρ = 0.5): the tasks it asks for
    match the model-based answer at that ρ within 5% (σ̂_d² has a relative sampling error of
    about 1.6% here); the answer says the spread was measured."""
    model = copula_model(PRIOR, 0.05, 1, "mean", 0.5)
    ca, cb = simulate_counts(model, tasks=8000, runs=4, replicates=1, rng=np.random.default_rng(2))
    data = ph.counts_from_arrays([4] * 8000, ca[0].astype(int).tolist(), system="A")
    cand = ph.counts_from_arrays([4] * 8000, cb[0].astype(int).tolist(), system="B")
    got = ph.plan.power(
        delta=0.05, runs_per_task=4, power=0.8, pilot=ph.plan.paired_pilot(data, cand)
    )
    want = ph.plan.power(delta=0.05, runs_per_task=4, power=0.8, prior=PRIOR, correlation=0.5)
    assert int(got) == pytest.approx(int(want), rel=0.05)
    assert got.quantities["correlation_source"] == "measured"
    assert "measured on 8000 paired pilot tasks" in got.reasoning
    assert want.quantities["correlation_source"] == "given"


def test_fallback_correlation_is_stated_with_a_sensitivity_table():
    r = ph.plan.power(delta=0.05, runs_per_task=5, power=0.8, prior=A(mean=0.77, icc=0.4))
    assert r.quantities["correlation"] == 0.5 and r.quantities["correlation_source"] == "assumed"
    assert any("ASSUMED" in a for a in r.assumptions)
    table = {row["correlation"]: row["tasks"] for row in r.quantities["sensitivity"]}
    # each row is the answer at that correlation (oracle: power() asked at it)
    for rho in (0.0, 0.8):
        at = ph.plan.power(
            delta=0.05, runs_per_task=5, power=0.8, prior=A(mean=0.77, icc=0.4), correlation=rho
        )
        assert table[rho] == int(at)
    assert table[0.0] > table[0.5] == int(r) > table[0.8]
    assert f"tasks {table[0.0]} at ρ = 0" in r.reasoning


def test_pilot_errors():
    with pytest.raises(OptionError, match="not both"):
        ph.plan.power(
            delta=0.05, runs_per_task=5, power=0.8, prior=PRIOR, pilot=ph.load_example("agents")
        )
    with pytest.raises(InputError, match="at least 2k = 4 decided runs"):
        ph.plan.paired_pilot(
            ph.counts_from_arrays([3, 3, 3], [1, 2, 3], system="A"),
            ph.counts_from_arrays([3, 3, 3], [2, 2, 3], system="B"),
            metric="pass_hat_k",
            k=2,
        )
    with pytest.raises(OptionError, match="simulation"):
        ph.plan.power(
            delta=0.05,
            tasks=50,
            runs_per_task=5,
            pilot=ph.load_example("agents"),
            method="simulation",
        )
    pilot = ph.plan.paired_pilot(ph.load_example("agents"), metric="mean")
    with pytest.raises(OptionError, match="measure it for the metric"):
        ph.plan.power(delta=0.05, runs_per_task=5, power=0.8, pilot=pilot, metric="pass_hat_k", k=2)
    # unmatched tasks are left out and counted, never silently
    a = ph.counts_from_arrays(
        [4, 4, 4, 4], [1, 2, 3, 4], system="A", tasks=["t1", "t2", "t3", "t4"]
    )
    b = ph.counts_from_arrays([4, 4, 4], [2, 2, 4], system="B", tasks=["t1", "t2", "t9"])
    assert ph.plan.paired_pilot(a, b).left_out == {"unmatched": 3, "fewer than 2k runs": 0}
    with pytest.raises(InputError, match="1 matched task"):
        ph.plan.paired_pilot(a, b.isel(task=[0, 2]))


def test_pilot_with_no_measurable_spread_is_refused_not_answered_with_two_tasks():
    """Every task all-pass (or all-fail) under both systems with the same difference on every
    task: every moment estimate is 0, so σ̂_d = 0 and the t-test would call 2 tasks × 1 run
    enough for any delta. Oracle: a mixed pilot of the same size gets an answer with σ̂_d > 0."""
    same = ph.counts_from_arrays([4] * 10, [4] * 10, system="A")
    also = ph.counts_from_arrays([4] * 10, [4] * 10, system="B")
    never = ph.counts_from_arrays([4] * 10, [0] * 10, system="C")
    with pytest.raises(InputError, match="no spread of per-task differences"):
        ph.plan.power(
            delta=-0.1, runs_per_task=4, power=0.8, pilot=(ph.plan.paired_pilot(same, never))
        )
    with pytest.raises(InputError, match="no spread"):
        ph.plan.paired_pilot(same, also).sd(-0.1, 4, rho=0.5)
    # the candidate's value would leave [0, 1]: refused like the assumption-based path does
    with pytest.raises(OptionError, match=r"outside \[0, 1\] from the pilot's 1.000"):
        ph.plan.power(delta=0.1, runs_per_task=4, power=0.8, pilot=ph.plan.paired_pilot(same, also))
    mixed = ph.counts_from_arrays([4] * 10, [0, 1, 2, 3, 4, 4, 3, 2, 1, 0], system="B")
    r = ph.plan.power(
        delta=-0.1, runs_per_task=4, power=0.8, pilot=ph.plan.paired_pilot(same, mixed)
    )
    assert r.quantities["sd_difference"] > 0 and int(r) > 2


def test_unmeasurable_correlation_is_said_not_printed_as_nan() -> None:
    """Every task of A at 2 of 4: A's task spread is estimated ≤ 0, so ρ̂ is undefined; the
    answer said "ρ̂ = nan". Oracle: PairedPilot.rho is NaN for this pilot."""
    a = ph.counts_from_arrays([4] * 8, [2] * 8, system="A")
    b = ph.counts_from_arrays([4] * 8, [0, 1, 2, 3, 4, 4, 3, 1], system="B")
    pilot = ph.plan.paired_pilot(a, b)
    assert math.isnan(pilot.rho)
    r = ph.plan.power(delta=0.1, runs_per_task=4, power=0.8, pilot=pilot)
    text = r.reasoning + " ".join(r.assumptions)
    assert "ρ̂ = n/a (a task-spread estimate is ≤ 0)" in text and "nan" not in text
