"""Checks on the tables and arrays a caller hands in, before any column is read.

:meth:`passhat.Trials.from_frame` takes a :class:`pandas.DataFrame` (not an array, a list,
a mapping or a Series: each has a one-line way to become one, which the message names) whose
column names are unique (two ``success`` columns would make every column lookup a frame);
:func:`passhat.counts_from_arrays` and the estimators take numbers (``"5"`` is text, never
read as 5), and ids, weights, categories and unscored counts of one length; a count table
names each task and system once.

Examples
--------
>>> import pandas as pd
>>> check_frame([{"task_id": "a", "success": 1}], "table")
Traceback (most recent call last):
...
passhat.errors.ValidationError: table: expected a pandas DataFrame with columns task_id and \
success (got list); pandas.DataFrame(records) makes one from a list of rows
>>> number_array(["3", "2"], "n")
Traceback (most recent call last):
...
passhat.errors.CountError: n must hold numbers, not text (got '3')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat._numbers import safe_float, show_value
from passhat.errors import CountError, ValidationError

__all__ = [
    "check_frame",
    "check_unique_coords",
    "count_arrays",
    "number_array",
    "safe_float",
    "same_length",
    "show_value",
    "to_numbers",
]

_HOW = {
    "list": "pandas.DataFrame(records) makes one from a list of rows",
    "tuple": "pandas.DataFrame(records) makes one from rows",
    "dict": "pandas.DataFrame(mapping) makes one from columns",
    "ndarray": "pandas.DataFrame(array, columns=[...]) names its columns",
    "Series": "a Series is one column: Series.to_frame() or build the DataFrame of all columns",
}


def check_frame(df: Any, where: str) -> pd.DataFrame:
    """``df`` itself when it is a DataFrame with unique column names, else a ValidationError.

    Examples
    --------
    >>> check_frame(pd.DataFrame({"a": [1]}), "t").columns.tolist()
    ['a']
    """
    if not isinstance(df, pd.DataFrame):
        kind = type(df).__name__
        how = _HOW.get(kind, "passhat.read_trials reads a file") if df is not None else ""
        raise ValidationError(
            f"{where}: expected a pandas DataFrame with columns task_id and success (got "
            f"{kind}){'; ' + how if how else ''}"
        )
    cols = pd.Index(df.columns)
    if cols.has_duplicates:
        twice = [str(c) for c in cols[cols.duplicated()].unique()]
        raise ValidationError(
            f"{where}: column name(s) {', '.join(map(repr, twice))} appear more than once; "
            "each column needs its own name"
        )
    return df


def number_array(x: Any, name: str) -> NDArray[np.float64]:
    """``x`` as a float array; text (``"5"``) or other non-numbers are a CountError naming it.

    Examples
    --------
    >>> number_array([3, 2.0, True], "n").tolist()
    [3.0, 2.0, 1.0]
    """
    arr = np.asarray(x)
    if arr.dtype.kind == "O":
        text = [v for v in arr.ravel() if isinstance(v, str | bytes)]
        if text:
            raise CountError(f"{name} must hold numbers, not text (got {text[0]!r})")
    elif arr.dtype.kind not in "biuf":
        first = arr.ravel()[0] if arr.size else arr
        raise CountError(f"{name} must hold numbers, not text (got {str(first)!r})")
    try:
        return np.asarray(arr, dtype=float)
    except (TypeError, ValueError) as err:
        raise CountError(f"{name} must hold numbers (got {arr.ravel()[:3].tolist()})") from err


def count_arrays(n: Any, c: Any, **per_task: Any) -> tuple[NDArray[np.float64], ...]:
    """``n`` and ``c`` as float arrays of one length, checked with the per-task arrays given.

    Examples
    --------
    >>> count_arrays([3, 2], [1], tasks=None)
    Traceback (most recent call last):
    ...
    passhat.errors.CountError: n and c must be 1-d arrays of the same length (got (2,) and (1,))
    """
    n_arr, c_arr = number_array(n, "n"), number_array(c, "c")
    if n_arr.shape != c_arr.shape or n_arr.ndim != 1:
        raise CountError(
            f"n and c must be 1-d arrays of the same length (got {n_arr.shape} and {c_arr.shape})"
        )
    same_length(len(n_arr), **per_task)
    return n_arr, c_arr


def same_length(length: int, **arrays: Any) -> None:
    """Refuse per-task arrays (``tasks=``, ``weight=``, ...) whose length is not ``length``.

    Examples
    --------
    >>> same_length(2, tasks=["a", "b"], weight=None)
    >>> same_length(2, tasks=["a"])
    Traceback (most recent call last):
    ...
    passhat.errors.CountError: tasks has 1 value(s) but n and c have 2; give one per task
    """
    for name, values in arrays.items():
        if values is None:
            continue
        size = len(values) if isinstance(values, list | tuple | Mapping) else np.size(values)
        if np.ndim(values) != 1 or size != length:
            raise CountError(
                f"{name} has {size} value(s) but n and c have {length}; give one per task"
            )


def check_unique_coords(ds: xr.Dataset, where: str) -> None:
    """Refuse a count table that names a task (or a system) twice: its rows would be two tasks
    nobody can tell apart, and selecting one by name would return both.

    Examples
    --------
    >>> import passhat as ph
    >>> ph.counts_from_arrays([3, 2], [1, 0], tasks=["a", "a"])
    Traceback (most recent call last):
    ...
    passhat.errors.CountError: count table: task 'a' appears more than once (2 times); each \
task needs its own id
    """
    for dim in ("task", "system"):
        if dim not in ds.coords:
            continue
        ids = pd.Index(ds[dim].values, dtype=object)  # no text conversion: only equality
        if ids.has_duplicates:
            first = ids[ids.duplicated()][0]
            times = int((ids == first).sum())
            raise CountError(
                f"{where}: {dim} {str(first)!r} appears more than once ({times} times); "
                f"each {dim} needs its own id"
            )


def to_numbers(s: pd.Series) -> pd.Series:
    """``pd.to_numeric(s, errors="coerce")``, with integers beyond the float range as ±inf.

    pandas raises OverflowError on a Python int past 1.8e308 in an object column; such a
    value is an absurd number, to be refused by the caller's finiteness check with its row.

    Examples
    --------
    >>> to_numbers(pd.Series([1, 10**400, "x"], dtype=object)).tolist()
    [1.0, inf, nan]
    """
    try:
        return pd.to_numeric(s, errors="coerce")
    except OverflowError:
        big = s.map(
            lambda v: safe_float(v) if isinstance(v, int) and not isinstance(v, bool) else v
        )
        return pd.to_numeric(big, errors="coerce")
