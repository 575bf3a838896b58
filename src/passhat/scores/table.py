"""Each task's scores, sorted and grouped by n: what the score estimators work on.

The trial table keeps a run's raw ``score`` beside its verdict (Harbor rewards, Inspect's
partial credit ``P`` = 0.5, τ²-bench fractional rewards). :func:`score_groups` gathers the
scores of every decided run per (system, task) cell of a count table, sorts them within the
cell, and stacks the cells with the same n into one matrix, so that the estimators run once
per distinct n, never once per task. Rules: every decided run needs a finite score in [0, 1]
(an error names the task, system and value otherwise); undecided runs (unscored) are out of
n here as everywhere.

Examples
--------
>>> import pandas as pd
>>> import passhat as ph
>>> df = pd.DataFrame({"task_id": list("aabb"), "success": [True, False, True, True],
...                    "score": [1.0, 0.5, 0.75, 1.0]})
>>> t = ph.Trials.from_frame(df)
>>> g = score_groups(t, t.counts())
>>> [(n, m.tolist()) for n, _, m in g.groups]
[(2, [[0.5, 1.0], [0.75, 1.0]])]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat.errors import OptionError, ValidationError
from passhat.trials import Trials

__all__ = ["ScoreGroups", "partial_credit", "score_groups"]


@dataclass(frozen=True, eq=False)
class ScoreGroups:
    """Sorted scores of the decided runs of every (system, task) cell, grouped by n.

    Attributes
    ----------
    groups : tuple of (n, cells, scores)
        For each distinct n ≥ 1: the flat indices (system × tasks + task) of its cells and
        their scores, one ascending row per cell (cells × n).
    shape : (systems, tasks)
        The count table's shape.
    zero_one : ndarray of bool, shape (systems,)
        Whether every score of the system is exactly 0 or 1.
    """

    groups: tuple[tuple[int, NDArray[np.int64], NDArray[np.float64]], ...]
    shape: tuple[int, int]
    zero_one: NDArray[np.bool_]


def _where(data: Trials) -> str:
    return str(data.source.get("path", "trial table"))


def _checked_scores(data: Trials, decided: NDArray[np.bool_]) -> NDArray[np.float64]:
    """The decided runs' scores: present, finite and in [0, 1], or an error naming the run."""
    df = data.frame
    where = _where(data)
    if "score" not in df.columns:
        raise ValidationError(
            f"{where}: no score column: scores=True (--scores) needs each run's score in "
            "[0, 1] (a tidy file's 'score' column, or a reader that keeps the reward)"
        )
    x = pd.to_numeric(df["score"], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    missing = decided & np.isnan(x)
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        raise ValidationError(
            f"{where}: task {df['task_id'].iloc[i]!r} (system {df['system'].iloc[i]!r}), "
            f"trial {df['trial'].iloc[i]}: a decided run has no score ({int(missing.sum())} "
            "such run(s)); scores=True needs a score for every decided run"
        )
    bad = decided & ((x < 0) | (x > 1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValidationError(
            f"{where}: task {df['task_id'].iloc[i]!r} (system {df['system'].iloc[i]!r}), "
            f"trial {df['trial'].iloc[i]}: score {x[i]:g} lies outside [0, 1] "
            f"({int(bad.sum())} such run(s)); best / worst of k need scores in [0, 1] "
            "(rescale them first)"
        )
    return x


def partial_credit(data: Trials) -> bool:
    """Whether the runs' scores give partial credit: a ``score`` column whose decided runs'
    scores are all valid (:func:`score_groups`' rules) and not all exactly 0 or 1 (0/1 scores
    make the expected best / worst of k equal to pass@k / pass^k). Reads the column once, no
    sort.

    Raises
    ------
    ValidationError
        No score column; a decided run without a score; a score outside [0, 1].

    Examples
    --------
    >>> import pandas as pd
    >>> import passhat as ph
    >>> df = pd.DataFrame({"task_id": list("aabb"), "success": [True, False, True, True],
    ...                    "score": [1.0, 0.0, 0.75, 1.0]})
    >>> partial_credit(ph.Trials.from_frame(df)), partial_credit(ph.Trials.from_frame(
    ...     df.assign(score=[1.0, 0.0, 1.0, 1.0])))
    (True, False)
    """
    decided = data.frame["success"].notna().to_numpy()
    x = _checked_scores(data, decided)[decided]
    return bool(((x != 0.0) & (x != 1.0)).any())


def score_groups(data: Trials | xr.Dataset, ds: xr.Dataset) -> ScoreGroups:
    """The decided runs' scores per cell of ``ds`` (a count table of ``data``), grouped by n.

    Raises
    ------
    OptionError
        ``data`` is a count table (it holds no per-run scores).
    ValidationError
        No score column; a decided run without a score; a score outside [0, 1].
    """
    if not isinstance(data, Trials):
        raise OptionError(
            "{param} needs runs with a score each; a count table holds only n and c "
            "(read the runs, not their counts)",
            param="scores",
        )
    df = data.frame
    decided = df["success"].notna().to_numpy()
    x = _checked_scores(data, decided)
    systems = pd.Index(ds["system"].values)
    tasks = pd.Index(ds["task"].values)
    s_idx = systems.get_indexer(df["system"])
    t_idx = tasks.get_indexer(df["task_id"])
    keep = decided & (s_idx >= 0) & (t_idx >= 0)
    cell = (s_idx * len(tasks) + t_idx)[keep]
    xs = x[keep]
    order = np.lexsort((xs, cell))  # by cell, then ascending score
    cell, xs = cell[order], xs[order]
    size = len(systems) * len(tasks)
    n_cell = np.bincount(cell, minlength=size)
    start = np.concatenate([[0], np.cumsum(n_cell)[:-1]])
    groups = []
    for n in np.unique(n_cell[n_cell > 0]).tolist():
        cells = np.flatnonzero(n_cell == n)
        groups.append((int(n), cells, xs[start[cells][:, None] + np.arange(n)]))
    s_of = cell // max(len(tasks), 1)
    odd = (xs != 0.0) & (xs != 1.0)
    zero_one = np.bincount(s_of[odd], minlength=len(systems)) == 0
    return ScoreGroups(tuple(groups), (len(systems), len(tasks)), zero_one)
