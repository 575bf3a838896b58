"""The score rows of :func:`passhat.estimate` (``scores=True``) and the threshold curve.

:func:`score_estimates` averages each task's mean score and expected best / worst of k
(:mod:`passhat.scores.estimators`) over the tasks that :func:`passhat.estimate` averages,
with its weights, and attaches both scopes' intervals (:mod:`passhat.scores.intervals`).
:func:`threshold_curve` is pass^k and pass@k as functions of the pass threshold t
(success = score ≥ t), each the unbiased estimate at that threshold, macro-averaged. The
expected worst of k is the area under the pass^k curve (E min = ∫₀¹ P(min ≥ t) dt), and
the expected best of k the area under pass@k's.

Examples
--------
>>> import pandas as pd
>>> import passhat as ph
>>> df = pd.DataFrame({"task_id": list("aabb"), "trial": [0, 1, 0, 1],
...                    "success": [True, False, True, True], "score": [1.0, 0.5, 0.75, 1.0]})
>>> t = ph.Trials.from_frame(df)
>>> ds = t.counts()
>>> parts = score_estimates(t, ds, np.ones((1, 2), bool), np.full((1, 2), 0.5), [1, 2])
>>> parts.table[["k", "metric", "value"]].values.tolist()
[[1, 'mean_score', 0.8125], [1, 'best_of_k', 0.8125], [1, 'worst_of_k', 0.8125], \
[2, 'mean_score', 0.8125], [2, 'best_of_k', 1.0], [2, 'worst_of_k', 0.625]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat._validate import named_rng, root_seed
from passhat.errors import OptionError
from passhat.estimators import log_subset_ratio
from passhat.scores.intervals import (
    SCORE_METRICS,
    score_columns,
    score_scope_intervals,
    task_columns,
)
from passhat.scores.table import ScoreGroups, score_groups
from passhat.trials import Trials

__all__ = ["CURVE_POINTS", "ScoreParts", "score_estimates", "threshold_curve"]

#: Thresholds of the default curve when the scores take more distinct values than this.
CURVE_POINTS = 21

#: The 0/1 metric whose rule a 0/1 system's score metric takes.
_PASS_FAIL = {"mean_score": "mean", "best_of_k": "pass_at_k", "worst_of_k": "pass_hat_k"}


@dataclass(frozen=True, eq=False)
class ScoreParts:
    """What ``scores=True`` adds to an estimate: its table rows, the curve, the notes."""

    table: pd.DataFrame
    curve: pd.DataFrame
    notes: list[str]


def _values(
    sg: ScoreGroups, include: NDArray[np.bool_], wn: NDArray[np.float64], ks: Sequence[int]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Per cell (systems × tasks × columns) values and variances, and the benchmark values
    (systems × columns)."""
    cols = score_columns(ks)
    vals, var = task_columns(sg.groups, sg.shape[0] * sg.shape[1], cols)
    vals = vals.reshape(*sg.shape, len(cols))
    var = var.reshape(*sg.shape, len(cols))
    bench = np.einsum("st,stc->sc", wn, np.where(include[..., None], vals, 0.0))
    return vals, var, bench


def _intervals(
    sg: ScoreGroups,
    ds: xr.Dataset,
    include: NDArray[np.bool_],
    wn: NDArray[np.float64],
    ks: Sequence[int],
    arrays: tuple[NDArray[np.float64], NDArray[np.float64]],
    *,
    ci: float,
    n_boot: int,
    seed: int,
    ci_method: str,
) -> pd.DataFrame:
    """Both scopes per system (0/1 systems by the pass/fail rule, on the same stream)."""
    from passhat.scopes import scope_intervals  # scipy's import, only with intervals

    cols = score_columns(ks)
    vals, var = arrays
    root = root_seed(seed)
    n_all = np.asarray(ds["n"].values, dtype=float)
    parts = []
    for s, name in enumerate(str(x) for x in ds["system"].values):
        inc = include[s]
        if not inc.any():
            continue
        rng = named_rng(root, name)  # the system's own stream, as estimate's intervals
        if sg.zero_one[s]:
            c01 = np.rint(vals[s, inc, 0] * n_all[s, inc])  # mean score × n = successes
            iv = scope_intervals(n_all[s, inc], c01, wn[s, inc], ks, ci=ci, n_boot=n_boot,
                                 rng=rng, ci_method=ci_method)  # fmt: skip
            back = {v: k for k, v in _PASS_FAIL.items()}
            iv = iv.assign(
                metric=iv["metric"].map(back),
                method=iv["method"] + " (every score 0 or 1: the pass/fail rule)",
            )
        else:
            iv = score_scope_intervals(vals[s, inc], var[s, inc], n_all[s, inc], wn[s, inc],
                                       cols, ci=ci, n_boot=n_boot, rng=rng,
                                       ci_method=ci_method)  # fmt: skip
        parts.append(iv.assign(system=name))
    return pd.concat(parts, ignore_index=True)


def score_estimates(
    data: Trials | xr.Dataset,
    ds: xr.Dataset,
    include: NDArray[np.bool_],
    weights: NDArray[np.float64],
    ks: Sequence[int],
    *,
    ci: float | None = None,
    n_boot: int = 2000,
    seed: int = 0,
    ci_method: str = "bca",
    thresholds: Sequence[float] | None = None,
) -> ScoreParts:
    """The score rows of an estimate over ``ds``'s included tasks with normalised ``weights``
    (systems × tasks), in :attr:`passhat.Estimate.table`'s columns, and the threshold curve."""
    sg = score_groups(data, ds)
    ks = list(ks)
    arrays = _values(sg, include, weights, ks)
    cols = score_columns(ks)
    systems = [str(x) for x in ds["system"].values]
    n_tasks = include.sum(axis=1)
    where = {(m, kv): cols.index((m, ks[0]) if m == "mean_score" else (m, kv))
             for kv in ks for m in SCORE_METRICS}  # fmt: skip
    rows = [
        (name, kv, m, float(arrays[2][s, where[(m, kv)]]), int(n_tasks[s]))
        for s, name in enumerate(systems)
        if n_tasks[s] > 0
        for kv in ks
        for m in SCORE_METRICS
    ]
    table = pd.DataFrame(rows, columns=["system", "k", "metric", "value", "tasks"])
    if ci is not None:
        iv = _intervals(sg, ds, include, weights, ks, arrays[:2], ci=ci, n_boot=n_boot,
                        seed=seed, ci_method=ci_method)  # fmt: skip
        mean = iv[iv["metric"] == "mean_score"].drop(columns="k")
        iv = pd.concat([iv[iv["metric"] != "mean_score"], *(mean.assign(k=kv) for kv in ks)])
        table = table.merge(iv, on=["system", "k", "metric"], how="left", sort=False)
    curve = threshold_curve(sg, include, weights, ks, thresholds, systems=systems)
    odd = [name for s, name in enumerate(systems) if sg.zero_one[s] and n_tasks[s] > 0]
    notes = (
        [
            f"every score of {', '.join(odd)} is 0 or 1: its best / worst of k are its pass@k "
            "/ pass^k at that cut, with the pass/fail intervals"
        ]
        if odd
        else []
    )
    return ScoreParts(table=table, curve=curve, notes=notes)


def _thresholds(sg: ScoreGroups, given: Sequence[float] | None) -> NDArray[np.float64]:
    """The curve's thresholds: the given ones, the distinct scores (up to
    :data:`CURVE_POINTS`), or 0, 0.05, …, 1."""
    if given is not None:
        t = np.asarray(list(given), dtype=float)
        if t.size == 0 or not np.isfinite(t).all():
            raise OptionError(
                "{param}' thresholds must be finite numbers, e.g. [0.5, 0.8, 1]", param="scores"
            )
        if ((t < 0) | (t > 1)).any():  # scores lie in [0, 1]: 50 meant 0.5
            raise OptionError(
                f"{{param}}' thresholds must lie in [0, 1], as the scores do (got "
                f"{float(t[(t < 0) | (t > 1)][0])!r})",
                param="scores",
            )
        return np.unique(t)
    seen = np.unique(np.concatenate([xs.ravel() for _n, _c, xs in sg.groups]))
    return seen if seen.size <= CURVE_POINTS else np.linspace(0.0, 1.0, CURVE_POINTS)


def threshold_curve(
    sg: ScoreGroups,
    include: NDArray[np.bool_],
    weights: NDArray[np.float64],
    ks: Sequence[int],
    thresholds: Sequence[float] | None = None,
    *,
    systems: Sequence[str],
) -> pd.DataFrame:
    """pass^k and pass@k with success = score ≥ t, per system, threshold and k (tidy:
    system, threshold, k, pass_hat_k, pass_at_k), macro-averaged with ``weights``."""
    ts = _thresholds(sg, thresholds)
    ks_arr = np.asarray(list(ks), dtype=float)
    size = sg.shape[0] * sg.shape[1]
    hat = np.zeros((size, ts.size, ks_arr.size))
    at = np.zeros_like(hat)
    inc = include.reshape(-1)
    for n, cells, xs in sg.groups:
        c = (xs[:, :, None] >= ts[None, None, :]).sum(axis=1).astype(float)  # cells × t
        big = c[:, :, None] * np.ones(ks_arr.size)
        ok = ks_arr[None, None, :] <= n
        kk = np.minimum(ks_arr, n)[None, None, :]
        hat[cells] = np.where(ok, np.exp(log_subset_ratio(big, float(n), kk)), np.nan)
        at[cells] = np.where(ok, -np.expm1(log_subset_ratio(n - big, float(n), kk)), np.nan)
    w = np.where(include, weights, 0.0).reshape(-1)
    rows = []
    for s, name in enumerate(systems):
        sel = slice(s * sg.shape[1], (s + 1) * sg.shape[1])
        if not inc[sel].any():
            continue
        ws = w[sel]
        on = inc[sel]
        h = np.einsum("t,tjk->jk", ws[on], hat[sel][on])
        a = np.einsum("t,tjk->jk", ws[on], at[sel][on])
        for j, tv in enumerate(ts.tolist()):
            for i, kv in enumerate(ks):
                rows.append((name, tv, int(kv), float(h[j, i]), float(a[j, i])))
    return pd.DataFrame(rows, columns=["system", "threshold", "k", "pass_hat_k", "pass_at_k"])
