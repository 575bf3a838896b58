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
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from passhat.errors import ValidationError

__all__ = ["RUN_INDEX_NAMES", "SYSTEM_NAMES", "find_system_column", "splits_every_task"]

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


def _is_run_index(v: _Coded, t: _Coded) -> bool:
    """Whole numbers that number each task's runs 0, 1, … or 1, 2, … (with repeats allowed)."""
    num_u = pd.to_numeric(pd.Series(v.uniques), errors="coerce").to_numpy(
        dtype=float, na_value=np.nan
    )
    if np.isnan(num_u).any() or not np.all(num_u == np.floor(num_u)):
        return False
    num = num_u[v.codes]
    lo = np.full(t.n, np.inf)
    hi = np.full(t.n, -np.inf)
    np.minimum.at(lo, t.codes, num)
    np.maximum.at(hi, t.codes, num)
    per_task = np.bincount(_pairs(t, v)[0], minlength=t.n)
    return bool(np.all((lo == 0) | (lo == 1)) and np.all(hi - lo + 1 == per_task))


def _splits(v: _Coded, t: _Coded) -> bool:
    """:func:`splits_every_task` on coded values and tasks."""
    if v.n < 2 or v.n > len(v.codes) // 2:
        return False
    several = np.bincount(t.codes, minlength=t.n) >= 2
    pt, pv = _pairs(t, v)
    if not several.any() or (np.bincount(pt, minlength=t.n)[several] < 2).any():
        return False
    return not (t.n >= 2 and (np.bincount(pv, minlength=v.n) < 2).any())


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
    return _splits(_Coded.of(values), _Coded.of(tasks))


def _follows(fine: _Coded, coarse: _Coded) -> bool:
    """Whether every value of ``fine`` goes with one value of ``coarse`` (coarse = f(fine))."""
    return bool((np.bincount(_pairs(fine, coarse)[0], minlength=fine.n) <= 1).all())


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
    coded: dict[str, _Coded] = {}
    for col in df.columns:
        if col in skip or _norm(col) in RUN_INDEX_NAMES:
            continue
        if pd.api.types.is_bool_dtype(df[col].dtype):  # an outcome, not a grouping
            continue
        v = _Coded.of(df[col])
        if _splits(v, t) and not _is_run_index(v, t):
            coded[str(col)] = v
    candidates = list(coded)
    if not candidates:
        return None
    named = [c for c in candidates if _norm(c) in SYSTEM_NAMES]
    if named:
        best = named[0]
        apart = [c for c in candidates if c != best and not _follows(coded[best], coded[c])]
        clash = [c for c in apart if c in named]
        if clash:
            raise ValidationError(
                f"{where}: columns {', '.join(map(repr, [best, *clash]))} each split every "
                "task's runs into groups and do not nest; map the one that names the system "
                "with --map system=COLUMN (Python: system='COLUMN'), or combine them into one "
                "column"
            )
        return best, apart
    if "trial" in df.columns and not df.duplicated(["task_id", "trial"]).any():
        return None  # the mapped trial already tells every run of a task apart: one system
    col = candidates[0]
    values = list(pd.unique(df[col].astype("string").fillna("<missing>")))
    shown = ", ".join(map(str, values[:4])) + (" ..." if len(values) > 4 else "")
    raise ValidationError(
        f"{where}: column {col!r} splits every task's runs into {len(values)} groups ({shown}), "
        f"as a system column would, but no system column is mapped; if it names the system give "
        f"--map system={col} (Python: system={col!r}), if the runs are one system name it with "
        "--system-name NAME (Python: system_name=...)"
    )
