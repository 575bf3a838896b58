"""Trial rows → count table out of core: tidy files, directories and globs scanned in batches.

:func:`aggregate_counts` reads a tidy trial source (CSV, TSV, JSON lines or
Parquet; gzip-compressed text; a directory of part files; a glob) batch by
batch and adds each batch's runs, decided runs and successes to the count
table. Memory follows the number of (system, task) pairs, not of rows: a
batch is dropped once it is counted.

Every rule of the in-memory reader (:func:`passhat.io.tidy.frame_to_trials`,
:meth:`passhat.Trials.from_frame`) holds, checked on each batch's distinct
values so that its cost follows the tasks: the column map and threshold,
boolean-like success values, unscored statuses (never in n), whole
non-negative trial numbers, finite scores, one weight per task, NFC ids
without invisible characters, ids that differ only by surrounding spaces, and
**duplicate (system, task_id, trial) rows** — found with a bitmap of trial
numbers per (system, task) (a sorted spill to temporary files when trial
numbers are too sparse for it). Errors name the file and the row. Nothing is
dropped: undecided runs are counted in ``unscored``.

Two systems in one unmapped column never merge: with no system column and no
``system_name``, the unmapped columns are followed as the batches pass
(:mod:`passhat.io._system_column`'s rule, on what :mod:`passhat.io._system_scan`
gathers), and a column such as ``model`` that splits every task's runs is read as
the system — the files are counted a second time with it, and a note says so
(``attrs["notes"]``) — or the table is refused with the fix, as in memory.
Mapping the system column (``system="model"``) skips the check and the second pass.

With ``scheduler=`` the files are counted on a dask cluster (one task per group
of files, each the same scan) and the partial tables are added on the client.

Examples
--------
>>> import tempfile, os
>>> d = tempfile.mkdtemp()
>>> _ = open(os.path.join(d, "runs.csv"), "w").write(
...     "task_id,trial,success,status\\na,0,1,ok\\na,1,0,timeout\\nb,0,,grader_error\\n")
>>> ds = aggregate_counts(os.path.join(d, "runs.csv"))
>>> ds["n"].values.tolist(), ds["c"].values.tolist(), ds["unscored"].values.tolist()
([[2, 0]], [[1, 0]], [[0, 1]])
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr
from numpy.typing import NDArray

from passhat._ids import missing_column
from passhat.errors import DependencyError, FormatError, OptionError, ValidationError
from passhat.io._countgrid import FIELDS, Counts, Ids
from passhat.io._scan import (
    batches,
    file_kind,
    header,
    resolve_columns,
    source_files,
    unread_note,
)
from passhat.io._scores import missing_success
from passhat.io._system_column import is_candidate_name, system_column_note, system_name_ignored
from passhat.io._system_scan import SystemScan
from passhat.trials import validate_counts

__all__ = ["CONNECT_TIMEOUT", "aggregate_counts"]

#: Seconds to wait for a dask scheduler before giving up.
CONNECT_TIMEOUT = 10


# ----------------------------------------------------------------- the plan of a file
def _plan(path: Path, opts: dict[str, Any], column_map: dict[str, str]) -> dict[str, str]:
    """Data-model field → source column of one file, with the in-memory reader's checks."""
    where = str(path)
    names = header(path)
    mapping = resolve_columns(names, column_map, where=where)
    plan = {target: src for src, target in mapping.items() if target in FIELDS}
    if "system" in plan:
        system_name_ignored(where, opts.get("system_name"))
    threshold = opts.get("threshold")
    if threshold is not None:
        if not isinstance(threshold, int | float | np.number) or not np.isfinite(threshold):
            raise ValidationError(
                f"{where}: threshold must be a finite number, e.g. 0.5 (got {threshold!r})"
            )
        if "score" not in plan and "success" not in plan:
            raise ValidationError(f"{where}: threshold given but there is no score column")
    elif "success" not in plan and "score" in plan:
        raise ValidationError(
            f"{where}: no success column, only a score column; give threshold= (--threshold), "
            "e.g. --threshold 1 (success = score ≥ 1)"
        )
    if "task_id" not in plan:
        raise ValidationError(missing_column(where, "task_id", names, field="task"))
    if "success" not in plan and threshold is None:  # suggested by name: values not read yet
        raise ValidationError(missing_success(where, [str(c).strip() for c in names]))
    return plan


def _candidates(
    path: Path, opts: dict[str, Any], column_map: dict[str, str], plan: dict[str, str]
) -> dict[str, str]:
    """Unmapped columns that may hold the system (name after the map → source column), when
    the file maps no system column and no ``system_name`` is given (as the in-memory reader)."""
    if opts.get("system_name") is not None or "system" in plan:
        return {}
    mapping = resolve_columns(header(path), column_map, where=str(path))
    return {
        target: src
        for src, target in mapping.items()
        if target not in FIELDS and is_candidate_name(target)
    }


def _scan(
    files: Sequence[Path], opts: dict[str, Any], column_map: dict[str, str]
) -> tuple[Counts, SystemScan | None]:
    acc = Counts()
    scan: SystemScan | None = None
    for path in files:
        plan = _plan(path, opts, column_map)
        extra = _candidates(path, opts, column_map, plan)
        if extra:
            scan = scan or SystemScan({})
            scan.extend(extra)
            acc.defer_duplicates = True
        wanted = list(dict.fromkeys([*plan.values(), *extra.values()]))
        ids = [plan[f] for f in ("system", "task_id") if f in plan]
        for batch in batches(path, wanted, batch_rows=opts["batch_rows"], ids=ids):
            tasks = acc.add(batch, plan, opts)
            if scan is not None:
                scan.add(batch, tasks, extra)
    return acc, scan


def _count(
    files: list[Path],
    opts: dict[str, Any],
    column_map: dict[str, str],
    scheduler: str | None,
    where: str,
) -> tuple[Counts, tuple[str, list[str]] | None]:
    """Count the files; when an unmapped column holds the systems (the in-memory reader's
    rule), count them again with that column as the system."""
    if scheduler is None:
        acc, scan = _scan(files, opts, column_map)
    else:
        acc, scan = _scan_on_cluster(files, opts, column_map, scheduler)
    found = None
    if scan is not None:
        n_tasks = len(acc.tasks.names)
        found = scan.decide(
            acc.sums["rows"][: len(acc.systems.names), :n_tasks].sum(axis=0),
            where=where,
            trial_apart=lambda: bool(acc.has_trial) and acc.duplicate_error(where) is None,
        )
    if found is not None:
        remap = {**column_map, "system": found[0]}
        return _count(files, opts, remap, scheduler, where)[0], found
    return acc, found


def aggregate_counts(
    source: str | Path,
    *,
    format: str | None = None,
    threshold: float | None = None,
    system_name: str | None = None,
    batch_rows: int = 1 << 20,
    scheduler: str | None = None,
    **column_map: str,
) -> xr.Dataset:
    """Count the runs of a tidy trial source without holding its rows.

    Parameters
    ----------
    source : str or Path
        A CSV / TSV (``.gz`` too), JSON-lines or Parquet file; a directory of such
        files (a partitioned dataset, hidden and ``_``-prefixed files skipped); or a
        glob pattern such as ``"logs/part-*.parquet"``.
    format : str, optional
        ``csv``, ``tsv``, ``jsonl`` or ``parquet`` (default: from the file names).
    threshold : float, optional
        Success is ``score >= threshold`` (as in :func:`passhat.read_trials`).
    system_name : str, optional
        The system when the files have no system column.
    batch_rows : int
        Rows per batch: memory per batch is about 100 bytes a row.
    scheduler : str, optional
        A dask scheduler address (``tcp://host:8786``) or ``"local"`` (a local
        cluster of 2 workers): count groups of files there, add the partial tables
        here. The workers must see the same paths.
    **column_map
        ``task="question_id"`` etc., as for :func:`passhat.read_trials`.

    Returns
    -------
    xarray.Dataset
        The count table (``n``, ``c``, ``unscored``, ``present``, ``weight``, task
        coordinates), the same as ``read_trials(...).counts()`` would give;
        ``attrs["source_rows"]`` is the number of rows counted.

    Raises
    ------
    ValidationError, FormatError
        Any rule of the in-memory reader, naming the file and row.

    Examples
    --------
    See the module docstring.
    """
    files = source_files(source)
    files, empty = _without_empty_parts(source, files)
    if format is not None:
        fmt = format.lower()
        if fmt not in ("csv", "tsv", "jsonl", "parquet"):
            raise OptionError(
                f"{source}: out-of-core counting reads csv, tsv, jsonl and parquet (got {format!r})"
            )
        kinds = {file_kind(f) or "csv" for f in files}
        if kinds - {fmt, "csv"} and not (fmt == "csv" and kinds <= {"csv", "tsv"}):
            raise FormatError(f"{source}: format={format!r} but the files are {', '.join(kinds)}")
    if not isinstance(batch_rows, int) or batch_rows < 1:
        raise OptionError(f"batch_rows must be a whole number ≥ 1 (got {batch_rows!r})")
    opts = {"threshold": threshold, "system_name": system_name, "batch_rows": batch_rows}
    column_map = {k: v for k, v in column_map.items() if v is not None}
    where = str(source)
    acc, found = _count(files, opts, column_map, scheduler, where)
    ds = validate_counts(acc.finish(where), where=where)
    ds.attrs.update(
        {
            "source_path": where,
            "source_format": file_kind(files[0]) or "csv",
            "source_files": len(files),
            "source_rows": acc.rows,
        }
    )
    if empty:
        shown = ", ".join(str(f) for f in empty[:5]) + (" ..." if len(empty) > 5 else "")
        ds.attrs["notes"] = [
            *ds.attrs.get("notes", []),
            f"{len(empty)} empty part file(s) hold no rows and were skipped: {shown}",
        ]
        ds.attrs["source_empty_files"] = len(empty)
    root = Path(source)
    if root.is_dir():
        unread = unread_note(
            root, [*files, *empty], tables_only=False, what="csv, tsv, jsonl or parquet parts"
        )
        if unread:
            ds.attrs["notes"] = [*ds.attrs.get("notes", []), unread]
    if found is not None:
        col, also = found
        ds.attrs.update({"source_system_from": f"column {col!r}", "source_system_column": col})
        ds.attrs["notes"] = [
            system_column_note(col, list(ds["system"].values), also),
            *ds.attrs.get("notes", []),
        ]
    return ds


def _without_empty_parts(source: str | Path, files: list[Path]) -> tuple[list[Path], list[Path]]:
    """A dataset's part files that hold something, and those that are empty (0 bytes or only
    blank lines, as a writer leaves for an empty partition): those are skipped and named in a
    note. A single file, or a dataset of empty files only, is the readers' to refuse."""
    if len(files) < 2:
        return files, []
    empty = [f for f in files if _is_empty(f)]
    if len(empty) == len(files):
        raise FormatError(f"{source}: every one of its {len(files)} data files is empty")
    skip = set(empty)
    return [f for f in files if f not in skip], empty


def _is_empty(path: Path) -> bool:
    size = path.stat().st_size
    if size == 0:
        return True
    if size > 4096 or file_kind(path) == "parquet":
        return False
    import gzip

    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError):
            return False  # damaged: the reader says so
    return not raw.decode("utf-8", errors="replace").removeprefix("\ufeff").strip()


# ----------------------------------------------------------------- dask
def _scan_part(
    files: list[str], opts: dict[str, Any], column_map: dict[str, str]
) -> tuple[Counts, SystemScan | None]:
    acc, scan = _scan([Path(f) for f in files], opts, column_map)
    if acc.spill is not None:
        raise FormatError(
            f"{files[0]}: trial numbers are too sparse for the distributed duplicate check "
            "(a bitmap of trial numbers per task); number trials from 0, or count without a "
            "scheduler"
        )
    return acc, scan


def _remap(total: Ids, part: Ids) -> NDArray[np.int64]:
    """A part's ids added to the total (where each was first seen, and whether as a number, kept
    for the checks); the map of the part's codes to the total's."""
    seen = [part.first_seen(x) for x in part.names]
    codes = [
        total.add(x, w, r, number=num) for x, (num, w, r) in zip(part.names, seen, strict=True)
    ]
    return np.array(codes, dtype=np.int64)


def _merge(into: Counts, part: Counts, where: str) -> NDArray[np.int64]:
    """Add one worker's partial table to the total (ids remapped, duplicates across parts);
    the map of the part's task codes to the total's is returned."""
    s_map, t_map = _remap(into.systems, part.systems), _remap(into.tasks, part.tasks)
    into._fit()
    S, T = len(part.systems.names), len(part.tasks.names)
    ii, jj = np.meshgrid(s_map, t_map, indexing="ij")
    for k in ("rows", "n", "c"):
        into.sums[k][ii, jj] += part.sums[k][:S, :T]
    into.wmin[ii, jj] = np.minimum(into.wmin[ii, jj], part.wmin[:S, :T])
    into.wmax[ii, jj] = np.maximum(into.wmax[ii, jj], part.wmax[:S, :T])
    into.weights |= part.weights
    for flag, (count, statuses) in part.flags.items():  # the status notes' counts
        total, seen = into.flags[flag]
        into.flags[flag] = (total + count, seen | statuses)
    if None not in (into.has_trial, part.has_trial) and into.has_trial != part.has_trial:
        raise FormatError(f"{where}: some files have a trial column and others have none")
    into.has_trial = part.has_trial if into.has_trial is None else into.has_trial
    for attr, vals in part.attrs.items():
        mine = into.attrs.setdefault(attr, np.full(into.cap[1], None, dtype=object))
        unset = np.array([mine[j] is None for j in t_map], dtype=bool)
        mine[t_map[unset]] = vals[:T][unset]
    if part.bits is not None:
        w = part.bits.shape[2]
        if into.bits is None:
            into.bits = np.zeros((*into.cap, w), dtype=np.uint64)
        if into.bits.shape[2] < w:
            grown = np.zeros((*into.cap, w), dtype=np.uint64)
            grown[:, :, : into.bits.shape[2]] = into.bits
            into.bits = grown
        mine_bits = into.bits[ii, jj, :w]
        clash = mine_bits & part.bits[:S, :T]
        if clash.any():
            i, j, word = np.argwhere(clash)[0]
            bit = int(clash[i, j, word]).bit_length() - 1
            err = ValidationError(
                f"{where}: duplicate (system, task_id, trial) = ({part.systems.names[i]}, "
                f"{part.tasks.names[j]}, {word * 64 + bit}) in two files; duplicates are never "
                "summed"
            )
            if not into.defer_duplicates:
                raise err
            into.deferred = into.deferred or err
        into.bits[ii, jj, :w] = mine_bits | part.bits[:S, :T]
    into.rows += part.rows
    return t_map


def _scan_on_cluster(
    files: list[Path], opts: dict[str, Any], column_map: dict[str, str], scheduler: str
) -> tuple[Counts, SystemScan | None]:
    try:
        from distributed import Client, LocalCluster
    except ImportError as err:  # pragma: no cover - dask is in the dev/dask extras
        raise DependencyError(
            "a dask scheduler needs distributed: pip install 'passhat[dask]'"
        ) from err
    cluster = None
    if scheduler == "local":
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
        client = Client(cluster)
    else:
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (ValueError, TypeError, OSError) as err:
            raise OptionError(
                f"scheduler {scheduler!r}: cannot connect ({err}); give a dask scheduler "
                "address like tcp://host:8786, or 'local'"
            ) from err
    try:
        workers = max(len(client.scheduler_info().get("workers", {})), 1)
        groups = np.array_split(np.array([str(f) for f in files], dtype=object), workers * 4)
        futures = [
            client.submit(_scan_part, list(g), opts, column_map, pure=False)
            for g in groups
            if len(g)
        ]
        total, scan = Counts(), None
        for fut in futures:  # in file order, so ids keep their order of first appearance
            part, part_scan = fut.result()
            if part_scan is not None or part.deferred is not None:
                total.defer_duplicates = True
            total.deferred = total.deferred or part.deferred
            t_map = _merge(total, part, str(files[0].parent))
            if part_scan is not None:
                scan = scan or SystemScan({})
                scan.merge(part_scan, t_map)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return total, scan
