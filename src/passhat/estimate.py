"""The user-facing estimate: benchmark mean success, pass@k and pass^k per system, as a table.

:func:`estimate` computes each task's unbiased estimate
(:mod:`passhat.estimators`), averages them with the task weights, and, when a
confidence level is given, attaches benchmark- and population-scope intervals
(:mod:`passhat.intervals`). Tasks with fewer decided runs than k are an error
naming them, or — when asked — excluded and listed with the reason. A task
with no decided run at all (every run unscored) has no estimate: by default
it is left out and listed (``unscored_tasks="exclude"``, the rule
:func:`passhat.fit` follows too), or refused (``"error"``). The result,
:class:`Estimate`, holds the tidy table, the per-task values, the excluded
tasks, a per-system summary and plain-language notes.

Examples
--------
>>> import passhat as ph
>>> est = ph.estimate(ph.load_example("abcd"), k=2)
>>> round(est.value("pass_hat_k", 2), 3)
0.425
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat._validate import (
    DEFAULT_N_BOOT,
    DEFAULT_SEED,
    check_ci,
    check_flag,
    check_method,
    check_min_runs,
    check_n_boot,
    norm_k,
    resolve_seed,
)
from passhat.clusters import FEW_RULE, cluster_codes, cluster_notes, clusters_of
from passhat.cost import cost_cells
from passhat.errors import OptionError, ShortTaskError, ValidationError
from passhat.estimate_result import ALL_METRICS, SCOPES, Estimate
from passhat.estimators import (
    METRICS,
    WeightSpec,
    as_counts,
    benchmark_values,
    task_weights,
)
from passhat.exclusions import (
    WEIGHT_ZERO,
    default_ks,
    exclusions,
    feasible_ks,
    weight_zero_notes,
)
from passhat.groups.result import CategoryEstimate
from passhat.inputs import as_input
from passhat.intervals import (
    TASK_METHODS,
    estimate_intervals,
    task_outcome_shares,
    value_outside_note,
)
from passhat.scores.result import ThresholdCurve
from passhat.trials import Trials, provenance

if TYPE_CHECKING:
    from passhat.scores.benchmark import ScoreParts

__all__ = ["SCOPES", "Estimate", "estimate"]


def _dropped_k_note(dropped: list[int], ds: xr.Dataset, include: NDArray[np.bool_]) -> list[str]:
    """The note naming the k values left out because no task of some system has that many runs."""
    if not dropped:
        return []
    top = np.where(include, np.asarray(ds["n"].values), 0).max(axis=1, initial=0)
    short = [
        f"{s} (at most n = {int(t)})"
        for s, t in zip(ds["system"].values, top, strict=True)
        if t < min(dropped)
    ]
    return [
        f"k = {', '.join(map(str, dropped))} left out: no task of {', '.join(short)} has that "
        "many decided runs (on_short='exclude' / --min-runs reports the k the tasks serve)"
    ]


def _exclusion_notes(excluded: pd.DataFrame, systems: list[str]) -> list[str]:
    """The notes on the tasks left out: no decided run, weight 0, and the other reasons."""
    notes: list[str] = []
    reason = excluded["reason"].astype(str)
    no_run = reason.str.startswith("no decided run").to_numpy()
    if no_run.any():
        part = excluded[no_run]
        shown = ", ".join(f"{r.task} ({r.system})" for r in part.head(5).itertuples())
        notes.append(
            f"{len(part)} task(s) have no decided run (every run unscored) and are left out of "
            f"every average: {shown}{' ...' if len(part) > 5 else ''} (unscored_tasks="
            "'exclude', the default of estimate and fit; 'error' refuses them)"
        )
    zero = reason.eq(WEIGHT_ZERO).to_numpy()
    per_task = excluded[zero].groupby("task", sort=False)["system"].agg(list)
    notes += weight_zero_notes(  # a task named once; its systems when not every system's
        t if len(who) == len(systems) else f"{t} ({', '.join(who)})" for t, who in per_task.items()
    )
    why = reason[~no_run & ~zero]
    short = why.str.replace(r" \(.*$", "", regex=True)  # matched: one line, however many
    kind = why.where(~why.str.startswith("matched tasks"), short)
    counts = kind.groupby(kind, sort=False).size()
    for text, count in sorted(counts.items(), key=lambda kv: kv[0].startswith("matched")):
        notes.append(f"excluded {count} task(s): {text}")
    return notes


def _notes(
    excluded: pd.DataFrame,
    systems: list[str],
    include: NDArray[np.bool_],
    present: NDArray[np.bool_],
    *,
    boot: tuple[int, int] | None,
) -> list[str]:
    """The notes an estimate's output states (see :attr:`Estimate.notes`)."""
    notes = _exclusion_notes(excluded, systems) if len(excluded) else []
    shared = present.sum(axis=0) >= 2
    uneven = shared & include.any(axis=0) & ~(include | ~present).all(axis=0)
    if len(systems) > 1 and uneven.any():
        per = ", ".join(f"{s}: {int(t)}" for s, t in zip(systems, include.sum(axis=1), strict=True))
        notes.append(
            f"the systems are averaged over different tasks after exclusions ({per} tasks; "
            f"{int(uneven.sum())} task(s) are left out for some systems only); matched=True "
            "(--matched) leaves a task out of every system when it is left out of one"
        )
    if boot is not None:
        notes.append(
            f"intervals: {boot[0]} resamples or posterior draws, seed {boot[1]} "
            "(each row's method names the one the rule picked)"
        )
    return notes


def estimate(
    data: Trials | xr.Dataset | Sequence[Trials | xr.Dataset],
    *,
    k: int | Sequence[int] | None = None,
    weights: WeightSpec = None,
    on_short: Literal["error", "exclude"] = "error",
    min_runs: int | None = None,
    unscored_tasks: Literal["exclude", "error"] = "exclude",
    matched: bool = False,
    ci: float | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = DEFAULT_SEED,
    ci_method: Literal["bca", "percentile", "analytic"] = "bca",
    task_method: str = "wilson",
    predictive: int | None = None,
    scores: bool | Sequence[float] = False,
    by: str | None = None,
) -> Estimate:
    """Benchmark mean success, pass@k and pass^k per system.

    Each task's unbiased estimate is computed first and then averaged with
    the task weights (equal by default). With ``ci`` every value gets two
    intervals, one per scope: ``benchmark`` (these tasks; only the
    within-task uncertainty of their finitely many runs) and ``population``
    (the expected value over tasks like these; adds which tasks were drawn).
    A documented rule picks each interval's method (:mod:`passhat.scopes`):
    the task bootstrap or the normal interval where they are valid, the
    hierarchical Beta-Binomial posterior where they are not (few tasks, most
    tasks all-pass or all-fail); ``method`` names the one that ran and why.
    Data with a ``cluster`` task coordinate (read with ``cluster="COLUMN"`` or
    from a column named ``cluster``: tasks of one repository, document or
    environment) get the **cluster bootstrap** in the population scope instead,
    clusters resampled with all their tasks (:func:`passhat.scopes.scope_intervals`),
    and below 20 clusters the cluster jackknife logit-t interval on G − 1 degrees of
    freedom (:mod:`passhat.cluster_robust`; the cluster bootstrap under-covers there);
    the notes and ``settings["clusters"]`` give the number of clusters and the rule.
    To treat such tasks as independent, drop the coordinate
    (``counts.drop_vars("cluster")``).

    Parameters
    ----------
    data : Trials or xarray.Dataset, or a list of them
        Trials, or a count table; a list is estimated as one input holding every input's
        systems (files that name no system named after the files:
        :func:`passhat.inputs.combine_inputs`).
    k : int or sequence of int, optional
        The k values (each ≥ 1). Default: passhat's one default k,
        :func:`passhat.exclusions.default_ks` (1, 2 and 5, capped at the
        fewest decided runs).
    weights : None, "equal", "declared", "category" or mapping
        See :func:`passhat.estimators.task_weights`.
    on_short : {"error", "exclude"}
        What to do with tasks whose decided runs n are fewer than the largest
        k: raise :class:`ShortTaskError` naming them (default), or leave them
        out of every average (every k, so all k average the same tasks) and
        list them in ``excluded``. With "exclude", a k that no task of some
        system can serve is left out and named (a note and
        ``settings["k_dropped"]``; :func:`passhat.exclusions.feasible_ks`).
    min_runs : int, optional
        Also exclude tasks with fewer decided runs than this (listed in
        ``excluded``).
    unscored_tasks : {"exclude", "error"}
        A task with no decided run (every run unscored) has no estimate:
        leave it out of every average and list it (default; :func:`passhat.fit`
        follows the same rule), or raise :class:`ValidationError` naming it.
    matched : bool
        With several systems: a task left out for one system (``min_runs``,
        ``on_short="exclude"``, ``unscored_tasks``) is left out for every
        system, so all are averaged over the same tasks (listed with the
        reason). Without it, systems whose task sets differ after exclusions
        get a note saying so.
    ci : float, optional
        Confidence level in (0, 1). When given, ``table`` has one row per
        (system, k, metric, scope) with columns lower, upper, scope, method.
    n_boot : int
        Bootstrap resamples for the population scope (≥ 100; default
        :data:`passhat._validate.DEFAULT_N_BOOT`, shared by every entry point).
    seed : int or None
        Seed of the bootstrap (default :data:`passhat._validate.DEFAULT_SEED`,
        fixed, so intervals repeat; None draws a fresh seed, which is recorded
        in ``settings`` and the notes).
    ci_method : {"bca", "percentile", "analytic"}
        The population interval where the rule takes the task bootstrap: BCa (falls back to
        percentile where degenerate), percentile, or "analytic", the logit-t interval on the
        per-task estimates (delta method, t on T − 1 df; :mod:`passhat.analytic`), with no
        resampling; the method column says which rule picked it. studies/analytic_interval:
        its 90% intervals cover ≥ 0.86 wherever it acts, but in some cells 0.01–0.04 less
        than the bootstrap (BCa corrects skew better), so it is an option, not the default.
    task_method : {"wilson", "clopper-pearson", "jeffreys"}
        Per-task intervals in ``tasks`` (at level ``ci``, or 0.95).
    predictive : int, optional
        With ``ci``: also a ``predictive`` interval per value, for the value
        a new benchmark of this many tasks (equally weighted, drawn like
        these) would show: usually wider than the population interval by
        about the task-to-task spread Var g(p) / T′ (the rule that picks it:
        :mod:`passhat.scopes`).
    scores : bool or sequence of float
        Also the partial-credit metrics of each run's ``score`` in [0, 1]: ``mean_score``,
        ``best_of_k`` (the expected best of k runs) and ``worst_of_k`` (the expected worst),
        unbiased per task from the sorted scores (:mod:`passhat.scores`), averaged over the
        same tasks with the same weights, with both scopes' intervals when ``ci`` is given
        (:mod:`passhat.scores.intervals`); plus ``curve``, pass^k and pass@k as functions of
        the pass threshold. Needs runs (not a count table) with a score for every decided
        run. On 0/1 scores they equal pass@k / pass^k. A sequence of thresholds in place of
        True sets the curve's thresholds (default: the distinct scores, or 0, 0.05, …, 1 when
        there are more than 21).
    by : {"category"}, optional
        Also the estimate per category of tasks (``by_category``): each category's values
        and intervals over its included tasks, and a permutation F test per (system, metric,
        k) of whether the categories differ (:mod:`passhat.groups`).
    Returns
    -------
    Estimate

    Examples
    --------
    >>> import passhat as ph
    >>> est = ph.estimate(ph.load_example("abcd"), k=2)
    >>> est.wide()[["mean", "pass_at_k", "pass_hat_k"]].round(3).values.tolist()
    [[0.55, 0.675, 0.425]]
    """
    if on_short not in ("error", "exclude"):
        raise OptionError(f"on_short must be 'error' or 'exclude' (got {on_short!r})")
    if ci is not None:
        ci, n_boot, seed = check_ci(ci), check_n_boot(n_boot), resolve_seed(seed)
    elif predictive is not None:
        raise OptionError(
            "{param} needs {ci} (a confidence level)", param="predictive", also=("ci",)
        )
    min_runs = check_min_runs(min_runs)
    matched = check_flag(matched, "matched")
    check_method(task_method, TASK_METHODS, "task_method")  # validate the per-task method now
    data = as_input(data)
    ds = as_counts(data)
    ks = default_ks(ds) if k is None else norm_k(k)
    ks_dropped: list[int] = []
    if on_short == "exclude":  # a k no task of some system can serve is named, not fatal
        kept_ks, ks_dropped = feasible_ks(
            ds, ks, min_runs=min_runs, unscored_tasks=unscored_tasks, matched=matched
        )
        ks = kept_ks or ks  # none served: the error below names the tasks and why
        ks_dropped = ks_dropped if kept_ks else []
    include, excluded = exclusions(
        ds, max(ks), on_short=on_short, min_runs=min_runs, unscored_tasks=unscored_tasks,
        matched=matched,
    )  # fmt: skip
    tasks = _averaged_tasks(ds, include, excluded, weights)
    table = _benchmark_table(ds, tasks, ks)
    groups = clusters_of(ds)
    if ci is not None:
        iv = estimate_intervals(
            ds, tasks.include, tasks.normalised, ks, ci=ci, n_boot=n_boot, seed=seed,
            ci_method=ci_method, predictive=predictive, clusters=groups,
        )  # fmt: skip
        table = table.merge(iv, on=["system", "k", "metric"], how="left", sort=False)
    extra = _extras(
        data, ds, tasks, ks, scores=scores, by=by,
        boot={"ci": ci, "n_boot": n_boot, "seed": seed, "ci_method": ci_method,
              "predictive": predictive},
    )  # fmt: skip
    if extra.scores is not None:
        table = _with_score_rows(table, extra.scores.table, tasks.systems)
    settings: dict[str, Any] = {
        "k": ks,
        "k_dropped": ks_dropped,
        "weights": weights if isinstance(weights, str | None) else "mapping",
        "on_short": on_short,
        "min_runs": min_runs,
        "unscored_tasks": unscored_tasks,
        "matched": matched,
        "task_method": task_method,
        "task_ci": ci if ci is not None else 0.95,
        "cluster": groups is not None,
        "clusters": _cluster_counts(groups, tasks),
    }
    settings.update(extra.settings)
    if ci is not None:
        settings.update(
            {"ci": ci, "n_boot": n_boot, "seed": seed, "ci_method": ci_method,
             "predictive": predictive}
        )  # fmt: skip
    notes = (
        _dropped_k_note(ks_dropped, ds, tasks.include)
        + _notes(
            tasks.excluded,
            tasks.systems,
            tasks.include,
            np.asarray(ds["present"].values, dtype=bool),
            boot=(n_boot, int(seed)) if ci is not None and seed is not None else None,
        )
        + value_outside_note(table)
        + (extra.scores.notes if extra.scores is not None else [])
        + cluster_notes(settings["clusters"], ci=ci is not None, few_rule=FEW_RULE)
        + (
            [
                "the partial-credit (scores) and per-category (by) intervals still treat the "
                "tasks as independent: only the pass/fail metrics resample clusters"
            ]
            if groups is not None and ci is not None and (scores is not False or by is not None)
            else []
        )
    )
    return Estimate(
        table=table,
        excluded=tasks.excluded,
        summary=_summary(ds, tasks),
        settings=settings,
        notes=notes,
        source=provenance(data),
        curve=(
            ThresholdCurve(extra.scores.curve, source=provenance(data))
            if extra.scores is not None
            else None
        ),
        by_category=extra.by_category,
        _counts=ds,
        _cost=(costs := cost_cells(data, ds)).get("cost"),  # the runs' sums per cell, if any
        _duration=costs.get("duration"),
        _include=tasks.include,
        _weights=tasks.normalised,
    )


def _cluster_counts(groups: NDArray[Any] | None, tasks: _Averaged) -> dict[str, int]:
    """Per system, the clusters its averaged tasks fall in ({} without clusters)."""
    if groups is None:
        return {}
    codes = cluster_codes(groups)
    return {
        name: int(np.unique(codes[tasks.include[i]]).size) for i, name in enumerate(tasks.systems)
    }


@dataclass(frozen=True)
class _Extras:
    """What ``scores`` and ``by`` add to an estimate."""

    scores: ScoreParts | None
    by_category: CategoryEstimate | None
    settings: dict[str, Any]


def _score_option(scores: Any) -> tuple[bool, list[float] | None]:
    """``scores`` → (asked, thresholds): a flag, or the curve's thresholds."""
    if isinstance(scores, bool | np.bool_):
        return bool(scores), None
    if isinstance(scores, str) or not isinstance(scores, Iterable):
        raise OptionError(
            f"{{param}} must be True, False or a sequence of thresholds (got {scores!r})",
            param="scores",
        )
    return True, [float(t) for t in scores]


def _extras(
    data: Trials | xr.Dataset,
    ds: xr.Dataset,
    tasks: _Averaged,
    ks: list[int],
    *,
    scores: Any,
    by: str | None,
    boot: dict[str, Any],
) -> _Extras:
    """The score rows and curve (``scores``) and the per-category estimate (``by``)."""
    asked, thresholds = _score_option(scores)
    parts = None
    seed = int(boot["seed"]) if boot["seed"] is not None else DEFAULT_SEED
    if asked:
        from passhat.scores.benchmark import score_estimates  # scipy: only when asked

        parts = score_estimates(
            data, ds, tasks.include, tasks.normalised, ks, ci=boot["ci"], n_boot=boot["n_boot"],
            seed=seed, ci_method=boot["ci_method"], thresholds=thresholds,
        )  # fmt: skip
        if boot["ci"] is not None and boot["predictive"] is not None:
            why = "the mean score and best / worst of k have no new-benchmark interval (—)"
            parts = replace(parts, notes=[*parts.notes, why])
    by_cat = None
    if by is not None:
        from passhat.groups.estimate import category_estimates

        def score_rows(inc: NDArray[np.bool_], w: NDArray[np.float64]) -> pd.DataFrame:
            from passhat.scores.benchmark import score_estimates

            return score_estimates(
                data, ds, inc, w, ks, ci=boot["ci"], n_boot=boot["n_boot"], seed=seed,
                ci_method=boot["ci_method"],
            ).table  # fmt: skip

        by_cat = category_estimates(
            ds, tasks.include, tasks.weights, ks, by=by, ci=boot["ci"], seed=seed,
            intervals={k: boot[k] for k in ("n_boot", "seed", "ci_method")},
            source=provenance(data), score_rows=score_rows if asked else None,
            score_values=_score_values(data, ds, ks) if asked else None,
        )  # fmt: skip
    settings: dict[str, Any] = {"scores": True} if asked else {}
    if by is not None:
        settings["by"] = by
    return _Extras(parts, by_cat, settings)


def _score_values(
    data: Trials | xr.Dataset, ds: xr.Dataset, ks: list[int]
) -> tuple[NDArray[np.float64], list[tuple[str, int]]]:
    """Per-task mean score and best / worst of k (system × task × column) and the columns."""
    from passhat.scores.intervals import score_columns, task_columns
    from passhat.scores.table import score_groups

    sg = score_groups(data, ds)
    cols = score_columns(ks)
    vals, _ = task_columns(sg.groups, sg.shape[0] * sg.shape[1], cols)
    return vals.reshape(*sg.shape, len(cols)), cols


def _with_score_rows(table: pd.DataFrame, extra: pd.DataFrame, systems: list[str]) -> pd.DataFrame:
    """The table with the score rows after each (system, k)'s 0/1 rows (scopes in order)."""
    out = pd.concat([table, extra[table.columns]], ignore_index=True)
    order = {m: i for i, m in enumerate(ALL_METRICS)}
    keys = pd.DataFrame(
        {
            "s": out["system"].map({n: i for i, n in enumerate(systems)}),
            "k": out["k"],
            "m": out["metric"].map(order),
        }
    )
    return out.loc[keys.sort_values(["s", "k", "m"], kind="stable").index].reset_index(drop=True)


@dataclass(frozen=True)
class _Averaged:
    """The tasks each system's averages run over, and their weights."""

    systems: list[str]
    include: NDArray[np.bool_]  # (system, task): in the averages
    excluded: pd.DataFrame  # the tasks left out, with the reason
    weights: NDArray[np.float64]  # declared weights of included tasks, 0 elsewhere
    normalised: NDArray[np.float64]  # the same, summing to 1 per system
    n_tasks: NDArray[np.int64]  # included tasks per system


def _averaged_tasks(
    ds: xr.Dataset, include: NDArray[np.bool_], excluded: pd.DataFrame, weights: WeightSpec
) -> _Averaged:
    """The included tasks' weights; tasks of weight 0 left out and listed; an error when a
    system has no task left or only tasks of weight 0 (never a silent 0 or NaN)."""
    # weights over the tasks left (a category's share must not shrink with its exclusions)
    kept = ds.assign(present=ds["present"] & xr.DataArray(include, dims=ds["present"].dims))
    w = task_weights(kept, weights).values * include
    tot = w.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        wn = np.where(tot > 0, w / np.where(tot > 0, tot, 1.0), 0.0)
    systems = [str(s) for s in ds["system"].values]
    n_tasks = include.sum(axis=1)
    if np.any(n_tasks == 0):
        empty = [systems[i] for i in np.flatnonzero(n_tasks == 0)]
        why = "; ".join(sorted(set(excluded["reason"]))) or "no task"
        raise ShortTaskError(
            f"no task of system(s) {', '.join(empty)} is left to average after exclusions "
            f"({why}); lower k or --min-runs, or run more trials"
        )
    if np.any(tot[:, 0] <= 0):
        zero = [systems[i] for i in np.flatnonzero(tot[:, 0] <= 0)]
        raise ValidationError(
            f"every task averaged for system(s) {', '.join(map(repr, zero))} has weight 0 "
            f"({int(n_tasks[np.flatnonzero(tot[:, 0] <= 0)[0]])} task(s) after exclusions); "
            "give at least one task a positive weight"
        )
    if np.any(zero_w := include & (w <= 0)):  # out of every average: listed, as any exclusion
        cells = [(systems[i], str(ds["task"].values[j])) for i, j in np.argwhere(zero_w).tolist()]
        n_u = np.stack([ds["n"].values, ds["unscored"].values])[:, zero_w].astype(int)
        extra = pd.DataFrame(cells, columns=["system", "task"]).assign(
            n=n_u[0], unscored=n_u[1], reason=WEIGHT_ZERO
        )
        excluded = pd.concat([excluded, extra], ignore_index=True) if len(excluded) else extra
        include = include & ~zero_w
        n_tasks = include.sum(axis=1)
    return _Averaged(systems, include, excluded, np.where(include, w, 0.0), wn, n_tasks)


def _benchmark_table(ds: xr.Dataset, tasks: _Averaged, ks: list[int]) -> pd.DataFrame:
    """The benchmark values, one row per (system, k, metric) in that order
    (:func:`passhat.estimators.benchmark_values`)."""
    vals = benchmark_values(
        np.asarray(ds["n"].values, dtype=np.int64),
        np.asarray(ds["c"].values, dtype=np.int64),
        tasks.weights,
        ks,
    )
    rows = [
        (name, kv, metric, float(vals[s_i, ki, m_i]), int(tasks.n_tasks[s_i]))
        for s_i, name in enumerate(tasks.systems)
        for ki, kv in enumerate(ks)
        for m_i, metric in enumerate(METRICS)
    ]
    return pd.DataFrame(rows, columns=["system", "k", "metric", "value", "tasks"])


def _summary(ds: xr.Dataset, tasks: _Averaged) -> pd.DataFrame:
    """Per system: tasks, runs, unscored, excluded tasks, and the shares of included tasks that
    are flaky, all-pass and all-fail."""
    include, systems, n_tasks = tasks.include, tasks.systems, tasks.n_tasks
    summary = pd.DataFrame(
        {
            "system": systems,
            "tasks": n_tasks.astype(int),
            "runs": (ds["n"].values * include).sum(axis=1).astype(int),
            "unscored": ds["unscored"].values.sum(axis=1).astype(int),
            "excluded_tasks": [int((tasks.excluded["system"] == s).sum()) for s in systems],
        }
    )
    shares = task_outcome_shares(ds["n"].values, ds["c"].values)
    for key, flag in shares.items():
        with np.errstate(invalid="ignore", divide="ignore"):
            summary[f"{key}_share"] = (flag & include).sum(axis=1) / np.where(
                n_tasks > 0, n_tasks, np.nan
            )
    return summary
