"""The leaderboard per category of tasks, and whether the systems' differences depend on it.

Per category, :func:`passhat.rank`'s leaderboard of the category's ranked tasks alone (the
same options, engine rule and seed: a category's rows equal ``rank`` of its tasks), so each
interval, rank interval and group letter reads as the overall one does, within the category.
Across the categories, per metric and k, the permutation test of
:func:`passhat.groups.differ.order_difference`: each task's per-task values (the unbiased
estimates of :func:`passhat.scopes.column_values`, or the partial-credit values) centred on
their mean over the systems, and the between-category sum of squares of those centred values
summed over the systems, against relabellings of the tasks' categories; Holm over the metrics
and k tested. With two systems it is the test of ``compare --by category``.

Examples
--------
>>> import passhat as ph
>>> r = ph.rank(ph.load_example("leaderboard"), k=2, metrics=["pass_hat_k"], n_boot=200,
...             by="category")
>>> r.by_category.tests["p_value"].round(3).tolist()
[0.652]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from passhat._validate import named_rng, root_seed
from passhat.clusters import cluster_codes
from passhat.compare.engine import TaskValues
from passhat.compare.multiplicity import holm
from passhat.compare.paired import SCORE_NAMES
from passhat.errors import OptionError
from passhat.groups.differ import order_difference
from passhat.groups.estimate import category_codes, perms_for
from passhat.rank.categories_result import CategoryRanking
from passhat.rank.inputs import RankedData
from passhat.scopes import MIN_TASKS, column_values, columns

__all__ = ["category_rankings", "subset"]

#: One category's leaderboard: (its ranked data, its score values or None) → (table, pairs,
#: notes) as :func:`passhat.rank` gives them.
RankOne = Callable[[RankedData, TaskValues | None], tuple[pd.DataFrame, pd.DataFrame, list[str]]]


def subset(d: RankedData, idx: NDArray[np.int64]) -> RankedData:
    """The ranked data on the tasks ``idx`` alone, as :func:`passhat.rank.inputs.ranked_data`
    would give it for those tasks (nothing left out, cluster codes in order of appearance)."""
    return replace(
        d,
        ds=d.ds.isel(task=idx),
        n=d.n[:, idx],
        c=d.c[:, idx],
        w=d.w[idx],
        dropped=d.dropped.iloc[:0],
        notes=[],
        clusters=None if d.clusters is None else cluster_codes(d.clusters[idx]),
    )


def _task_values(d: RankedData, given: TaskValues | None) -> NDArray[np.float64]:
    """Per-task values of the ranked columns, tasks × systems × columns."""
    if given is not None:
        idx = [columns(d.ks).index(col) for col in d.cols]
        return np.transpose(given.values[:, :, idx], (1, 0, 2))
    per = [column_values(d.n[s], d.c[s], d.cols) for s in range(len(d.systems))]
    return np.stack(per, axis=1)


def _tests(
    d: RankedData, vals: NDArray[np.float64], codes: NDArray[np.int64], *, n_perm: int,
    seed: int, scores: bool,
) -> pd.DataFrame:  # fmt: skip
    """Per ranked (metric, k): the permutation test across categories, Holm over the rows
    (pass@1 and pass^1 are the mean's test when the mean is ranked)."""
    res = order_difference(
        vals, codes, n_perm=perms_for(d.tasks, n_perm),
        rng=named_rng(root_seed(seed), "rank", "category test"),
    )  # fmt: skip
    how = (
        "not computed: fewer than two categories with tasks"
        if res.n_perm == 0
        else f"exact over all {res.n_perm} arrangements"
        if res.exact
        else f"{res.n_perm} random relabellings, seed {seed}"
    )
    has_mean = any(m == "mean" for m, _ in d.cols)
    rows = [
        {"metric": SCORE_NAMES[m] if scores else m, "k": int(kk),
         "categories": int(np.unique(codes).size), "tasks": d.tasks, "systems": len(d.systems),
         "statistic": float(res.statistic[j]), "p_value": float(res.p_value[j]),
         "method": f"permutation test of the task-centred values (PERMANOVA), {how}"}
        for j, (m, kk) in enumerate(d.cols)
        if not (has_mean and m != "mean" and kk == 1)
    ]  # fmt: skip
    out = pd.DataFrame(rows)
    p = out["p_value"].to_numpy(float)
    adj = np.full(len(out), np.nan)
    ok = np.isfinite(p)
    if ok.any():
        adj[ok] = holm(p[ok])
    out.insert(out.columns.get_loc("p_value") + 1, "holm", adj)
    return out


def category_rankings(
    d: RankedData,
    given: TaskValues | None,
    rank_one: RankOne,
    *,
    by: str,
    n_perm: int,
    seed: int,
    score_values: Callable[[RankedData], TaskValues] | None = None,
    sources: tuple[dict[str, str], ...] = (),
    ci: float = 0.95,
) -> CategoryRanking:
    """The leaderboard of each category (``rank_one`` on its tasks; ``score_values`` gives a
    category's score values with ``scores``) and the test across categories."""
    names, codes = category_codes(d.ds, by)
    if n_perm < 1:
        raise OptionError(f"{{param}} must be a positive integer (got {n_perm!r})", param="n_perm")
    tables, pairs, notes = [], [], []
    for g, name in enumerate(names):
        sub = subset(d, np.flatnonzero(codes == g))
        if score_values is not None and sub.tasks < MIN_TASKS:
            raise OptionError(
                f"{{param}} with {{by}}: {by} {name!r} has {sub.tasks} ranked task(s); scores "
                f"rank with the paired bootstrap on at least {MIN_TASKS} tasks per {by}",
                param="scores",
                also=("by",),
            )
        table, pair, said = rank_one(sub, None if score_values is None else score_values(sub))
        tables.append(table.assign(category=name))
        pairs.append(pair.assign(category=name))
        notes += [f"{by} {name}: {x}" for x in said]
    table = pd.concat(tables, ignore_index=True)
    table.insert(0, "category", table.pop("category"))
    pair_t = pd.concat(pairs, ignore_index=True)
    pair_t.insert(0, "category", pair_t.pop("category"))
    tests = _tests(d, _task_values(d, given), codes, n_perm=n_perm, seed=seed,
                   scores=given is not None)  # fmt: skip
    if d.clusters is not None:
        notes.append(
            f"the test across {by} values relabels tasks, not clusters: it treats the tasks as "
            "independent"
        )
    settings: dict[str, Any] = {"n_perm": n_perm, "seed": seed, "categories": names, "ci": ci}
    return CategoryRanking(
        table=table, pairs=pair_t, tests=tests, by=by, settings=settings,
        notes=list(dict.fromkeys(notes)), sources=sources,
    )  # fmt: skip
