"""The inputs of a leaderboard: every system of one input or several as one count table
(:func:`combine_systems`), and the tasks they are ranked on (:func:`ranked_data`: the tasks
every system ran, with enough runs for the largest k, of positive shared weight; the others
listed or an error naming them).

Examples
--------
>>> import passhat as ph
>>> from passhat.rank.inputs import combine_systems
>>> combine_systems([ph.counts_from_arrays([2], [1], system="a"),
...                  ph.counts_from_arrays([2], [2], system="b")])["system"].values.tolist()
['a', 'b']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat._ids import case_variant_notes_across
from passhat.clusters import cluster_codes, clusters_of
from passhat.errors import ShortTaskError, ValidationError
from passhat.estimators import WeightSpec, as_counts, task_weights
from passhat.exclusions import (
    default_ks,
    unscored_runs_note,
    unscored_task_rule,
    weight_zero_notes,
)
from passhat.hierarchical import Column
from passhat.inputs import check_distinct, concat_systems, name_systems
from passhat.scopes import columns
from passhat.trials import Trials

__all__ = ["Input", "RankedData", "combine_systems", "inputs_of", "ranked_data"]


Input = Trials | xr.Dataset


def combine_systems(data: Input | Sequence[Input]) -> xr.Dataset:
    """One count table of every system of one input or several (systems must not repeat;
    files that name no system are named after the files: :func:`passhat.inputs.name_systems`).

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.rank import combine_systems
    >>> ds = combine_systems(ph.load_example("agents"))
    >>> ds["system"].values.tolist()
    ['baseline', 'guided']
    """
    if isinstance(data, Trials | xr.Dataset):
        return as_counts(data)
    named, naming_notes = name_systems(list(data))
    tables = [as_counts(d) for d in named]
    if not tables:
        raise ValidationError("no input to rank")
    if len(tables) == 1:
        return tables[0]
    check_distinct(named)
    merged = concat_systems(tables)
    merged.attrs["across_inputs_notes"] = naming_notes + case_variant_notes_across(
        [t["system"].values for t in tables]  # a reader saw one file
    )
    return merged


def inputs_of(data: Input | Sequence[Input]) -> list[Input]:
    """The inputs ranked, one per file or table given.

    Examples
    --------
    >>> import passhat as ph
    >>> len(inputs_of(ph.load_example("agents"))), len(inputs_of([ph.load_example("abcd")] * 2))
    (1, 2)
    """
    return [data] if isinstance(data, Trials | xr.Dataset) else list(data)


@dataclass(frozen=True)
class RankedData:
    """The systems on the tasks they are ranked on: counts, weights, columns, left-outs."""

    ds: xr.Dataset
    systems: list[str]
    n: NDArray[np.float64]
    c: NDArray[np.float64]
    w: NDArray[np.float64]
    ks: list[int]
    cols: list[Column]
    dropped: pd.DataFrame
    notes: list[str]
    clusters: NDArray[np.int64] | None = None  # each ranked task's cluster code (or None)

    @property
    def tasks(self) -> int:
        """The number of tasks ranked on (common, of positive weight)."""
        return int(self.n.shape[1])


def ranked_data(
    data: Input | Sequence[Input],
    *,
    ks: list[int] | None,
    metrics: Sequence[str],
    weights: WeightSpec,
    intersect: bool,
    unscored_tasks: str,
) -> RankedData:
    """The systems on the tasks every system ran (or an error naming the others), with n ≥ the
    largest k on each, of positive shared weight; the tasks left out and the notes.

    ``ks`` None is the one default rule (:func:`passhat.exclusions.default_ks` of the data);
    ``metrics`` pick the columns (metric, k) ranked.

    Examples
    --------
    >>> import passhat as ph
    >>> d = ranked_data(ph.load_example("agents"), ks=None, metrics=["mean", "pass_hat_k"],
    ...                 weights=None, intersect=False, unscored_tasks="exclude")
    >>> d.systems, d.ks, d.tasks
    (['baseline', 'guided'], [1, 2, 5], 168)
    """
    ds_all = combine_systems(data)
    systems = [str(s) for s in ds_all["system"].values]
    if len(systems) < 2:
        raise ValidationError(
            f"a leaderboard needs at least two systems; the input holds one ({systems[0]!r})"
            if systems
            else "a leaderboard needs at least two systems; the input holds none"
        )
    empty, _ = unscored_task_rule(ds_all, unscored_tasks)
    common, dropped = _common_tasks(ds_all, intersect=intersect, empty=empty)
    ds = ds_all.isel(task=np.flatnonzero(common))
    n = np.asarray(ds["n"].values, dtype=float)
    c = np.asarray(ds["c"].values, dtype=float)
    ks = default_ks(ds_all) if ks is None else ks
    _refuse_short(ds, n, systems, max(ks))
    w_all = _shared_weights(ds, weights, ds_all["task"].values)
    keep = w_all > 0
    notes = unscored_runs_note(ds_all) + ds_all.attrs.get("across_inputs_notes", [])
    groups = clusters_of(ds)
    return RankedData(
        clusters=None if groups is None else cluster_codes(groups[keep]),
        ds=ds.isel(task=np.flatnonzero(keep)),
        systems=systems,
        n=n[:, keep],
        c=c[:, keep],
        w=w_all[keep],
        ks=ks,
        cols=[col for col in columns(ks) if col[0] in metrics],
        dropped=dropped,
        notes=notes + weight_zero_notes(ds["task"].values[~keep]),
    )


def _refuse_short(ds: xr.Dataset, n: NDArray[np.float64], systems: list[str], kmax: int) -> None:
    """A system with fewer decided runs than the largest k on a common task: an error."""
    for i, s in enumerate(systems):
        short = n[i] < kmax
        if short.any():
            bad = np.asarray(ds["task"].values, dtype=object).astype(str)[short]
            raise ShortTaskError(
                f"system {s!r}: k = {kmax} exceeds its n = {int(n[i].min())} decided runs on "
                f"{len(bad)} task(s), e.g. {', '.join(bad[:3])}; lower k or run more trials"
            )


def _common_tasks(
    ds: xr.Dataset, *, intersect: bool, empty: NDArray[np.bool_]
) -> tuple[NDArray[np.bool_], pd.DataFrame]:
    """The tasks every system ran, and the dropped ones (or an error naming them).

    A task with no decided run for some system (``empty``) is left out for every system
    and listed, whatever ``intersect`` says.
    """
    systems = [str(s) for s in ds["system"].values]
    tasks = np.asarray(ds["task"].values, dtype=object).astype(str)
    present = np.asarray(ds["present"].values, dtype=bool)
    for i, s in enumerate(systems):
        others = present[np.arange(len(systems)) != i].any(axis=0)
        if not (present[i] & others).any():
            raise ValidationError(
                f"system {s!r} has no task in common with the others "
                f"({int(present[i].sum())} task(s) of its own, e.g. "
                f"{', '.join(tasks[present[i]][:3]) or 'none'}); a leaderboard compares "
                "systems on the same tasks"
            )
    no_decided = np.asarray(empty, dtype=bool).any(axis=0)
    common = np.asarray(present.all(axis=0), dtype=bool) & ~no_decided
    if not common.any():
        raise ValidationError(
            f"no task was run by all {len(systems)} systems; a leaderboard compares systems "
            "on the same tasks (rank subsets of systems that share tasks)"
        )
    partial = present.any(axis=0) & ~present.all(axis=0)
    rows = [
        {
            "task": tasks[t],
            "reason": "not run by "
            + ", ".join(s for s, p in zip(systems, present[:, t], strict=True) if not p),
        }
        for t in np.flatnonzero(partial)
    ]
    if rows and not intersect:
        shown = "; ".join(f"{r['task']} ({r['reason']})" for r in rows[:5])
        more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
        raise ValidationError(
            f"{len(rows)} task(s) not run by every system: {shown}{more}; pass "
            "intersect=True / --intersect to rank on the tasks all systems ran"
        )
    for t in np.flatnonzero(no_decided & present.all(axis=0)):
        who = [s for s, e in zip(systems, empty[:, t], strict=True) if e]
        rows.append({"task": tasks[t], "reason": f"no decided run for {', '.join(who)}"})
    return common, pd.DataFrame(rows, columns=["task", "reason"])


def _shared_weights(ds: xr.Dataset, spec: WeightSpec, known: Any = None) -> NDArray[np.float64]:
    """One weight per task, the same for every system; ``known``: every task of the input."""
    t_n = ds.sizes["task"]
    if spec is None or spec == "equal":
        return np.ones(t_n)
    w = np.asarray(task_weights(ds, spec, tasks=known).values, dtype=float)
    same = np.isclose(w, w[:1], rtol=1e-9, atol=0.0).all(axis=0)
    if not same.all():
        t = int(np.flatnonzero(~same)[0])
        task = str(ds["task"].values[t])
        raise ValidationError(
            f"task {task!r} has different weights across systems "
            f"({', '.join(f'{x:g}' for x in w[:, t])}); a leaderboard needs one weight per task"
        )
    if w[0].sum() <= 0:
        raise ValidationError("every common task has weight 0")
    return w[0]
