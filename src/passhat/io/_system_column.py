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
* one splitting column with a common system name (``model``, ``agent``,
  ``policy``, ``run_name``, ...), which every other splitting column follows,
  is read as the system, with a note saying so;
* any other splitting column is refused with one line naming it and the fix
  (``--map system=COLUMN``, or ``--system-name NAME`` when the runs are one
  system).

Examples
--------
>>> import pandas as pd
>>> df = pd.DataFrame({"model": ["a", "a", "b", "b"] * 2, "task_id": ["q1"] * 4 + ["q2"] * 4,
...                    "success": [1, 0, 1, 1] * 2})
>>> find_system_column(df, where="t.csv")
'model'
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np
import pandas as pd

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


def _is_run_index(values: pd.Series, tasks: pd.Series) -> bool:
    """Whole numbers that number each task's runs 0, 1, … or 1, 2, … (with repeats allowed)."""
    num = pd.to_numeric(values, errors="coerce")
    if num.isna().any() or not np.all(num == np.floor(num)):
        return False
    per = pd.DataFrame({"t": tasks.to_numpy(), "v": num.to_numpy()}).groupby("t", sort=False)["v"]
    lo, hi, k = per.min(), per.max(), per.nunique()
    return bool(((lo == 0) | (lo == 1)).all() and ((hi - lo + 1) == k).all())


def splits_every_task(values: pd.Series, tasks: pd.Series) -> bool:
    """Whether ``values`` split the runs of every task (with several runs) into ≥ 2 groups.

    Each value must also recur in at least two tasks (when there are several):
    a system runs many tasks, a run id or a timestamp does not.

    Examples
    --------
    >>> t = pd.Series(["a", "a", "b", "b"])
    >>> splits_every_task(pd.Series(["x", "y", "x", "y"]), t)
    True
    >>> splits_every_task(pd.Series(["x", "x", "y", "y"]), t)  # a task attribute
    False
    """
    vals = values.astype("string").fillna("\x00missing")
    n_all = vals.nunique()
    if n_all < 2 or n_all > len(vals) // 2:
        return False
    frame = pd.DataFrame({"t": tasks.to_numpy(), "v": vals.to_numpy()})
    size = frame.groupby("t", sort=False).size()
    per_task = frame.groupby("t", sort=False)["v"].nunique()
    several = size >= 2
    if not several.any() or (per_task[several] < 2).any():
        return False
    if len(size) >= 2:
        tasks_per_value = frame.drop_duplicates().groupby("v", sort=False)["t"].size()
        if (tasks_per_value < 2).any():
            return False
    return True


def _follows(fine: pd.Series, coarse: pd.Series) -> bool:
    """Whether every value of ``fine`` goes with one value of ``coarse`` (coarse = f(fine))."""
    pairs = pd.DataFrame({"f": fine.astype("string").to_numpy(), "c": coarse.astype("string")})
    return bool((pairs.drop_duplicates().groupby("f", dropna=False).size() <= 1).all())


def find_system_column(df: pd.DataFrame, *, where: str, ignore: Iterable[str] = ()) -> str | None:
    """The column to read as the system, None when no column splits the tasks' runs.

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
    str or None

    Raises
    ------
    ValidationError
        A column splits every task's runs and is not read as the system
        automatically: its name is not a common system name, or two columns
        split the runs in different ways.
    """
    skip = set(ignore) | {"task_id", "system"}
    candidates: list[str] = []
    for col in df.columns:
        if col in skip or _norm(col) in RUN_INDEX_NAMES:
            continue
        s = df[col]
        if pd.api.types.is_bool_dtype(s.dtype):  # an outcome, not a grouping
            continue
        if not splits_every_task(s, df["task_id"]):
            continue
        if _is_run_index(s, df["task_id"]):
            continue
        candidates.append(str(col))
    if not candidates:
        return None
    named = [c for c in candidates if _norm(c) in SYSTEM_NAMES]
    if len(named) >= 1:
        best = named[0]
        others = [c for c in candidates if c != best and not _follows(df[best], df[c])]
        if not others:
            return best
        cols = [best, *others]
        raise ValidationError(
            f"{where}: columns {', '.join(map(repr, cols))} each split every task's runs into "
            f"groups (systems?) and do not nest; map the one that names the system with "
            f"--map system=COLUMN (Python: system='COLUMN'), or combine them into one column"
        )
    col = candidates[0]
    values = list(pd.unique(df[col].astype("string").fillna("<missing>")))
    shown = ", ".join(map(str, values[:4])) + (" ..." if len(values) > 4 else "")
    raise ValidationError(
        f"{where}: column {col!r} splits every task's runs into {len(values)} groups ({shown}), "
        f"as a system column would, but no system column is mapped; if it names the system give "
        f"--map system={col} (Python: system={col!r}), if the runs are one system name it with "
        "--system-name NAME (Python: system_name=...)"
    )
