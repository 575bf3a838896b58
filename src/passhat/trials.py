"""The trial table (one row per run) and the count table (per system × task).

The trial table is the tidy form every reader produces::

    system  task_id  trial  success  status  [score category cluster weight scenario_hash ...]

``success`` is a nullable boolean: missing means the run was not decided
(grader error, infrastructure outage, ...). Undecided runs are counted as
``unscored`` and never enter ``n``.

The count table is an :class:`xarray.Dataset` over ``(system, task)`` with
``n`` (decided runs), ``c`` (successes), ``unscored`` (undecided runs),
``present`` (the system ran the task at all) and ``weight``, plus task
coordinates such as ``category`` and ``cluster`` (each task's one cluster: tasks of one
repository or document, resampled together by the population scope). Every estimator works
on counts.

Examples
--------
>>> import pandas as pd
>>> import passhat as ph
>>> df = pd.DataFrame({"task_id": ["a", "a", "b", "b"], "trial": [0, 1, 0, 1],
...                    "success": [True, False, True, None]})
>>> t = ph.Trials.from_frame(df)
>>> ds = t.counts()
>>> int(ds["n"].sel(system="system", task="b")), int(ds["unscored"].sum())
(1, 1)
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat._checked import Parts
from passhat._frames import (
    check_frame,
    check_unique_coords,
    count_arrays,
    safe_float,
    show_value,
    to_numbers,
)
from passhat._ids import case_variant_notes, check_spaced_ids, clean_ids, missing_column
from passhat._labels import DEFAULT_SYSTEM
from passhat._status import FAILURE_STATUSES, UNSCORED_STATUSES, fail_without_verdict, status_notes
from passhat.errors import CountError, PasshatError, ValidationError

__all__ = [
    "DEFAULT_SYSTEM",
    "MAX_COUNT",
    "UNSCORED_STATUSES",
    "Trials",
    "check_scalar_column",
    "coerce_success",
    "coerce_trial",
    "counts_from_arrays",
    "counts_from_frame",
    "finite_column",
    "provenance",
    "task_clusters",
    "validate_counts",
]


REQUIRED = ("system", "task_id", "trial", "success", "status")
OPTIONAL = ("score", "category", "cluster", "weight", "scenario_hash", "duration_s", "cost")
NUMERIC = ("score", "duration_s", "cost")


#: Largest count or trial number accepted: every whole number up to it is exact in float64.
MAX_COUNT = 2**53
_TOO_BIG = "is too large (a count is at most 2^53 = 9007199254740992)"


#: What ``pandas.api.types.infer_dtype`` calls a column holding only text, numbers or booleans
#: (no lists, tuples, bytes or dates): nothing for :func:`check_scalar_column` to refuse.
_PLAIN_SCALARS = frozenset(
    {"string", "empty", "integer", "floating", "mixed-integer-float", "boolean", "decimal"}
)


def check_scalar_column(
    s: pd.Series, col: str, *, where: str, rows: np.ndarray | None = None
) -> None:
    """Refuse a column of lists, structs, dates/times or bytes (an id or trial must be text or a
    whole number): the first offending row and its type are named."""
    kind = s.dtype.kind
    what = None
    if kind in "Mm" or isinstance(s.dtype, pd.DatetimeTZDtype | pd.PeriodDtype):
        what = f"a {s.dtype} (date/time) column"
        row = 0
    elif kind == "O" and pd.api.types.infer_dtype(s, skipna=True) not in _PLAIN_SCALARS:
        try:
            codes, uniques = pd.factorize(s, sort=False)
        except TypeError:  # unhashable values: lists, dicts, arrays
            bad = s.map(lambda v: isinstance(v, list | dict | np.ndarray | set)).to_numpy()
            row = int(np.flatnonzero(bad)[0])
            what = f"a {type(s.iloc[row]).__name__} value"
        else:
            odd = [
                i
                for i, v in enumerate(uniques)
                if isinstance(v, tuple | bytes | bytearray | dt.date | dt.time | dt.timedelta)
            ]
            if odd:
                row = int(np.flatnonzero(codes == odd[0])[0])
                what = f"a {type(uniques[odd[0]]).__name__} value"
    if what is not None:
        shown = _show(s.iloc[row]) if len(s) else ""
        raise ValidationError(
            f"{where}: row {_row(rows, row)}: {col} {shown[:80]} is {what}; "
            f"{col} must be {'a whole number' if col == 'trial' else 'text or a whole number'}"
        )


@dataclass
class Trials:
    """A validated trial table.

    Use :meth:`from_frame` (or a reader such as :func:`passhat.read_trials`)
    rather than the constructor.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per run with the columns of the data model.
    source : dict
        Where the data came from: ``path``, ``format``, ``sha256``, ...
    excluded : pandas.DataFrame
        Rows excluded before analysis, with a ``reason`` column (readers fill
        this; nothing is dropped without being listed here).
    notes : list of str
        What a reader decided that changes the reading, in plain words (e.g.
        which column it read as the system); the CLI prints them and the
        report records them.
    """

    frame: pd.DataFrame
    source: dict[str, Any] = field(default_factory=dict)
    excluded: pd.DataFrame = field(default_factory=pd.DataFrame)
    notes: list[str] = field(default_factory=list)

    # ------------------------------------------------------------------ build
    @classmethod
    def from_frame(
        cls,
        df: pd.DataFrame,
        *,
        source: Mapping[str, Any] | None = None,
        excluded: pd.DataFrame | None = None,
        where: str = "table",
    ) -> Trials:
        """Validate a data frame with the data model's columns.

        Parameters
        ----------
        df : pandas.DataFrame
            Needs ``task_id`` and ``success``; ``system`` defaults to
            ``"system"``, ``trial`` to the order of appearance within the task
            and ``status`` to ``"ok"`` for decided runs and ``"unscored"``
            otherwise.
        source : mapping, optional
            Provenance stored on the result.
        excluded : pandas.DataFrame, optional
            Rows a reader excluded, with a ``reason`` column.
        where : str
            Name used in error messages (a file path).

        Returns
        -------
        Trials

        Raises
        ------
        ValidationError
            Missing columns, non-boolean success values, duplicate
            (system, task_id, trial), missing task ids.
        """
        df, notes = _validated_frame(df, where)
        exc = excluded if excluded is not None else pd.DataFrame(columns=["reason"])
        return cls(frame=df, source=dict(source or {}), excluded=exc, notes=notes)

    # --------------------------------------------------------------- queries
    @property
    def systems(self) -> list[str]:
        """System names in order of first appearance."""
        return list(pd.unique(self.frame["system"]))

    @property
    def tasks(self) -> list[str]:
        """Task ids in order of first appearance."""
        return list(pd.unique(self.frame["task_id"]))

    def __len__(self) -> int:
        return len(self.frame)

    def __repr__(self) -> str:
        n_unscored = int(self.frame["success"].isna().sum())
        col = self.source.get("system_column")
        from_col = f" from column {col!r}" if col else ""
        return (
            f"Trials({len(self.frame)} runs, {len(self.systems)} system(s){from_col}, "
            f"{len(self.tasks)} tasks, {n_unscored} unscored)"
        )

    def select(self, *, systems: list[str] | None = None) -> Trials:
        """Keep only some systems."""
        df = self.frame
        if systems is not None:
            missing = sorted(set(systems) - set(self.systems))
            if missing:
                raise ValidationError(
                    f"system(s) {', '.join(missing)} not found; have {', '.join(self.systems)}"
                )
            df = df[df["system"].isin(systems)]
        return Trials(
            frame=df.reset_index(drop=True),
            source=self.source,
            excluded=self.excluded,
            notes=list(self.notes),
        )

    def counts(self) -> xr.Dataset:
        """Aggregate to the count table (see module docstring)."""
        ds = counts_from_frame(self.frame, where=self.source.get("path"))
        ds.attrs.update({f"source_{k}": str(v) for k, v in self.source.items()})
        return ds


def provenance(data: Trials | xr.Dataset) -> dict[str, str]:
    """Where the data came from, as its reader recorded it (path, format, sha256, …), as
    strings; empty for data built in Python. Reads nothing.

    Examples
    --------
    >>> provenance(counts_from_arrays([4], [2]))
    {}
    """
    if isinstance(data, Trials):
        return {str(k): str(v) for k, v in data.source.items()}
    return {
        str(k).removeprefix("source_"): str(v)
        for k, v in data.attrs.items()
        if str(k).startswith("source_")
    }


class _Fault(Exception):
    """The fast path met a fault (or a value it does not handle): the row-by-row check runs."""


def _validated_frame(df: pd.DataFrame, where: str) -> tuple[pd.DataFrame, list[str]]:
    """The trial table's rules checked on each column's distinct values (cost by tasks, not
    rows); on any fault, the row-by-row check :func:`_rows_checked`, whose error names the
    rows (and whose result is the reference, were the two ever to disagree)."""
    try:
        return _values_checked(df, where)
    except (PasshatError, _Fault, TypeError):
        return _rows_checked(df, where)


def _distinct(col: pd.Series, *, exact: bool = True) -> tuple[NDArray[np.int64], pd.Series]:
    """Each row's code (-1: missing) and the distinct values, in order of first appearance,
    as the column's own rows (its dtype kept), indexed by the file row (1-based) of each.

    ``exact``: a column of Python objects mixing types is a fault (hashing makes ``1``,
    ``1.0`` and ``True`` one value, where ids and statuses keep each one's text)."""
    if exact and col.dtype == object:
        if pd.api.types.infer_dtype(col, skipna=True) not in ("string", "empty"):
            raise _Fault("values of several types")
    codes, _ = pd.factorize(col, sort=False)  # TypeError for lists and dicts
    codes = np.asarray(codes, dtype=np.int64)
    run = np.maximum.accumulate(codes)  # a new code appears as the running maximum grows
    new = np.empty(len(codes), dtype=bool)
    new[:1] = run[:1] >= 0
    np.greater(run[1:], run[:-1], out=new[1:])
    first = np.flatnonzero(new)
    return codes, col.iloc[first].set_axis(first + 1)


def _values_checked(df: pd.DataFrame, where: str) -> tuple[pd.DataFrame, list[str]]:
    df = check_frame(df, where)
    for col in ("task_id", "success"):
        if col not in df.columns:
            raise _Fault(col)
    if len(df) == 0:
        raise _Fault("empty")
    new: dict[str, Any] = {}
    keys = []
    for col in ("system", "task_id"):
        ids, text = _clean_id_column(df, col, where)
        new[col] = ids
        keys.append(text)
    success = _success_column(df["success"], where)
    trial = _trial_column(df, keys)
    status, notes = _status_column(df, success)
    notes += case_variant_notes(keys[0][1])  # 'GPT-4o', 'gpt-4o': two, said
    _refuse_duplicates(keys, trial)
    numbers = {c: v.reset_index(drop=True) for c, v in _checked_numbers(df, where).items()}
    new.update(success=success, trial=trial, status=status, **numbers)
    cols = list(REQUIRED) + [c for c in df.columns if c not in REQUIRED]
    frame = pd.DataFrame(
        {c: new[c] if c in new else df[c].reset_index(drop=True) for c in cols},
        index=pd.RangeIndex(len(df)),
    )
    return frame, notes


def _clean_id_column(
    df: pd.DataFrame, col: str, where: str
) -> tuple[pd.Series, tuple[NDArray[np.int64], list[str]]]:
    """An id column as NFC text (its checks on the distinct values), and (codes, texts)."""
    if col not in df.columns:
        return pd.Series(np.full(len(df), DEFAULT_SYSTEM, dtype=object), dtype=object), (
            np.zeros(len(df), dtype=np.int64),
            [DEFAULT_SYSTEM],
        )
    raw = df[col]
    check_scalar_column(raw.iloc[:0], col, where=where)  # date/time columns, by dtype
    codes, vals = _distinct(raw)
    if (codes < 0).any():
        raise _Fault(f"{col} missing")
    check_scalar_column(vals, col, where=where)
    check_spaced_ids(pd.DataFrame({col: vals.to_numpy(dtype=object)}), where)
    text = clean_ids(vals, column=col, where=where, rows=vals.index.to_numpy()).to_numpy(
        dtype=object
    )
    return pd.Series(text[codes], dtype=object), (codes, text.tolist())


def _success_column(col: pd.Series, where: str) -> pd.Series:
    """Success as a nullable boolean, its words read once per distinct value."""
    if pd.api.types.is_bool_dtype(col.dtype) or pd.api.types.is_numeric_dtype(col.dtype):
        return coerce_success(col, where=where).reset_index(drop=True)
    codes, vals = _distinct(col, exact=False)  # 1, 1.0 and True are one verdict
    per = coerce_success(vals, where=where, rows=vals.index.to_numpy())
    value = np.append(per.fillna(False).to_numpy(dtype=bool), False)
    missing = np.append(per.isna().to_numpy(), True)  # code -1 (a missing cell): undecided
    return pd.Series(pd.arrays.BooleanArray(value[codes], missing[codes]))


def _trial_column(df: pd.DataFrame, keys: list[tuple[NDArray[np.int64], list[str]]]) -> Any:
    """Trial numbers (whole, ≥ 0), or the order of appearance within (system, task)."""
    cell = keys[0][0] * len(keys[1][1]) + keys[1][0]
    if "trial" not in df.columns:
        return pd.Series(cell).groupby(cell, sort=False).cumcount()
    col = df["trial"]
    if col.dtype.kind in "iuf":
        return coerce_trial(col, where="").reset_index(drop=True)
    codes, vals = _distinct(col)
    if (codes < 0).any():
        raise _Fault("trial missing")
    per = coerce_trial(vals, where="", rows=vals.index.to_numpy()).to_numpy()
    return pd.Series(per[codes], dtype=np.int64)


def _status_column(df: pd.DataFrame, success: pd.Series) -> tuple[pd.Series, list[str]]:
    """Statuses (trimmed; ``unscored`` / ``ok`` where none), with success set missing for an
    unscored status and False for a failure status without a verdict (the notes say so)."""
    no_verdict = success.isna().to_numpy()
    if "status" in df.columns:
        codes, vals = _distinct(df["status"])
        names = vals.astype("string").str.strip().to_numpy(dtype=object)
        names = np.where(pd.isna(names), None, names)
    else:
        codes, names = np.full(len(df), -1, dtype=np.int64), np.array([], dtype=object)
    fills = np.array(["unscored", "ok"], dtype=object)
    per = np.where(codes >= 0, codes, len(names) + np.where(no_verdict, 0, 1))
    words = np.concatenate([names, fills])
    missing = pd.isna(words)
    if missing.any():  # a status that strips to NA: filled as a missing one
        per = np.where(missing[per], len(names) + np.where(no_verdict, 0, 1), per)
    folded = [str(w).casefold() for w in words]
    unscored = np.array([f in UNSCORED_STATUSES for f in folded], dtype=bool)[per]
    failure = np.array([f in FAILURE_STATUSES for f in folded], dtype=bool)[per]
    value = success.fillna(False).to_numpy(dtype=bool)
    undecided = no_verdict | unscored
    failed = failure & undecided  # no verdict, and the status says the system failed
    passed = failure & ~undecided & value
    undecided &= ~failed
    value &= ~undecided
    success.iloc[:] = pd.arrays.BooleanArray(value, undecided)
    used = np.flatnonzero(np.bincount(per, minlength=len(words)))
    text_codes, text = pd.factorize(np.array([str(w) for w in words[used]], dtype=object))
    remap = np.zeros(len(words), dtype=np.int64)
    remap[used] = text_codes
    status = _text_series(remap[per], list(text))
    notes = status_notes(
        (int(failed.sum()), _words_used(words, per[failed])),
        (int(passed.sum()), _words_used(words, per[passed])),
    )
    return status, notes


def _words_used(words: NDArray[Any], codes: NDArray[np.int64]) -> set[str]:
    return {str(w) for w in words[np.bincount(codes, minlength=len(words)) > 0]}


def _text_series(codes: NDArray[np.int64], words: list[str]) -> pd.Series:
    """Text by row from codes into distinct words, with the dtype ``astype(str)`` gives."""
    want = pd.Series(words[:1], dtype=object).astype(str).dtype
    if getattr(want, "storage", None) == "pyarrow":  # pandas' Arrow-backed text
        import pyarrow as pa

        arr = pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int32)), pa.array(words))
        return pd.Series(arr.cast(pa.string()), dtype=want)
    return pd.Series(pd.Categorical.from_codes(codes, words)).astype(str)


def _refuse_duplicates(keys: list[tuple[NDArray[np.int64], list[str]]], trial: Any) -> None:
    """A duplicate (system, task_id, trial) is a fault (the row-by-row check names it)."""
    cell = keys[0][0] * len(keys[1][1]) + keys[1][0]
    t = np.asarray(trial, dtype=np.int64)
    top = int(t.max()) + 1 if len(t) else 1
    size = (int(cell.max()) + 1) * top
    if size <= max(4 * len(t), 1 << 20):  # dense keys: a count per key
        dup = bool((np.bincount(cell * top + t, minlength=size) > 1).any())
    elif int(cell.max()) < (2**62) // top:
        dup = pd.Series(cell * top + t).duplicated().any()
    else:
        dup = pd.DataFrame({"cell": cell, "trial": t}).duplicated().any()
    if dup:
        raise _Fault("duplicate")


def _checked_numbers(df: pd.DataFrame, where: str) -> dict[str, pd.Series]:
    """The weight (≥ 0) and the numeric columns (finite) as numbers (the frame's index)."""
    out: dict[str, pd.Series] = {}
    if "weight" in df.columns:
        w = to_numbers(df["weight"])
        bad = w.isna() & df["weight"].notna() | (w < 0) | np.isinf(w)
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise ValidationError(
                f"{where}: row {row + 1}: weight {_show(df['weight'].iloc[row])} "
                "is not a finite non-negative number"
            )
        out["weight"] = w
    for col in NUMERIC:
        if col in df.columns:
            out[col] = finite_column(df[col], col, where=where)
    return out


def _rows_checked(df: pd.DataFrame, where: str) -> tuple[pd.DataFrame, list[str]]:
    """The trial table's rules, checked row by row (the reference for every message: the
    fast path :func:`_validated_frame` runs this when it finds a fault, so that the error
    names the same rows)."""
    df = check_frame(df, where).copy()
    for col in ("task_id", "success"):
        if col not in df.columns:
            field = "task" if col == "task_id" else col
            raise ValidationError(missing_column(where, col, df.columns, field=field))
    if len(df) == 0:
        raise ValidationError(f"{where}: no trials (the table is empty)")
    if "system" not in df.columns:
        df["system"] = DEFAULT_SYSTEM
    if df["system"].isna().any():
        row = int(np.flatnonzero(df["system"].isna().to_numpy())[0])
        raise ValidationError(f"{where}: row {row + 1}: system is missing")
    if df["task_id"].isna().any():
        row = int(np.flatnonzero(df["task_id"].isna().to_numpy())[0])
        raise ValidationError(f"{where}: row {row + 1}: task_id is missing")
    check_spaced_ids(df, where)  # ' a' and 'a': two tasks nobody can tell apart
    for col in ("system", "task_id"):
        check_scalar_column(df[col], col, where=where)
        df[col] = clean_ids(df[col], column=col, where=where)
    df["success"] = coerce_success(df["success"], where=where)
    if "trial" not in df.columns:
        df["trial"] = df.groupby(["system", "task_id"], sort=False).cumcount()
    else:
        df["trial"] = coerce_trial(df["trial"], where=where)
    if "status" not in df.columns:
        df["status"] = np.where(df["success"].isna(), "unscored", "ok")
    else:
        st = df["status"].astype("string").str.strip()
        df["status"] = st.fillna(
            pd.Series(np.where(df["success"].isna(), "unscored", "ok"), index=df.index)
        ).astype(str)
    # A run the grader could not score is not decided, whatever success says.
    undecided_status = df["status"].str.casefold().isin(UNSCORED_STATUSES)  # any case
    if undecided_status.any():
        df.loc[undecided_status, "success"] = pd.NA
    notes = fail_without_verdict(df)  # a timeout with no verdict is a failure
    notes += case_variant_notes(df["system"].unique())  # 'GPT-4o', 'gpt-4o': two, said
    _check_duplicates(df, where)
    for col, values in _checked_numbers(df, where).items():
        df[col] = values
    cols = list(REQUIRED) + [c for c in df.columns if c not in REQUIRED]
    return df[cols].reset_index(drop=True), notes


# ----------------------------------------------------------------- helpers
_TRUE = {"true", "t", "yes", "y", "1", "pass", "passed", "success", "c", "correct"}
_FALSE = {"false", "f", "no", "n", "0", "fail", "failed", "failure", "i", "incorrect"}
_MISSING = {"", "na", "nan", "none", "null"}


def coerce_success(s: pd.Series, *, where: str, rows: np.ndarray | None = None) -> pd.Series:
    """Map boolean-like values to a nullable boolean; reject anything else.

    Accepted (case-insensitive, surrounding spaces ignored): booleans;
    the numbers 1 and 0 (also written ``1.0`` / ``0.0``); true/false, t/f,
    yes/no, y/n, pass/fail, passed/failed, success/failure, correct/incorrect,
    C/I. Missing: empty, NA, NaN, None, null. Vectorised (pandas string ops). ``rows``: the
    1-based file row of each value, for messages (default: the position + 1); a streamed
    reader passes the distinct values of a batch with the first row of each.

    Examples
    --------
    >>> coerce_success(pd.Series(["yes", "FAIL", None, 1.0]), where="t").tolist()
    [True, False, <NA>, True]
    """
    if pd.api.types.is_bool_dtype(s.dtype):
        return s.astype("boolean").set_axis(s.index)
    missing = s.isna().to_numpy()
    if pd.api.types.is_numeric_dtype(s.dtype):
        num = s.to_numpy(dtype=float, na_value=np.nan)
        is_true = num == 1
        is_false = num == 0
        undecided = missing
    else:
        key = s.astype("string").str.strip().str.lower()
        word_true = key.isin(_TRUE).to_numpy(dtype=bool)
        word_false = key.isin(_FALSE).to_numpy(dtype=bool)
        word_missing = key.isin(_MISSING).to_numpy(dtype=bool)
        other = ~(word_true | word_false | word_missing)
        num = to_numbers(key.where(other)).to_numpy(dtype=float, na_value=np.nan)
        is_true = word_true | (num == 1)
        is_false = word_false | (num == 0)
        undecided = missing | word_missing
    bad = ~(is_true | is_false | undecided)
    if bad.any():
        bad_rows = np.flatnonzero(bad)
        seen = list(dict.fromkeys(_show(v) for v in s.iloc[bad_rows[:1000]].tolist()))
        raise ValidationError(
            f"{where}: row {_row(rows, bad_rows[0])}: success values must be boolean-like "
            f"(true/false, 1/0, pass/fail, C/I); saw {', '.join(seen[:6])}"
            f"{' ...' if len(seen) > 6 else ''}"
            + (f" in {len(bad_rows)} row(s)" if rows is None else "")
            + " (for numeric rewards give a threshold)"
        )
    out = pd.Series(is_true, index=s.index, dtype="boolean")
    return out.mask(undecided & ~is_true & ~is_false)


def _row(rows: np.ndarray | None, pos: int) -> int:
    """The 1-based file row of position ``pos`` (``rows`` given by a streamed reader)."""
    return int(pos) + 1 if rows is None else int(rows[pos])


def _show(value: Any) -> str:
    """repr of a value for messages, numpy scalars as plain Python values."""
    return show_value(value)


def _check_duplicates(df: pd.DataFrame, where: str) -> None:
    """Refuse duplicate (system, task_id, trial) rows, naming the rows of the first group."""
    keys = ["system", "task_id", "trial"]
    dup = df.duplicated(keys, keep=False).to_numpy()
    if not dup.any():
        return
    first = df.iloc[int(np.flatnonzero(dup)[0])]
    same = (df[keys] == first[keys]).all(axis=1).to_numpy()
    rows = np.flatnonzero(same) + 1
    groups = int(df.loc[dup, keys].drop_duplicates().shape[0])
    raise ValidationError(
        f"{where}: duplicate (system, task_id, trial) = "
        f"({first['system']}, {first['task_id']}, {first['trial']}) at rows "
        f"{', '.join(map(str, rows[:10]))}{' ...' if len(rows) > 10 else ''} "
        f"({int(dup.sum())} rows in {groups} duplicate group(s)); duplicates are never summed"
    )


def finite_column(
    s: pd.Series, col: str, *, where: str, rows: np.ndarray | None = None
) -> pd.Series:
    """A numeric column (score, duration, cost) as float; text that is not a number, and
    infinite values, are errors naming the row. Missing values stay NaN.

    Examples
    --------
    >>> finite_column(pd.Series(["0.5", None]), "score", where="t").tolist()
    [0.5, nan]
    >>> finite_column(pd.Series([1.0, float("inf")]), "score", where="t")
    Traceback (most recent call last):
    ...
    passhat.errors.ValidationError: t: row 2: score inf is not a finite number
    """
    if pd.api.types.is_bool_dtype(s.dtype) or s.dtype.kind in "Mm":
        raise ValidationError(f"{where}: {col} is a {s.dtype} column, not numbers")
    num = s if pd.api.types.is_numeric_dtype(s.dtype) else to_numbers(s)
    num = num.astype(float)
    bad = num.isna().to_numpy() & s.notna().to_numpy()
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValidationError(
            f"{where}: row {_row(rows, row)}: {col} {_show(s.iloc[row])} is not a number"
        )
    inf = np.isinf(num.to_numpy())
    if inf.any():
        row = int(np.flatnonzero(inf)[0])
        raise ValidationError(
            f"{where}: row {_row(rows, row)}: {col} {_show(s.iloc[row])} is not a finite number"
        )
    return num


def coerce_trial(s: pd.Series, *, where: str, rows: np.ndarray | None = None) -> pd.Series:
    """Trial numbers as int64: whole numbers from 0 to 2^53 (text, floats such as ``3.0`` and
    integers accepted); anything else is an error naming the row.

    Examples
    --------
    >>> coerce_trial(pd.Series(["0", 1, 2.0]), where="t").tolist()
    [0, 1, 2]
    """
    check_scalar_column(s, "trial", where=where, rows=rows)
    if pd.api.types.is_bool_dtype(s.dtype):
        raise ValidationError(f"{where}: trial is a boolean column; trial must be a whole number")
    if pd.api.types.is_integer_dtype(s.dtype) and not isinstance(
        s.dtype, pd.api.extensions.ExtensionDtype
    ):
        t = s
        bad = ((t < 0) | (t > MAX_COUNT)).to_numpy()  # uint64 beyond 2^53 would wrap to int64
    else:
        t = to_numbers(s)
        if t.dtype == object:  # integers beyond int64 stay Python ints
            t = pd.to_numeric(t.map(safe_float), errors="coerce")
        tv = t.to_numpy(dtype=float, na_value=np.nan)
        bad = np.isnan(tv) | (tv != np.floor(tv)) | (tv < 0) | (tv > MAX_COUNT)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        v = s.iloc[row]
        what = (
            "is missing (a trial column needs a number in every row)"
            if pd.isna(v) is True  # scalars only: lists were refused above
            else f"{_show(v)} is not a non-negative whole number"
        )
        big = " up to 2^53" if _too_big(v) else ""
        raise ValidationError(f"{where}: row {_row(rows, row)}: trial {what}{big}")
    return t.astype(np.int64)


def _too_big(value: Any) -> bool:
    try:
        return safe_float(value) > MAX_COUNT
    except (TypeError, ValueError):
        return False


def counts_from_frame(df: pd.DataFrame, *, where: str | None = None) -> xr.Dataset:
    """Aggregate a validated trial frame to the count table (``where``: the file, for errors)."""
    at = f"{where}: " if where else ""
    sys_idx, sys_uniq = pd.factorize(df["system"], sort=False)  # in order of appearance
    task_idx, task_uniq = pd.factorize(df["task_id"], sort=False)
    systems, tasks = list(sys_uniq), list(task_uniq)
    shape = (len(systems), len(tasks))
    decided = df["success"].notna().to_numpy()
    succ = df["success"].fillna(False).to_numpy(dtype=bool)
    flat = sys_idx * len(tasks) + task_idx
    size = shape[0] * shape[1]
    n = np.bincount(flat, weights=decided, minlength=size).astype(np.int64).reshape(shape)
    c = np.bincount(flat, weights=succ & decided, minlength=size).astype(np.int64).reshape(shape)
    rows = np.bincount(flat, minlength=size).reshape(shape)
    unscored = rows - n
    ds = xr.Dataset(
        {
            "n": (("system", "task"), n),
            "c": (("system", "task"), c),
            "unscored": (("system", "task"), unscored),
            "present": (("system", "task"), rows > 0),
        },
        coords={"system": np.array(systems, dtype=object), "task": np.array(tasks, dtype=object)},
    )
    weight = np.ones(shape)
    if "weight" in df.columns and df["weight"].notna().any():  # an empty column declares none
        wt = df.groupby(["system", "task_id"], sort=False)["weight"].agg(["min", "max"])
        diff = wt[(wt["min"] != wt["max"]) | wt["min"].isna()]  # NaN: no run declares one
        if len(diff):
            (s, t), lo, hi = diff.index[0], diff["min"].iloc[0], diff["max"].iloc[0]
            raise ValidationError(
                f"{at}task {t!r} (system {s!r}): "
                + (f"runs declare different weights ({lo} and {hi})" if lo == lo else "no weight")
                + "; a weight belongs to a task, and a weight column needs one for every task"
            )
        w = np.full(shape, np.nan)
        si = pd.Index(systems).get_indexer(wt.index.get_level_values(0))
        ti = pd.Index(tasks).get_indexer(wt.index.get_level_values(1))
        w[si, ti] = wt["min"].to_numpy()
        weight = np.where(np.isnan(w), 1.0, w)
        ds.attrs["declared_weights"] = 1
    ds["weight"] = (("system", "task"), weight)
    if "cluster" in df.columns:
        ds = ds.assign_coords(cluster=("task", task_clusters(df, tasks, at=at)))
    for attr in ("category", "scenario_hash"):  # the task attributes besides the weight
        if attr in df.columns:
            by_task = df.groupby("task_id", sort=False)[attr]
            if attr == "category" and ((many := by_task.nunique()) > 1).any():  # no guessing
                t = many.index[np.flatnonzero(many.to_numpy() > 1)[0]]
                seen = sorted(map(str, by_task.get_group(t).dropna().unique()))
                raise ValidationError(
                    f"{at}task {t!r}: runs declare different categories "
                    f"({', '.join(map(repr, seen[:4]))}); a category belongs to a task"
                )
            per_task = by_task.agg(lambda x: x.dropna().iloc[0] if x.notna().any() else None)
            ds = ds.assign_coords({attr: ("task", per_task.reindex(tasks).to_numpy(dtype=object))})
    return ds


def task_clusters(df: pd.DataFrame, tasks: list[Any], *, at: str = "") -> np.ndarray:
    """Each task's one cluster (in the order of ``tasks``) from a trial frame's ``cluster``
    column: a task whose runs name two clusters, or a run with no cluster, is an error
    naming the task (a cluster is never guessed or filled in).

    Examples
    --------
    >>> import pandas as pd
    >>> from passhat.trials import task_clusters
    >>> df = pd.DataFrame({"task_id": ["a", "a", "b"], "cluster": ["r1", "r1", "r2"]})
    >>> task_clusters(df, ["a", "b"]).tolist()
    ['r1', 'r2']
    """
    col = df["cluster"]
    blank = col.isna().to_numpy() | (col.astype(str).str.strip() == "").to_numpy()
    if blank.any():
        row = int(np.flatnonzero(blank)[0])
        raise ValidationError(
            f"{at}task {_show(df['task_id'].iloc[row])}: a run has no cluster; "
            "with a cluster column every run names its task's cluster"
        )
    by_task = df.groupby("task_id", sort=False)["cluster"]
    many = by_task.nunique()
    if (many > 1).any():
        t = many.index[np.flatnonzero(many.to_numpy() > 1)[0]]
        seen = sorted(map(str, by_task.get_group(t).unique()))
        raise ValidationError(
            f"{at}task {_show(t)}: runs name different clusters "
            f"({', '.join(map(repr, seen[:4]))}); a task belongs to one cluster"
        )
    return by_task.first().reindex(tasks).to_numpy(dtype=object)


def counts_from_arrays(
    n: Any,
    c: Any,
    *,
    tasks: Any = None,
    system: str = DEFAULT_SYSTEM,
    weight: Any = None,
    category: Any = None,
    unscored: Any = None,
) -> xr.Dataset:
    """Build a one-system count table from arrays of n and c.

    Examples
    --------
    >>> import passhat as ph
    >>> ds = ph.counts_from_arrays([5, 5, 5, 5], [5, 4, 2, 0], tasks=list("ABCD"))
    >>> ds["c"].values.tolist()
    [[5, 4, 2, 0]]
    """
    per_task = {"tasks": tasks, "weight": weight, "category": category, "unscored": unscored}
    n_arr, c_arr = count_arrays(n, c, **per_task)
    task_ids = np.array(
        [str(t) for t in (tasks if tasks is not None else range(len(n_arr)))], dtype=object
    )
    data: dict[str, Any] = {
        "n": (("system", "task"), n_arr[None, :]),
        "c": (("system", "task"), c_arr[None, :]),
        "unscored": (
            ("system", "task"),
            np.zeros_like(n_arr)[None, :] if unscored is None else np.asarray(unscored)[None, :],
        ),
        "present": (("system", "task"), np.ones((1, len(n_arr)), dtype=bool)),
        "weight": (
            ("system", "task"),
            np.ones((1, len(n_arr))) if weight is None else np.asarray(weight, float)[None, :],
        ),
    }
    coords: dict[str, Any] = {"system": np.array([system], dtype=object), "task": task_ids}
    if category is not None:
        coords["category"] = ("task", np.asarray(category, dtype=object))
    ds = xr.Dataset(data, coords=coords)
    if weight is not None:
        ds.attrs["declared_weights"] = 1
    return validate_counts(ds)


def validate_counts(ds: xr.Dataset, *, where: str = "count table") -> xr.Dataset:
    """Check a count table: integer n, c, unscored; 0 ≤ c ≤ n; weights ≥ 0.

    Returns the dataset with integer dtypes. Raises :class:`CountError`
    naming the first offending task. Each part of a table (an array, the ``(n, c)`` pair, an id
    coordinate) is checked once while it is unchanged (:mod:`passhat._checked`): a table passed
    again, or derived from a checked one, costs a checksum of its arrays.
    """
    for var in ("n", "c"):
        if var not in ds:
            raise CountError(f"{where}: variable {var!r} is missing")
    parts = Parts(ds)
    known = parts.known
    if not {"system", "task"} <= known:
        check_unique_coords(ds, where)
    out = ds.copy()
    if "unscored" not in out:
        out["unscored"] = xr.zeros_like(out["n"])
    if "present" not in out:
        out["present"] = (out["n"] + out["unscored"]) > 0
    if "weight" not in out:
        out["weight"] = xr.ones_like(out["n"], dtype=float)
    for var in ("n", "c", "unscored"):
        if var not in known:
            _check_count(out, var, where)
        if out[var].dtype != np.int64:
            out[var] = out[var].astype(np.int64)
    if "nc" not in known:
        gt = out["c"].values > out["n"].values
        if gt.any():
            s, t = np.argwhere(gt)[0]
            raise CountError(
                f"{_cell(out, s, t, where)}: c = {int(out['c'].values[s, t])} successes exceeds "
                f"n = {int(out['n'].values[s, t])} decided runs"
            )
    w = np.asarray(out["weight"].values, dtype=float)
    if "weight" not in known and (~np.isfinite(w) | (w < 0)).any():
        s, t = np.argwhere(~np.isfinite(w) | (w < 0))[0]
        raise CountError(
            f"{where}: task {_show(out['task'].values[t])}: weight {_show(w[s, t])} is not a "
            "non-negative number"
        )
    if out["weight"].dtype != float:
        out["weight"] = out["weight"].astype(float)
    if out["present"].dtype != bool:
        out["present"] = out["present"].astype(bool)
    Parts(out, like=parts).remember()
    return out


def _cell(out: xr.Dataset, s: int, t: int, where: str) -> str:
    task, system = _show(out["task"].values[t]), _show(out["system"].values[s])
    return f"{where}: task {task} (system {system})"


def _check_count(out: xr.Dataset, var: str, where: str) -> None:
    """Refuse counts that are not whole, negative or beyond 2^53 (naming the first cell)."""
    raw = np.asarray(out[var].values)
    if raw.dtype.kind in "iu":  # integers: only the sign and the size can be wrong
        if raw.dtype.kind == "i" and (raw < 0).any():
            s, t = np.argwhere(raw < 0)[0]
            raise CountError(f"{_cell(out, s, t, where)}: {var} = {int(raw[s, t])} is negative")
        if (raw > MAX_COUNT).any():
            s, t = np.argwhere(raw > MAX_COUNT)[0]
            raise CountError(f"{_cell(out, s, t, where)}: {var} = {int(raw[s, t])} {_TOO_BIG}")
        return
    vals = np.asarray(raw, dtype=float)
    bad = ~np.isfinite(vals) | (vals != np.floor(vals))
    if bad.any():
        s, t = np.argwhere(bad)[0]
        raise CountError(
            f"{_cell(out, s, t, where)}: {var} = {_show(vals[s, t])} is not a whole number"
        )
    if (vals < 0).any():
        s, t = np.argwhere(vals < 0)[0]
        raise CountError(f"{_cell(out, s, t, where)}: {var} = {int(vals[s, t])} is negative")
    if (vals > MAX_COUNT).any():
        s, t = np.argwhere(vals > MAX_COUNT)[0]
        raise CountError(f"{_cell(out, s, t, where)}: {var} = {_show(vals[s, t])} {_TOO_BIG}")
