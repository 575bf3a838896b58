"""pass@k / pass^k per category of tasks, with intervals, and the test of whether they differ.

Each category's values average the same per-task unbiased estimates as
:func:`passhat.estimate`, over the tasks of that category that the overall estimate includes,
with their declared weights renormalised within the category; its intervals come from the same
rule (:func:`passhat.intervals.estimate_intervals`) on those tasks alone, so a category's row
equals ``estimate`` on that category's tasks. The test across categories is
:func:`passhat.groups.differ.category_difference` per (system, metric, k).

Examples
--------
>>> import passhat as ph
>>> est = ph.estimate(ph.load_example("agents"), k=[1, 2], by="category")
>>> sorted(est.by_category.tests["metric"].unique().tolist())
['mean', 'pass_at_k', 'pass_hat_k']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat._validate import named_rng, root_seed
from passhat.errors import OptionError, ValidationError
from passhat.estimators import METRICS, per_task_metrics
from passhat.groups.differ import category_difference
from passhat.groups.result import CategoryEstimate

__all__ = ["BY_KEYS", "MAX_CELLS", "category_codes", "category_estimates", "perms_for"]

#: The task attributes an estimate may be split by.
BY_KEYS = ("category",)


def category_codes(ds: xr.Dataset, by: str) -> tuple[list[str], NDArray[np.int64]]:
    """The categories (in order of first appearance) and each task's code; an error when the
    table has none or a task has none (no task is dropped silently)."""
    if by not in BY_KEYS:
        raise OptionError(f"{{param}} must be one of {', '.join(BY_KEYS)} (got {by!r})", param="by")
    if by not in ds.coords and ds.attrs.get(f"{by}_clash"):  # inputs that disagree
        raise ValidationError(str(ds.attrs[f"{by}_clash"]))
    if by not in ds.coords:
        raise ValidationError(
            f"no {by} column to estimate by (map one with --map {by}=COLUMN, or add a "
            f"'{by}' column)"
        )
    raw = pd.Series(ds[by].values, dtype=object)
    missing = raw.isna() | (raw.astype(str).str.strip() == "")
    if missing.any():
        tasks = [str(t) for t in np.asarray(ds["task"].values)[missing.to_numpy()]]
        raise ValidationError(
            f"{int(missing.sum())} task(s) have no {by} (e.g. {', '.join(map(repr, tasks[:3]))}); "
            f"every task needs a {by} to estimate by {by}"
        )
    codes, names = pd.factorize(raw.astype(str))
    return [str(x) for x in names], codes.astype(np.int64)


def _columns(ks: Sequence[int]) -> list[tuple[str, int]]:
    return [("mean", ks[0])] + [(m, k) for m in METRICS[1:] for k in ks]


def _values(
    ds: xr.Dataset, include: NDArray[np.bool_], weights: NDArray[np.float64], ks: list[int]
) -> tuple[NDArray[np.float64], list[tuple[str, int]]]:
    """Per-task values (system × task × column) and the columns (metric, k)."""
    pt = per_task_metrics(ds, ks)
    cols = _columns(ks)
    vals = np.stack([pt[m].values[:, :, ks.index(k)] for m, k in cols], axis=-1)
    return np.where(include[..., None], vals, np.nan), cols


def _table(
    vals: NDArray[np.float64], weights: NDArray[np.float64], include: NDArray[np.bool_],
    codes: NDArray[np.int64], names: list[str], systems: list[str], cols: list[tuple[str, int]],
    ks: list[int],
) -> pd.DataFrame:  # fmt: skip
    """The per-category values, one row per (system, category, k, metric)."""
    rows = []
    for s, name in enumerate(systems):
        for g, cat in enumerate(names):
            on = include[s] & (codes == g)
            if not on.any():
                continue
            w = weights[s, on] / weights[s, on].sum()
            v = w @ vals[s, on]
            for kv in ks:
                for m in METRICS:
                    j = cols.index((m, ks[0] if m == "mean" else kv))
                    rows.append((name, cat, kv, m, float(v[j]), int(on.sum())))
    return pd.DataFrame(rows, columns=["system", "category", "k", "metric", "value", "tasks"])


#: Most task values relabelled per test (relabellings × tasks): beyond it, fewer relabellings.
MAX_CELLS = 50_000_000


def perms_for(tasks: int, n_perm: int) -> int:
    """The relabellings for a test over ``tasks`` tasks: ``n_perm``, or fewer (never below 999)
    where ``n_perm`` × tasks would pass :data:`MAX_CELLS`, so that a test of 10⁵ tasks takes
    seconds; the method column names the number used.

    Examples
    --------
    >>> perms_for(200, 9999), perms_for(20_000, 9999), perms_for(10**6, 9999)
    (9999, 2499, 999)
    """
    return int(min(n_perm, max(999, MAX_CELLS // max(tasks, 1) - 1)))


def _tests(
    vals: NDArray[np.float64], include: NDArray[np.bool_], codes: NDArray[np.int64],
    systems: list[str], cols: list[tuple[str, int]], *, n_perm: int, seed: int,
) -> pd.DataFrame:  # fmt: skip
    """The permutation test per (system, column), Holm-adjusted over all rows (pass@1 and
    pass^1 are left out: they are the mean's test; best / worst of 1 the mean score's)."""
    from passhat.compare.multiplicity import holm

    root = root_seed(seed)
    rows = []
    for s, name in enumerate(systems):
        on = include[s]
        res = category_difference(
            vals[s, on], codes[on], n_perm=perms_for(int(on.sum()), n_perm),
            rng=named_rng(root, name, "category test"),
        )  # fmt: skip
        how = (
            "not computed: fewer than two categories with tasks"
            if res.n_perm == 0
            else f"exact over all {res.n_perm} arrangements"
            if res.exact
            else f"{res.n_perm} random relabellings, seed {seed}"
        )
        for j, (m, kv) in enumerate(cols):
            if m not in ("mean", "mean_score") and kv == 1:
                continue  # pass@1 = pass^1 = the mean (best / worst of 1: the mean score)
            rows.append((name, kv, m, int(np.unique(codes[on]).size), int(on.sum()),
                         float(res.statistic[j]), float(res.p_value[j]),
                         f"permutation F test, {how}"))  # fmt: skip
    out = pd.DataFrame(
        rows,
        columns=["system", "k", "metric", "categories", "tasks", "statistic", "p_value",
                 "method"],
    )  # fmt: skip
    ok = out["p_value"].notna().to_numpy()
    adj = np.full(len(out), np.nan)
    if ok.any():
        adj[ok] = holm(out["p_value"].to_numpy()[ok])
    out.insert(7, "holm", adj)
    return out


#: The score rows of some tasks: (include, normalised weights) → rows in the estimate's columns.
ScoreRows = Callable[[NDArray[np.bool_], NDArray[np.float64]], pd.DataFrame]

#: Row order of the metrics within a (system, category, k).
_ORDER = ("mean", "pass_at_k", "pass_hat_k", "mean_score", "best_of_k", "worst_of_k")


def _with_scores(
    table: pd.DataFrame, include: NDArray[np.bool_], weights: NDArray[np.float64],
    codes: NDArray[np.int64], names: list[str], systems: list[str], score_rows: ScoreRows,
) -> pd.DataFrame:  # fmt: skip
    """The table with each category's score rows, in (system, category, k, metric) order."""
    parts = [table]
    for g, cat in enumerate(names):
        inc = include & (codes == g)[None, :]
        w = np.where(inc, weights, 0.0)
        tot = w.sum(axis=1, keepdims=True)
        w = np.divide(w, tot, out=np.zeros_like(w), where=tot > 0)
        parts.append(score_rows(inc, w).assign(category=cat)[table.columns])
    out = pd.concat(parts, ignore_index=True)
    key = pd.DataFrame(
        {
            "s": out["system"].map({n: i for i, n in enumerate(systems)}),
            "c": out["category"].map({n: i for i, n in enumerate(names)}),
            "k": out["k"],
            "m": out["metric"].map({m: i for i, m in enumerate(_ORDER)}),
        }
    )
    order = key.sort_values(["s", "c", "k", "m"], kind="stable").index
    return out.loc[order].reset_index(drop=True)


def category_estimates(
    ds: xr.Dataset,
    include: NDArray[np.bool_],
    weights: NDArray[np.float64],
    ks: Sequence[int],
    *,
    by: str = "category",
    ci: float | None = None,
    intervals: dict[str, Any] | None = None,
    n_perm: int = 9999,
    seed: int = 0,
    source: dict[str, str] | None = None,
    score_rows: ScoreRows | None = None,
    score_values: tuple[NDArray[np.float64], Sequence[tuple[str, int]]] | None = None,
) -> CategoryEstimate:
    """The per-category estimate of ``ds``'s included tasks (``include``, system × task) with
    their declared ``weights`` (zero outside ``include``); ``intervals`` holds
    :func:`~passhat.intervals.estimate_intervals`' options (n_boot, seed, ci_method) when
    ``ci`` is given. ``score_rows(include, weights)`` gives the score rows (mean score, best /
    worst of k, with their intervals) of the tasks in ``include`` with those normalised
    weights (:func:`passhat.scores.benchmark.score_estimates`); given, each category gets them
    too."""
    names, codes = category_codes(ds, by)
    ks = list(ks)
    systems = [str(s) for s in ds["system"].values]
    vals, cols = _values(ds, include, weights, ks)
    table = _table(vals, weights, include, codes, names, systems, cols, ks)
    if ci is not None:
        from passhat.intervals import estimate_intervals

        parts = []
        for g, cat in enumerate(names):
            inc = include & (codes == g)[None, :]
            w = np.where(inc, weights, 0.0)
            tot = w.sum(axis=1, keepdims=True)
            w = np.divide(w, tot, out=np.zeros_like(w), where=tot > 0)
            iv = estimate_intervals(ds, inc, w, ks, ci=ci, **(intervals or {}))
            parts.append(iv.assign(category=cat))
        iv = pd.concat(parts, ignore_index=True)
        table = table.merge(iv, on=["system", "category", "k", "metric"], how="left", sort=False)
    if score_rows is not None:
        table = _with_scores(table, include, weights, codes, names, systems, score_rows)
    if score_values is not None:  # the score metrics' per-task values join the tests
        vals = np.concatenate([vals, score_values[0]], axis=2)
        cols = cols + list(score_values[1])
    tests = _tests(vals, include, codes, systems, cols, n_perm=n_perm, seed=seed)
    return CategoryEstimate(
        table=table, tests=tests, by=by, settings={"n_perm": n_perm, "seed": seed},
        source=dict(source or {}),
    )  # fmt: skip
