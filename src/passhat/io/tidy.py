"""Tidy trial tables: CSV, JSONL and Parquet, with a column map.

Columns are the data model's (``system, task_id, trial, success, status,
score, category, cluster, weight, scenario_hash, duration_s, cost``); map other names
with keyword options, e.g. ``task="question_id", success="passed"``. A
numeric reward column becomes success with ``threshold``:
``success = score >= threshold``. A table that maps no system column but has
a column splitting every task's runs into groups (``model``, ``agent``, …)
has that column read as the system, with a note, or is refused with the fix
(:mod:`passhat.io._system_column`): two systems never merge silently.
"""

from __future__ import annotations

import contextlib
import gzip
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from passhat._frames import to_numbers
from passhat.errors import FormatError, ValidationError
from passhat.io import _sniff
from passhat.io._json import damaged_gzip, jsonl_objects, not_utf8, records_frame
from passhat.io._registry import readers, register_reader
from passhat.io._scan import (
    _open_text,
    delimiter,
    header,
    is_gzip,
    na_except_ids,
    resolve_columns,
)
from passhat.io._scores import missing_success
from passhat.io._sniff import is_count_schema
from passhat.io._system_column import (
    find_system_column,
    system_column_note,
    system_name_ignored,
)
from passhat.trials import OPTIONAL, REQUIRED, Trials, check_scalar_column

__all__ = [
    "frame_to_trials",
    "is_count_schema",
    "read_csv",
    "read_jsonl",
    "read_parquet",
    "resolve_columns",
]


def frame_to_trials(
    df: pd.DataFrame,
    *,
    where: str,
    threshold: float | None = None,
    system_name: str | None = None,
    **column_map: str,
) -> Trials:
    """Rename mapped columns, derive success from a score, and validate.

    Parameters
    ----------
    df : pandas.DataFrame
        The raw table.
    where : str
        Name for error messages.
    threshold : float, optional
        With a numeric ``score`` (or a numeric ``success``) column: success is
        ``score >= threshold``; missing scores stay undecided.
    system_name : str, optional
        System name when the table has no system column.
    **column_map
        ``task="question_id"`` etc.: data-model field = source column.
    """
    original = [str(c).strip() for c in df.columns]
    df = df.set_axis(
        list(resolve_columns(list(df.columns), column_map, where=where).values()), axis=1
    )
    if threshold is not None:
        if not isinstance(threshold, int | float | np.number) or not np.isfinite(threshold):
            raise ValidationError(
                f"{where}: threshold must be a finite number, e.g. 0.5 (got {threshold!r})"
            )
        score_col = (
            "score" if "score" in df.columns else "success" if "success" in df.columns else None
        )
        if score_col is None:
            raise ValidationError(f"{where}: threshold given but there is no score column")
        score = to_numbers(df[score_col])
        bad = score.isna() & df[score_col].notna()
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise ValidationError(
                f"{where}: row {row + 1}: {score_col} {df[score_col].iloc[row]!r} is not a "
                f"number (threshold={threshold} needs numeric scores)"
            )
        df["score"] = score
        df["success"] = pd.Series(score >= threshold, dtype="boolean").where(score.notna())
    elif "success" not in df.columns and "score" in df.columns:
        raise ValidationError(
            f"{where}: no success column, only a score column; give threshold= (--threshold), "
            "e.g. --threshold 1 (success = score ≥ 1)"
        )
    elif "success" not in df.columns:  # the file's own column names, and a numeric one to read
        raise ValidationError(missing_success(where, original, _numeric_ranges(df, original)))
    if "system" in df.columns:
        system_name_ignored(where, system_name)
    for col in ("system", "task_id"):  # lists or dates as ids are refused before any grouping
        if col in df.columns:
            check_scalar_column(df[col], col, where=where)
    found = _system_column(df, where, system_name)
    system_col = found[0] if found else None
    if system_col is not None:
        df = df.rename(columns={system_col: "system"})
        check_scalar_column(df["system"], "system", where=where)
    if system_name is not None and "system" not in df.columns:
        df["system"] = system_name
    trials = Trials.from_frame(df, where=where)  # ' a' and 'a' are refused there
    if found is not None:
        _note_system_column(trials, *found)
    return trials


def _numeric_ranges(df: pd.DataFrame, names: list[str]) -> dict[str, tuple[float, float]]:
    """(min, max) of each column (by its name in the file) that is not a data-model field and
    holds only numbers (missing cells allowed), for the missing-success hint."""
    out: dict[str, tuple[float, float]] = {}
    for pos, name in enumerate(names):
        if df.columns[pos] in (*REQUIRED, *OPTIONAL):
            continue
        col = df.iloc[:, pos]
        x = to_numbers(col)
        if x.notna().any() and bool((x.notna() | col.isna()).all()):
            out[name] = (float(x.min()), float(x.max()))
    return out


def _system_column(
    df: pd.DataFrame, where: str, system_name: str | None
) -> tuple[str, list[str]] | None:
    """The unmapped column read as the system (see :mod:`passhat.io._system_column`)."""
    if system_name is not None or "system" in df.columns or "task_id" not in df.columns:
        return None
    return find_system_column(df, where=where, ignore=(*REQUIRED, *OPTIONAL))


def _note_system_column(trials: Trials, col: str, also: list[str]) -> None:
    trials.source.update({"system_from": f"column {col!r}", "system_column": col})
    trials.notes.append(system_column_note(col, trials.systems, also))


def read_csv(path: Path, **options: Any) -> Trials:
    """Read a CSV trial table (``.tsv``: tab-separated; gzip-compressed files too)."""
    header(path)  # duplicate column names are refused before pandas renames them "x.1"
    try:
        df = pd.read_csv(
            path,
            sep=delimiter(path),
            dtype=object,
            na_filter=False,  # NA words are read below, not in the id columns
            encoding="utf-8-sig",
            compression="gzip" if is_gzip(path) else None,
        )
    except pd.errors.EmptyDataError as err:
        raise FormatError(f"{path}: the file is empty") from err
    except pd.errors.ParserError as err:
        raise FormatError(f"{path}: not valid CSV ({err})") from err
    except UnicodeDecodeError as err:
        raise not_utf8(path) from err
    except (EOFError, zlib.error, gzip.BadGzipFile) as err:  # the stream breaks off past the head
        raise damaged_gzip(path, err) from err
    if len(df.columns) < 2 and len(df) == 0:
        raise FormatError(f"{path}: no rows")
    _check_row_widths(path)
    cmap = {k: v for k, v in options.items() if k not in ("threshold", "system_name")}
    fields = resolve_columns(list(df.columns), cmap, where=str(path))
    df = na_except_ids(df, {src for src, f in fields.items() if f in ("system", "task_id")})
    return frame_to_trials(df, where=str(path), **options)


def _check_row_widths(path: Path) -> None:
    """Refuse a CSV row with more or fewer fields than the header, as the out-of-core reader
    does: pandas fills a short row with missing values (an unscored run nobody wrote) and reads
    an extra field of the first row as an index (shifting every column). Arrow parses the
    field counts only, so the check costs a fraction of the read; the csv module names the
    row when there is one."""
    import pyarrow as pa
    from pyarrow import csv as pcsv

    sep = delimiter(path)
    parse = pcsv.ParseOptions(delimiter=sep, newlines_in_values=True)
    with gzip.open(path, "rb") if is_gzip(path) else open(path, "rb") as raw:
        try:
            pcsv.read_csv(
                raw, parse_options=parse, convert_options=pcsv.ConvertOptions(include_columns=[])
            )
        except pa.ArrowInvalid as err:
            import csv

            where = "a row's fields do not match the header"
            with _open_text(path) as fh, contextlib.suppress(csv.Error):  # a field over 128 KiB
                rows = csv.reader(fh, delimiter=sep)
                width = len(next(rows, []))
                where = next(
                    (f"row {i} has {len(r)} fields, the header {width}"
                     for i, r in enumerate(rows, start=1) if r and len(r) != width),
                    where,
                )  # fmt: skip
            raise FormatError(f"{path}: {where} ({err}); fix the file") from err


def _jsonl_records(path: Path) -> list[dict[str, Any]]:
    records = [obj for _, obj in jsonl_objects(path)]
    if not records:
        raise FormatError(f"{path}: the file has no records")
    return records


def read_jsonl(path: Path, **options: Any) -> Trials:
    """Read a JSON-lines trial table (one object per line)."""
    df = records_frame(_jsonl_records(path))
    return frame_to_trials(df, where=str(path), **options)


def read_parquet(path: Path, **options: Any) -> Trials:
    """Read a Parquet trial table (list, struct and date/time columns are refused as ids)."""
    header(path)
    try:
        df = pd.read_parquet(path)
    except Exception as err:  # pyarrow raises several types
        raise FormatError(f"{path}: not a readable Parquet file ({err})") from err
    return frame_to_trials(df, where=str(path), **options)


def _stream(path: Path, **options: Any) -> Any:
    from passhat.io.aggregate import aggregate_counts

    return aggregate_counts(path, **options)


def _claims(reader: Any, path: Path) -> bool:
    try:
        return bool(reader.sniff(path, ""))
    except Exception:  # a sniffer that cannot tell says no, as in the registry
        return False


def _table_dir(kinds: tuple[str, ...]) -> Callable[[Path], bool]:
    """A directory of part files of these kinds, and not one a framework's reader claims (an
    Inspect log directory, a HELM suite, ...: a stray table below it is not the runs)."""

    def test(path: Path) -> bool:
        return _sniff.dataset_of(path, kinds) and not any(
            _claims(r, path) for r in readers(("trials",)) if r.stream is None
        )

    return test


def _register(name: str, read: Any, file_sniff: Any, kinds: tuple[str, ...], prio: int) -> None:
    sniff = _sniff.with_directories(file_sniff, _table_dir(kinds))
    register_reader(name, read, sniff=sniff, priority=prio, stream=_stream)


_register("csv", read_csv, _sniff.tabular_csv, ("csv", "tsv"), 80)
_register("jsonl", read_jsonl, _sniff.jsonl, ("jsonl",), 80)
_register("parquet", read_parquet, _sniff.parquet, ("parquet",), 10)
