"""What to run next: the batch of runs that most lowers the estimate's error (``plan.next_runs``).

After a pilot round the question is no longer "how many runs per task" but "which tasks get the
next runs". The uncertainty of pass^k comes mostly from flaky tasks: a task that passed all its
runs has a rate near one and gains little from another run. :func:`next_runs` spends a budget of
runs where the expected reduction of the chosen estimate's variance is largest:

* each task's rate has the posterior Beta(a + c_i, b + n_i − c_i); the prior's (a, b) = (μκ,
  (1−μ)κ) come from their Beta-Binomial posterior on a grid, represented by 16 points the
  objective is averaged over (:func:`passhat.planner.allocate.hyper_points`), or from a stated
  :class:`~passhat.plan.Assumptions`;
* for x more runs, the expected squared error and the bias of the task's unbiased estimate given
  its runs so far are exact finite sums (:func:`passhat.planner.allocate.expected_error`);
* the batch minimises the expected squared error of the average estimate, Σ Var_i + (Σ bias_i)²
  over T² (the biases of the pilot runs add up: an adaptive batch must not leave all of one sign
  in the average), greedily (:func:`passhat.planner.allocate.greedy`; a heuristic for this
  objective, checked against brute force), vectorised over groups of tasks with the same counts;
* the batch is hedged against uniform runs (:func:`passhat.planner.batch.hedge`): under each
  (μ, κ) point the greedy batch, an even share of the runs with the rest spent greedily and the even
  spread are compared by their expected squared error, and the one with the smallest worst ratio
  to the even spread is kept. Near pass rates of 1 the (μ, κ) that a few runs per task reveal
  are too uncertain to trust the greedy batch (in simulation it was 0.87–0.97× as accurate as
  uniform runs there), and the runs are spread evenly; the explanation says so. A stated
  ``prior`` (``plan next --prior-from``) is one (μ, κ) point, trusted: no hedge (the candidates
  are compared under it alone). The widths reported are those of the variance, plus the
  task-sampling term Var(f(p))/T in the population scope, which more runs cannot lower.

Tasks with fewer than k runs have no pass^k estimate: they get the runs they lack first. With no
flaky task (every task passed or failed all its runs), the answer is that more runs will not change
pass^k here and tasks should be added, with how far a task's rate may still lie from the 1 or 0 its
fewest runs show. In the population scope the same budget spent on new tasks is compared with the
reruns, and the number of new tasks that matches the reruns is given.

Examples
--------
>>> import passhat as ph
>>> r = ph.plan.next_runs(ph.load_example("agents"), budget=100, k=5, system="baseline")
>>> int(r.batch["extra_runs"].sum()), r.spent
(100, 100)
>>> set(r.batch["status"]) <= {"flaky", "all passed", "all failed", "too few runs"}
True
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr
from scipy import special

from passhat._validate import check_k
from passhat.errors import InputError, OptionError
from passhat.estimators import as_counts
from passhat.exclusions import default_ks
from passhat.planner._checks import METRICS, label
from passhat.planner._checks import whole as _whole
from passhat.planner.allocate import (
    between_variance,
    expected_variance,
    flat_prior,
    hyper_points,
    prior_agreement,
)
from passhat.planner.assumptions import Assumptions, _pick_system, earlier_prior, refuse_at_limit
from passhat.planner.batch import Groups, check_batch, hedge
from passhat.planner.next_runs_result import Hedge, NextRuns, PriorCheck, TasksVsRuns
from passhat.planner.next_runs_text import NO_FLAKY, PRIOR_Z, method_text, reasons
from passhat.planner.run_cost import MoneyBudget, money_budget
from passhat.trials import Trials, provenance

__all__ = ["NO_FLAKY", "PRIOR_Z", "next_runs"]

#: The most decided runs of a task next_runs plans from: beyond it the Beta-Binomial
#: likelihood cannot tell a pass rate from 1 in double precision (found by fuzzing at 2^53).
MAX_RUNS_PER_TASK = 10**9

_SCOPES = ("benchmark", "population")


def _check(budget: Any, metric: Any, scope: Any, ci: Any) -> tuple[int, float]:
    if isinstance(budget, bool) or not isinstance(budget, int | np.integer) or budget < 1:
        raise OptionError(
            f"{{param}} must be a whole number of runs ≥ 1 (got {budget!r}): there is nothing "
            "to allocate",
            param="budget",
        )
    if metric not in METRICS:
        raise OptionError(
            f"{{param}} {metric!r} cannot be served; the closed-form variance exists "
            f"for {', '.join(METRICS)}",
            param="metric",
        )
    if scope not in _SCOPES:
        raise OptionError(
            f"{{param}} {scope!r} cannot be served; choose benchmark (these tasks) or "
            "population (tasks like these)",
            param="scope",
        )
    if not (isinstance(ci, float | int) and 0 < ci < 1):
        raise OptionError(f"{{param}} must lie strictly between 0 and 1 (got {ci!r})", param="ci")
    return int(budget), float(ci)


def _status(n: np.ndarray, c: np.ndarray, kk: int) -> np.ndarray:
    return np.where(
        n < kk,
        "too few runs",
        np.where(c == n, "all passed", np.where(c == 0, "all failed", "flaky")),
    )


def _stated_prior(prior: Any, prior_system: str | None) -> Assumptions | None:
    """The stated prior: as given, or fitted to earlier runs; refused at a κ search limit."""
    if prior is None:
        return None
    if isinstance(prior, Trials | xr.Dataset):
        return earlier_prior(prior, system=prior_system)
    if not isinstance(prior, Assumptions):
        raise OptionError(
            f"{{param}} must be plan.Assumptions or earlier runs, got {type(prior).__name__}",
            param="prior",
        )
    refuse_at_limit(prior)
    return prior


def next_runs(
    data: Any,
    *,
    budget: int | None = None,
    k: int | None = None,
    metric: Literal["pass_hat_k", "mean", "pass_at_k"] = "pass_hat_k",
    scope: Literal["benchmark", "population"] = "benchmark",
    system: str | None = None,
    prior: Any = None,
    prior_system: str | None = None,
    ci: float = 0.95,
    max_per_task: int | None = None,
    budget_cost: float | None = None,
    cost_per_run: float | None = None,
) -> NextRuns:
    """The next batch of runs: which tasks, how many runs each, and what each buys.

    Parameters
    ----------
    data : Trials or count table
        Runs made so far (one system, or name it with ``system``).
    budget : int
        Runs to allocate (≥ 1); or give ``budget_cost``.
    k : int, optional
        k of pass^k / pass@k (ignored for the mean). Default: the one rule for runs, the
        largest of 1, 2, 5 the system's fewest decided runs allow
        (:func:`passhat.exclusions.default_ks`).
    metric : {"pass_hat_k", "mean", "pass_at_k"}
        The estimate whose variance the batch minimises.
    scope : {"benchmark", "population"}
        These tasks, or tasks like these (adds the task-sampling floor and
        compares new tasks with reruns).
    system : str, optional
        The system, when the data hold several.
    prior : Assumptions, Trials or count table, optional
        The Beta (μ, κ) of task rates: stated (``plan.Assumptions``), or runs of an
        earlier evaluation of similar tasks to fit it to (``prior_system`` names their
        system); its source names it in the output. Trusted: one (μ, κ) point, no hedge
        against its uncertainty (a wrong prior can make the batch worse than even runs;
        see reports/next_runs). A fit whose κ sits at a limit of its search range is
        refused: those runs do not tell how the tasks' rates spread. Default: the
        posterior of (μ, κ) given these runs, hedged.
    prior_system : str, optional
        The system of ``prior`` given as runs, when they hold several.
    ci : float
        Level of the interval whose width is reported.
    max_per_task : int, optional
        At most this many more runs on one task (default: no limit).
    budget_cost, cost_per_run : float, optional
        A budget in money instead of ``budget``: converted into runs at ``cost_per_run``, or
        at the cost per run observed in the runs' cost column (``system``'s runs; the mean
        over tasks of each task's cost per run, with its interval:
        :func:`passhat.planner.run_cost.money_budget`). The result's ``money`` says which
        cost was used, the runs at its interval's ends, and the batch priced at each chosen
        task's own cost per run.

    Returns
    -------
    NextRuns
        The batch (one row per task that gets runs, largest variance reduction first), the
        variances, squared errors and widths now, after the batch and after even runs, the
        prior and the hedge, and :meth:`~NextRuns.explain` (the sentences).

    Raises
    ------
    OptionError
        Budget < 1, a metric or scope the closed form cannot serve, k < 1.
    InputError
        No task with runs; a prior fitted with κ at a search limit.
    """
    ds = as_counts(data)
    system = _pick_system([str(s) for s in ds["system"].values], system, "data")
    money = _money(data, budget, budget_cost, cost_per_run, system, ci)
    budget, ci = _check(money.runs if money is not None else budget, metric, scope, ci)
    k = check_k(k if k is not None else max(default_ks(ds.sel(system=[system]))))
    kk = 1 if metric == "mean" else k
    sub = ds.sel(system=system)
    keep = sub["present"].values.astype(bool)
    tasks = np.asarray(sub["task"].values[keep], dtype=object)
    n = sub["n"].values[keep].astype(np.int64)
    c = sub["c"].values[keep].astype(np.int64)
    if len(n) == 0 or n.sum() == 0:
        raise InputError(f"system {system!r}: no task has decided runs to plan from")
    if n.max() > MAX_RUNS_PER_TASK:  # Beta-Binomial sums lose their digits (pass rates round to 1)
        big = int(np.argmax(n))
        raise InputError(
            f"system {system!r}, task {tasks[big]!r}: {int(n[big])} decided runs; the planner's "
            f"arithmetic holds up to {MAX_RUNS_PER_TASK:,} runs per task (no rerun plan is needed "
            "at that size: each task's rate is known to its last digits)"
        )
    stated = _stated_prior(prior, prior_system)
    cap = budget if max_per_task is None else _whole("max_per_task", max_per_task, minimum=1)
    check_batch(budget, len(n))
    status = _status(n, c, kk)
    plan = _Plan(n, c, k, kk, metric, cap, budget, system)
    groups, extra, uni, hedged, prior_used = plan.allocate(
        stated, no_flaky=not (status == "flaky").any()
    )
    between = plan.between(scope)
    res = _result(
        plan,
        groups,
        extra,
        uni,
        hedged,
        prior_used,
        stated,
        tasks,
        status,
        scope,
        ci,
        between,
        source=provenance(data),
    )
    return res if money is None else replace(res, money=_priced(money, tasks, extra))


def _money(
    data: Any,
    budget: int | None,
    budget_cost: float | None,
    cost_per_run: float | None,
    system: str,
    ci: Any,
) -> MoneyBudget | None:
    """The money budget converted into runs (None for a budget in runs); exactly one of
    ``budget`` and ``budget_cost``."""
    if (budget is None) == (budget_cost is None):
        raise OptionError("give {budget} (runs) or {budget_cost} (money), one of them",
                          param="budget", also=("budget_cost",))  # fmt: skip
    if budget_cost is None:
        if cost_per_run is not None:
            raise OptionError("{param} converts {budget_cost}: give it", param="cost_per_run",
                              also=("budget_cost",))  # fmt: skip
        return None
    level = float(ci) if isinstance(ci, float | int) and 0 < ci < 1 else 0.95  # checked later
    return money_budget(budget_cost, cost_per_run=cost_per_run, data=data, system=system,
                        ci=level)  # fmt: skip


def _priced(money: MoneyBudget, tasks: np.ndarray, extra: np.ndarray) -> MoneyBudget:
    """``money`` with the batch priced at each task's own observed cost per run (a task
    without one at the mean); unchanged for a given cost per run."""
    rc = money.run_cost
    if rc.source != "observed":
        return money
    price = np.array([rc.per_task.get(str(t), rc.value) for t in tasks], dtype=float)
    return replace(money, spend_at_task_costs=float((price * extra).sum()))


class _Plan:
    """The runs so far of one system and the batch's constraints (one ``next_runs`` call)."""

    def __init__(
        self, n: np.ndarray, c: np.ndarray, k: int, kk: int, metric: str, cap: int, budget: int,
        system: str,
    ) -> None:  # fmt: skip
        self.n, self.c, self.k, self.kk, self.metric = n, c, k, kk, metric
        self.cap, self.budget, self.system = cap, budget, system
        self.T = len(n)
        # runs a task lacks to have an estimate at all, first (in task order)
        lack = np.minimum(np.maximum(kk - n, 0), cap)
        self.mandatory = _first_come(lack, budget)
        self.free = budget - int(self.mandatory.sum())
        self.hyper: tuple[np.ndarray, np.ndarray, np.ndarray] = (np.ones(1),) * 3

    def allocate(
        self, stated: Assumptions | None, *, no_flaky: bool
    ) -> tuple[Groups, np.ndarray, np.ndarray, dict[str, Any] | None, Assumptions]:
        """The batch (greedy, hedged against even runs), the even spread, and the prior used."""
        n, c = self.n, self.c
        if stated is not None:
            prior = stated
            self.hyper = (np.array([prior.a]), np.array([prior.b]), np.ones(1))
        elif no_flaky:
            prior = flat_prior(n, c)
            self.hyper = (np.array([prior.a]), np.array([prior.b]), np.ones(1))
        else:
            self.hyper, prior = hyper_points(n, c, self.system)
        # tabulate the errors up to a few more runs per task; widen while the batch reaches the edge
        levels = 8
        while True:
            groups = Groups.of(
                n, c, self.hyper, self.kk, self.cap, self.free, k=self.k, metric=self.metric,
                levels=levels,
            )  # fmt: skip
            extra = self.mandatory.copy()
            if self.free > 0 and not no_flaky:
                extra = groups.allocate(self.free)
            edge = groups.mse.shape[2] - 1
            if int(extra.max()) < edge or edge >= int(groups.lack.max()) + min(self.free, self.cap):
                break
            levels *= 4
        T, free = self.T, self.free
        even = (free // T + (np.arange(T) < free % T)).astype(np.int64)
        uni = np.minimum(self.mandatory + even, self.cap)
        hedged = None
        if free >= T and not no_flaky:  # with fewer runs than tasks no even spread exists
            extra, hedged = hedge(groups, extra, uni, free, T)
        return groups, extra, uni, hedged, prior

    def between(self, scope: str) -> float:
        """The task-sampling variance of one task, over the (μ, κ) points (population)."""
        if scope != "population":
            return 0.0
        return float(
            sum(
                w * between_variance(a, b, k=self.k, metric=self.metric)
                for a, b, w in zip(*self.hyper, strict=True)
            )
        )


def _result(
    plan: _Plan,
    groups: Groups,
    extra: np.ndarray,
    uni: np.ndarray,
    hedged: dict[str, Any] | None,
    prior: Assumptions,
    stated: Assumptions | None,
    tasks: np.ndarray,
    status: np.ndarray,
    scope: str,
    ci: float,
    between: float,
    *,
    source: dict[str, str],
) -> NextRuns:
    """The batch's table, precision now / after / even, and what new tasks would do instead."""
    n, c, T, kk = plan.n, plan.c, plan.T, plan.kk
    v_now, var_now, err_now, _ = groups.variance(np.zeros(T, dtype=np.int64), between)
    v_after, var_after, err_after, t_after = groups.variance(extra, between)
    _, var_uni, err_uni, _ = groups.variance(uni, between)
    z = float(special.ndtri(0.5 + ci / 2))
    total = float(v_now.sum())
    share = v_now / total if total > 0 else np.zeros(T)
    pick = np.flatnonzero(extra > 0)
    red = (v_now[pick] - v_after[pick]) / max(t_after, 1) ** 2
    red = np.where(n[pick] >= kk, red, np.nan)
    width_now = 2 * z * float(np.sqrt(var_now))
    width_red = width_now - 2 * z * np.sqrt(np.maximum(var_now - np.nan_to_num(red), 0.0))
    table = pd.DataFrame(
        {
            "system": plan.system,
            "task": tasks[pick],
            "runs": n[pick],
            "successes": c[pick],
            "status": status[pick],
            "extra_runs": extra[pick],
            "variance_share": np.where(n[pick] >= kk, share[pick], np.nan),
            "variance_reduction": red,
            "width_reduction": np.where(n[pick] >= kk, width_red, np.nan),
            "reason": reasons(
                status[pick], n[pick], c[pick], extra[pick], share[pick],
                plan.mandatory[pick], kk, label(plan.metric, kk),
            ),
        }
    ).sort_values(
        ["variance_reduction", "extra_runs"], ascending=False, kind="stable", na_position="first"
    ).reset_index(drop=True)  # fmt: skip
    tvr = None
    if scope == "population":  # from the tasks the mandatory runs (spent either way) leave
        v_base, _, _, t_base = groups.variance(plan.mandatory, between)
        tvr = _tasks_vs_runs(
            prior, n, v_base, plan.free, between, var_after, plan.k, plan.metric, t_base, kk
        )
    no_flaky = not bool((status == "flaky").any())
    check = prior_agreement(n, c, stated) if stated is not None else None
    hedge_info = Hedge(**hedged) if hedged is not None else None
    return NextRuns(
        batch=table, system=plan.system, metric=plan.metric, k=kk, scope=scope,
        budget=plan.budget, spent=int(extra.sum()), tasks=T, fewest_runs=int(n.min()),
        lacking=int(plan.mandatory.sum()), no_flaky=no_flaky, ci=ci, variance_now=var_now,
        variance_after=var_after, variance_uniform=var_uni, squared_error_now=err_now,
        squared_error_after=err_after, squared_error_uniform=err_uni, width_now=width_now,
        width_after=2 * z * float(np.sqrt(var_after)),
        width_uniform=2 * z * float(np.sqrt(var_uni)), between=between,
        floor=between / max(t_after, 1) if scope == "population" else 0.0,
        tasks_vs_runs=tvr, hedge=hedge_info, prior=prior, prior_stated=stated is not None,
        prior_check=PriorCheck(**check) if check is not None else None,
        method=method_text(hedge_info, prior, stated=stated is not None, no_flaky=no_flaky, z=z),
        source=source,
    )  # fmt: skip


def _first_come(lack: np.ndarray, budget: int) -> np.ndarray:
    """The lacking runs, in task order, as far as the budget goes."""
    before = np.cumsum(lack) - lack
    return np.minimum(lack, np.maximum(budget - before, 0)).astype(np.int64)


def _tasks_vs_runs(
    prior: Assumptions,
    n: np.ndarray,
    v_now: np.ndarray,
    free: int,
    between: float,
    var_runs: float,
    k: int,
    metric: str,
    T: int,
    kk: int,
) -> TasksVsRuns:
    """The free budget as new tasks at the usual runs per task, against the reruns."""
    per_task = max(kk, int(np.median(n)))
    vbar = float(
        expected_variance(
            np.array(float(per_task)), np.array(prior.a), np.array(prior.b), k=k, metric=metric
        )
    )
    s = float(v_now.sum())
    affordable = free // per_task
    var_tasks = ((T + affordable) * between + s + affordable * vbar) / (T + affordable) ** 2
    # the fewest new tasks u − T with V u² − (σ² + v̄) u − (S − T v̄) ≥ 0, V the reruns' variance
    lin, const = between + vbar, s - T * vbar
    disc = lin * lin + 4 * var_runs * const
    needed = None
    if var_runs > 0 and disc >= 0:
        u = (lin + np.sqrt(disc)) / (2 * var_runs)
        t_star = max(0, int(np.ceil(u - T - 1e-9)))
        needed = t_star if t_star <= 1000 * max(T, 1) else None
    return TasksVsRuns(
        free_runs=int(free),
        runs_per_new_task=per_task,
        new_tasks=int(affordable),
        variance_new_tasks=var_tasks,
        variance_reruns=var_runs,
        tasks_beat_runs=bool(var_tasks < var_runs * (1 - 1e-12)),  # not on rounding
        tasks_to_match_reruns=needed,
    )
