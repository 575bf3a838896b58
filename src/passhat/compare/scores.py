"""Partial credit in the paired comparison: the difference of the mean score and of the
expected best / worst of k runs' scores, per task, on matched tasks.

Each task's values are the unbiased U-statistics of :mod:`passhat.scores` (the sorted scores
of its decided runs; on 0/1 scores they are the pass@k / pass^k estimators), and the
comparison is :func:`passhat.compare`'s construction on their differences
(:func:`passhat.compare.engine.paired_table` with :class:`~passhat.compare.engine.TaskValues`):
the population scope is the sign-flip test inverted (cluster sign flips with a cluster
coordinate; the paired Bayesian bootstrap joined with it where few tasks differ), the
benchmark scope the normal interval from each task's within-task variance estimate (scores
have no Beta-Binomial model). On 0/1 scores the population rows equal ``compare``'s pass@k
and pass^k rows.

Examples
--------
>>> import numpy as np, pandas as pd
>>> import passhat as ph
>>> from passhat.compare.scores import score_task_values
>>> df = pd.DataFrame({"system": ["a"] * 4, "task_id": list("xxyy"), "trial": [1, 2] * 2,
...                    "success": [1, 0, 1, 1], "score": [1.0, 0.5, 0.75, 1.0]})
>>> t = ph.Trials.from_frame(df)
>>> tv = score_task_values(t, t.counts(), [2])
>>> tv.values[0, :, -1].tolist()   # worst of 2 per task
[0.5, 0.75]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Literal

import numpy as np
import pandas as pd
import xarray as xr

from passhat._validate import (
    DEFAULT_N_BOOT,
    DEFAULT_SEED,
    norm_k,
    resolve_seed,
)
from passhat.compare.engine import TaskValues
from passhat.compare.paired import Options, _sources, comparison
from passhat.compare.result import Comparison
from passhat.compare.selection import select_systems
from passhat.errors import OptionError
from passhat.estimators import WeightSpec
from passhat.exclusions import default_ks
from passhat.inputs import name_systems
from passhat.scores.intervals import score_columns, task_columns
from passhat.scores.table import ScoreGroups, score_groups
from passhat.trials import Trials

__all__ = ["compare_scores", "score_task_values", "score_trials"]


def _codes(sg: ScoreGroups) -> np.ndarray:
    """Per cell, a category code: within each n, the rank of (sum of scores, sorted scores),
    so equal codes (at equal n) mean equal values, and on 0/1 scores the order is c's."""
    size = sg.shape[0] * sg.shape[1]
    codes = np.zeros(size, dtype=np.int64)
    for _n, cells, xs in sg.groups:
        key = np.column_stack([xs.sum(axis=1), xs])
        codes[cells] = np.unique(key, axis=0, return_inverse=True)[1].ravel()
    return codes.reshape(sg.shape)


def score_task_values(data: Trials, ds: xr.Dataset, ks: Sequence[int]) -> TaskValues:
    """Every (system, task) cell's mean score and best / worst of k (columns in the order of
    :func:`passhat.scopes.columns`), their within-task variance estimates and category codes.

    ``ds`` is a count table of ``data``'s runs (the systems and tasks compared); errors name
    a decided run without a score or with one outside [0, 1].
    """
    sg = score_groups(data, ds)
    vals, var = task_columns(sg.groups, sg.shape[0] * sg.shape[1], score_columns(ks))
    shape = (*sg.shape, vals.shape[1])
    return TaskValues(vals.reshape(shape), var.reshape(shape), _codes(sg), tuple(ks))


def score_trials(
    inputs: Sequence[Trials | xr.Dataset],
    systems: Sequence[str],
    *,
    param: str = "scores",
    need: str = "a score",
) -> Trials:
    """The runs of the compared systems as one trial table (inputs' systems named as
    :func:`passhat.compare.select_systems` names them); a count table, or a system that
    cannot be found by its name among the runs, is an error naming ``param`` (the option
    that needs each run's ``need``: a score, a cost)."""
    if any(not isinstance(x, Trials) for x in inputs):
        raise OptionError(
            f"{{param}} needs runs with {need} each; a count table holds only n and c "
            "(read the runs, not their counts)",
            param=param,
        )
    named, _ = name_systems(list(inputs))
    frame = pd.concat([t.frame for t in named if isinstance(t, Trials)], ignore_index=True)
    found = set(frame["system"].astype(str))
    if missing := [s for s in systems if s not in found]:
        raise OptionError(
            f"{{param}}: the runs of system {missing[0]!r} cannot be told apart from another "
            "input's (two inputs name the same system); name the systems (--system-name) or "
            "give one file with a system column",
            param=param,
        )
    return Trials(frame=frame, source=dict(getattr(named[0], "source", {})))


def compare_scores(
    a: Trials | Sequence[Trials],
    b: Trials | None = None,
    *,
    k: int | Sequence[int] | None = None,
    ci: float = 0.95,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = DEFAULT_SEED,
    intersect: bool = False,
    baseline: str | None = None,
    names: tuple[str, str] | None = None,
    weights: WeightSpec = None,
    min_runs: int | None = None,
    multiplicity: Literal["none", "holm"] = "none",
) -> Comparison:
    """Paired comparison of partial-credit scores: the difference of the mean score and of
    the expected best / worst of k runs' scores (``mean_score``, ``best_of_k``,
    ``worst_of_k``), per task, on matched tasks.

    Every option reads as in :func:`passhat.compare` (``min_runs`` leaves out the tasks
    with fewer decided runs or fewer than k, as ``on_short="exclude"``); the inputs are runs
    with a ``score`` in [0, 1] for every decided run. The construction is the module's: the
    population scope as :func:`passhat.compare`'s (cluster sign flips with a cluster
    coordinate), the benchmark scope normal from the within-task variances. On 0/1 scores
    the population rows are ``compare``'s pass@k / pass^k rows.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import passhat as ph
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"system": np.repeat(["a", "b"], 120), "task_id": np.tile(
    ...     np.repeat(np.arange(30), 4), 2), "trial": np.tile(np.arange(4), 60)})
    >>> df["score"] = np.round(rng.uniform(size=240) ** np.where(df["system"] == "b", 0.7, 1), 2)
    >>> df["success"] = df["score"] >= 0.5
    >>> cmp = ph.compare_scores(ph.Trials.from_frame(df), k=2, n_boot=500)
    >>> cmp.table["metric"].unique().tolist()
    ['mean_score', 'best_of_k', 'worst_of_k']
    """
    opts = Options.checked(
        ci=ci,
        n_boot=n_boot,
        intersect=intersect,
        weights=weights,
        on_short="exclude" if min_runs is not None else "error",
        min_runs=min_runs,
        unscored_tasks="exclude",
        multiplicity=multiplicity,
    )
    ks = None if k is None else norm_k(k)
    sel = select_systems(a, b, baseline=baseline, names=names)
    ks = default_ks(sel.counts) if ks is None else ks
    inputs: list[Trials | xr.Dataset] = []
    if isinstance(a, Trials | xr.Dataset):
        inputs.append(a)
    else:
        inputs.extend(a)
    if b is not None:
        inputs.append(b)
    trials = score_trials(inputs, [str(s) for s in sel.counts["system"].values])
    tv = score_task_values(trials, sel.counts, ks)
    return comparison(sel, ks, replace(opts, scores=tv), resolve_seed(seed), source=_sources(a, b))
