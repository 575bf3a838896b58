"""Paired comparison of systems on matched tasks: difference, interval and test in two scopes.

For each task run by both systems the difference of the unbiased estimates
d_i = U_i(candidate) − U_i(baseline) is formed for mean, pass@k and pass^k
(:mod:`passhat.estimators`); the value compared is their weighted mean
(equal weight per task by default; declared or per-category weights as in
:func:`passhat.estimate`). Two scopes, as everywhere in passhat:

* **population** — the expected difference over tasks like these;
* **benchmark** — on these tasks, given their finitely many runs.

In each scope the interval and the p-value come from one construction, so
the interval excludes 0 exactly when p ≤ 1 − ci; a documented rule picks the
construction (the sign-flip test inverted, or a normal interval, where they
are valid; the hierarchical model where few tasks differ or few show
both outcomes): :mod:`passhat.compare.engine`. When the benchmark interval
comes out wider than the population one, ``notes`` says why.

Tasks run by one system only are an error naming them, or dropped and
listed (``intersect=True``).

Examples
--------
>>> from passhat.compare import paired_difference
>>> r = paired_difference([4, 4, 4], [1, 2, 4], [4, 4, 4], [3, 2, 4], k=2, n_boot=200, seed=0)
>>> r.loc[r["scope"] == "population", ["metric", "difference"]].round(3).values.tolist()
[['mean', 0.167], ['pass_at_k', 0.167], ['pass_hat_k', 0.167]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from passhat._repr import View, as_html, as_text
from passhat._validate import (
    DEFAULT_N_BOOT,
    DEFAULT_SEED,
    check_ci,
    check_flag,
    check_method,
    check_n_boot,
    make_rng,
    named_rng,
    norm_k,
    resolve_seed,
)
from passhat.bootstrap import CI_METHODS
from passhat.compare.engine import paired_table
from passhat.compare.selection import Selection, select_systems
from passhat.errors import ShortTaskError, ValidationError
from passhat.estimators import METRIC_LABELS, METRICS, WeightSpec, task_weights
from passhat.exclusions import WEIGHT_ZERO, exclusions, feasible_ks, weight_zero_notes
from passhat.intervals import value_outside_note
from passhat.trials import Trials

__all__ = ["Comparison", "compare", "paired_difference"]


@dataclass
class Comparison:
    """Result of :func:`compare`.

    Attributes
    ----------
    table : pandas.DataFrame
        Tidy, one row per (baseline, candidate, k, metric, scope): values of
        both systems, difference (candidate − baseline), lower, upper,
        p_value, tasks, method, p_method.
    discordant : pandas.DataFrame
        McNemar-style counts per pair at k = 1 (see :func:`compare`).
    dropped : pandas.DataFrame
        Tasks left out of a pair, with the reason: only one system ran them
        (``intersect=True``; ``only`` names it), or the exclusion rules
        (``min_runs``, ``on_short="exclude"``, ``unscored_tasks``) left them
        out for either system, and so for both.
    settings : dict
    notes : list of str
        Explanations the table needs, e.g. why a benchmark interval is wider
        than the population one.
    """

    table: pd.DataFrame
    discordant: pd.DataFrame
    dropped: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def _view(self) -> View:
        t = self.table
        scope = "population" if "scope" in t.columns else None
        rows = t[t["scope"] == scope] if scope else t
        frame = pd.DataFrame(
            {
                "candidate − baseline": [
                    f"{c} − {b}" for b, c in zip(rows["baseline"], rows["candidate"], strict=True)
                ],
                "metric": [METRIC_LABELS.get(str(m), str(m)) for m in rows["metric"]],
                "k": rows["k"].astype(str),
                "difference (interval)": [
                    f"{d * 100:+.1f} pts ({lo * 100:+.1f} to {hi * 100:+.1f})"
                    for d, lo, hi in zip(
                        rows["difference"], rows["lower"], rows["upper"], strict=True
                    )
                ],
                "p-value": [f"{p:.3g}" for p in rows["p_value"]],
                "tasks": rows["tasks"].astype(str),
            }
        )
        notes = []
        pairs = rows[["method", "p_method"]].drop_duplicates() if len(rows) else rows
        for meth, pmeth in zip(pairs["method"], pairs["p_method"], strict=True):
            notes.append(
                f"{self.settings.get('ci', 0.95):.0%} interval, {scope or 'benchmark'} scope "
                f"(the expected difference over tasks like these): {meth}; p-value: {pmeth}."
            )
        if len(rows):
            notes.append(
                "The interval excludes 0 exactly when p ≤ 1 − level."
                + (" The benchmark scope is in .table." if scope else "")
            )
        if len(self.dropped):
            first = self.dropped.iloc[0]
            notes.append(
                f"{len(self.dropped)} task(s) left out of every metric and k, e.g. "
                f"{first['task']} ({first['reason']}): see .dropped."
            )
        notes.extend(self.notes)
        return View("Comparison on matched tasks (paired)", frame, tuple(notes))

    def __repr__(self) -> str:
        return as_text(self._view())

    def _repr_html_(self) -> str:
        return as_html(self._view())


def paired_difference(
    n_a: ArrayLike,
    c_a: ArrayLike,
    n_b: ArrayLike,
    c_b: ArrayLike,
    *,
    k: int | Sequence[int] = 1,
    ci: float = 0.95,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | np.random.Generator | None = DEFAULT_SEED,
    method: str = "bca",
    weights: ArrayLike | None = None,
) -> pd.DataFrame:
    """Paired difference B − A on matched tasks given as arrays (the core of :func:`compare`).

    Parameters
    ----------
    n_a, c_a, n_b, c_b : array_like
        Decided runs and successes of systems A and B on the same tasks, in
        the same order; every n ≥ max k.
    k, ci, n_boot, seed
        As in :func:`compare` (``n_boot``: random sign flips and posterior
        draws).
    method : str
        Kept for compatibility; the rule of :mod:`passhat.compare.engine`
        picks each interval.
    weights : array_like, optional
        Task weights shared by both systems (default equal).

    Returns
    -------
    pandas.DataFrame
        One row per (k, metric, scope): base_value, cand_value, difference,
        lower, upper, p_value, tasks, method, p_method.

    Examples
    --------
    >>> from passhat.compare import paired_difference
    >>> r = paired_difference([5, 5, 5], [1, 2, 3], [5, 5, 5], [1, 2, 3], n_boot=200, seed=0)
    >>> r[["scope", "difference"]].values.tolist()[:2]
    [['benchmark', 0.0], ['population', 0.0]]
    >>> bool(r["p_value"].min() > 0.9)  # no task differs: nothing to reject
    True
    """
    level = check_ci(ci)
    nb = check_n_boot(n_boot)
    check_method(method, CI_METHODS, "method")
    ks = norm_k(k)
    rng = make_rng(seed)
    na, ca = np.asarray(n_a, dtype=float), np.asarray(c_a, dtype=float)
    nc, cc = np.asarray(n_b, dtype=float), np.asarray(c_b, dtype=float)
    if not (na.shape == ca.shape == nc.shape == cc.shape) or na.ndim != 1 or na.size == 0:
        raise ValidationError("paired counts must be four 1-d arrays of one non-zero length")
    if min(na.min(), nc.min()) < max(ks):
        raise ShortTaskError(
            f"k = {max(ks)} exceeds the smallest n = {int(min(na.min(), nc.min()))} "
            "among the compared tasks"
        )
    w = np.ones(na.size) if weights is None else np.asarray(weights, dtype=float).ravel()
    if w.shape != na.shape or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise ValidationError(
            "paired weights must be one finite, non-negative weight per task, not all zero"
        )
    keep = w > 0
    out = paired_table(
        np.vstack([na[keep], nc[keep]]),
        np.vstack([ca[keep], cc[keep]]),
        w[keep],
        [(0, 1)],
        ks,
        ci=level,
        n_boot=nb,
        rng=rng,
    )
    return out.drop(columns=["a", "b"])


def _pair_weights(
    sel: Selection, base: str, cand: str, tasks: NDArray[np.str_], spec: WeightSpec
) -> NDArray[np.float64]:
    """Task weights of the matched tasks, shared by both systems (as :func:`passhat.estimate`)."""
    if spec is None or spec == "equal":
        return np.ones(len(tasks))
    per = []
    known = [t for name in (base, cand) for t in sel.table(name)["task"].values]  # every task
    for name in (base, cand):
        ds = sel.table(name).sel(task=list(tasks))
        per.append(np.asarray(task_weights(ds, spec, tasks=known).values[0], dtype=float))
    if not np.allclose(per[0], per[1], rtol=1e-9, atol=0.0):
        bad = int(np.flatnonzero(~np.isclose(per[0], per[1], rtol=1e-9, atol=0.0))[0])
        raise ValidationError(
            f"task {str(tasks[bad])!r} has weight {per[0][bad]:g} for {base!r} but "
            f"{per[1][bad]:g} for {cand!r}; a paired comparison needs one weight per task"
        )
    if per[0].sum() <= 0:
        raise ValidationError(f"every matched task of {base!r} and {cand!r} has weight 0")
    return per[0]


def _width_notes(table: pd.DataFrame) -> list[str]:
    """Why a benchmark interval is wider than the population one, where it is."""
    notes = []
    seen: set[tuple[Any, ...]] = set()
    for (cand, kv, metric), part in table.groupby(["candidate", "k", "metric"], sort=False):
        if metric == "mean" and ("mean", cand) in seen:
            continue
        seen.add(("mean", cand))
        r = part.set_index("scope")
        wb = float(r.loc["benchmark", "upper"] - r.loc["benchmark", "lower"])
        wp = float(r.loc["population", "upper"] - r.loc["population", "lower"])
        if wb > wp * 1.05 and wb - wp > 1e-3:
            name = METRIC_LABELS[str(metric)].replace("k", str(kv)) if metric != "mean" else "mean"
            notes.append(
                f"{cand}, {name}: the benchmark interval ({wb:.3f} wide) is wider than the "
                f"population one ({wp:.3f})."
            )
    if notes:
        notes.append(
            "Both widths contain the run-to-run noise of these tasks; the population interval "
            "reads it from how much the per-task differences vary, the benchmark interval from "
            "each task's own runs (and, where a task has fewer than 2k runs, from the model), "
            "so when the systems differ little task by task the two estimates of the same noise "
            "can come out in either order. On average the population interval is the wider one: "
            "for a claim about tasks like these, read the wider of the two."
        )
    return notes


def compare(
    a: Trials | xr.Dataset,
    b: Trials | xr.Dataset | None = None,
    *,
    k: int | Sequence[int] = 1,
    ci: float = 0.95,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = DEFAULT_SEED,
    intersect: bool = False,
    baseline: str | None = None,
    method: Literal["bca", "percentile"] = "bca",
    names: tuple[str, str] | None = None,
    weights: WeightSpec = None,
    on_short: Literal["error", "exclude"] = "error",
    min_runs: int | None = None,
    unscored_tasks: Literal["exclude", "error"] = "exclude",
) -> Comparison:
    """Paired comparison of systems on matched tasks: difference, interval, p-value.

    Only tasks run by both systems are compared. Per task the difference of
    the unbiased estimates d_i = U_i(cand) − U_i(base) is formed for mean,
    pass@k and pass^k; the compared value is their weighted mean (weights as
    in :func:`passhat.estimate`, computed over the matched tasks and shared
    by both systems).

    In each scope the interval excludes 0 exactly when the p-value is at most
    1 − ci, because both come from one construction, picked by the rule of
    :mod:`passhat.compare.engine`:

    * ``population`` (the expected difference over tasks like these): the
      sign-flip permutation test of the per-task differences, inverted into
      the interval of every shift it does not reject, when at least 10 tasks
      differ (exact enumeration when the tasks allow it; labelled approximate
      when n differs between the systems on a task); else the difference of
      the two systems' hierarchical posteriors with its posterior tail
      probability.
    * ``benchmark`` (these tasks, given their runs): difference ± z·SE with
      SE² = Σ w_i² (V_A,i + V_B,i) / (Σ w_i)² and the normal p-value when
      there are ≥ 30 tasks and ≥ 10 show both outcomes; else the same
      difference with its error distribution simulated from the posterior
      of these tasks' rates (one Beta population fitted to both systems'
      tasks), widened by the largest step one success moves the estimate.

    Parameters
    ----------
    a, b : Trials or count table
        Baseline and candidate (one system each), or ``a`` alone holding
        several systems, with ``baseline`` naming the one the others are
        compared to (with exactly two systems the first is the baseline).
        The rule is :func:`passhat.compare.select_systems`'.
    k : int or sequence of int
    ci, n_boot, seed
        Level; random sign flips and posterior draws (≥ 100; default 10,000
        as every entry point); seed (default 0, fixed; None draws one,
        recorded in ``settings``).
    method : {"bca", "percentile"}
        Accepted for compatibility; the rule picks each interval.
    intersect : bool
        Drop tasks that only one system ran (and report how many) instead of
        raising an error that lists them.
    baseline : str, optional
        The baseline (with two inputs, a system of ``a``).
    names : (str, str), optional
        Labels for ``a`` and ``b`` when both are given.
    weights : None, "equal", "declared", "category" or mapping
        Task weights (see :func:`passhat.estimators.task_weights`); a task's
        weight must be the same for both systems.
    on_short, min_runs, unscored_tasks
        As in :func:`passhat.estimate`, applied to matched tasks: a task left
        out for either system is left out of the pair (listed in ``dropped``
        with the reason), so both systems are compared on the same tasks.
        As there, a task short for the largest k is left out at every k (each
        k compares the same tasks), and with ``on_short="exclude"`` a k that
        no matched task serves is left out and named (``notes``,
        ``settings["k_dropped"]`` per candidate).

    Returns
    -------
    Comparison
        ``discordant`` gives, at k = 1, the McNemar-style task counts:
        ``only_base`` / ``only_cand`` (tasks where one system succeeded in at
        least one run and the other in none), ``base_better`` /
        ``cand_better`` / ``ties`` (by per-task success rate), and for
        single-run data the exact McNemar p-value of the discordant tasks.

    References
    ----------
    .. [1] Fisher, R. A. (1935). *The Design of Experiments*. Oliver & Boyd, §21.
    .. [2] McNemar, Q. (1947). Note on the sampling error of the difference between
       correlated proportions or percentages. *Psychometrika*, 12(2), 153–157.

    Examples
    --------
    >>> import passhat as ph
    >>> cmp = ph.compare(ph.load_example("agents"), k=1, seed=0, n_boot=1000, intersect=True)
    >>> cmp.table[["candidate", "metric", "scope"]].iloc[0].tolist()
    ['guided', 'mean', 'benchmark']
    """
    level = check_ci(ci)
    nb = check_n_boot(n_boot)
    meth = check_method(method, CI_METHODS, "method")
    check_method(on_short, ("error", "exclude"), "on_short")
    intersect = check_flag(intersect, "intersect")
    ks = norm_k(k)
    sel = select_systems(a, b, baseline=baseline, names=names)
    ds, base, cands = sel.counts, sel.baseline, sel.candidates
    seed = resolve_seed(seed)
    systems = [str(s) for s in ds["system"].values]
    present = np.asarray(ds["present"].values, dtype=bool)
    n_all = np.asarray(ds["n"].values, dtype=float)
    c_all = np.asarray(ds["c"].values, dtype=float)
    tasks = np.asarray(ds["task"].values, dtype=object).astype(str)
    ib = systems.index(base)
    rows: list[dict[str, Any]] = []
    disc_rows: list[dict[str, Any]] = []
    dropped_rows: list[dict[str, Any]] = []
    dropped_ks: dict[str, list[int]] = {}
    k_notes: list[str] = []
    for cand in cands:
        ic = systems.index(cand)
        both = present[ib] & present[ic]
        if not both.any():
            raise ValidationError(f"systems {base!r} and {cand!r} have no task in common")
        unmatched = (present[ib] | present[ic]) & ~both
        if unmatched.any() and not intersect:
            lst = [
                f"{t} (only {base if present[ib, i] else cand})"
                for i, t in zip(np.flatnonzero(unmatched), tasks[unmatched], strict=True)
            ]
            more = f" and {len(lst) - 8} more" if len(lst) > 8 else ""
            raise ValidationError(
                f"{len(lst)} task(s) not run by both {base!r} and {cand!r}: "
                f"{', '.join(lst[:8])}{more}; pass intersect=True / --intersect to compare "
                "the common tasks only"
            )
        for i in np.flatnonzero(unmatched):
            only = base if present[ib, i] else cand
            dropped_rows.append(
                {
                    "baseline": base,
                    "candidate": cand,
                    "task": tasks[i],
                    "only": only,
                    "reason": f"only {only} ran it",
                }
            )
        pair = ds.isel(system=[ib, ic]).assign(
            present=ds["present"].isel(system=[ib, ic]) & both[None, :]
        )
        pair_ks = ks
        if on_short == "exclude":  # a k no matched task serves is named, as in estimate
            kept, too_big = feasible_ks(
                pair, ks, min_runs=min_runs, unscored_tasks=unscored_tasks, matched=True
            )
            if kept and too_big:
                pair_ks = kept
                dropped_ks[cand] = too_big
                k_notes.append(
                    f"{base} vs {cand}: k = {', '.join(map(str, too_big))} left out: no task "
                    "both ran has that many decided runs of each (on_short='exclude' / "
                    "--min-runs compares the k the tasks serve)"
                )
        both, rule_rows = _matched_exclusions(
            pair,
            # on_short="error": short tasks are refused below, naming the smallest n
            max(pair_ks) if on_short == "exclude" else 1,
            on_short=on_short,
            min_runs=min_runs,
            unscored_tasks=unscored_tasks,
        )
        dropped_rows.extend({"baseline": base, "candidate": cand, **r} for r in rule_rows)
        if not both.any():
            why = f" (e.g. {rule_rows[0]['task']}: {rule_rows[0]['reason']})" if rule_rows else ""
            raise ValidationError(
                f"systems {base!r} and {cand!r} have no task in common left after exclusions{why}"
            )
        w_pair = _pair_weights(sel, base, cand, tasks[both], weights)
        zero = np.flatnonzero(both)[w_pair <= 0]  # counts toward no average: left out, listed
        dropped_rows.extend(
            {"baseline": base, "candidate": cand, "task": tasks[i], "reason": WEIGHT_ZERO}
            for i in zero
        )
        k_notes += weight_zero_notes(tasks[zero], who=f"{base} vs {cand}: ")
        both, w_pair = both & ~np.isin(np.arange(both.size), zero), w_pair[w_pair > 0]
        na, ca = n_all[ib, both], c_all[ib, both]
        nc, cc = n_all[ic, both], c_all[ic, both]
        kmax = max(pair_ks)
        short = (na < kmax) | (nc < kmax)
        if short.any():
            bad = tasks[both][short]
            nmin = int(min(na.min(), nc.min()))
            raise ShortTaskError(
                f"k = {kmax} exceeds the smallest n = {nmin} among the compared tasks "
                f"({len(bad)} task(s), e.g. {', '.join(bad[:5])}); lower k or run more trials"
            )
        part = paired_difference(
            na,
            ca,
            nc,
            cc,
            k=pair_ks,
            ci=level,
            n_boot=nb,
            method=meth,
            weights=w_pair,
            seed=named_rng(seed, base, cand),  # the pair's own stream: not its neighbours'
        )
        t_n = int(both.sum())
        part.insert(0, "candidate", cand)
        part.insert(0, "baseline", base)
        rows.extend(part.to_dict(orient="records"))
        rate_a, rate_c = ca / np.maximum(na, 1), cc / np.maximum(nc, 1)
        only_b = int(((ca > 0) & (cc == 0)).sum())
        only_c = int(((cc > 0) & (ca == 0)).sum())
        single = bool(np.all(na == 1) and np.all(nc == 1))
        mcn = (
            float(stats.binomtest(only_c, only_b + only_c, 0.5).pvalue)
            if single and only_b + only_c > 0
            else float("nan")
        )
        disc_rows.append(
            {
                "baseline": base,
                "candidate": cand,
                "tasks": t_n,
                "only_base": only_b,
                "only_cand": only_c,
                "base_better": int((rate_a > rate_c).sum()),
                "cand_better": int((rate_c > rate_a).sum()),
                "ties": int((rate_a == rate_c).sum()),
                "mcnemar_p": mcn,
                "dropped_tasks": int(unmatched.sum()),
            }
        )
    table = pd.DataFrame(rows)
    order = {mm: i for i, mm in enumerate(METRICS)}
    table = (
        table.assign(_m=table["metric"].map(order))
        .sort_values(["candidate", "k", "_m", "scope"], kind="stable")
        .drop(columns="_m")
        .reset_index(drop=True)
    )
    cand_order = {c: i for i, c in enumerate(cands)}
    table = table.sort_values(
        "candidate", key=lambda s: s.map(cand_order), kind="stable"
    ).reset_index(drop=True)
    settings = {
        "k": ks,
        "ci": level,
        "n_boot": nb,
        "seed": seed,
        "method": meth,
        "intersect": intersect,
        "baseline": base,
        "weights": weights if isinstance(weights, str | None) else "mapping",
        "on_short": on_short,
        "min_runs": min_runs,
        "unscored_tasks": unscored_tasks,
        "k_dropped": dropped_ks,
    }
    return Comparison(
        table=table,
        discordant=pd.DataFrame(disc_rows),
        dropped=pd.DataFrame(
            dropped_rows, columns=["baseline", "candidate", "task", "only", "reason"]
        ),
        settings=settings,
        notes=sel.notes
        + k_notes
        + _width_notes(table)
        + value_outside_note(table, value="difference", who=("baseline", "candidate")),
    )


def _matched_exclusions(
    pair: xr.Dataset,
    kmax: int,
    *,
    on_short: str,
    min_runs: int | None,
    unscored_tasks: str,
) -> tuple[NDArray[np.bool_], list[dict[str, Any]]]:
    """The tasks of a pair left after :func:`passhat.estimate`'s exclusion rules, matched.

    ``pair`` holds the two systems, ``present`` only on the tasks both ran.
    Returns the mask of tasks kept and one row per task left out, whose reason
    names the system it was left out for (:func:`passhat.estimate.exclusions`).
    """
    include, excluded = exclusions(
        pair,
        kmax,
        on_short=on_short,
        min_runs=min_runs,
        unscored_tasks=unscored_tasks,
        matched=True,
    )
    keep: NDArray[np.bool_] = np.asarray(include.all(axis=0), dtype=bool)
    own = excluded[~excluded["reason"].str.startswith("matched tasks")]
    rows = [
        {
            "task": str(task),
            "only": None,
            "reason": "; ".join(f"{s}: {r}" for s, r in zip(g["system"], g["reason"], strict=True)),
        }
        for task, g in own.groupby("task", sort=False)
    ]
    return keep, rows
