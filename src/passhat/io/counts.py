"""Count tables: one row per (system,) task with n decided runs and c successes.

Columns ``task_id, n, c`` and optionally ``system``, ``unscored``,
``weight``, ``category``; CSV, JSONL or Parquet.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from passhat._frames import safe_float, show_value, to_numbers
from passhat._ids import case_variant_notes, check_spaced_ids, clean_ids, missing_column
from passhat.errors import CountError, FormatError, PasshatError, ValidationError
from passhat.io import _sniff
from passhat.io._json import jsonl_objects, records_frame
from passhat.io._registry import register_reader
from passhat.io._scan import (
    delimiter,
    file_kind,
    header,
    is_gzip,
    na_except_ids,
    refuse_runs_and_counts,
    resolve_columns,
)
from passhat.io._system_column import system_name_ignored
from passhat.trials import DEFAULT_SYSTEM, MAX_COUNT, check_scalar_column, validate_counts

__all__ = ["counts_from_table", "read_count_table"]


def counts_from_table(df: pd.DataFrame, *, where: str = "count table") -> xr.Dataset:
    """Build the count table (an xarray Dataset) from rows of task_id, n, c."""
    if "task" in df.columns and "task_id" not in df.columns:
        df = df.rename(columns={"task": "task_id"})
    refuse_runs_and_counts(df.columns, where)  # a success column too: which layout is a guess
    for col in ("task_id", "n", "c"):
        if col not in df.columns:
            raise ValidationError(missing_column(where, col, df.columns))
    if len(df) == 0:
        raise ValidationError(f"{where}: no rows")
    df = df.copy()
    if "system" not in df.columns:
        df["system"] = DEFAULT_SYSTEM
    check_spaced_ids(df, where)  # ' a' and 'a': two tasks nobody can tell apart, as in trials
    for col in ("system", "task_id"):
        if df[col].isna().any():
            row = int(np.flatnonzero(df[col].isna().to_numpy())[0])
            raise ValidationError(f"{where}: row {row + 1}: {col} is missing")
        check_scalar_column(df[col], col, where=where)
        df[col] = clean_ids(df[col], column=col, where=where)
    for col in ("n", "c", "unscored", "weight"):
        if col not in df.columns:
            continue
        raw = df[col]
        if pd.api.types.is_bool_dtype(raw.dtype) or raw.dtype.kind in "Mm":
            raise CountError(f"{where}: {col} is a {raw.dtype} column, not numbers")
        num = to_numbers(raw)
        if num.dtype == object:  # whole numbers beyond int64 stay Python ints
            num = pd.to_numeric(num.map(safe_float), errors="coerce")
        vals = num.to_numpy(dtype=float, na_value=np.nan)
        bad = ~np.isfinite(vals)
        if col != "weight":
            bad |= (vals != np.floor(vals)) | (vals > MAX_COUNT)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            kind = "a number" if col == "weight" else "a whole number"
            value = raw.iloc[row]
            shown = _plain(value) if isinstance(value, np.generic) else show_value(value)
            what = (
                "is missing"
                if pd.isna(value)
                else f"= {_plain(value)} is too large (a count is at most 2^53)"
                if vals[row] > MAX_COUNT and (np.isfinite(vals[row]) or _is_int(value))
                else f"= {shown} is not {kind}"
            )
            raise CountError(
                f"{where}: row {row + 1} (task {df['task_id'].iloc[row]!r}): {col} {what}"
            )
        df[col] = num
    dup = df.duplicated(["system", "task_id"], keep=False)
    if dup.any():
        row = int(np.flatnonzero(dup.to_numpy())[0])
        task, system = df["task_id"].iloc[row], df["system"].iloc[row]
        same = (df["task_id"] == task) & (df["system"] == system)
        rows = ", ".join(str(r + 1) for r in np.flatnonzero(same.to_numpy())[:5])
        raise ValidationError(
            f"{where}: rows {rows}: task {task!r} (system {system!r}) appears more than "
            "once; counts are never summed"
        )
    si, sys_uniq = pd.factorize(df["system"], sort=False)  # in order of appearance
    ti, task_uniq = pd.factorize(df["task_id"], sort=False)
    systems, tasks = list(sys_uniq), list(task_uniq)
    shape = (len(systems), len(tasks))

    def grid(col: str, fill: float) -> np.ndarray:
        out = np.full(shape, fill, dtype=float)
        if col in df.columns:
            out[si, ti] = df[col].to_numpy(dtype=float)
        return out

    present = np.zeros(shape, dtype=bool)
    present[si, ti] = True
    ds = xr.Dataset(
        {
            "n": (("system", "task"), grid("n", 0)),
            "c": (("system", "task"), grid("c", 0)),
            "unscored": (("system", "task"), grid("unscored", 0)),
            "present": (("system", "task"), present),
            "weight": (("system", "task"), grid("weight", 1.0)),
        },
        coords={"system": np.array(systems, dtype=object), "task": np.array(tasks, dtype=object)},
    )
    if "weight" in df.columns:
        ds.attrs["declared_weights"] = 1
    if "category" in df.columns:
        cat = df.groupby("task_id", sort=False)["category"].first().reindex(tasks)
        ds = ds.assign_coords(category=("task", cat.to_numpy(dtype=object)))
    ds = validate_counts(ds, where=where)
    if case := case_variant_notes(systems):
        ds.attrs["notes"] = [*ds.attrs.get("notes", []), *case]
    return ds


def _is_int(value: Any) -> bool:
    """A whole number as read (a Python or numpy integer, not a float or text)."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _plain(value: Any) -> str:
    """A raw cell as written (a number's digits, not a float's rounding)."""
    if isinstance(value, np.generic):
        value = value.item()
    return str(value).strip() if isinstance(value, str) else show_value(value)


def read_count_table(path: Path, *, system_name: str | None = None, **options: Any) -> xr.Dataset:
    """Read a count table from CSV, JSONL or Parquet (``system_name``: when it has no system)."""
    if options:
        raise ValidationError(
            f"{path}: options {', '.join(sorted(options))} do not apply to a count table"
        )
    kind = file_kind(path) or "csv"
    header(path)  # duplicate column names refused
    try:
        if kind == "parquet":
            df = pd.read_parquet(path)
        elif kind == "jsonl":
            df = records_frame([obj for _, obj in jsonl_objects(path)])
        else:
            df = pd.read_csv(
                path,
                sep=delimiter(path),
                dtype=object,
                na_filter=False,  # a task named "NA" keeps its name (na_except_ids)
                encoding="utf-8-sig",
                compression="gzip" if is_gzip(path) else None,
            )
            fields = resolve_columns(list(df.columns), {}, where=str(path))
            df = na_except_ids(df, {s for s, f in fields.items() if f in ("system", "task_id")})
    except PasshatError:
        raise  # already names the file and the rule
    except (ValueError, pd.errors.ParserError) as err:
        raise FormatError(f"{path}: cannot read the count table ({err})") from err
    if "system" in df.columns:
        system_name_ignored(str(path), system_name)
    elif system_name is not None:
        df["system"] = system_name
    return counts_from_table(df, where=str(path))


register_reader("counts", read_count_table, sniff=_sniff.counts, kind="counts", priority=20)
