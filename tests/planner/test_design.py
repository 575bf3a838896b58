"""Budget design (passhat.planner.design): standard errors, optimum, selection, checks.

Oracles, named per test: simulations of benchmarks from the same Beta-Binomial (tolerances from
their Monte-Carlo error, fixed seeds); the classic two-level optimum √(κ c_task / c_run);
counting affordable designs by hand; and the CLI's former selection code for
DesignResult.selection.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import xarray as xr

import passhat as ph
from passhat import planner as plan
from passhat.errors import OptionError, PasshatError
from passhat.planner.design_check import simulate_design

A = plan.Assumptions


def _row(table, tasks, n, metric):
    t = table.table
    sel = t[(t["tasks"] == tasks) & (t["runs_per_task"] == n) & (t["metric"] == metric)]
    assert len(sel) == 1
    return sel.iloc[0]


@pytest.mark.parametrize(
    "tasks,n,k,mean,icc",
    [(20, 5, 1, 0.7, 0.3), (50, 5, 5, 0.77, 0.4), (30, 10, 3, 0.5, 0.2), (40, 4, 2, 0.9, 0.6)],
)
def test_design_se_matches_simulation(tasks, n, k, mean, icc):
    # known truth: benchmarks drawn from the same Beta-Binomial. The SD of an SD estimate from R
    # replicates has relative error ≈ 1/√(2R) (≈ 1.1% at R = 4000); tolerance 5%.
    prior = A(mean=mean, icc=icc)
    table = plan.design(budget_runs=tasks * n, tasks=tasks, k=k, prior=prior)
    sim = simulate_design(tasks=tasks, runs_per_task=n, k=k, prior=prior, replicates=4000, seed=11)
    for m in ("mean", "pass_at_k", "pass_hat_k"):
        row = _row(table, tasks, n, m)
        assert sim[f"sd_population_{m}"] == pytest.approx(row["se_population"], rel=0.05)
        assert sim[f"sd_benchmark_{m}"] == pytest.approx(row["se_benchmark"], rel=0.05)
        assert row["se_population"] ** 2 == pytest.approx(
            row["se_benchmark"] ** 2 + row["se_task_spread"] ** 2
        )


def test_design_grid_covers_budget_and_marks_optimum():
    t = ph.plan.design(budget_runs=2000, k=5, prior=A(mean=0.77, icc=0.4))
    assert (t.table["runs"] <= 2000).all() and (t.table["runs_per_task"] >= 5).all()
    sub = t.table[t.table["metric"] == "pass_hat_k"]
    # every n from k up to the budget appears with the most tasks it affords (or is dominated)
    assert set(range(5, 45)) <= set(sub["runs_per_task"])
    assert (sub["tasks"] == 2000 // sub["runs_per_task"]).all()
    assert sub["optimal"].sum() == 1
    best = sub[sub["optimal"]].iloc[0]
    assert best["se_population"] == sub["se_population"].min()
    assert t.optimum["tasks"] == best["tasks"]
    assert "tasks" in t.reasoning


def test_design_two_level_optimum_at_k1():
    # classic two-level sampling: with per-task cost, n_opt = √(κ c_task / c_run); the table's
    # population-SE optimum for the mean at k = 1 sits at the nearest integers
    prior = A(mean=0.77, kappa=1.5)
    t = plan.design(
        budget_cost=5000, cost_per_task=3.0, cost_per_run=0.12, k=1, prior=prior, metric="mean"
    )
    n_opt = t.n_opt_k1
    assert n_opt == pytest.approx(math.sqrt(1.5 * 3 / 0.12))
    best = t.optimum["runs_per_task"]
    assert abs(best - n_opt) <= 1.5
    assert (t.table["cost"] <= 5000 + 1e-9).all()


def test_design_from_fit_duck_type_and_from_counts():
    class Fit:
        pass

    rng = np.random.default_rng(0)
    mu = rng.normal(0.6, 0.01, size=(2, 50, 1))
    kap = rng.normal(3.0, 0.1, size=(2, 50, 1))
    fit = Fit()
    fit.idata = type("I", (), {})()
    fit.idata.posterior = xr.Dataset(
        {"mu": (("chain", "draw", "system"), mu), "kappa": (("chain", "draw", "system"), kap)},
        coords={"system": ["s"]},
    )
    t_mean = plan.design(budget_runs=500, k=2, prior=fit)
    assert t_mean.prior.mean == pytest.approx(mu.mean())
    t_int = plan.design(budget_runs=500, k=2, prior=fit, posterior="integrate", draws=20)
    # integrating over draws this tight barely changes the SEs
    assert np.allclose(t_int.table["se_population"], t_mean.table["se_population"], rtol=0.02)
    # a count table goes through the Beta-Binomial ML fit
    ds = ph.counts_from_arrays([4] * 8, [0, 1, 4, 4, 3, 2, 4, 0])
    t_data = plan.design(budget_runs=200, k=2, prior=ds)
    assert "ML fit" in t_data.assumptions[0]


def test_design_check_agrees_within_mc_error():
    prior = A(mean=0.77, icc=0.4)
    t = plan.design(budget_runs=600, k=3, prior=prior)
    chk = t.check(rows=3, replicates=3000, seed=2, scheduler="synchronous").checked.table
    rel = chk["sd_population_simulated"] / chk["se_population"] - 1
    assert (rel.abs() < 5 * chk["relative_mc_error"]).all()


def test_design_with_fixed_tasks_states_its_floor():
    """Issue 12: 50 tasks and 2,000 runs. The population SE cannot go below the task spread
    √(Var p^k / T) (oracle: scipy's Beta moments), the headline design is the table's optimum
    (every run the budget affords), and the reasoning names the floor and the fewest runs per
    task within 5% of it (oracle: a scan of the table)."""
    from scipy import stats

    prior = A(mean=0.428, kappa=1.5)
    t = plan.design(budget_runs=2000, k=4, prior=prior, tasks=50)
    beta = stats.beta(prior.a, prior.b)
    floor = math.sqrt((beta.moment(8) - beta.moment(4) ** 2) / 50)
    assert t.floor.se == pytest.approx(floor, rel=1e-9)
    opt = t.optimum
    assert (opt["tasks"], opt["runs_per_task"]) == (50, 40)
    sub = t.table[t.table["metric"] == "pass_hat_k"]
    assert (sub["se_population"] > floor).all()
    np.testing.assert_allclose(sub["se_task_spread"], floor, rtol=1e-9)
    close = sub["se_population"] <= 1.05 * floor
    near = int(sub.loc[close, "runs_per_task"].min())
    assert t.floor.runs_within_5pct == near
    r = t.reasoning
    assert f"±{floor:.4f}" in r and f"{near} runs per task already come within 5%" in r
    assert "fewest runs" not in r
    # the same design with T free puts the fewest runs on the most tasks and says so
    free = plan.design(budget_runs=2000, k=4, prior=prior)
    assert free.optimum["runs_per_task"] == 4
    assert "fewest runs per task allowed (k = 4)" in free.reasoning


def test_design_within_share_is_the_estimators_law_of_total_variance():
    """within_task_share = E Var(U | p) / Var U: the share of the estimator's variance that more
    runs on the same tasks remove. Oracle: simulated benchmarks (sd around the replicate's own
    benchmark value vs sd of the estimate)."""
    prior = A(mean=0.6, icc=0.3)
    t = plan.design(budget_runs=200, tasks=40, k=2, prior=prior)
    sim = simulate_design(tasks=40, runs_per_task=5, k=2, prior=prior, replicates=6000, seed=3)
    for m in ("mean", "pass_hat_k"):
        row = _row(t, 40, 5, m)
        share = (sim[f"sd_benchmark_{m}"] / sim[f"sd_population_{m}"]) ** 2
        assert row["within_task_share"] == pytest.approx(share, abs=0.05)
        assert row["within_task_share"] == pytest.approx(
            row["se_benchmark"] ** 2 / row["se_population"] ** 2
        )


def test_design_benchmark_scope_needs_tasks():
    """Issue 11: the benchmark-scope value changes with T, so T is not chosen for it."""
    with pytest.raises(OptionError, match="scope benchmark needs tasks N"):
        plan.design(budget_runs=240, k=3, scope="benchmark", prior=A(mean=0.5, icc=0.3))
    t = plan.design(budget_runs=240, k=3, scope="benchmark", tasks=20, prior=A(mean=0.5, icc=0.3))
    assert t.optimum["tasks"] == 20 and t.optimum["runs_per_task"] == 12


def test_design_all_pairs_lists_every_affordable_design():
    # oracle: counting by hand — for each n ≥ k every T = 1..⌊B/n⌋ is affordable
    budget, k = 300, 3
    prior = plan.Assumptions(mean=0.7, icc=0.3)
    full = plan.design(budget_runs=budget, k=k, prior=prior, all_pairs=True)
    eff = plan.design(budget_runs=budget, k=k, prior=prior)
    rows = full.table[full.table["metric"] == "pass_hat_k"]
    assert len(rows) == sum(budget // n for n in range(k, budget + 1))
    assert (rows["runs"] <= budget).all()
    # the efficient rows are among them with the same standard errors, and the optimum agrees
    merged = eff.table.merge(
        full.table, on=["tasks", "runs_per_task", "metric"], suffixes=("", "_all")
    )
    assert len(merged) == len(eff.table)
    np.testing.assert_allclose(merged["se_population"], merged["se_population_all"], rtol=1e-12)
    assert full.optimum == eff.optimum


# ------------------------------------------------------------- selection
def _selection_by_hand(table, k):
    # the selection as commands/plan.py computed it before it moved into the API, in plain loops
    sub = table.table[table.table["metric"] == table.metric]
    if len(sub) <= 20:
        return sub
    idx, ns, ts = sub.index.tolist(), sub["runs_per_task"].tolist(), sub["tasks"].tolist()
    optimal = set(sub.index[sub["optimal"]])
    most = {}
    for n, t in zip(ns, ts, strict=True):
        most[n] = max(most.get(n, 0), t)
    eff = [i for i, n, t in zip(idx, ns, ts, strict=True) if t == most[n] or i in optimal]
    near = table.floor.runs_within_5pct  # named by the reasoning: always shown
    head = [
        i
        for i in eff
        if sub.loc[i, "runs_per_task"] <= k + 9
        or i in optimal
        or sub.loc[i, "runs_per_task"] == near
    ]
    rest = [i for i in eff if i not in set(head)]
    step = max(1, len(rest) // 8)
    return sub.loc[sorted(set(head) | set(rest[::step]))]


@pytest.mark.parametrize(
    "kw",
    [
        {"budget_runs": 300, "k": 3, "all_pairs": True},
        {"budget_runs": 2000, "k": 5},
        {"budget_runs": 20000, "k": 5, "all_pairs": True},
        {"budget_cost": 500, "cost_per_run": 0.12, "cost_per_task": 3, "k": 1, "metric": "mean"},
        {"budget_runs": 60, "k": 3, "metric": "pass_at_k", "scope": "benchmark", "tasks": 2},
        {"budget_runs": 2000, "k": 4, "tasks": 50},
    ],
)
def test_design_selection_keeps_efficient_rows_and_the_optimum(kw):
    t = plan.design(prior=A(mean=0.77, icc=0.4), **kw)
    view = t.selection()
    sub = t.table[t.table["metric"] == t.metric]
    # the same rows, in the same order, as the selection the CLI printed
    expected = _selection_by_hand(t, t.k)
    assert view.index.tolist() == expected.index.tolist()
    assert view.equals(sub.loc[view.index])
    # exactly one optimum, and it is the table's
    assert view["optimal"].sum() == 1
    assert view[view["optimal"]].iloc[0]["tasks"] == t.optimum["tasks"]
    if len(sub) <= 20:
        assert len(view) == len(sub)
    else:
        # short, and every kept row is efficient: the most tasks the budget affords at its n
        assert len(view) <= 30
        most = sub.groupby("runs_per_task")["tasks"].max()
        assert (view["tasks"].to_numpy() == most.loc[view["runs_per_task"]].to_numpy()).all()
        # the first ten run counts from k are all there
        ks = t.k
        assert set(range(ks, ks + 10)) <= set(view["runs_per_task"])
    near = t.floor.runs_within_5pct
    if near is not None:
        assert near in set(view["runs_per_task"])


def test_design_selection_of_another_metric_and_the_old_name():
    t = plan.design(budget_runs=2000, k=5, prior=A(mean=0.77, icc=0.4))
    view = t.selection(metric="mean")
    assert set(view["metric"]) == {"mean"} and view["optimal"].sum() == 1
    with pytest.raises(OptionError, match="metric must be one of"):
        t.selection(metric="pass_k")
    # the old name: a deprecation warning, and the same rows
    with pytest.warns(DeprecationWarning, match="design_selection is deprecated"):
        old = plan.design_selection(t)
    assert old.equals(t.selection())


# ------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "call",
    [
        lambda: plan.design(budget_runs=4, k=5, prior=A(mean=0.5, icc=0.3)),
        lambda: plan.design(
            budget_cost=10, cost_per_task=3, cost_per_run=2, k=5, prior=A(mean=0.5, icc=0.3)
        ),
        lambda: plan.design(k=5, prior=A(mean=0.5, icc=0.3)),
        lambda: plan.design(budget_runs=100, k=5),
        lambda: plan.design(budget_runs=100, k=5, prior=A(mean=0.5, icc=0.3), metric="x"),
    ],
)
def test_bad_input_raises_passhat_error(call):
    with pytest.raises(PasshatError):
        call()


def test_reasoning_claims_the_fewest_runs_only_when_the_optimum_has_them() -> None:
    """With almost no task spread (ICC 0.001) pass^5's exact SE favours 1 task × 50 runs over
    10 × 5; the reasoning once still said the optimum was "the fewest runs per task allowed
    (k = 5)". Oracle: the table's own minimum."""
    few = ph.plan.design(budget_runs=50, k=5, prior=ph.plan.Assumptions(mean=0.6, icc=0.001))
    best = few.optimum
    assert int(best["runs_per_task"]) > 5
    col = "se_population"
    assert best[col] == few.table[few.table["metric"] == "pass_hat_k"][col].min()
    assert "the optimum is the fewest runs per task allowed" not in few.reasoning
    assert f"favour {int(best['runs_per_task'])} runs per task" in few.reasoning
    usual = ph.plan.design(budget_runs=100, k=5, prior=ph.plan.Assumptions(mean=0.7, icc=0.3))
    assert int(usual.optimum["runs_per_task"]) == 5
    assert "the optimum is the fewest runs per task allowed (k = 5)" in usual.reasoning


# ------------------------------------------------------------- the result
def test_the_result_writes_the_former_json_and_is_frozen():
    d = plan.design(budget_runs=1000, k=3, prior=A(mean=0.77, icc=0.4))
    doc = d.to_dict()
    # the keys `passhat plan design --json` wrote before the result owned them, after the header
    assert list(doc) == [
        "schema", "schema_version", "passhat_version", "input", "check", "optimum",
        "reasoning", "assumptions", "method", "n_opt_k1", "table",
    ]  # fmt: skip
    assert doc["schema"] == "passhat.plan_design" and doc["check"] is None and doc["input"] == {}
    assert doc["optimum"]["tasks"] == 333 and len(doc["table"]) == len(d.table)
    with pytest.raises(AttributeError):
        d.k = 4  # type: ignore[misc]
    checked = d.check(rows=2, replicates=100, scheduler="synchronous")
    assert checked.checked is not None and d.checked is None  # a new result, the old unchanged
    assert len(checked.to_dict()["check"]) == 2 * 3


def test_the_view_is_the_commands_output():
    d = plan.design(budget_runs=2000, k=5, prior=A(mean=0.77, icc=0.4))
    disp = d.view()
    assert disp.parts[0].title == d.answer() and disp.parts[0].lines[0] == d.reasoning
    assert (
        disp.parts[1].title == "pass^5: standard errors by design (selection; --all for every row)"
    )
    assert len(disp.parts[1].frame) == len(d.selection())
    assert len(d.view(every_row=True).parts[1].frame) == int(
        (d.table["metric"] == "pass_hat_k").sum()
    )
    assert len(repr(d)) <= 2000 and "★" in d._repr_html_()


def test_default_k_is_the_one_rule_with_runs_and_5_without():
    # oracle: passhat.exclusions.default_ks — τ-bench's 4 runs per task: k = 1, 2, 4
    runs = ph.load_example("tau-airline")
    assert plan.design(budget_runs=400, prior=runs).k == 4 == max(ph.exclusions.default_ks(runs))
    assert plan.design(budget_runs=400, prior=A(mean=0.5, icc=0.3)).k == 5
    assert plan.design(budget_runs=400, prior=runs).to_dict()["input"]["example"] == "tau-airline"
