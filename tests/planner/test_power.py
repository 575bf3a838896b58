"""Power and sample size for two systems on matched tasks (passhat.planner.power).

Oracle: simulations of paired benchmarks from the same copula model, with known truth and
tolerances from their Monte-Carlo error (fixed seeds); consistency of the four solve-for modes.
"""

from __future__ import annotations

import pytest

from passhat import planner as plan
from passhat.errors import OptionError, PasshatError

A = plan.Assumptions


@pytest.mark.parametrize(
    "metric,k,tasks,n,delta",
    [("mean", 1, 60, 5, 0.08), ("pass_hat_k", 3, 80, 6, 0.1), ("pass_at_k", 2, 60, 4, -0.08)],
)
def test_power_analytic_matches_simulation(metric, k, tasks, n, delta):
    # known truth: paired benchmarks simulated from the same copula model; the analytic
    # (normal-approximation) power must agree within 4 MC SEs plus 0.02 for the approximation
    prior = A(mean=0.6, icc=0.3)
    an = plan.power(delta=delta, tasks=tasks, runs_per_task=n, prior=prior, k=k, metric=metric)
    sim = plan.simulate_power(
        tasks=tasks,
        runs_per_task=n,
        delta=delta,
        prior=prior,
        k=k,
        metric=metric,
        replicates=3000,
        seed=9,
    )
    assert abs(float(an) - sim["power"]) < 4 * sim["mc_error"] + 0.02


def test_power_solves_each_unknown_consistently():
    prior = A(mean=0.77, icc=0.4)
    kw = {"prior": prior, "metric": "pass_hat_k", "k": 5}
    t = plan.power(delta=0.05, runs_per_task=5, power=0.8, **kw)
    assert t.solved_for == "tasks"
    tt = int(t)
    assert float(plan.power(delta=0.05, tasks=tt, runs_per_task=5, **kw)) >= 0.8
    assert float(plan.power(delta=0.05, tasks=tt - 1, runs_per_task=5, **kw)) < 0.8
    d = plan.power(tasks=tt, runs_per_task=5, power=0.8, **kw)
    assert float(d) == pytest.approx(0.05, abs=2e-3)
    n = plan.power(delta=0.05, tasks=tt, power=0.8, **kw)
    assert int(n) <= 5
    with pytest.raises(OptionError, match="add tasks"):
        plan.power(delta=0.05, tasks=20, power=0.9, max_runs_per_task=200, **kw)


def test_power_simulation_method_reports_mc_error():
    r = plan.power(
        delta=0.1,
        tasks=40,
        runs_per_task=5,
        prior=A(mean=0.6, icc=0.3),
        method="simulation",
        replicates=500,
        seed=3,
    )
    assert r.quantities["replicates"] == 500 and r.quantities["mc_error"] > 0
    assert "Monte-Carlo" in r.reasoning


# ------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "call",
    [
        lambda: plan.power(tasks=50, runs_per_task=5, prior=A(mean=0.5, icc=0.3)),  # 2 unknowns
        lambda: plan.power(delta=0.6, runs_per_task=5, power=0.8, prior=A(mean=0.5, icc=0.3)),
        lambda: plan.power(delta=0.05, runs_per_task=5, power=1.2, prior=A(mean=0.5, icc=0.3)),
        lambda: plan.power(
            delta=0.05,
            runs_per_task=2,
            power=0.8,
            k=5,
            metric="pass_hat_k",
            prior=A(mean=0.5, icc=0.3),
        ),
    ],
)
def test_bad_input_raises_passhat_error(call):
    with pytest.raises(PasshatError):
        call()


def test_api_bad_seed_is_an_option_error() -> None:
    prior = plan.Assumptions(mean=0.5, icc=0.3)
    with pytest.raises(OptionError, match="seed"):
        plan.simulate_power(
            tasks=10, runs_per_task=2, delta=0.1, prior=prior, replicates=10, seed=-1
        )
    with pytest.raises(OptionError, match="seed"):
        plan.simulate_design(tasks=10, runs_per_task=2, k=1, prior=prior, replicates=10, seed=-1)
