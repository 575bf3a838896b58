"""Find the column that tells systems apart in a tidy table that maps no system column.

A table with columns ``model, question_id, attempt, passed`` read with
``task="question_id", success="passed"`` holds two systems in one file; read
without a system column, their runs would merge into one system and every
number would be wrong without a word. Such a column *splits every task's runs
into groups*: it takes at least two values within every task that has several
runs, and each of its values recurs across tasks. (A task attribute such as a
category is constant within a task; a run id, a timestamp or a free-text
answer takes a new value in most rows.)

The rule (:func:`find_system_column`), for a table with no ``system`` column
and no ``system_name``:

* a column with more than :data:`MAX_GROUPS` (10,000) distinct values is not a system;
* columns named like a run index (``attempt``, ``epoch``, ``seed``, ...) and
  whole-number columns numbering each task's runs 0, 1, … or 1, 2, … are run
  indices, not systems;
* a splitting column with a common system name (``model``, ``agent``,
  ``policy``, ``run_name``, ...) is read as the system, with a note saying so
  (which names any other splitting column, e.g. a per-run answer); two such
  names that split the runs differently are refused;
* otherwise a splitting column is refused with one line naming it and the fix
  (``--map system=COLUMN``, or ``--system-name NAME`` when the runs are one
  system) — unless a mapped ``trial`` already tells every run of a task apart.

Examples
--------
>>> import pandas as pd
>>> df = pd.DataFrame({"model": ["a", "a", "b", "b"] * 2, "task_id": ["q1"] * 4 + ["q2"] * 4,
...                    "success": [1, 0, 1, 1] * 2})
>>> find_system_column(df, where="t.csv")
('model', [])
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from passhat._frames import to_numbers
from passhat.errors import ValidationError

__all__ = [
    "MAX_GROUPS",
    "RUN_INDEX_NAMES",
    "SYSTEM_NAMES",
    "Groups",
    "choose_system_column",
    "find_system_column",
    "is_candidate_name",
    "is_system_name",
    "splits_every_task",
    "system_column_note",
    "system_name_ignored",
]

#: Column names (lower case, without ``_``, ``-``, spaces) read as the system when they split
#: every task's runs.
SYSTEM_NAMES = frozenset(
    {
        "model",
        "models",
        "modelname",
        "modelid",
        "modelversion",
        "agent",
        "agentname",
        "agentid",
        "agentversion",
        "policy",
        "policyname",
        "systemname",
        "systemid",
        "runname",
        "runlabel",
        "runid",
        "solver",
        "harness",
        "variant",
        "config",
        "configname",
        "configuration",
        "checkpoint",
        "llm",
        "engine",
        "arm",
        "condition",
        "submission",
        "experiment",
        "experimentname",
    }
)

#: A column with more distinct values than this is not a system column (a run id, a
#: timestamp, an answer text); the out-of-core reader stops following it at this count.
MAX_GROUPS = 10_000

#: Column names (same normalisation) of a run index: never read as the system.
RUN_INDEX_NAMES = frozenset(
    {
        "attempt",
        "attemptid",
        "attemptnumber",
        "attemptidx",
        "epoch",
        "repeat",
        "repetition",
        "rep",
        "sample",
        "sampleid",
        "seed",
        "iteration",
        "iter",
        "try",
        "run",
        "runindex",
        "runnumber",
        "runidx",
        "trialid",
        "trialnumber",
        "trialidx",
    }
)


def _norm(name: object) -> str:
    return re.sub(r"[\s_\-.]+", "", str(name)).lower()


@dataclass(frozen=True)
class _Coded:
    """A column as integer codes (a missing value is a value of its own) and its distinct values."""

    codes: NDArray[np.int64]
    uniques: Any

    @classmethod
    def of(cls, values: pd.Series) -> _Coded:
        codes, uniques = pd.factorize(values, use_na_sentinel=False)
        return cls(np.asarray(codes, dtype=np.int64), uniques)

    @property
    def n(self) -> int:
        return len(self.uniques)


#: Up to this many (a, b) code combinations, pairs are found with an occupancy table.
_DENSE = 50_000_000


def _pairs(a: _Coded, b: _Coded) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The distinct (a, b) code pairs, as two arrays (vectorised, no loop over rows)."""
    key = a.codes * b.n + b.codes
    if a.n * b.n <= _DENSE:
        seen = np.zeros(a.n * b.n, dtype=bool)
        seen[key] = True
        key = np.flatnonzero(seen)
    else:
        key = np.asarray(pd.unique(key), dtype=np.int64)
    return key // b.n, key % b.n


@dataclass(frozen=True)
class Groups:
    """What the rule needs to know of one column: its distinct values (in order of first
    appearance, a missing value being a value of its own), the number of rows, and the
    distinct (task, value) pairs it takes, as codes. The in-memory reader builds it from the
    table; the out-of-core reader (:mod:`passhat.io._system_scan`) from its batches."""

    uniques: Any
    rows: int
    pair_task: NDArray[np.int64]
    pair_value: NDArray[np.int64]

    @classmethod
    def of(cls, v: _Coded, t: _Coded) -> Groups:
        pt, pv = _pairs(t, v)
        return cls(v.uniques, len(v.codes), pt, pv)

    @property
    def n(self) -> int:
        return len(self.uniques)


def _is_run_index(g: Groups, n_tasks: int) -> bool:
    """Whole numbers that number each task's runs 0, 1, … or 1, 2, … (with repeats allowed)."""
    num_u = to_numbers(pd.Series(list(g.uniques), dtype=object)).to_numpy(
        dtype=float, na_value=np.nan
    )
    if np.isnan(num_u).any() or not np.all(num_u == np.floor(num_u)):
        return False
    num = num_u[g.pair_value]
    lo = np.full(n_tasks, np.inf)
    hi = np.full(n_tasks, -np.inf)
    np.minimum.at(lo, g.pair_task, num)
    np.maximum.at(hi, g.pair_task, num)
    per_task = np.bincount(g.pair_task, minlength=n_tasks)
    return bool(np.all((lo == 0) | (lo == 1)) and np.all(hi - lo + 1 == per_task))


def _splits(g: Groups, task_rows: NDArray[np.int64]) -> bool:
    """:func:`splits_every_task` on a column's groups and each task's number of rows."""
    if g.n < 2 or g.n > g.rows // 2 or g.n > MAX_GROUPS:
        return False
    n_tasks = len(task_rows)
    several = task_rows >= 2
    if not several.any() or (np.bincount(g.pair_task, minlength=n_tasks)[several] < 2).any():
        return False
    return not (n_tasks >= 2 and (np.bincount(g.pair_value, minlength=g.n) < 2).any())


def splits_every_task(values: pd.Series, tasks: pd.Series) -> bool:
    """Whether ``values`` split the runs of every task (with several runs) into ≥ 2 groups.

    Each value must also recur in at least two tasks (when there are several):
    a system runs many tasks, a run id or a timestamp does not. Vectorised on
    integer codes (no loop over tasks or rows).

    Examples
    --------
    >>> t = pd.Series(["a", "a", "b", "b"])
    >>> splits_every_task(pd.Series(["x", "y", "x", "y"]), t)
    True
    >>> splits_every_task(pd.Series(["x", "x", "y", "y"]), t)  # a task attribute
    False
    """
    t = _Coded.of(tasks)
    return _splits(Groups.of(_Coded.of(values), t), np.bincount(t.codes, minlength=t.n))


def _follows(fine: _Coded, coarse: _Coded) -> bool:
    """Whether every value of ``fine`` goes with one value of ``coarse`` (coarse = f(fine))."""
    return bool((np.bincount(_pairs(fine, coarse)[0], minlength=fine.n) <= 1).all())


def is_candidate_name(name: object) -> bool:
    """Whether a column may be read as the system by its name (not a run index's name)."""
    return _norm(name) not in RUN_INDEX_NAMES


def is_system_name(name: object) -> bool:
    """Whether a column's name is a common system name (``model``, ``agent``, ...)."""
    return _norm(name) in SYSTEM_NAMES


def find_system_column(
    df: pd.DataFrame, *, where: str, ignore: Iterable[str] = ()
) -> tuple[str, list[str]] | None:
    """The column to read as the system (and other splitting columns), or None.

    Parameters
    ----------
    df : pandas.DataFrame
        The table after the column map, with ``task_id`` and no ``system``.
    where : str
        The file, for the error message.
    ignore : iterable of str
        Columns that are not candidates (the data model's and the mapped ones).

    Returns
    -------
    (str, list of str) or None
        The column read as the system, and the other columns that also split
        every task's runs without following it (a per-run attribute such as an
        answer; named in the reader's note). None when no column needs to be.

    Raises
    ------
    ValidationError
        A column splits every task's runs and is not read as the system
        automatically: its name is not a common system name (and the runs
        are not already told apart by a mapped ``trial``), or two columns
        with system names split the runs in different ways.
    """
    skip = set(ignore) | {"task_id", "system"}
    t = _Coded.of(df["task_id"])
    task_rows = np.bincount(t.codes, minlength=t.n)
    coded: dict[str, _Coded] = {}
    groups: dict[str, Groups] = {}
    for col in df.columns:
        if col in skip or not is_candidate_name(col):
            continue
        if pd.api.types.is_bool_dtype(df[col].dtype):  # an outcome, not a grouping
            continue
        try:
            v = _Coded.of(df[col])
        except TypeError:  # lists or dicts (a per-run record): not a grouping
            continue
        coded[str(col)], groups[str(col)] = v, Groups.of(v, t)
    return choose_system_column(
        groups,
        task_rows,
        where=where,
        follows=lambda a, b: _follows(coded[a], coded[b]),
        trial_apart=lambda: "trial" in df.columns and not df.duplicated(["task_id", "trial"]).any(),
    )


def choose_system_column(
    columns: dict[str, Groups],
    task_rows: NDArray[np.int64],
    *,
    where: str,
    follows: Callable[[str, str], bool],
    trial_apart: Callable[[], bool],
    unchecked: Sequence[str] = (),
) -> tuple[str, list[str]] | None:
    """The rule of :func:`find_system_column` on each column's :class:`Groups`.

    ``follows(a, b)``: every value of column ``a`` goes with one value of ``b``.
    ``trial_apart()``: a mapped trial tells every run of a task apart.
    ``unchecked``: columns the out-of-core reader could not follow (too many distinct
    (task, value) pairs for its memory budget); when the rule would need them, the
    table is refused with the fix rather than read as one system on a guess.
    """
    candidates = [c for c, g in columns.items() if _splits(g, task_rows)]
    candidates = [c for c in candidates if not _is_run_index(columns[c], len(task_rows))]
    named = [c for c in candidates if is_system_name(c)]
    fix = "--map system=COLUMN (Python: system='COLUMN')"
    if any(is_system_name(c) for c in unchecked):
        col = next(c for c in unchecked if is_system_name(c))
        raise ValidationError(
            f"{where}: column {col!r} may name the system but has too many distinct values per "
            f"task to check out of core; if it names the system give --map system={col} "
            f"(Python: system={col!r}), if the runs are one system name it with "
            "--system-name NAME (Python: system_name=...)"
        )
    if named:
        best = named[0]
        apart = [c for c in candidates if c != best and not follows(best, c)]
        clash = [c for c in apart if c in named]
        if clash:
            raise ValidationError(
                f"{where}: columns {', '.join(map(repr, [best, *clash]))} each split every "
                f"task's runs into groups and do not nest; map the one that names the system "
                f"with {fix}, or combine them into one column"
            )
        return best, apart
    if (candidates or unchecked) and trial_apart():
        return None  # the mapped trial already tells every run of a task apart: one system
    if not candidates and not unchecked:
        return None
    if not candidates:
        col = unchecked[0]
        raise ValidationError(
            f"{where}: column {col!r} has too many distinct values per task to check out of "
            "core whether it splits every task's runs into groups, as a system column would; "
            f"if it names the system give --map system={col} (Python: system={col!r}), if the "
            "runs are one system name it with --system-name NAME (Python: system_name=...)"
        )
    col = candidates[0]
    values = list(
        pd.unique(pd.Series(list(columns[col].uniques)).astype("string").fillna("<missing>"))
    )
    shown = ", ".join(map(str, values[:4])) + (" ..." if len(values) > 4 else "")
    raise ValidationError(
        f"{where}: column {col!r} splits every task's runs into {len(values)} groups ({shown}), "
        f"as a system column would, but no system column is mapped; if it names the system give "
        f"--map system={col} (Python: system={col!r}), if the runs are one system name it with "
        "--system-name NAME (Python: system_name=...)"
    )


def system_column_note(col: str, systems: Sequence[str], also: Sequence[str]) -> str:
    """The reader's note when an unmapped column is read as the system.

    Examples
    --------
    >>> system_column_note("model", ["a", "b"], [])[:58]
    "read column 'model' as the system (2 systems: a, b): it sp"
    """
    shown = ", ".join(map(str, systems[:4])) + (" ..." if len(systems) > 4 else "")
    others = (
        f"; column(s) {', '.join(map(repr, also))} also split the runs and are not part of it"
        if also
        else ""
    )
    return (
        f"read column {col!r} as the system ({len(systems)} systems: {shown}): it splits every "
        f"task's runs into groups; --map system={col} says so, --system-name NAME reads all "
        f"runs as one system{others}"
    )


def system_name_ignored(where: str, system_name: str | None) -> None:
    """Refuse ``system_name`` for a table that has a system column: the file's own names would
    be used and the option ignored without a word.

    Examples
    --------
    >>> system_name_ignored("runs.csv", None)
    >>> system_name_ignored("runs.csv", "v2")
    Traceback (most recent call last):
    ...
    passhat.errors.ValidationError: runs.csv: system_name 'v2' (--system-name) names the \
system of a file without one, but this file has a system column; drop the option (or rename \
the system in the file)
    """
    if system_name is not None:
        raise ValidationError(
            f"{where}: system_name {system_name!r} (--system-name) names the system of a file "
            "without one, but this file has a system column; drop the option (or rename the "
            "system in the file)"
        )
