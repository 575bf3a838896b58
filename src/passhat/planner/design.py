"""Budget design: tasks × runs per task, with the standard errors of every design a budget affords.

:func:`design` tabulates the standard errors of the benchmark- and
population-scope mean, pass@k and pass^k over the (tasks, runs per task)
designs of a budget in runs or money, exactly under the two-level
Beta-Binomial model (:mod:`passhat.planner.moments`), and marks the optimum.
:func:`design_selection` is the short view of such a table that the CLI
prints; :func:`simulate_design` and :func:`design_check` check the standard
errors by simulation.

Examples
--------
>>> from passhat import plan
>>> t = plan.design(budget_runs=500, k=2, prior=plan.Assumptions(mean=0.7, icc=0.3))
>>> opt = t.attrs["optimum"]
>>> opt["runs"] <= 500, opt["metric"]
(True, 'pass_hat_k')
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from passhat._validate import check_k, make_rng
from passhat.errors import OptionError
from passhat.planner.assumptions import _resolve_prior
from passhat.planner.moments import (
    _estimator,
    _g,
    _task_spread_var,
    estimator_moments,
    population_value,
)
from passhat.planner.result import (
    _METRICS,
    _MODEL_ASSUMPTIONS,
    MetricName,
    _label,
    _whole,
    check_simulation,
)
from passhat.planner.sweep import sweep

__all__ = ["design", "design_check", "design_selection", "simulate_design"]


#: Most run counts per task a design enumerates (each is one row of several int64 arrays).
_MAX_DESIGN_N = 10_000_000

#: Run counts per task enumerated at once (bounds the grid's transient memory).
_DESIGN_CHUNK = 1 << 20


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
    if budget_runs is None and budget_cost is None:
        raise OptionError("design: give budget_runs= or budget_cost= (or both)")
    for name, val in (("budget_runs", budget_runs), ("budget_cost", budget_cost)):
        if val is not None and not math.isfinite(val):
            raise OptionError(f"{name} must be a finite number (got {val:g})")
    if not (math.isfinite(cost_per_run) and cost_per_run > 0):
        raise OptionError(f"cost_per_run must be positive (got {cost_per_run:g})")
    if not (math.isfinite(cost_per_task) and cost_per_task >= 0):
        raise OptionError(f"cost_per_task must be ≥ 0 (got {cost_per_task:g})")
    min_cost = cost_per_task + k * cost_per_run
    if budget_runs is not None and budget_runs < k:
        raise OptionError(f"budget_runs = {budget_runs:g} is smaller than one task × k = {k} runs")
    if budget_cost is not None and budget_cost < min_cost:
        raise OptionError(
            f"budget_cost = {budget_cost:g} is smaller than one task × k = {k} runs "
            f"(cost {min_cost:g})"
        )
    # the largest n any single task can get
    n_hi = np.inf
    if budget_runs is not None:
        n_hi = min(n_hi, math.floor(budget_runs))
    if budget_cost is not None:
        n_hi = min(n_hi, math.floor((budget_cost - cost_per_task) / cost_per_run + 1e-9))
    if max_runs_per_task is not None:
        n_hi = min(n_hi, int(max_runs_per_task))
    if n_hi - k + 1 > _MAX_DESIGN_N:
        what = f"budget_runs = {budget_runs:g}" if budget_runs is not None else ""
        what += " and " if budget_runs is not None and budget_cost is not None else ""
        what += f"budget_cost = {budget_cost:g}" if budget_cost is not None else ""
        raise OptionError(
            f"{what} allows up to {int(n_hi):,} runs per task: too many designs to enumerate "
            f"(at most {_MAX_DESIGN_N:,} run counts); give max_runs_per_task= or a smaller budget"
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


def design(
    *,
    budget_runs: float | None = None,
    budget_cost: float | None = None,
    k: int = 5,
    prior: Any = None,
    cost_per_run: float = 1.0,
    cost_per_task: float = 0.0,
    metric: MetricName = "pass_hat_k",
    scope: Literal["population", "benchmark"] = "population",
    tasks: int | None = None,
    max_runs_per_task: int | None = None,
    system: str | None = None,
    posterior: Literal["mean", "integrate"] = "mean",
    draws: int = 100,
    all_pairs: bool = False,
) -> pd.DataFrame:
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
    task goes below it (``attrs["floor"]``).

    Parameters
    ----------
    budget_runs, budget_cost : float, optional
        Total runs, and/or total money with ``cost_per_run`` and ``cost_per_task``.
    k : int
        The k of pass^k and pass@k (n ≥ k).
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
    pandas.DataFrame
        Long table over (tasks, runs_per_task, metric): runs, cost, k, value
        (population value of the metric), se_benchmark, se_population,
        se_within, se_task_spread, within_task_share, optimal. ``attrs`` holds
        ``optimum``, ``floor`` (the optimum's tasks, its floor ``se`` and the
        fewest runs per task within 5% of it when T is fixed), ``assumptions``,
        ``reasoning`` and the two-level check ``n_opt_k1``.

    See Also
    --------
    design_selection : a short view of the table (efficient designs and the optimum).
    design_check : the standard errors checked by simulation.

    References
    ----------
    .. [1] W. G. Cochran, *Sampling Techniques*, 3rd ed., Wiley (1977), ch. 10 (two-stage
       sampling): the optimum subsample size n = (S_w / S_b)·√(c_task / c_run), here
       √(κ·c_task / c_run) for the mean at k = 1 (``attrs["n_opt_k1"]``).

    Examples
    --------
    >>> from passhat import plan
    >>> t = plan.design(budget_runs=2000, k=5, prior=plan.Assumptions(mean=0.77, icc=0.4))
    >>> int(t.attrs["optimum"]["runs_per_task"])
    5
    """
    kk = check_k(k)
    if metric not in _METRICS:
        raise OptionError(f"metric must be one of {', '.join(_METRICS)} (got {metric!r})")
    if scope not in ("population", "benchmark"):
        raise OptionError(f"scope must be 'population' or 'benchmark' (got {scope!r})")
    if scope == "benchmark" and tasks is None:
        raise OptionError(
            "design: scope='benchmark' needs tasks=: the benchmark-scope value is the mean over "
            "these T tasks, so it changes with T and T cannot be chosen for it; give tasks=T, or "
            "use scope='population' to choose the number of tasks"
        )
    assumed, ab = _resolve_prior(prior, system=system, posterior=posterior, draws=draws)
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
    ns = np.unique(grid["runs_per_task"].to_numpy())
    within = {m: np.zeros(len(ns)) for m in _METRICS}
    spread = dict.fromkeys(_METRICS, 0.0)
    value = dict.fromkeys(_METRICS, 0.0)
    for a, b in ab:
        mom = estimator_moments(ns, float(a), float(b), kk)
        for m in _METRICS:
            sv = _task_spread_var(float(a), float(b), kk, m)
            within[m] += np.maximum(mom[m][1] - sv, 0.0) / len(ab)
            spread[m] += sv / len(ab)
            value[m] += population_value(float(a), float(b), kk, m) / len(ab)
    pos = np.searchsorted(ns, grid["runs_per_task"].to_numpy())
    t = grid["tasks"].to_numpy(dtype=float)
    cost = grid["cost"].to_numpy(dtype=float)
    g = len(grid)
    cols: dict[str, Any] = {
        "tasks": np.tile(grid["tasks"].to_numpy(), 3),
        "runs_per_task": np.tile(grid["runs_per_task"].to_numpy(), 3),
        "runs": np.tile(grid["runs"].to_numpy(), 3),
        "cost": np.tile(cost, 3),
        "metric": np.repeat(np.array(_METRICS, dtype=object), g),
        "k": np.repeat([1 if m == "mean" else kk for m in _METRICS], g),
        "value": np.repeat([value[m] for m in _METRICS], g),
    }
    se_w = np.concatenate([np.sqrt(within[m][pos] / t) for m in _METRICS])
    se_s = np.concatenate([np.sqrt(spread[m] / t) for m in _METRICS])
    se_p = np.concatenate([np.sqrt((within[m][pos] + spread[m]) / t) for m in _METRICS])
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
    table = pd.DataFrame(cols)
    col = f"se_{scope}"
    mi = _METRICS.index(metric)
    best = table.iloc[mi * g + int(np.flatnonzero(optimal[mi * g : (mi + 1) * g])[0])]
    kap = float(assumed.kappa)  # type: ignore[arg-type]
    n_opt = math.sqrt(kap * cost_per_task / cost_per_run) if cost_per_task > 0 else float(kk)
    label = _label(metric, kk)
    budget_txt = " and ".join(
        s
        for s in (
            f"{budget_runs:g} runs" if budget_runs is not None else "",
            f"a cost of {budget_cost:g}" if budget_cost is not None else "",
        )
        if s
    )
    t_best, n_best = int(best["tasks"]), int(best["runs_per_task"])
    floor = float(best["se_task_spread"]) if scope == "population" else 0.0
    sub = table.iloc[mi * g : (mi + 1) * g]
    near = sub[(sub["tasks"] == t_best) & (sub[col] <= 1.05 * floor)] if floor > 0 else sub[:0]
    n_near = int(near["runs_per_task"].min()) if len(near) else None
    reasoning = (
        f"With {budget_txt}, {t_best} tasks × {n_best} runs minimises the {scope}-scope standard "
        f"error of {label}: ±{best[col]:.4f} (benchmark ±{best['se_benchmark']:.4f}, population "
        f"±{best['se_population']:.4f}, of which task spread ±{best['se_task_spread']:.4f}). "
    )
    if tasks is not None and scope == "population":
        reasoning += (
            f"With the number of tasks fixed at {t_best}, every run the budget affords goes to "
            f"them, and more runs per task shrink only the within-task part: the population "
            f"standard error cannot go below the task-spread floor ±{floor:.4f} with {t_best} "
            "tasks, however many runs each gets; only more tasks lower it. "
            + (
                f"{n_near} runs per task already come within 5% of that floor."
                if n_near is not None and n_near < n_best
                else f"At {n_best} runs per task it is {best[col] / floor - 1:.0%} above it."
            )
        )
    elif tasks is not None:
        reasoning += (
            f"The benchmark scope (these {t_best} tasks) has only within-task uncertainty: every "
            "run the budget affords goes to them and its standard error falls towards 0 as "
            "runs per task grow."
        )
    else:
        reasoning += (
            f"Task spread shrinks only with more tasks (±{floor:.4f} is the floor for "
            f"{t_best} tasks, however many runs each gets); more runs per task only shrink the "
            + (
                f"within-task part (two-level optimum at k = 1: n = √(κ·c_task/c_run) = "
                f"{n_opt:.1f})."
                if cost_per_task > 0
                else "within-task part, so with no per-task cost the optimum is the fewest runs "
                f"per task allowed (k = {kk}) on as many tasks as the budget affords."
                if n_best == kk
                else f"within-task part. Here the exact standard errors favour {n_best} runs per "
                f"task over the fewest allowed (k = {kk}) on more tasks: with task spread this "
                "small (or budget left over at k runs), a task's extra runs narrow its unbiased "
                "estimate more than a new task would."
            )
        )
    table.attrs.update(
        {
            "optimum": best.to_dict(),  # Python scalars, exact (not rounded as in JSON)
            "metric": metric,
            "scope": scope,
            "k": kk,
            "assumptions": [assumed.describe(), *_MODEL_ASSUMPTIONS],
            "prior": {"mean": assumed.mean, "kappa": assumed.kappa, "icc": assumed.icc},
            "n_opt_k1": n_opt,
            "floor": {"tasks": t_best, "se": floor, "runs_within_5pct": n_near},
            "reasoning": reasoning,
            "method": (
                "exact: Var U = E Var(U | p) + Var g(p) under p ~ Beta(a, b) (the same as "
                "averaging the unbiased estimator over the BetaBinomial(n, a, b) pmf)"
            ),
        }
    )
    return table


def design_selection(table: pd.DataFrame, *, metric: str | None = None) -> pd.DataFrame:
    """A short view of a :func:`design` table: the efficient designs, thinned, and the optimum.

    A table of one metric with at most 20 rows comes back whole. A longer one
    (a large budget, or ``all_pairs=True``) keeps the efficient designs (for
    each number of runs per task n, the most tasks the budget affords), of
    those every n from k to k + 9 and about eight more spread over the larger
    n, and always the optimum and (T fixed) the fewest runs per task within 5%
    of the floor (``attrs["floor"]``), the rows the reasoning names.
    ``passhat plan design`` prints this view unless given ``--all``.

    Parameters
    ----------
    table : pandas.DataFrame
        A table returned by :func:`design`.
    metric : str, optional
        Which metric's rows (default: the metric the design optimised).

    Returns
    -------
    pandas.DataFrame
        Rows of ``table`` for ``metric``, in the table's order, with its index.

    Examples
    --------
    >>> from passhat import plan
    >>> t = plan.design(budget_runs=300, k=3, prior=plan.Assumptions(mean=0.7, icc=0.3),
    ...     all_pairs=True)
    >>> view = plan.design_selection(t)
    >>> len(t[t["metric"] == "pass_hat_k"]), len(view), int(view["optimal"].sum())
    (1317, 18, 1)
    """
    metric = str(table.attrs.get("metric", "pass_hat_k")) if metric is None else metric
    if metric not in _METRICS:
        raise OptionError(f"metric must be one of {', '.join(_METRICS)} (got {metric!r})")
    missing = {"tasks", "runs_per_task", "metric", "optimal"} - set(table.columns)
    if missing or "k" not in table.attrs:
        raise OptionError("design_selection takes a table returned by design()")
    k = int(table.attrs["k"])
    sub = table[table["metric"] == metric]
    if len(sub) <= 20:
        return sub
    most = sub.groupby("runs_per_task")["tasks"].transform("max") == sub["tasks"]
    sub = sub[most.to_numpy() | sub["optimal"].to_numpy()]
    ns = sub["runs_per_task"].to_numpy()
    near = (table.attrs.get("floor") or {}).get("runs_within_5pct")
    keep = (ns <= k + 9) | sub["optimal"].to_numpy() | (ns == (near or -1))
    picks = set(sub.index[keep])
    extra = sub.index[~keep]
    step = max(1, len(extra) // 8)
    picks.update(extra[::step])
    return sub.loc[sorted(picks)]


def simulate_design(
    *,
    tasks: int,
    runs_per_task: int,
    k: int,
    prior: Any,
    replicates: int = 2000,
    seed: int | None = 0,
) -> dict[str, float]:
    """Spread of benchmark estimates over simulated benchmarks (checks :func:`design`).

    Each replicate draws ``tasks`` rates from the prior's Beta, runs each
    task ``runs_per_task`` times and averages the unbiased per-task
    estimators. ``sd_population_*`` is the SD over replicates of the
    estimate; ``sd_benchmark_*`` the root-mean of its within-replicate
    variance around the replicate's own true benchmark value.

    Examples
    --------
    >>> from passhat import plan
    >>> r = plan.simulate_design(tasks=20, runs_per_task=5, k=2,
    ...     prior=plan.Assumptions(mean=0.7, icc=0.3), replicates=100)
    >>> r["sd_population_pass_hat_k"] > 0
    True
    """
    assumed, _ = _resolve_prior(prior)
    k = check_k(k)
    t = _whole("tasks", tasks, minimum=1)
    n = _whole("runs_per_task", runs_per_task, minimum=k)
    replicates = _whole("replicates", replicates, minimum=1)
    check_simulation(replicates, t)
    rng = make_rng(seed)
    p = rng.beta(assumed.a, assumed.b, size=(replicates, t))
    c = rng.binomial(n, p).astype(float)
    out: dict[str, float] = {"tasks": t, "runs_per_task": n, "k": k, "replicates": replicates}
    for m in _METRICS:
        u = _estimator(c, n, k, m)
        est = u.mean(axis=1)
        truth = _g(p, k, m).mean(axis=1)
        out[f"sd_population_{m}"] = float(est.std(ddof=1))
        out[f"sd_benchmark_{m}"] = float(np.sqrt(np.mean((est - truth) ** 2)))
    return out


def design_check(
    table: pd.DataFrame,
    *,
    prior: Any,
    rows: int = 6,
    replicates: int = 2000,
    seed: int = 0,
    scheduler: str | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Check a :func:`design` table by simulation: predicted SEs vs simulated spreads.

    Simulates the optimum and up to ``rows`` − 1 other designs of ``table``
    (spread over its runs per task) with :func:`simulate_design`, in parallel
    through :func:`sweep`. The relative Monte-Carlo error of a simulated SD is
    about 1/√(2·replicates).

    Examples
    --------
    >>> from passhat import plan
    >>> prior = plan.Assumptions(mean=0.7, icc=0.3)
    >>> t = plan.design(budget_runs=200, k=2, prior=prior)
    >>> chk = plan.design_check(t, prior=prior, rows=2, replicates=200, scheduler="synchronous")
    >>> len(chk) == 2 * 3
    True
    """
    metric = table.attrs.get("metric", "pass_hat_k")
    k = int(table.attrs.get("k", 1))
    sub = table[table["metric"] == metric].reset_index(drop=True)
    opt = int(np.flatnonzero(sub["optimal"].to_numpy())[0])
    others = [i for i in np.linspace(0, len(sub) - 1, rows).round().astype(int) if i != opt]
    picks = [opt, *others[: max(rows - 1, 0)]]
    designs = sub.loc[picks, ["tasks", "runs_per_task"]].drop_duplicates()
    points = [
        {"tasks": int(t), "runs_per_task": int(n), "seed": seed + i}
        for i, (t, n) in enumerate(designs.itertuples(index=False))
    ]
    sims = sweep(
        simulate_design,
        points,
        scheduler=scheduler,
        progress=progress,
        k=k,
        prior=prior,
        replicates=replicates,
    )
    out = []
    for (_, sim), p in zip(sims.iterrows(), points, strict=True):
        for m in _METRICS:
            row = table[
                (table["metric"] == m)
                & (table["tasks"] == p["tasks"])
                & (table["runs_per_task"] == p["runs_per_task"])
            ].iloc[0]
            out.append(
                {
                    "tasks": p["tasks"],
                    "runs_per_task": p["runs_per_task"],
                    "metric": m,
                    "se_population": row["se_population"],
                    "sd_population_simulated": sim[f"sd_population_{m}"],
                    "se_benchmark": row["se_benchmark"],
                    "sd_benchmark_simulated": sim[f"sd_benchmark_{m}"],
                    "relative_mc_error": 1 / math.sqrt(2 * replicates),
                }
            )
    return pd.DataFrame(out)
