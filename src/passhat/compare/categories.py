"""The paired comparison per category of tasks: a difference and its intervals per category,
Holm across the categories, and a test of whether the difference differs between them.

Per category, :func:`passhat.compare`'s comparison of the category's matched tasks (both
scopes, each interval and p-value one construction; with a cluster coordinate, cluster sign
flips); the p-values of each candidate, k, metric and scope are then adjusted by Holm across
the categories (:func:`passhat.compare.multiplicity.holm`), which bounds the chance of any
false claim about a category by 1 − ci. Whether the difference differs between categories is
the permutation F test of :mod:`passhat.groups.differ` on the per-task differences
d_i = U_i(candidate) − U_i(baseline) of the matched tasks (exchangeable category labels under
"the category does not change a task's difference").

Examples
--------
>>> import passhat as ph
>>> res = compare_by_category(ph.load_example("agents"), k=2, n_boot=300, n_perm=300)
>>> sorted(res.table["category"].unique())[:2]
['amazon', 'file_system']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd
import xarray as xr

from passhat._validate import (
    DEFAULT_N_BOOT,
    DEFAULT_SEED,
    check_flag,
    named_rng,
    norm_k,
    resolve_seed,
)
from passhat.compare.categories_result import CategoryComparison
from passhat.compare.engine import TaskValues
from passhat.compare.multiplicity import holm
from passhat.compare.paired import SCORE_NAMES, Options, _matched_tasks, _sources, comparison
from passhat.compare.scores import score_task_values, score_trials
from passhat.compare.selection import Selection, select_systems
from passhat.errors import OptionError, ValidationError
from passhat.exclusions import default_ks
from passhat.groups.differ import category_difference
from passhat.groups.estimate import category_codes
from passhat.scopes import column_values, columns
from passhat.trials import Trials

__all__ = ["compare_by_category"]


def compare_by_category(
    a: Trials | xr.Dataset | Sequence[Trials | xr.Dataset],
    b: Trials | xr.Dataset | None = None,
    *,
    k: int | Sequence[int] | None = None,
    ci: float = 0.95,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = DEFAULT_SEED,
    intersect: bool = False,
    baseline: str | None = None,
    names: tuple[str, str] | None = None,
    min_runs: int | None = None,
    n_perm: int = 9999,
    scores: bool = False,
) -> CategoryComparison:
    """The paired difference per category, Holm across the categories, and the permutation
    test of whether the difference differs between them (see the module docstring).

    The options read as in :func:`passhat.compare` (``min_runs`` as ``on_short="exclude"``);
    the tasks need a ``category`` (a count table's coordinate: one input with a category
    column); ``n_perm`` relabellings of the test (exact enumeration when fewer suffice).
    ``scores``: compare each run's score in [0, 1] instead (the mean score and the expected
    best / worst of k, as :func:`passhat.compare_scores`; each category's rows equal
    ``compare_scores`` of its tasks); needs runs with a score for every decided run.
    """
    if not isinstance(n_perm, int) or n_perm < 1:
        raise OptionError(f"{{param}} must be a positive integer (got {n_perm!r})", param="n_perm")
    opts = Options.checked(
        ci=ci,
        n_boot=n_boot,
        intersect=intersect,
        weights=None,
        on_short="exclude" if min_runs is not None else "error",
        min_runs=min_runs,
        unscored_tasks="exclude",
    )
    ks = None if k is None else norm_k(k)
    sel = select_systems(a, b, baseline=baseline, names=names)
    ks = default_ks(sel.counts) if ks is None else ks
    seed = resolve_seed(seed)
    cats, codes = category_codes(sel.counts, "category")
    trials = _score_runs(a, b, sel) if check_flag(scores, "scores") else None
    _check_matched(sel, opts.intersect)  # over all the tasks: compare's error, not a category's
    parts = []
    for g, name in enumerate(cats):
        sub = replace(sel, counts=sel.counts.isel(task=np.flatnonzero(codes == g)))
        sub_opts = opts
        if trials is not None:
            sub_opts = replace(opts, scores=score_task_values(trials, sub.counts, ks))
        try:
            part = comparison(sub, ks, sub_opts, seed, source={}).table
        except ValidationError as err:  # e.g. a candidate ran none of this category's tasks
            raise ValidationError(f"category {name!r}: {err}") from err
        parts.append(part.assign(category=name))
    table = pd.concat(parts, ignore_index=True)
    table.insert(2, "category", table.pop("category"))
    table["p_holm"] = np.nan
    for rows in table.groupby(["candidate", "k", "metric", "scope"], sort=False).indices.values():
        table.loc[table.index[rows], "p_holm"] = holm(table["p_value"].to_numpy(float)[rows])
    given = None if trials is None else score_task_values(trials, sel.counts, ks)
    tests = _tests(sel, ks, codes, n_perm=n_perm, seed=seed, given=given)
    settings = {"k": ks, "ci": opts.ci, "n_boot": opts.n_boot, "seed": seed, "n_perm": n_perm,
                "intersect": opts.intersect, "baseline": sel.baseline, "min_runs": opts.min_runs,
                "categories": cats, **({"scores": True} if trials is not None else {})}  # fmt: skip
    notes = [
        "per category: compare's paired difference on the category's matched tasks; p_holm "
        "adjusts the p-values across the categories (per candidate, k, metric and scope)"
    ]
    return CategoryComparison(
        table=table, tests=tests, settings=settings, notes=notes, source=_sources(a, b)
    )


def _check_matched(sel: Selection, intersect: bool) -> None:
    """compare's check over every task: each candidate shares a task with the baseline, and
    without ``intersect`` runs every task the baseline ran (else the error naming them)."""
    ds = sel.counts
    systems = [str(s) for s in ds["system"].values]
    tasks = np.asarray(ds["task"].values, dtype=object).astype(str)
    present = np.asarray(ds["present"].values, dtype=bool)
    ib = systems.index(sel.baseline)
    for cand in sel.candidates:
        ic = systems.index(cand)
        _matched_tasks(present[ib], present[ic], tasks, sel.baseline, cand, intersect)


def _score_runs(
    a: Trials | xr.Dataset | Sequence[Trials | xr.Dataset],
    b: Trials | xr.Dataset | None,
    sel: Selection,
) -> Trials:
    """The runs of the compared systems, each with its score (``scores=True``)."""
    inputs = [a] if isinstance(a, Trials | xr.Dataset) else list(a)
    inputs += [] if b is None else [b]
    return score_trials(inputs, [str(s) for s in sel.counts["system"].values])


def _tests(
    sel: Selection, ks: list[int], codes: np.ndarray, *, n_perm: int, seed: int,
    given: TaskValues | None = None,
) -> pd.DataFrame:  # fmt: skip
    """Per candidate, k and metric: the permutation F test of the per-task differences of the
    tasks both systems ran with at least max k decided runs, by category (``given``: the
    tasks' score values in place of the 0/1 estimates, the metrics named as scores')."""
    ds = sel.counts
    systems = [str(s) for s in ds["system"].values]
    n = np.asarray(ds["n"].values, dtype=float)
    c = np.asarray(ds["c"].values, dtype=float)
    present = np.asarray(ds["present"].values, dtype=bool)
    cols = columns(ks)
    rows = []
    ib = systems.index(sel.baseline)
    for cand in sel.candidates:
        ic = systems.index(cand)
        keep = present[ib] & present[ic] & (n[ib] >= max(ks)) & (n[ic] >= max(ks))
        if given is None:
            d = column_values(n[ic, keep], c[ic, keep], cols) - column_values(
                n[ib, keep], c[ib, keep], cols
            )
        else:
            d = given.values[ic, keep] - given.values[ib, keep]
        res = category_difference(
            d, codes[keep], n_perm=n_perm, rng=named_rng(seed, "categories", sel.baseline, cand)
        )
        how = (
            "permutation F test, not computed: fewer than two categories with tasks"
            if res.n_perm == 0
            else f"permutation F test, exact ({res.n_perm} arrangements)"
            if res.exact
            else f"permutation F test, {res.n_perm} random relabellings"
        )
        for j, (metric, kk) in enumerate(cols):
            rows.append(
                {"baseline": sel.baseline, "candidate": cand, "k": int(kk),
                 "metric": metric if given is None else SCORE_NAMES[metric],
                 "categories": int(np.unique(codes[keep]).size), "tasks": int(keep.sum()),
                 "statistic": float(res.statistic[j]), "p_value": float(res.p_value[j]),
                 "method": how + " of the per-task differences (categories exchangeable)"}
            )  # fmt: skip
    return pd.DataFrame(rows)
