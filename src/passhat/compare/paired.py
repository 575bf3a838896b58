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

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from passhat._validate import (
    DEFAULT_N_BOOT,
    DEFAULT_SEED,
    check_ci,
    check_flag,
    check_method,
    check_min_runs,
    check_n_boot,
    make_rng,
    named_rng,
    norm_k,
    resolve_seed,
)
from passhat.bootstrap import CI_METHODS
from passhat.clusters import SIGN_FLIPS, cluster_codes, cluster_notes, clusters_of
from passhat.compare.engine import TaskValues, paired_table
from passhat.compare.multiplicity import holm
from passhat.compare.result import Comparison, baseline_notes, k_left_out_note, width_notes
from passhat.compare.selection import Selection, select_systems
from passhat.errors import ShortTaskError, ValidationError
from passhat.estimators import METRICS, WeightSpec, task_weights
from passhat.exclusions import (
    WEIGHT_ZERO,
    default_ks,
    exclusions,
    feasible_ks,
    weight_zero_notes,
)
from passhat.intervals import value_outside_note
from passhat.trials import Trials, provenance

__all__ = ["SCORE_NAMES", "Comparison", "Options", "compare", "comparison", "paired_difference"]

#: The score metric each 0/1 metric's column holds in a comparison of scores.
SCORE_NAMES = {"mean": "mean_score", "pass_at_k": "best_of_k", "pass_hat_k": "worst_of_k"}


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
    method: str | None = None,
    weights: ArrayLike | None = None,
    clusters: ArrayLike | None = None,
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
    method : str, optional
        Deprecated, no effect: the rule of :mod:`passhat.compare.engine`
        picks each interval.
    weights : array_like, optional
        Task weights shared by both systems (default equal).
    clusters : array_like, optional
        Each task's cluster (any labels, none missing): the population scope flips the
        signs of whole clusters and draws clusters (:func:`passhat.compare.paired_table`).

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
    _method_deprecated(method, "paired_difference")
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
    groups = _cluster_labels(clusters, na.size)
    out = paired_table(
        np.vstack([na[keep], nc[keep]]),
        np.vstack([ca[keep], cc[keep]]),
        w[keep],
        [(0, 1)],
        ks,
        ci=level,
        n_boot=nb,
        rng=rng,
        clusters=None if groups is None else groups[keep],
    )
    return out.drop(columns=["a", "b"])


def _cluster_labels(clusters: ArrayLike | None, size: int) -> NDArray[np.int64] | None:
    """Cluster codes of ``clusters`` (one label per task, none missing), or None."""
    if clusters is None:
        return None
    labels = np.asarray(clusters, dtype=object).ravel()
    if labels.shape != (size,) or pd.isna(pd.Series(labels, dtype=object)).any():
        raise ValidationError("paired clusters must be one cluster label per task, none missing")
    return cluster_codes(labels)


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


@dataclass(frozen=True)
class Options:
    """The options of :func:`compare` that every pair uses, validated."""

    ci: float
    n_boot: int
    intersect: bool
    weights: WeightSpec
    on_short: str
    min_runs: int | None
    unscored_tasks: str
    multiplicity: str = "none"
    scores: TaskValues | None = None  # per-task score values (compare_scores), else None

    @classmethod
    def checked(
        cls,
        *,
        ci: float,
        n_boot: int,
        intersect: bool,
        weights: WeightSpec,
        on_short: str,
        min_runs: int | None,
        unscored_tasks: str,
        multiplicity: str = "none",
    ) -> Options:
        """The options of a paired comparison, each validated (one message per option)."""
        return cls(
            ci=check_ci(ci),
            n_boot=check_n_boot(n_boot),
            intersect=check_flag(intersect, "intersect"),
            weights=weights,
            on_short=check_method(on_short, ("error", "exclude"), "on_short"),
            min_runs=check_min_runs(min_runs),
            unscored_tasks=unscored_tasks,
            multiplicity=check_method(multiplicity, ("none", "holm"), "multiplicity"),
        )


@dataclass
class _Pair:
    """What one candidate adds to a comparison: its rows, task counts, tasks and k left out."""

    rows: pd.DataFrame
    discordant: dict[str, Any]
    dropped: list[dict[str, Any]] = field(default_factory=list)
    k_dropped: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    clusters: int | None = None  # the clusters of the compared tasks (None: no clusters)


def _method_deprecated(method: str | None, where: str) -> None:
    """``method=`` picks nothing (the rule of :mod:`passhat.compare.engine` does): warn."""
    if method is None:
        return
    check_method(method, CI_METHODS, "method")
    warnings.warn(
        f"{where}(method=...) has no effect (a documented rule picks each paired interval) "
        "and will be removed in the next release",
        DeprecationWarning,
        stacklevel=3,
    )


def compare(
    a: Trials | xr.Dataset | Sequence[Trials | xr.Dataset],
    b: Trials | xr.Dataset | None = None,
    *,
    k: int | Sequence[int] | None = None,
    ci: float = 0.95,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = DEFAULT_SEED,
    intersect: bool = False,
    baseline: str | None = None,
    method: Literal["bca", "percentile"] | None = None,
    names: tuple[str, str] | None = None,
    weights: WeightSpec = None,
    on_short: Literal["error", "exclude"] = "error",
    min_runs: int | None = None,
    unscored_tasks: Literal["exclude", "error"] = "exclude",
    multiplicity: Literal["none", "holm"] = "none",
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
        compared to (with exactly two systems the first is the baseline);
        or ``a`` a list of inputs (``[ph.read(f) for f in files]``: files that name
        no system are named after the files), the first input's system the
        baseline unless ``baseline`` names one. The rule is
        :func:`passhat.compare.select_systems`', and a note says which rule chose
        the baseline when it was not named.
    k : int or sequence of int, optional
        The k values. Default: passhat's one default k,
        :func:`passhat.exclusions.default_ks` of the compared systems (1, 2
        and 5, capped at the fewest decided runs).
    ci, n_boot, seed
        Level; random sign flips and posterior draws (≥ 100; default 10,000
        as every entry point); seed (default 0, fixed; None draws one,
        recorded in ``settings``).
    intersect : bool
        Drop tasks that only one system ran (and report how many) instead of
        raising an error that lists them.
    baseline : str, optional
        The baseline (with two inputs, a system of ``a``).
    method : {"bca", "percentile"}, optional
        Deprecated, no effect: the rule picks each interval.
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
    multiplicity : {"none", "holm"}
        With several candidates each p-value is for its own comparison, and a note
        says how often one of them falls under 1 − ci by chance alone; ``"holm"``
        adds ``p_holm``: the p-values adjusted by Holm across the candidates (per k,
        metric and scope), which bound the chance of any false claim by 1 − ci.
        The intervals stay per comparison.

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
    opts = Options.checked(
        ci=ci,
        n_boot=n_boot,
        intersect=intersect,
        weights=weights,
        on_short=on_short,
        min_runs=min_runs,
        unscored_tasks=unscored_tasks,
        multiplicity=multiplicity,
    )
    _method_deprecated(method, "compare")
    ks = None if k is None else norm_k(k)
    sel = select_systems(a, b, baseline=baseline, names=names)
    ks = default_ks(sel.counts) if ks is None else ks
    return comparison(sel, ks, opts, resolve_seed(seed), source=_sources(a, b))


def comparison(
    sel: Selection, ks: list[int], opts: Options, seed: int, *, source: dict[str, Any]
) -> Comparison:
    """The comparison of the selected systems (the body of :func:`compare` and of
    :func:`passhat.compare.scores.compare_scores`, whose options carry the score values)."""
    # each pair's own stream, from the seed and the two names: a candidate's interval does not
    # depend on the other candidates (issue 33, item 12)
    pairs = [
        _compare_pair(sel, cand, ks, opts, named_rng(seed, sel.baseline, cand))
        for cand in sel.candidates
    ]
    table = _ordered(pd.concat([p.rows for p in pairs], ignore_index=True), sel.candidates)
    clusters = {
        c: p.clusters for c, p in zip(sel.candidates, pairs, strict=True) if p.clusters is not None
    }
    adjust = opts.multiplicity
    if adjust == "holm":
        table["p_holm"] = across_candidates(table)
    settings = {
        "k": ks,
        "ci": opts.ci,
        "n_boot": opts.n_boot,
        "seed": seed,
        "intersect": opts.intersect,
        "baseline": sel.baseline,
        "baseline_from": sel.baseline_from,
        "multiplicity": adjust,
        "weights": opts.weights if isinstance(opts.weights, str | None) else "mapping",
        "on_short": opts.on_short,
        "min_runs": opts.min_runs,
        "unscored_tasks": opts.unscored_tasks,
        "k_dropped": {
            c: p.k_dropped for c, p in zip(sel.candidates, pairs, strict=True) if p.k_dropped
        },
        "cluster": "cluster" in sel.counts.coords,
        "clusters": clusters,
        **({"scores": True} if opts.scores is not None else {}),
    }
    return Comparison(
        table=table,
        discordant=pd.DataFrame([p.discordant for p in pairs]),
        dropped=pd.DataFrame(
            [r for p in pairs for r in p.dropped],
            columns=["baseline", "candidate", "task", "only", "reason"],
        ),
        settings=settings,
        notes=sel.notes
        + baseline_notes(sel.baseline, sel.baseline_from, sel.candidates, opts.ci, adjust)
        + [n for p in pairs for n in p.notes]
        + cluster_notes(
            {f"{sel.baseline} vs {c}": g for c, g in clusters.items()},
            ci=True,
            how=SIGN_FLIPS,
            method="cluster sign-flip test",
        )
        + width_notes(table)
        + value_outside_note(table, value="difference", who=("baseline", "candidate")),
        source=source,
    )


def _sources(
    a: Trials | xr.Dataset | Sequence[Trials | xr.Dataset], b: Trials | xr.Dataset | None
) -> dict[str, dict[str, str]]:
    """The inputs' provenance by role: base (and cand), or input 1, 2, … of a longer list."""
    if isinstance(a, Trials | xr.Dataset):
        return {"base": provenance(a), **({"cand": provenance(b)} if b is not None else {})}
    inputs = list(a)
    if len(inputs) <= 2:
        return dict(zip(("base", "cand"), map(provenance, inputs), strict=False))
    return {f"input {i + 1}": provenance(x) for i, x in enumerate(inputs)}


def across_candidates(table: pd.DataFrame) -> NDArray[np.float64]:
    """Holm-adjusted p-values across the candidates of each (k, metric, scope).

    Examples
    --------
    >>> t = pd.DataFrame({"candidate": ["b", "c"], "k": 1, "metric": "mean",
    ...                   "scope": "population", "p_value": [0.01, 0.04]})
    >>> across_candidates(t).round(2).tolist()
    [0.02, 0.04]
    """
    out = np.full(len(table), np.nan)
    for rows in table.groupby(["k", "metric", "scope"], sort=False).indices.values():
        out[rows] = holm(table["p_value"].to_numpy(dtype=float)[rows])
    return out


def _ordered(table: pd.DataFrame, candidates: Sequence[str]) -> pd.DataFrame:
    """Rows by candidate (in input order), k, metric (mean, pass@k, pass^k) and scope."""
    order = {mm: i for i, mm in enumerate([*METRICS, *SCORE_NAMES.values()])}
    table = (
        table.assign(_m=table["metric"].map(order))
        .sort_values(["candidate", "k", "_m", "scope"], kind="stable")
        .drop(columns="_m")
        .reset_index(drop=True)
    )
    cand_order = {c: i for i, c in enumerate(candidates)}
    return table.sort_values(
        "candidate", key=lambda s: s.map(cand_order), kind="stable"
    ).reset_index(drop=True)


def _compare_pair(
    sel: Selection, cand: str, ks: list[int], opts: Options, rng: np.random.Generator
) -> _Pair:
    """The baseline against one candidate on the tasks both ran and the rules keep."""
    ds, base = sel.counts, sel.baseline
    systems = [str(s) for s in ds["system"].values]
    ib, ic = systems.index(base), systems.index(cand)
    tasks = np.asarray(ds["task"].values, dtype=object).astype(str)
    present = np.asarray(ds["present"].values, dtype=bool)
    both, unmatched = _matched_tasks(present[ib], present[ic], tasks, base, cand, opts.intersect)
    out = _Pair(rows=pd.DataFrame(), discordant={})
    for i in np.flatnonzero(unmatched):
        only = base if present[ib, i] else cand
        out.dropped.append(
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
    pair_ks = _pair_ks(pair, ks, opts, out)
    if out.k_dropped:
        out.notes.append(k_left_out_note(base, cand, out.k_dropped))
    both = _kept_tasks(pair, base, cand, tasks, max(pair_ks), opts, out)
    both, w_pair = _weighted_tasks(sel, cand, tasks, both, opts.weights, out)
    n_all = np.asarray(ds["n"].values, dtype=float)
    c_all = np.asarray(ds["c"].values, dtype=float)
    na, ca, nc, cc = n_all[ib, both], c_all[ib, both], n_all[ic, both], c_all[ic, both]
    _refuse_short(na, nc, tasks[both], max(pair_ks))
    groups = clusters_of(ds)
    if groups is not None:
        groups = groups[both]
        out.clusters = int(np.unique(cluster_codes(groups)).size)
    if opts.scores is None:
        part = paired_difference(
            na, ca, nc, cc, k=pair_ks, ci=opts.ci, n_boot=opts.n_boot, seed=rng,
            weights=w_pair, clusters=groups,
        )  # fmt: skip
    else:
        part = _score_rows(
            opts.scores, [ib, ic], both, (na, nc), w_pair, pair_ks, opts, rng, groups
        )
    part.insert(0, "candidate", cand)
    part.insert(0, "baseline", base)
    out.rows = part
    out.discordant = {
        "baseline": base,
        "candidate": cand,
        "tasks": int(both.sum()),
        **_discordant(na, ca, nc, cc),
        "dropped_tasks": int(unmatched.sum()),
    }
    return out


def _score_rows(
    tv: TaskValues,
    rows: list[int],
    both: NDArray[np.bool_],
    n: tuple[NDArray[np.float64], NDArray[np.float64]],
    w: NDArray[np.float64],
    ks: list[int],
    opts: Options,
    rng: np.random.Generator,
    groups: NDArray[Any] | None,
) -> pd.DataFrame:
    """The paired rows of the score metrics on the compared tasks (metric names of
    :mod:`passhat.scores`: mean_score, best_of_k, worst_of_k)."""
    sub = TaskValues(
        tv.values[rows][:, both][:, :, _score_cols(tv, ks)],
        tv.variances[rows][:, both][:, :, _score_cols(tv, ks)],
        tv.codes[rows][:, both],
    )
    out = paired_table(
        np.vstack(n), np.zeros((2, int(both.sum()))), w, [(0, 1)], ks, ci=opts.ci,
        n_boot=opts.n_boot, rng=rng, task_values=sub,
        clusters=None if groups is None else cluster_codes(groups),
    )  # fmt: skip
    return out.drop(columns=["a", "b"]).assign(metric=out["metric"].map(SCORE_NAMES))


def _score_cols(tv: TaskValues, ks: list[int]) -> list[int]:
    """The columns of ``ks`` among the score values (computed for every k of the comparison;
    a pair may compare fewer)."""
    all_ks = list(tv.ks)
    return [0] + [1 + all_ks.index(k) for k in ks] + [1 + len(all_ks) + all_ks.index(k) for k in ks]


def _matched_tasks(
    in_base: NDArray[np.bool_],
    in_cand: NDArray[np.bool_],
    tasks: NDArray[np.str_],
    base: str,
    cand: str,
    intersect: bool,
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """The tasks both systems ran, and those only one ran (an error naming them unless
    ``intersect``)."""
    both = in_base & in_cand
    if not both.any():
        raise ValidationError(f"systems {base!r} and {cand!r} have no task in common")
    unmatched = (in_base | in_cand) & ~both
    if unmatched.any() and not intersect:
        lst = [
            f"{t} (only {base if in_base[i] else cand})"
            for i, t in zip(np.flatnonzero(unmatched), tasks[unmatched], strict=True)
        ]
        more = f" and {len(lst) - 8} more" if len(lst) > 8 else ""
        raise ValidationError(
            f"{len(lst)} task(s) not run by both {base!r} and {cand!r}: "
            f"{', '.join(lst[:8])}{more}; pass intersect=True / --intersect to compare "
            "the common tasks only"
        )
    return both, unmatched


def _pair_ks(pair: xr.Dataset, ks: list[int], opts: Options, out: _Pair) -> list[int]:
    """The k one pair compares: with ``on_short="exclude"`` a k no matched task serves is
    left out (recorded in ``out.k_dropped``), as in :func:`passhat.estimate`."""
    if opts.on_short != "exclude":
        return ks
    kept, too_big = feasible_ks(
        pair, ks, min_runs=opts.min_runs, unscored_tasks=opts.unscored_tasks, matched=True
    )
    if kept and too_big:
        out.k_dropped = too_big
        return kept
    return ks


def _kept_tasks(
    pair: xr.Dataset,
    base: str,
    cand: str,
    tasks: NDArray[np.str_],
    kmax: int,
    opts: Options,
    out: _Pair,
) -> NDArray[np.bool_]:
    """The matched tasks the exclusion rules keep for both systems; those left out are
    listed in ``out.dropped``. No task left is an error."""
    both, rule_rows = _matched_exclusions(
        pair,
        # on_short="error": short tasks are refused later, naming the smallest n
        kmax if opts.on_short == "exclude" else 1,
        on_short=opts.on_short,
        min_runs=opts.min_runs,
        unscored_tasks=opts.unscored_tasks,
    )
    out.dropped.extend({"baseline": base, "candidate": cand, **r} for r in rule_rows)
    if not both.any():
        why = f" (e.g. {rule_rows[0]['task']}: {rule_rows[0]['reason']})" if rule_rows else ""
        raise ValidationError(
            f"systems {base!r} and {cand!r} have no task in common left after exclusions{why}"
        )
    return both


def _weighted_tasks(
    sel: Selection,
    cand: str,
    tasks: NDArray[np.str_],
    both: NDArray[np.bool_],
    spec: WeightSpec,
    out: _Pair,
) -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
    """The kept tasks of positive weight and their weights; tasks of weight 0 count toward
    no average, so they are left out and listed (``out.dropped``, ``out.notes``)."""
    base = sel.baseline
    w_pair = _pair_weights(sel, base, cand, tasks[both], spec)
    zero = np.flatnonzero(both)[w_pair <= 0]
    out.dropped.extend(
        {"baseline": base, "candidate": cand, "task": tasks[i], "reason": WEIGHT_ZERO} for i in zero
    )
    out.notes.extend(weight_zero_notes(tasks[zero], who=f"{base} vs {cand}: "))
    return both & ~np.isin(np.arange(both.size), zero), w_pair[w_pair > 0]


def _refuse_short(
    na: NDArray[np.float64], nc: NDArray[np.float64], tasks: NDArray[np.str_], kmax: int
) -> None:
    """A compared task with fewer decided runs than the largest k is an error naming it."""
    short = (na < kmax) | (nc < kmax)
    if short.any():
        bad = tasks[short]
        nmin = int(min(na.min(), nc.min()))
        raise ShortTaskError(
            f"k = {kmax} exceeds the smallest n = {nmin} among the compared tasks "
            f"({len(bad)} task(s), e.g. {', '.join(bad[:5])}); lower k or run more trials"
        )


def _discordant(
    na: NDArray[np.float64],
    ca: NDArray[np.float64],
    nc: NDArray[np.float64],
    cc: NDArray[np.float64],
) -> dict[str, Any]:
    """McNemar-style task counts at k = 1 (see :func:`compare`'s Returns)."""
    rate_a, rate_c = ca / np.maximum(na, 1), cc / np.maximum(nc, 1)
    only_b = int(((ca > 0) & (cc == 0)).sum())
    only_c = int(((cc > 0) & (ca == 0)).sum())
    single = bool(np.all(na == 1) and np.all(nc == 1))
    mcn = (
        float(stats.binomtest(only_c, only_b + only_c, 0.5).pvalue)
        if single and only_b + only_c > 0
        else float("nan")
    )
    return {
        "only_base": only_b,
        "only_cand": only_c,
        "base_better": int((rate_a > rate_c).sum()),
        "cand_better": int((rate_c > rate_a).sum()),
        "ties": int((rate_a == rate_c).sum()),
        "mcnemar_p": mcn,
    }


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
