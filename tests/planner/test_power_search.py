"""Solving a power question for compare's own test (passhat.planner.power_search, through
``plan.power(method="simulation")``).

Oracles: the simulated power itself, recomputed at the answer and one step short of it with
the same seed (the answer is the smallest design that reaches the target); the sentence of the
result states the reported numbers; the paired t-test approximation kept beside it is the
closed form at the same design.
"""

from __future__ import annotations

import pytest

from passhat import planner as plan
from passhat._format import pct
from passhat.errors import OptionError
from passhat.planner.flip_power import simulate_compare_power

A = plan.Assumptions
PRIOR = A(mean=0.6, icc=0.3)
SIM = {"method": "simulation", "replicates": 300, "seed": 4}


def _sim_power(tasks: int, runs: int, delta: float) -> float:
    return simulate_compare_power(
        tasks=tasks, runs_per_task=runs, delta=delta, prior=PRIOR, replicates=300, seed=4
    )["power"]


def test_the_power_at_a_design_is_compares_and_the_sentence_says_it() -> None:
    r = plan.power(delta=0.1, tasks=40, runs_per_task=4, prior=PRIOR, **SIM)
    q = r.quantities
    assert r.solved_for == "power" and q["method"] == "simulation"
    assert float(r) == q["power"] == _sim_power(40, 4, 0.1) == r.table["power"].iloc[0]
    assert q["power_t_test"] == float(plan.power(delta=0.1, tasks=40, runs_per_task=4,
                                                 prior=PRIOR, method="t-test"))  # fmt: skip
    assert q["power_sign_flip"] == float(plan.power(delta=0.1, tasks=40, runs_per_task=4,
                                                    prior=PRIOR))  # fmt: skip
    assert f"with probability {pct(float(r))}" in r.reasoning
    assert "sign-flip" in r.reasoning and "sign-flip" in r.method
    assert q["mc_error"] > 0 and q["replicates"] == 300 and q["seed"] == 4


def test_the_tasks_are_the_fewest_whose_simulated_power_reaches_the_target() -> None:
    r = plan.power(delta=0.1, runs_per_task=4, power=0.5, prior=PRIOR, **SIM)
    t = int(r)
    assert r.quantities["tasks"] == t == r.table["tasks"].iloc[0]
    assert _sim_power(t, 4, 0.1) >= 0.5 > _sim_power(t - 1, 4, 0.1)
    assert r.quantities["power"] == _sim_power(t, 4, 0.1)
    assert r.reasoning.startswith(f"{t} matched tasks × 4 runs per system give passhat compare's")
    assert f"{pct(r.quantities['power'])}" in r.reasoning and f"{t - 1} tasks would fall" in (
        r.reasoning
    )
    # the t-test approximation asks for fewer tasks (it is optimistic for compare's test)
    assert int(plan.power(delta=0.1, runs_per_task=4, power=0.5, prior=PRIOR)) <= t


def test_the_runs_and_the_delta_are_solved_for_compares_test() -> None:
    n = plan.power(delta=0.15, tasks=40, power=0.6, prior=PRIOR, **SIM)
    assert _sim_power(40, int(n), 0.15) >= 0.6
    if int(n) > 1:
        assert _sim_power(40, int(n) - 1, 0.15) < 0.6
    d = plan.power(tasks=40, runs_per_task=4, power=0.5, prior=PRIOR, **SIM)
    assert _sim_power(40, 4, float(d)) >= 0.5 > _sim_power(40, 4, float(d) - 1e-4)
    assert f"is {float(d):+.4f}" in d.reasoning


def test_simulation_is_refused_where_it_cannot_answer() -> None:
    with pytest.raises(OptionError, match="add tasks"):
        plan.power(delta=0.05, tasks=10, power=0.95, prior=PRIOR, max_runs_per_task=8, **SIM)


def test_the_cheapest_design_is_simulated_and_cheaper_than_every_computed_row() -> None:
    # rows are simulated until the cheapest is a simulated one: every computed row costs more
    r = plan.power(delta=0.1, power=0.6, prior=PRIOR, runs_per_task=[1, 2, 3], **SIM)  # fmt: skip
    t = r.table
    best = t[t["optimal"]].iloc[0]
    assert best["method"] == "simulation" and int(r) == best["tasks"]
    assert (t.loc[t["method"] == "sign-flip", "cost"] >= best["cost"]).all()
    n = int(best["runs_per_task"])
    assert (
        _sim_power(int(best["tasks"]), n, 0.1) >= 0.6 > _sim_power(int(best["tasks"]) - 1, n, 0.1)
    )
    assert "by simulation of passhat compare's sign-flip test" in r.reasoning
