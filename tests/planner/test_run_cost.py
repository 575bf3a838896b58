"""A budget in money (planner/run_cost.py, ``plan next`` / ``plan design --budget-cost``).

Oracles: the observed cost per run, its standard error, interval and coefficient of variation
recomputed by hand (numpy on the per-task means; scipy's normal quantile); the runs a budget
buys by integer division; a money budget gives the same batch / design as the runs (or the
cost per run) it converts to; bad budgets, costs and a missing cost column are errors naming
the option.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import passhat as ph
from passhat.errors import OptionError, ValidationError
from passhat.planner.run_cost import VARIES, money_budget, observed_run_cost


def _runs(scale: tuple[float, ...] = (1.0, 1.0, 1.0, 1.0)) -> ph.Trials:
    rows = []
    for t, sc in enumerate(scale):
        for r in range(4):
            rows.append({"system": "A", "task_id": f"t{t}", "trial": r, "success": (r + t) % 3 > 0,
                         "cost": sc * (1.0 + 0.5 * r)})  # fmt: skip
    return ph.Trials.from_frame(pd.DataFrame(rows))


def test_observed_cost_by_hand() -> None:
    scale = (1.0, 2.0, 4.0, 0.5)
    rc = observed_run_cost(_runs(scale), ci=0.9)
    per = np.array(scale) * np.mean(1.0 + 0.5 * np.arange(4))  # each task's mean cost per run
    se = per.std(ddof=1) / math.sqrt(4)
    z = stats.norm.ppf(0.95)
    assert rc.value == pytest.approx(per.mean()) and rc.se == pytest.approx(se)
    assert rc.lower == pytest.approx(max(per.mean() - z * se, 0.0))
    assert rc.upper == pytest.approx(per.mean() + z * se)
    assert rc.cv == pytest.approx(per.std(ddof=1) / per.mean())
    assert (rc.task_low, rc.task_high) == (pytest.approx(per.min()), pytest.approx(per.max()))
    assert rc.varies == (rc.cv > VARIES) and rc.varies  # 0.5 to 4 per task
    m = money_budget(100.0, data=_runs(scale), ci=0.9)
    assert m.runs == math.floor(100.0 / per.mean())
    assert m.runs_low == math.floor(100.0 / rc.upper)
    assert m.runs_high == math.floor(100.0 / rc.lower)
    text = " ".join(m.lines())
    assert "Costs vary a lot across tasks" in text and "observed" in text


def test_given_cost_and_missing_costs() -> None:
    m = money_budget(10.0, cost_per_run=3.0)
    assert (m.runs, m.spend, m.run_cost.source, m.runs_low) == (3, 9.0, "given", None)
    assert "was given" in m.lines()[0]
    df = _runs().frame.copy()
    df.loc[df["task_id"] == "t0", "cost"] = np.nan
    df.loc[5, "cost"] = np.nan
    rc = observed_run_cost(ph.Trials.from_frame(df))
    assert rc.tasks == 3 and rc.runs_without_cost == 5 and rc.runs == 11
    assert "5 without one left out" in " ".join(money_budget(20.0, data=ph.Trials.from_frame(df))
                                                 .lines())  # fmt: skip


def test_bad_budgets_and_costs() -> None:
    for budget in (0, -1.0, float("nan"), float("inf"), "10", True):
        with pytest.raises(OptionError, match="budget_cost must be a number > 0"):
            money_budget(budget, cost_per_run=1.0)  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="cost_per_run must be a number > 0"):
        money_budget(10.0, cost_per_run=0.0)
    with pytest.raises(OptionError, match="buys no run at 20 per run"):
        money_budget(10.0, cost_per_run=20.0)
    with pytest.raises(OptionError, match=r"needs a cost per run.*no cost column"):
        money_budget(10.0, data=ph.Trials.from_frame(_runs().frame.drop(columns="cost")))
    with pytest.raises(OptionError, match="no runs given"):
        money_budget(10.0)
    with pytest.raises(OptionError, match="a count table was given: it holds no cost"):
        money_budget(10.0, data=ph.load_example("agents").counts())
    df = _runs().frame.copy()
    df.loc[6, "cost"] = -1.0
    with pytest.raises(ValidationError, match=r"task 't1' \(system 'A'\), trial 2: cost -1"):
        money_budget(10.0, data=ph.Trials.from_frame(df))
    with pytest.raises(ValidationError, match="no run has a cost"):
        money_budget(10.0, data=ph.Trials.from_frame(df.assign(cost=np.nan)))
    zero = ph.Trials.from_frame(df.assign(cost=0.0))
    with pytest.raises(OptionError, match="observed cost per run is 0"):
        money_budget(10.0, data=zero)


def test_next_runs_in_money_is_the_batch_of_its_runs() -> None:
    data = ph.load_example("agents")
    money = ph.plan.next_runs(data, budget_cost=5.0, system="guided", k=2)
    assert money.money is not None
    runs = ph.plan.next_runs(data, budget=money.money.runs, system="guided", k=2)
    pd.testing.assert_frame_equal(money.batch, runs.batch)
    # the batch priced task by task, by hand
    df = data.frame[data.frame["system"] == "guided"]
    per = df.groupby("task_id")["cost"].mean()
    want = float((per.loc[money.batch["task"]].to_numpy() * money.batch["extra_runs"]).sum())
    assert money.money.spend_at_task_costs == pytest.approx(want)
    doc = money.to_dict()
    assert doc["money"]["runs"] == money.money.runs and doc["money"]["run_cost"]["source"] == (
        "observed"
    )
    assert "money" not in runs.to_dict()
    with pytest.raises(dataclasses.FrozenInstanceError):
        money.money.runs = 1  # type: ignore[misc]
    with pytest.raises(OptionError, match="give budget \\(runs\\) or budget_cost"):
        ph.plan.next_runs(data, system="guided")
    with pytest.raises(OptionError, match="cost_per_run converts budget_cost"):
        ph.plan.next_runs(data, budget=5, cost_per_run=1.0, system="guided")


def test_design_in_money_uses_the_observed_cost() -> None:
    data = ph.load_example("agents")
    d = ph.plan.design(budget_cost=50.0, k=2, prior=data, system="baseline")
    assert d.money is not None and d.money.run_cost.source == "observed"
    same = ph.plan.design(budget_cost=50.0, k=2, prior=data, system="baseline",
                          cost_per_run=d.money.run_cost.value)  # fmt: skip
    pd.testing.assert_frame_equal(d.table, same.table)
    assert same.money is not None and same.money.run_cost.source == "given"
    assert int(d.optimum["runs"]) <= d.money.runs
    assert "observed" in str(d) and d.to_dict()["money"]["budget"] == 50.0
    with pytest.raises(OptionError, match="needs a cost per run"):
        ph.plan.design(budget_cost=50.0, k=2, prior=ph.plan.Assumptions(mean=0.6, icc=0.3))
    runs_only = ph.plan.design(budget_runs=300, k=2, prior=ph.plan.Assumptions(mean=0.6, icc=0.3))
    assert runs_only.money is None and "money" not in runs_only.to_dict()


def test_a_budget_that_buys_more_runs_than_a_number_holds_is_an_option_error() -> None:
    """budget / cost per run overflowing to ∞ (1e300 at 1e-300) is bad input, not a crash."""
    with pytest.raises(OptionError, match="budget_cost"):
        money_budget(1e300, cost_per_run=1e-300)
    tiny = ph.Trials.from_frame(_runs().frame.assign(cost=1e-310))  # observed, subnormal
    with pytest.raises(OptionError, match="budget_cost"):
        money_budget(1e10, data=tiny)


def test_design_refuses_a_cost_per_run_of_zero_with_a_budget_in_runs() -> None:
    """cost_per_run=0 is refused as with a money budget, not priced at a silent 1 per run."""
    prior = ph.plan.Assumptions(mean=0.6, icc=0.3)
    with pytest.raises(OptionError, match="cost_per_run must be positive"):
        ph.plan.design(budget_runs=100, k=2, cost_per_run=0.0, prior=prior)
    d = ph.plan.design(budget_runs=100, k=2, cost_per_run=3.0, prior=prior)
    assert (d.table["cost"] == 3.0 * d.table["runs"]).all()
