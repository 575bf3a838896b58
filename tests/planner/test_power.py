"""Power and sample size for two systems on matched tasks (passhat.planner.power).

Oracle: simulations of paired benchmarks from the same copula model, with known truth and
tolerances from their Monte-Carlo error (fixed seeds); consistency of the four solve-for modes.
"""

from __future__ import annotations

import math

import pytest

from passhat import planner as plan
from passhat.errors import OptionError, PasshatError
from passhat.planner.copula import simulate_power
from passhat.planner.design_check import simulate_design
from passhat.planner.flip_power import simulate_compare_power

A = plan.Assumptions


@pytest.mark.parametrize(
    "metric,k,tasks,n,delta",
    [("mean", 1, 60, 5, 0.08), ("pass_hat_k", 3, 80, 6, 0.1), ("pass_at_k", 2, 60, 4, -0.08)],
)
def test_power_t_test_matches_simulation(metric, k, tasks, n, delta):
    # known truth: paired benchmarks simulated from the same copula model, each tested by the
    # paired t-test; method="t-test" (noncentral t) must agree within 4 MC SEs plus 0.02 for
    # the approximation
    prior = A(mean=0.6, icc=0.3)
    an = plan.power(
        delta=delta, tasks=tasks, runs_per_task=n, prior=prior, k=k, metric=metric, method="t-test"
    )
    sim = simulate_power(
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
        simulate_power(tasks=10, runs_per_task=2, delta=0.1, prior=prior, replicates=10, seed=-1)
    with pytest.raises(OptionError, match="seed"):
        simulate_design(tasks=10, runs_per_task=2, k=1, prior=prior, replicates=10, seed=-1)


# ------------------------------------------------------------- one function, three forms
def test_leaving_out_tasks_and_runs_gives_the_tasks_each_choice_needs():
    """The former power_table: each row is the answer of power() at that runs per task
    (oracle: power() asked at it), the cheapest (fewest runs per system) marked."""
    prior = A(mean=0.77, icc=0.4)
    t = plan.power(delta=0.05, power=0.8, prior=prior, metric="pass_hat_k", k=5)
    assert t.kind == "designs" and t.solved_for == "tasks"
    assert t.table["runs_per_task"].tolist() == list(range(5, 21))
    for row in t.table.iloc[[0, 7, 15]].itertuples():
        one = plan.power(
            delta=0.05, power=0.8, prior=prior, metric="pass_hat_k", k=5,
            runs_per_task=int(row.runs_per_task),
        )  # fmt: skip
        assert int(one) == row.tasks
    best = t.table.loc[t.table["runs"].idxmin()]
    assert int(t) == best["tasks"] == t.optimum["tasks"] and t.table["optimal"].sum() == 1
    chosen = plan.power(delta=0.05, power=0.8, prior=prior, runs_per_task=[3, 6])
    assert chosen.kind == "designs" and chosen.table["runs_per_task"].tolist() == [3, 6]


def test_sequences_give_the_answer_at_every_design_of_a_grid():
    prior = A(mean=0.6, icc=0.3)
    g = plan.power(delta=0.1, tasks=[30, 60], runs_per_task=[3, 5], prior=prior)
    assert g.kind == "grid" and len(g.table) == 4 and math.isnan(float(g))
    for row in g.table.itertuples():
        one = plan.power(delta=0.1, tasks=row.tasks, runs_per_task=row.runs_per_task, prior=prior)
        assert row.power == float(one)
    d = plan.power(tasks=[30, 60], runs_per_task=5, power=0.8, prior=prior)
    assert d.solved_for == "delta" and d.table["tasks"].tolist() == [30, 60]
    assert d.table["delta"].iloc[0] > d.table["delta"].iloc[1] > 0


def test_a_simulated_grid_gives_each_point_its_own_seed():
    # oracle: the simulation of compare's test at each design called directly with seed + index
    prior = A(mean=0.6, icc=0.3)
    with plan.sweep_options(scheduler="synchronous"):
        g = plan.power(delta=0.1, tasks=[20, 40], runs_per_task=[3], prior=prior,
                       method="simulation", replicates=200, seed=7)  # fmt: skip
    assert g.table["seed"].tolist() == [7, 8] and g.replicates == 200
    direct = simulate_compare_power(tasks=40, runs_per_task=3, delta=0.1, prior=prior,
                                    replicates=200, seed=8)  # fmt: skip
    assert g.table["power"].iloc[1] == direct["power"]
    t_test = float(plan.power(delta=0.1, tasks=40, runs_per_task=3, prior=prior, method="t-test"))
    assert g.table["power_t_test"].iloc[1] == g.table["power_analytic"].iloc[1] == t_test
    assert g.table["power_sign_flip"].iloc[1] == float(
        plan.power(delta=0.1, tasks=40, runs_per_task=3, prior=prior)
    )


def test_the_old_names_are_the_new_function_with_a_warning():
    prior = A(mean=0.6, icc=0.3)
    with pytest.warns(DeprecationWarning, match="power_table is deprecated"):
        old = plan.power_table(delta=0.1, power=0.8, prior=prior)
    new = plan.power(delta=0.1, power=0.8, prior=prior)
    assert old.equals(new.table) and old.attrs["optimum"] == new.optimum
    with pytest.warns(DeprecationWarning, match="power_grid is deprecated"):
        grid = plan.power_grid(delta=0.1, tasks=[20], runs_per_task=[3], prior=prior,
                               replicates=100, scheduler="synchronous")  # fmt: skip
    assert (
        grid["power"].iloc[0]
        == simulate_compare_power(
            tasks=20, runs_per_task=3, delta=0.1, prior=prior, replicates=100, seed=0
        )["power"]
    )


def test_the_result_writes_the_former_json_of_each_form():
    prior = A(mean=0.6, icc=0.3)
    head = ["schema", "schema_version", "passhat_version", "input"]
    one = plan.power(delta=0.1, tasks=60, runs_per_task=5, prior=prior).to_dict()
    assert list(one) == [*head, "query", "solved_for", "value", "quantities", "reasoning",
                         "assumptions", "method"]  # fmt: skip
    assert one["schema"] == "passhat.plan_power" and one["input"] == {}
    designs = plan.power(delta=0.1, power=0.8, prior=prior).to_dict()
    assert list(designs) == [
        *head, "optimum", "reasoning", "assumptions", "method", "correlation",
        "correlation_source", "sensitivity", "table",
    ]  # fmt: skip
    grid = plan.power(delta=0.1, tasks=[20], runs_per_task=[3], prior=prior).to_dict()
    assert list(grid) == [*head, "reasoning", "assumptions", "replicates", "grid"]


def test_the_view_is_the_commands_output_and_the_result_is_frozen():
    r = plan.power(delta=0.05, runs_per_task=5, power=0.8, prior=A(mean=0.77, icc=0.4))
    lines = repr(r).splitlines()
    assert lines[0] == f"{int(r)} tasks" and lines[2].startswith(
        "Method: power of compare's two-sided sign-flip test"
    )
    assert lines[4].startswith("Sensitivity to ρ (latent correlation") and len(lines) == 12
    assert len(repr(r)) <= 2000 and f"{int(r)} tasks" in r._repr_html_()
    with pytest.raises(AttributeError):
        r.value = 1  # type: ignore[misc]
    t = plan.power(delta=0.1, power=0.8, prior=A(mean=0.6, icc=0.3))
    assert "tasks needed per runs per task (ρ = 0.50, assumed)" in repr(t)


def test_the_python_rule_reads_in_python_terms():
    with pytest.raises(OptionError) as err:
        plan.power(delta=0.05, prior=A(mean=0.5, icc=0.2))
    assert str(err.value).startswith("give three of delta, tasks, runs_per_task and power")
    assert "(given: delta); e.g. power(delta=0.1, power=0.8" in str(err.value)
