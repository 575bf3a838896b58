"""Which tasks enter an average: the exclusion rules, and the default k.

One home for the rules that :func:`passhat.estimate`, :func:`passhat.compare`,
:func:`passhat.fit` and the report apply, so that all leave out the same tasks
for the same reasons, each listed:

* a task with **no decided run** (every run unscored) has no estimate: left
  out and listed (``unscored_tasks="exclude"``, the default everywhere) or
  refused (``"error"``); :func:`passhat.fit` may also keep it with its rate
  drawn from the fitted distribution (``"impute"``);
* a task with fewer decided runs than ``min_runs``, or than the largest k
  (``on_short="exclude"``), is left out; with ``on_short="error"`` a task
  with n < k is an error naming it;
* with ``matched``, a task left out for one system is left out for every
  system that ran it (paired output compares the same tasks).

The rule is per task, not per k: a task short for the largest k is left out
at every k, so that every k averages the same tasks (the pass^k curve, the
uniform-spread reference Mean^k and the gap Mean − pass^k compare like with
like; a task set that changed with k could make pass^k rise with k). A k that
no task of some system can serve is left out instead (:func:`feasible_ks`):
``estimate(k=[1, 100], on_short="exclude")`` on tasks of 4 runs reports k = 1
and names k = 100, rather than refusing everything.

:func:`default_ks` is the k shown when none is given (the API and the CLI
share it).

Examples
--------
>>> import passhat as ph
>>> from passhat.exclusions import exclusions
>>> ds = ph.counts_from_arrays([5, 2, 0], [4, 1, 0], tasks=["a", "b", "c"], unscored=[0, 0, 3])
>>> include, excluded = exclusions(ds, 1, on_short="error", min_runs=3,
...                                unscored_tasks="exclude", matched=False)
>>> include.tolist(), excluded["reason"].tolist()
([[True, False, False]], ['n = 2 decided runs < min_runs = 3', 'no decided run (3 runs unscored)'])
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat._validate import check_method
from passhat.errors import ShortTaskError, ValidationError
from passhat.estimators import as_counts
from passhat.trials import Trials

__all__ = [
    "UNSCORED_TASK_RULES",
    "WEIGHT_ZERO",
    "default_ks",
    "exclusions",
    "feasible_ks",
    "unscored_runs_note",
    "unscored_task_rule",
    "weight_zero_notes",
]

#: Why a task of weight 0 is left out (a row of ``excluded`` / ``dropped``): it counts toward
#: no average, so it is not counted among the averaged tasks either.
WEIGHT_ZERO = "weight 0: counts toward no average"


def weight_zero_notes(tasks: Iterable[object], *, who: str = "") -> list[str]:
    """The note (in a list, empty when none) naming the tasks of weight 0, left out.

    Examples
    --------
    >>> weight_zero_notes(["C", "D"])
    ['2 task(s) have weight 0 and are left out of every average and of the task count: C, D']
    >>> weight_zero_notes([])
    []
    """
    names = [str(t) for t in tasks]
    if not names:
        return []
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return [
        f"{who}{len(names)} task(s) have weight 0 and are left out of every average and of "
        f"the task count: {shown}"
    ]


#: What happens to a task with no decided run (every run unscored): left out of every
#: average and listed ("exclude", the default of :func:`estimate` and :func:`passhat.fit`),
#: or refused ("error").
UNSCORED_TASK_RULES = ("exclude", "error")


def default_ks(data: Trials | xr.Dataset) -> list[int]:
    """The k values shown when none are given: 1, 2, 5, capped at the fewest decided runs.

    k = 1, 2, 5 where every task has that many decided runs, else up to the
    smallest n (tasks with no decided run do not count: they are left out, see
    ``unscored_tasks``). With 4 runs per task (τ-bench) that is 1, 2, 4 rather
    than an error about k = 5. :func:`passhat.report` and the CLI commands that
    show several k use this one default.

    Examples
    --------
    >>> import passhat as ph
    >>> default_ks(ph.load_example("abcd")), default_ks(ph.counts_from_arrays([4, 3], [2, 1]))
    ([1, 2, 5], [1, 2, 3])
    """
    ds = as_counts(data)
    n = np.asarray(ds["n"].values)[np.asarray(ds["present"].values, dtype=bool)]
    n = n[n > 0]
    if n.size == 0:
        return [1, 2, 5]  # nothing decided: let the estimator say so
    n_min = int(n.min())
    ks = [k for k in (1, 2, 5) if k <= n_min]
    if n_min < 5:
        ks.append(n_min)
    return sorted(set(ks))


def unscored_runs_note(ds: xr.Dataset) -> list[str]:
    """The note that counts unscored runs per system (empty when there are none).

    Unscored runs (no verdict) are never in n; every output that leaves them out
    says how many it left out (:func:`passhat.fit`, :func:`passhat.rank`).

    Examples
    --------
    >>> import passhat as ph
    >>> ds = ph.counts_from_arrays([4, 3], [3, 1], tasks=["a", "b"], unscored=[0, 2])
    >>> unscored_runs_note(ds)[0][:64]
    '2 unscored run(s) (no verdict: grader, harness or infrastructure'
    """
    per = np.asarray(ds["unscored"].values).sum(axis=1).astype(int)
    if not per.any():
        return []
    systems = [str(x) for x in ds["system"].values]
    shown = ", ".join(f"{s} {u}" for s, u in zip(systems, per, strict=True) if u)
    return [
        f"{int(per.sum())} unscored run(s) (no verdict: grader, harness or infrastructure "
        f"error) are not counted in n: {shown}"
    ]


def _no_decided_reason(unscored: int) -> str:
    return f"no decided run ({unscored} run{'s' if unscored != 1 else ''} unscored)"


def unscored_task_rule(
    ds: xr.Dataset, rule: str, *, allowed: tuple[str, ...] = UNSCORED_TASK_RULES
) -> tuple[NDArray[np.bool_], pd.DataFrame]:
    """Apply the rule for tasks with no decided run (every run unscored).

    Shared by :func:`estimate` and :func:`passhat.fit`, so both leave out (or
    refuse) the same tasks.

    Parameters
    ----------
    ds : xarray.Dataset
        Count table.
    rule : str
        ``"exclude"`` (leave such tasks out, listed) or ``"error"``; callers
        may allow more (``allowed``).
    allowed : tuple of str
        The rules the caller accepts.

    Returns
    -------
    empty : ndarray of bool, system × task
        Tasks the system ran with no decided run.
    excluded : pandas.DataFrame
        system, task, n, unscored, reason (empty unless ``rule="exclude"``).

    Raises
    ------
    ValidationError
        ``rule="error"`` and such a task exists (named).

    Examples
    --------
    >>> import passhat as ph
    >>> ds = ph.counts_from_arrays([3, 0], [2, 0], tasks=["a", "b"], unscored=[0, 2])
    >>> empty, excl = unscored_task_rule(ds, "exclude")
    >>> empty.tolist(), excl["reason"].tolist()
    ([[False, True]], ['no decided run (2 runs unscored)'])
    """
    rule = check_method(rule, allowed, "unscored_tasks")
    n = np.asarray(ds["n"].values)
    empty = np.asarray(ds["present"].values, dtype=bool) & (n == 0)
    cols = ["system", "task", "n", "unscored", "reason"]
    cells = np.argwhere(empty) if empty.any() else np.empty((0, 2), dtype=int)
    unscored = np.asarray(ds["unscored"].values)
    if len(cells) and rule == "error":
        shown = ", ".join(
            f"{ds['task'].values[t]} (system {ds['system'].values[s]})" for s, t in cells[:8]
        )
        more = f" and {len(cells) - 8} more" if len(cells) > 8 else ""
        raise ValidationError(
            f"{len(cells)} task(s) have no decided run (every run unscored): {shown}{more}; "
            "re-run them, or leave them out (unscored_tasks='exclude' / --unscored-tasks exclude)"
        )
    rows = [
        {
            "system": str(ds["system"].values[s]),
            "task": str(ds["task"].values[t]),
            "n": 0,
            "unscored": int(unscored[s, t]),
            "reason": _no_decided_reason(int(unscored[s, t])),
        }
        for s, t in (cells if rule == "exclude" else ())
    ]
    return empty, pd.DataFrame(rows, columns=cols)


def exclusions(
    ds: xr.Dataset,
    kmax: int,
    *,
    on_short: str,
    min_runs: int | None,
    unscored_tasks: str,
    matched: bool,
) -> tuple[NDArray[np.bool_], pd.DataFrame]:
    """Mask of tasks that enter the averages, and the excluded tasks with reasons.

    The exclusion rules of :func:`estimate` (``unscored_tasks``, ``min_runs``,
    ``on_short``; with ``matched`` a task left out for one system is left out
    for every system that ran it), shared with :func:`passhat.compare` and the
    report so that all leave out the same tasks for the same reasons.

    Returns
    -------
    include : ndarray of bool, system × task
    excluded : pandas.DataFrame
        system, task, n, unscored, reason.

    Raises
    ------
    ShortTaskError
        ``on_short="error"`` and a task has fewer decided runs than ``kmax``.
    ValidationError
        ``unscored_tasks="error"`` and a task has no decided run.
    """
    n = np.asarray(ds["n"].values)
    present = np.asarray(ds["present"].values, dtype=bool)
    unscored = np.asarray(ds["unscored"].values)
    empty, _ = unscored_task_rule(ds, unscored_tasks)
    floor = min_runs or 0
    below_floor = present & ~empty & (n < floor)
    short = present & ~empty & ~below_floor & (n < kmax)
    if short.any() and on_short == "error":
        bad = [
            (str(ds["system"].values[s]), str(ds["task"].values[t]), int(n[s, t]))
            for s, t in np.argwhere(short).tolist()
        ]
        several = ds.sizes["system"] > 1  # "t0 (n=3), t0 (n=3)" would not say whose
        shown = ", ".join(f"{t} ({f'{s}, ' if several else ''}n={nn})" for s, t, nn in bad[:8])
        more = f" and {len(bad) - 8} more" if len(bad) > 8 else ""
        raise ShortTaskError(
            f"k = {kmax} exceeds the decided runs of {len(bad)} task(s): {shown}{more}; "
            "run more trials, lower k, or exclude them (--min-runs / on_short='exclude')",
            tasks=bad,
        )
    dropped: NDArray[np.bool_] = empty | below_floor | short
    reasons: dict[tuple[int, int], str] = {}
    for s, t in np.argwhere(below_floor | short).tolist():
        reasons[(s, t)] = (
            f"n = {int(n[s, t])} decided runs < min_runs = {min_runs}"
            if below_floor[s, t]
            else f"n = {int(n[s, t])} decided runs < k = {kmax}"
        )
    for s, t in np.argwhere(empty).tolist():
        reasons[(s, t)] = _no_decided_reason(int(unscored[s, t]))
    systems = [str(v) for v in ds["system"].values]
    if matched and dropped.any():
        # a task left out for one system is left out for every system that ran it
        for t in np.flatnonzero(dropped.any(axis=0)).tolist():
            why = [
                f"{systems[s]}: {reasons[(s, t)]}" for s in np.flatnonzero(dropped[:, t]).tolist()
            ]
            for s in np.flatnonzero(present[:, t] & ~dropped[:, t]).tolist():
                reasons[(s, t)] = f"matched tasks: left out for another system ({'; '.join(why)})"
        dropped = present & np.asarray(dropped.any(axis=0), dtype=bool)[None, :]
    rows = [
        {
            "system": systems[s],
            "task": str(ds["task"].values[t]),
            "n": int(n[s, t]),
            "unscored": int(unscored[s, t]),
            "reason": reasons[(s, t)],
        }
        for s, t in np.argwhere(dropped).tolist()
    ]
    excluded = pd.DataFrame(rows, columns=["system", "task", "n", "unscored", "reason"])
    return present & ~dropped, excluded


def feasible_ks(
    ds: xr.Dataset,
    ks: list[int],
    *,
    min_runs: int | None,
    unscored_tasks: str,
    matched: bool,
) -> tuple[list[int], list[int]]:
    """The k values that leave every system at least one task, and those that do not.

    With ``on_short="exclude"`` a task short for the largest k is left out at every k
    (:func:`exclusions`); a k larger than every task's decided runs would thus leave
    nothing at all. Such a k is set aside (the caller names it) and the others are kept.
    The kept ones are the smallest (a task serving k serves every smaller k).

    Examples
    --------
    >>> import passhat as ph
    >>> ds = ph.counts_from_arrays([4, 4, 10], [3, 1, 7], tasks=["a", "b", "c"])
    >>> feasible_ks(ds, [1, 4, 10, 100], min_runs=None, unscored_tasks="exclude", matched=False)
    ([1, 4, 10], [100])
    """
    n = np.asarray(ds["n"].values)
    present = np.asarray(ds["present"].values, dtype=bool)
    empty, _ = unscored_task_rule(ds, unscored_tasks)
    usable = present & ~empty & (n >= (min_runs or 0))
    runs = n
    if matched:  # a task serves k only if every system that ran it has k runs of it
        short_somewhere = np.asarray((present & ~usable).any(axis=0), dtype=bool)
        usable &= ~short_somewhere[None, :]
        runs = np.broadcast_to(np.where(present, n, np.iinfo(np.int64).max).min(axis=0), n.shape)
    top = np.where(usable, runs, 0).max(axis=1, initial=0)  # (system,): largest usable n
    served = int(top.min()) if top.size else 0
    return [k for k in ks if k <= served], [k for k in ks if k > served]
