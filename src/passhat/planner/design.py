"""Budget design: tasks × runs per task, with the standard errors of every design a budget affords.

:func:`design` tabulates the standard errors of the benchmark- and
population-scope mean, pass@k and pass^k over the (tasks, runs per task)
designs of a budget in runs or money, exactly under the two-level
Beta-Binomial model (:mod:`passhat.planner.moments`), and marks the optimum.
Its result (:class:`~passhat.planner.design_result.DesignResult`) gives the short
selection the CLI prints (:meth:`~passhat.planner.design_result.DesignResult.selection`)
and checks the standard errors by simulation
(:meth:`~passhat.planner.design_result.DesignResult.check`, which runs
:func:`passhat.planner.design_check.check_design`).

Examples
--------
>>> from passhat import plan
>>> d = plan.design(budget_runs=500, k=2, prior=plan.Assumptions(mean=0.7, icc=0.3))
>>> d.optimum["runs"] <= 500, d.optimum["metric"]
(True, 'pass_hat_k')
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat._validate import check_k
from passhat.errors import OptionError
from passhat.estimators import as_counts
from passhat.exclusions import default_ks
from passhat.planner._checks import METRICS, MODEL_ASSUMPTIONS, MetricName, check_metric, whole
from passhat.planner.assumptions import Assumptions, _resolve_prior
from passhat.planner.design_result import DesignFloor, DesignResult
from passhat.planner.moments import _task_spread_var, estimator_moments, population_value
from passhat.planner.run_cost import money_budget
from passhat.trials import Trials

__all__ = ["DESIGN_K", "design"]

#: The k of a design whose prior is not runs (with runs: the largest of
#: :func:`passhat.exclusions.default_ks`, 1, 2, 5 capped at the fewest decided runs).
DESIGN_K = 5

#: Most run counts per task a design enumerates (each is one row of several int64 arrays).
_MAX_DESIGN_N = 10_000_000

#: Run counts per task enumerated at once (bounds the grid's transient memory).
_DESIGN_CHUNK = 1 << 20

_whole = whole


def _most_runs(
    *,
    k: int,
    budget_runs: float | None,
    budget_cost: float | None,
    cost_per_run: float,
    cost_per_task: float,
    max_runs_per_task: int | None,
) -> float:
    """The most runs one task can get under the budget, after checking the budget and costs."""
    for name, val in (("budget_runs", budget_runs), ("budget_cost", budget_cost)):
        if val is not None and not math.isfinite(val):
            raise OptionError(f"{{param}} must be a finite number (got {val:g})", param=name)
    if not (math.isfinite(cost_per_run) and cost_per_run > 0):
        raise OptionError(
            f"{{param}} must be positive (got {cost_per_run:g})", param="cost_per_run"
        )
    if not (math.isfinite(cost_per_task) and cost_per_task >= 0):
        raise OptionError(f"{{param}} must be ≥ 0 (got {cost_per_task:g})", param="cost_per_task")
    min_cost = cost_per_task + k * cost_per_run
    if budget_runs is not None and budget_runs < k:
        raise OptionError(
            f"{{param}} {budget_runs:g} is smaller than one task × k = {k} runs",
            param="budget_runs",
        )
    if budget_cost is not None and budget_cost < min_cost:
        raise OptionError(
            f"{{param}} {budget_cost:g} is smaller than one task × k = {k} runs "
            f"(cost {min_cost:g})",
            param="budget_cost",
        )
    n_hi = np.inf
    if budget_runs is not None:
        n_hi = min(n_hi, math.floor(budget_runs))
    if budget_cost is not None:
        n_hi = min(n_hi, math.floor((budget_cost - cost_per_task) / cost_per_run + 1e-9))
    if max_runs_per_task is not None:
        n_hi = min(n_hi, int(max_runs_per_task))
    if n_hi - k + 1 > _MAX_DESIGN_N:
        what = "{budget_runs} " + f"{budget_runs:g}" if budget_runs is not None else ""
        what += " and " if budget_runs is not None and budget_cost is not None else ""
        what += "{budget_cost} " + f"{budget_cost:g}" if budget_cost is not None else ""
        raise OptionError(
            f"{what} allows up to {int(n_hi):,} runs per task: too many designs to enumerate "
            f"(at most {_MAX_DESIGN_N:,} run counts); give max_runs_per_task= or a smaller budget",
            also=("budget_runs", "budget_cost"),
        )
    return float(n_hi)


def _design_grid(
    *,
    k: int,
    budget_runs: float | None,
    budget_cost: float | None,
    cost_per_run: float,
    cost_per_task: float,
    tasks: int | None,
    max_runs_per_task: int | None,
    all_pairs: bool = False,
) -> pd.DataFrame:
    """Every efficient (tasks, runs_per_task) pair the budget affords (or every pair)."""
    n_hi = _most_runs(
        k=k,
        budget_runs=budget_runs,
        budget_cost=budget_cost,
        cost_per_run=cost_per_run,
        cost_per_task=cost_per_task,
        max_runs_per_task=max_runs_per_task,
    )

    def most_tasks(n: NDArray[np.int64]) -> NDArray[np.float64]:
        """The most tasks the budget affords at each n (elementwise, non-increasing in n)."""
        t_max = np.full(n.shape, np.inf)
        if budget_runs is not None:
            t_max = np.minimum(t_max, np.floor(budget_runs / n + 1e-9))
        if budget_cost is not None:
            t_max = np.minimum(
                t_max, np.floor(budget_cost / (cost_per_task + n * cost_per_run) + 1e-9)
            )
        return t_max

    if all_pairs and tasks is None:
        n = np.arange(k, int(n_hi) + 1, dtype=np.int64)
        t_hi = most_tasks(n).astype(np.int64)
        keep = t_hi >= 1
        n, t_hi = n[keep], t_hi[keep]
        # every T = 1..t_hi(n) for each n, built without a Python loop
        starts = np.cumsum(t_hi) - t_hi
        t = np.arange(int(t_hi.sum()), dtype=np.int64) - np.repeat(starts, t_hi) + 1
        n = np.repeat(n, t_hi)
    else:
        # in chunks of run counts: a budget of 10^7 runs allows 10^7 of them, while the
        # efficient designs are a few thousand (~2√budget)
        t_fixed = _whole("tasks", tasks, minimum=1) if tasks is not None else 0
        parts_n, parts_t = [], []
        for lo in range(k, int(n_hi) + 1, _DESIGN_CHUNK):
            hi = min(lo + _DESIGN_CHUNK, int(n_hi) + 1)
            # one run count past the chunk: "the last n of its T" looks at the next n's T
            n = np.arange(lo, min(hi + 1, int(n_hi) + 1), dtype=np.int64)
            t_max = most_tasks(n)
            if tasks is not None:
                ok = (t_max >= t_fixed)[: hi - lo]
                parts_n.append(n[: hi - lo][ok])
                parts_t.append(np.full(int(ok.sum()), t_fixed, dtype=np.int64))
                continue
            t = t_max.astype(np.int64)
            # t is non-increasing in n: for a given number of tasks keep the most runs per task
            # (the others leave budget unused and have a larger SE)
            last = np.ones(t.shape, dtype=bool)
            last[:-1] = t[:-1] != t[1:]
            sel = (last & (t >= 1))[: hi - lo]
            parts_n.append(n[: hi - lo][sel])
            parts_t.append(t[: hi - lo][sel])
            if t[-1] < 1:  # no more tasks affordable beyond
                break
        n = np.concatenate(parts_n) if parts_n else np.zeros(0, dtype=np.int64)
        t = np.concatenate(parts_t) if parts_t else np.zeros(0, dtype=np.int64)
        if tasks is not None and not n.size:
            raise OptionError(f"the budget does not afford {t_fixed} tasks × k = {k} runs")
    return pd.DataFrame(
        {
            "tasks": t,
            "runs_per_task": n,
            "runs": t * n,
            "cost": t * (cost_per_task + n * cost_per_run),
        }
    )


def _design_k(k: int | None, prior: Any, system: str | None) -> int:
    """The k asked for; with none, the one default rule for runs (the largest of 1, 2, 5 the
    fewest decided runs of ``system`` allow) when the prior is runs, else :data:`DESIGN_K`."""
    if k is not None:
        return check_k(k)
    if isinstance(prior, Trials | xr.Dataset):
        ds = as_counts(prior)
        if system is not None and system in [str(s) for s in ds["system"].values]:
            ds = ds.sel(system=[system])
        return max(default_ks(ds))
    return DESIGN_K


def _check_question(
    budget_runs: float | None, budget_cost: float | None, metric: Any, scope: Any, tasks: Any
) -> None:
    """A budget, a metric, a scope, and the tasks the benchmark scope needs."""
    if budget_runs is None and budget_cost is None:
        raise OptionError(
            "give {budget_runs} or {budget_cost}", also=("budget_runs", "budget_cost")
        )
    check_metric(metric)
    if scope not in ("population", "benchmark"):
        raise OptionError(
            f"{{param}} must be 'population' or 'benchmark' (got {scope!r})", param="scope"
        )
    if scope == "benchmark" and tasks is None:
        raise OptionError(
            "{scope} benchmark needs {tasks} N: the benchmark value is the mean over these N "
            "tasks, so it changes with N and cannot be optimised over it (or use {scope} "
            "population to choose the number of tasks)",
            also=("scope", "tasks"),
        )


def _variance_parts(
    ns: NDArray[np.int64], ab: NDArray[np.float64], kk: int
) -> tuple[dict[str, NDArray[np.float64]], dict[str, float], dict[str, float]]:
    """Per metric: E Var(U | p) at each n, Var g(p) and the population value, averaged over the
    (a, b) rows ``ab``."""
    within = {m: np.zeros(len(ns)) for m in METRICS}
    spread = dict.fromkeys(METRICS, 0.0)
    value = dict.fromkeys(METRICS, 0.0)
    for a, b in ab:
        mom = estimator_moments(ns, float(a), float(b), kk)
        for m in METRICS:
            sv = _task_spread_var(float(a), float(b), kk, m)
            within[m] += np.maximum(mom[m][1] - sv, 0.0) / len(ab)
            spread[m] += sv / len(ab)
            value[m] += population_value(float(a), float(b), kk, m) / len(ab)
    return within, spread, value


def _se_table(grid: pd.DataFrame, ab: NDArray[np.float64], kk: int, scope: str) -> pd.DataFrame:
    """The designs × metrics with their standard errors, each metric's optimum marked."""
    ns = np.unique(grid["runs_per_task"].to_numpy())
    within, spread, value = _variance_parts(ns, ab, kk)
    pos = np.searchsorted(ns, grid["runs_per_task"].to_numpy())
    t = grid["tasks"].to_numpy(dtype=float)
    cost = grid["cost"].to_numpy(dtype=float)
    g = len(grid)
    cols: dict[str, Any] = {
        "tasks": np.tile(grid["tasks"].to_numpy(), 3),
        "runs_per_task": np.tile(grid["runs_per_task"].to_numpy(), 3),
        "runs": np.tile(grid["runs"].to_numpy(), 3),
        "cost": np.tile(cost, 3),
        "metric": np.repeat(np.array(METRICS, dtype=object), g),
        "k": np.repeat([1 if m == "mean" else kk for m in METRICS], g),
        "value": np.repeat([value[m] for m in METRICS], g),
    }
    se_w = np.concatenate([np.sqrt(within[m][pos] / t) for m in METRICS])
    se_s = np.concatenate([np.sqrt(spread[m] / t) for m in METRICS])
    se_p = np.concatenate([np.sqrt((within[m][pos] + spread[m]) / t) for m in METRICS])
    optimal = np.zeros(3 * g, dtype=bool)
    key = se_p if scope == "population" else se_w
    for i in range(3):
        # minimum SE; ties go to the cheaper design
        order = np.lexsort((cost, key[i * g : (i + 1) * g]))
        optimal[i * g + order[0]] = True
    cols.update(
        {
            "se_benchmark": se_w,
            "se_population": se_p,
            "se_within": se_w,
            "se_task_spread": se_s,
            "within_task_share": np.divide(
                se_w**2, se_p**2, out=np.ones_like(se_p), where=se_p > 0
            ),
            "optimal": optimal,
        }
    )
    return pd.DataFrame(cols)


def _floor(table: pd.DataFrame, metric: str, scope: str) -> DesignFloor:
    """The optimum's task-spread floor and, at its tasks, the fewest runs within 5% of it."""
    sub = table[table["metric"] == metric]
    best = sub[sub["optimal"]].iloc[0]
    t_best = int(best["tasks"])
    floor = float(best["se_task_spread"]) if scope == "population" else 0.0
    col = f"se_{scope}"
    near = sub[(sub["tasks"] == t_best) & (sub[col] <= 1.05 * floor)] if floor > 0 else sub[:0]
    n_near = int(near["runs_per_task"].min()) if len(near) else None
    return DesignFloor(t_best, floor, n_near)


def design(
    *,
    budget_runs: float | None = None,
    budget_cost: float | None = None,
    k: int | None = None,
    prior: Any = None,
    cost_per_run: float | None = None,
    cost_per_task: float = 0.0,
    metric: MetricName = "pass_hat_k",
    scope: Literal["population", "benchmark"] = "population",
    tasks: int | None = None,
    max_runs_per_task: int | None = None,
    system: str | None = None,
    posterior: Literal["mean", "integrate"] = "mean",
    draws: int = 100,
    all_pairs: bool = False,
) -> DesignResult:
    """Standard errors of every efficient (tasks T, runs per task n ≥ k) design of a budget.

    Under p_i ~ Beta(a, b), c_i ~ Binomial(n, p_i), the unbiased per-task
    estimator U of each metric has the exact variance Var U = E Var(U | p)
    (within-task) + Var g(p) (task spread), computed by averaging over the
    BetaBinomial(n, a, b) pmf of c. With T tasks:

    * se_benchmark = √(E Var(U | p) / T) — scope "benchmark": these T tasks;
    * se_population = √(Var U / T) — scope "population": a new task;
    * se_task_spread = √(Var g(p) / T), so se_population² = se_benchmark² + se_task_spread².

    ``within_task_share`` = se_benchmark² / se_population² = E Var(U | p) / Var U is the share
    of the estimator's variance that more runs per task would remove: the law of total
    variance conditioning on these tasks' rates p, the same definition as the posterior split of
    :meth:`passhat.Fit.summary` (there Var(E[θ | p] | y) / Var(θ | y)). The rest, the task
    spread, is the floor of the population standard error with T tasks: no number of runs per
    task goes below it (``floor``).

    Parameters
    ----------
    budget_runs, budget_cost : float, optional
        Total runs, and/or total money with ``cost_per_run`` and ``cost_per_task``.
    cost_per_run : float, optional
        What one run costs. Default: with ``budget_cost`` and runs with a cost column as
        the ``prior``, the cost per run observed there (the mean over tasks of each task's
        cost per run, with its interval: :func:`passhat.planner.run_cost.money_budget`;
        ``money`` in the result says which was used); with ``budget_cost`` and no observed
        cost, an error; without ``budget_cost``, 1 (the cost column counts runs).
    cost_per_task : float
        What adding a task costs (default 0).
    k : int, optional
        The k of pass^k and pass@k (n ≥ k). Default: with runs as the prior, the largest
        of 1, 2, 5 their fewest decided runs allow (:func:`passhat.exclusions.default_ks`);
        else 5.
    prior : Assumptions, fit, Trials or count table
        Where μ and κ come from (a fit: ``fit.idata.posterior`` with ``mu``,
        ``kappa``; data: :func:`from_counts`).
    metric, scope : str
        The standard error the optimum minimises.
    tasks : int, optional
        Fix the number of tasks (then only n varies). Required with
        ``scope="benchmark"``: that value is the mean over these T tasks, so
        it changes with T (T cannot be chosen for it).
    posterior : "mean" or "integrate"
        For a fit: plug in the posterior means, or average the variances over
        ``draws`` posterior draws.
    all_pairs : bool
        List every affordable (T, n), not only the efficient ones (for each n the
        most tasks the budget affords; designs with fewer tasks at the same n
        leave budget unused and have a larger standard error).

    Returns
    -------
    DesignResult
        ``table``: the long table over (tasks, runs_per_task, metric): runs, cost, k, value
        (population value of the metric), se_benchmark, se_population, se_within,
        se_task_spread, within_task_share, optimal; ``optimum``, ``floor`` (the optimum's
        tasks, its floor ``se`` and the fewest runs per task within 5% of it when T is
        fixed), ``assumptions``, ``reasoning`` and the two-level check ``n_opt_k1``;
        ``selection()`` (a short view of the table) and ``check()`` (the standard errors
        checked by simulation).

    References
    ----------
    .. [1] W. G. Cochran, *Sampling Techniques*, 3rd ed., Wiley (1977), ch. 10 (two-stage
       sampling): the optimum subsample size n = (S_w / S_b)·√(c_task / c_run), here
       √(κ·c_task / c_run) for the mean at k = 1 (``n_opt_k1``).

    Examples
    --------
    >>> from passhat import plan
    >>> d = plan.design(budget_runs=2000, k=5, prior=plan.Assumptions(mean=0.77, icc=0.4))
    >>> int(d.optimum["runs_per_task"])
    5
    """
    kk = _design_k(k, prior, system)
    _check_question(budget_runs, budget_cost, metric, scope, tasks)
    assumed, ab = _resolve_prior(prior, system=system, posterior=posterior, draws=draws)
    money = (
        money_budget(budget_cost, cost_per_run=cost_per_run, data=prior, system=system)
        if budget_cost is not None
        else None
    )
    cost_per_run = (
        money.run_cost.value if money is not None else 1.0 if cost_per_run is None else cost_per_run
    )
    grid = _design_grid(
        k=kk,
        budget_runs=budget_runs,
        budget_cost=budget_cost,
        cost_per_run=float(cost_per_run),
        cost_per_task=float(cost_per_task),
        tasks=tasks,
        max_runs_per_task=max_runs_per_task,
        all_pairs=all_pairs,
    )
    table = _se_table(grid, ab, kk, scope)
    kap = float(assumed.kappa)  # type: ignore[arg-type]
    n_opt = math.sqrt(kap * cost_per_task / cost_per_run) if cost_per_task > 0 else float(kk)
    return DesignResult(
        table=table,
        metric=metric,
        scope=scope,
        k=kk,
        prior=assumed,
        budget_runs=budget_runs,
        budget_cost=budget_cost,
        cost_per_task=float(cost_per_task),
        tasks_fixed=tasks is not None,
        n_opt_k1=n_opt,
        floor=_floor(table, metric, scope),
        assumptions=(assumed.describe(), *MODEL_ASSUMPTIONS),
        source=_source(prior, assumed),
        money=money,
    )


def _source(prior: Any, assumed: Assumptions) -> dict[str, str]:
    """Where the runs behind the prior came from ({} for stated values or a fit)."""
    if assumed.fitted is not None:
        return dict(assumed.fitted.source)
    return {}
