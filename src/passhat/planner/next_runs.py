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
>>> t = ph.plan.next_runs(ph.load_example("agents"), budget=100, k=5, system="baseline")
>>> int(t["extra_runs"].sum()), t.attrs["spent"]
(100, 100)
>>> set(t["status"]) <= {"flaky", "all passed", "all failed", "too few runs"}
True
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import special

from passhat._validate import check_k
from passhat.errors import InputError, OptionError
from passhat.estimators import as_counts
from passhat.planner.allocate import (
    between_variance,
    expected_variance,
    flat_prior,
    hyper_points,
    prior_agreement,
)
from passhat.planner.assumptions import Assumptions, _pick_system
from passhat.planner.batch import Groups, check_batch, hedge
from passhat.planner.next_runs_text import (
    HEDGE_START,
    NO_FLAKY,
    PRIOR_Z,
    prior_text,
    reasons,
    write_sentences,
)
from passhat.planner.result import _METRICS, _label, _whole

__all__ = ["NO_FLAKY", "PRIOR_Z", "next_runs"]

_SCOPES = ("benchmark", "population")


def _check(budget: Any, metric: Any, scope: Any, k: Any, ci: Any) -> tuple[int, int, float]:
    if isinstance(budget, bool) or not isinstance(budget, int | np.integer) or budget < 1:
        raise OptionError(
            f"budget must be a whole number of runs ≥ 1 (got {budget!r}): there is nothing "
            "to allocate"
        )
    if metric not in _METRICS:
        raise OptionError(
            f"next_runs: metric {metric!r} cannot be served; the closed-form variance exists "
            f"for {', '.join(_METRICS)}"
        )
    if scope not in _SCOPES:
        raise OptionError(
            f"next_runs: scope {scope!r} cannot be served; choose benchmark (these tasks) or "
            "population (tasks like these)"
        )
    check_k(k)
    if not (isinstance(ci, float | int) and 0 < ci < 1):
        raise OptionError(f"ci must lie strictly between 0 and 1 (got {ci!r})")
    return int(budget), int(k), float(ci)


def _status(n: np.ndarray, c: np.ndarray, kk: int) -> np.ndarray:
    return np.where(
        n < kk,
        "too few runs",
        np.where(c == n, "all passed", np.where(c == 0, "all failed", "flaky")),
    )


def next_runs(
    data: Any,
    *,
    budget: int,
    k: int,
    metric: Literal["pass_hat_k", "mean", "pass_at_k"] = "pass_hat_k",
    scope: Literal["benchmark", "population"] = "benchmark",
    system: str | None = None,
    prior: Assumptions | None = None,
    ci: float = 0.95,
    max_per_task: int | None = None,
) -> pd.DataFrame:
    """The next batch of runs: which tasks, how many runs each, and what each buys.

    Parameters
    ----------
    data : Trials or count table
        Runs made so far (one system, or name it with ``system``).
    budget : int
        Runs to allocate (≥ 1).
    k : int
        k of pass^k / pass@k (ignored for the mean).
    metric : {"pass_hat_k", "mean", "pass_at_k"}
        The estimate whose variance the batch minimises.
    scope : {"benchmark", "population"}
        These tasks, or tasks like these (adds the task-sampling floor and
        compares new tasks with reruns).
    system : str, optional
        The system, when the data hold several.
    prior : Assumptions, optional
        The Beta (μ, κ) of task rates, e.g. ``plan.from_counts`` of an earlier
        evaluation of similar tasks; its ``source`` names it in the output.
        Trusted: one (μ, κ) point, no hedge against its uncertainty (a wrong
        prior can make the batch worse than even runs; see
        reports/next_runs). Default: the posterior of (μ, κ) given these
        runs, hedged.
    ci : float
        Level of the interval whose width is reported.
    max_per_task : int, optional
        At most this many more runs on one task (default: no limit).

    Returns
    -------
    pandas.DataFrame
        One row per task that gets runs, largest variance reduction first:
        ``task``, ``runs``, ``successes``, ``status`` (flaky, all passed, all
        failed, too few runs), ``extra_runs``, ``variance_share`` (the task's
        share of the variance more runs can remove), ``variance_reduction``
        (expected reduction of the estimate's variance), ``width_reduction``
        (of the interval width, this task's runs alone), ``reason``. ``attrs``:
        ``reasoning`` / ``sentences``, ``method``, ``budget``, ``spent``,
        ``variance_now`` / ``variance_after`` / ``variance_uniform`` (the same
        budget spread evenly: the variance the interval reflects, E[Var(estimate
        | p)] over each task's posterior), the ``width_*`` of the ci interval,
        ``squared_error_*`` (given the runs so far, their biases included: what
        the batch minimises), ``floor
        (population: the task-sampling variance), ``tasks_vs_runs``
        (population), ``no_flaky``, ``hedge`` (the choice among the greedy batch,
        an even share plus greedy and the even spread, with the greedy batch's
        worst and mean ratio to the even spread; None when not hedged: fewer
        runs than tasks, or no flaky task) and ``hedge_sentence`` (why the runs
        were spread evenly, or None), ``prior`` (μ, κ and their source),
        ``prior_stated`` (whether ``prior`` was given) and ``prior_text``
        (the prior in one phrase: "Beta(μ=…, κ=…) fitted to these runs" or
        "Beta(μ=…, κ=…), " + the stated prior's source), ``prior_check``
        (stated prior: z of these runs' successes under it,
        :func:`passhat.planner.allocate.prior_agreement`; beyond ±3 the
        sentences warn that the runs do not look like the prior).

    Raises
    ------
    OptionError
        Budget < 1, a metric or scope the closed form cannot serve, k < 1.
    InputError
        No task with runs.
    """
    budget, k, ci = _check(budget, metric, scope, k, ci)
    kk = 1 if metric == "mean" else k
    ds = as_counts(data)
    system = _pick_system([str(s) for s in ds["system"].values], system, "data")
    sub = ds.sel(system=system)
    keep = sub["present"].values.astype(bool)
    tasks = np.asarray(sub["task"].values[keep], dtype=object)
    n = sub["n"].values[keep].astype(np.int64)
    c = sub["c"].values[keep].astype(np.int64)
    T = len(n)
    if T == 0 or n.sum() == 0:
        raise InputError(f"system {system!r}: no task has decided runs to plan from")
    if prior is not None and not isinstance(prior, Assumptions):
        raise OptionError(f"prior must be plan.Assumptions, got {type(prior).__name__}")
    cap = budget if max_per_task is None else _whole("max_per_task", max_per_task, minimum=1)
    check_batch(budget, T)
    status = _status(n, c, kk)
    no_flaky = not bool((status == "flaky").any())

    # runs a task lacks to have an estimate at all, first (in task order)
    lack = np.minimum(np.maximum(kk - n, 0), cap)
    mandatory = _first_come(lack, budget)
    free = budget - int(mandatory.sum())
    stated = prior is not None
    check = prior_agreement(n, c, prior) if prior is not None else None
    if prior is not None:
        hyper = (np.array([prior.a]), np.array([prior.b]), np.ones(1))
    elif no_flaky:
        prior = flat_prior(n, c)
        hyper = (np.array([prior.a]), np.array([prior.b]), np.ones(1))
    else:
        hyper, prior = hyper_points(n, c, system)
    # tabulate the errors up to a few more runs per task; widen while the batch reaches the edge
    levels = 8
    while True:
        groups = Groups.of(n, c, hyper, kk, cap, free, k=k, metric=metric, levels=levels)
        extra = mandatory.copy()
        if free > 0 and not no_flaky:
            extra = groups.allocate(free)
        edge = groups.mse.shape[2] - 1
        if int(extra.max()) < edge or edge >= int(groups.lack.max()) + min(free, cap):
            break
        levels *= 4
    uni = np.minimum(mandatory + (free // T + (np.arange(T) < free % T)).astype(np.int64), cap)
    hedged = None
    if free >= T and not no_flaky:  # with fewer runs than tasks no even spread exists
        extra, hedged = hedge(groups, extra, uni, free, T)
    between = (
        float(
            sum(
                w * between_variance(a, b, k=k, metric=metric)
                for a, b, w in zip(*hyper, strict=True)
            )
        )
        if scope == "population"
        else 0.0
    )
    v_now, var_now, err_now, _ = groups.variance(np.zeros(T, dtype=np.int64), between)
    v_after, var_after, err_after, t_after = groups.variance(extra, between)
    _, var_uni, err_uni, _ = groups.variance(uni, between)
    z = float(special.ndtri(0.5 + ci / 2))
    width = {
        "now": 2 * z * float(np.sqrt(var_now)),
        "after": 2 * z * float(np.sqrt(var_after)),
        "uniform": 2 * z * float(np.sqrt(var_uni)),
    }
    total = float(v_now.sum())
    share = v_now / total if total > 0 else np.zeros(T)
    pick = np.flatnonzero(extra > 0)
    red = (v_now[pick] - v_after[pick]) / max(t_after, 1) ** 2
    red = np.where(n[pick] >= kk, red, np.nan)
    width_red = width["now"] - 2 * z * np.sqrt(np.maximum(var_now - np.nan_to_num(red), 0.0))
    label = _label(metric, kk)
    table = pd.DataFrame(
        {
            "system": system,
            "task": tasks[pick],
            "runs": n[pick],
            "successes": c[pick],
            "status": status[pick],
            "extra_runs": extra[pick],
            "variance_share": np.where(n[pick] >= kk, share[pick], np.nan),
            "variance_reduction": red,
            "width_reduction": np.where(n[pick] >= kk, width_red, np.nan),
            "reason": reasons(
                status[pick],
                n[pick],
                c[pick],
                extra[pick],
                share[pick],
                mandatory[pick],
                kk,
                label,
            ),
        }
    )
    table = table.sort_values(
        ["variance_reduction", "extra_runs"], ascending=False, kind="stable", na_position="first"
    ).reset_index(drop=True)
    tasks_vs_runs = None
    if scope == "population":  # from the tasks the mandatory runs (spent either way) leave
        v_base, _, _, t_base = groups.variance(mandatory, between)
        tasks_vs_runs = _tasks_vs_runs(
            prior, n, v_base, free, between, var_after, k, metric, t_base, kk
        )
    sentences = write_sentences(
        table,
        label,
        scope,
        T,
        budget,
        width,
        var_now,
        var_after,
        ci,
        no_flaky,
        int(mandatory.sum()),
        between,
        tasks_vs_runs,
        hedged,
        (err_now, err_after, err_uni),
        prior_text(prior, stated, no_flaky),
        check,
        n_min=int(n.min()),
    )
    table.attrs.update(
        {
            "system": system,
            "metric": metric,
            "k": kk,
            "scope": scope,
            "budget": budget,
            "spent": int(extra.sum()),
            "no_flaky": no_flaky,
            "variance_now": var_now,
            "variance_after": var_after,
            "variance_uniform": var_uni,
            "squared_error_now": err_now,
            "squared_error_after": err_after,
            "squared_error_uniform": err_uni,
            "width_now": width["now"],
            "width_after": width["after"],
            "width_uniform": width["uniform"],
            "floor": between / max(t_after, 1) if scope == "population" else 0.0,
            "tasks_vs_runs": tasks_vs_runs,
            "hedge": hedged,
            "hedge_sentence": next((x for x in sentences if x.startswith(HEDGE_START)), None),
            "prior": prior.describe(),
            "prior_stated": stated,
            "prior_check": check,
            "prior_text": prior_text(prior, stated, no_flaky),
            "reasoning": " ".join(sentences),
            "sentences": sentences,
            "method": (
                "greedy allocation by the expected reduction of the average estimate's squared "
                "error given the runs so far (per task exact sums over the new runs under the "
                "posterior Beta(a + c, b + n − c) of its rate; the tasks' biases add up), "
                + (
                    "hedged against uniform runs (of the greedy batch, an even share plus "
                    "greedy, and even runs, the one with the smallest worst ratio to even runs "
                    f"over the (μ, κ) points: {hedged['choice']}), "
                    if hedged is not None and not stated
                    else ""
                )
                + (
                    f"(a, b) from the stated prior {prior_text(prior, stated, no_flaky)}, "
                    "trusted: no hedge"
                    if stated
                    else f"(a, b) from {prior.source}"
                )
                + f"; widths ±{z:.2f}·sd of the variance"
            ),
        }
    )
    return table


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
) -> dict[str, Any]:
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
    return {
        "free_runs": int(free),
        "runs_per_new_task": per_task,
        "new_tasks": int(affordable),
        "variance_new_tasks": var_tasks,
        "variance_reruns": var_runs,
        "tasks_beat_runs": bool(var_tasks < var_runs * (1 - 1e-12)),  # not on rounding
        "tasks_to_match_reruns": needed,
    }
