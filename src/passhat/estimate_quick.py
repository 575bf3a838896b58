"""The plain estimate of a small file without pandas or xarray: a fast start for the CLI.

``passhat estimate --example tau-airline --k 1-4`` shows the benchmark table with no option
but k. Building it through :class:`~passhat.trials.Trials` and the count table costs the
import of pandas and xarray, about three times the import of numpy, for a file of a few
hundred runs. This module counts a τ-bench file's runs (:func:`plain_runs`), or reads a count
table written as plain CSV (:func:`plain_count_csv`), with plain Python, and computes the
table with the estimator's own numpy core (:func:`passhat.estimators.benchmark_values`),
shown with the words of :func:`passhat.estimate_view.values_view`.

It answers only where it can vouch for the answer: every run decided, ids and trial numbers
that the readers' rules read unchanged (whole numbers, or printable ASCII text), no
duplicate run or task, no pass whose status says failure, no system names differing only
in case, every task with at least max(k) runs. Anything else (None) goes the whole way,
through :func:`passhat.estimate`, whose reader and rules give the note or the error. The
values are the same numbers (tests/test_estimate_quick.py compares both on several inputs).

Examples
--------
>>> from passhat.examples import example_path
>>> counts = plain_runs(example_path("tau-airline"))
>>> counts.systems, counts.n.shape, int(counts.n.sum()), int(counts.c.sum())
(('gpt-4o-airline',), (1, 50), 200, 84)
>>> plain_view(counts, k=[1, 2]).parts[0].frame.rows[1]
('gpt-4o-airline', '50', '200', '0', '2', '0.420', '0.567', '0.273')
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from passhat._labels import DEFAULT_SYSTEM
from passhat._repr import Display
from passhat._status import FAILURE_STATUSES
from passhat._validate import norm_k
from passhat.errors import PasshatError
from passhat.estimate_view import values_view
from passhat.estimators import METRICS, benchmark_values
from passhat.io._json import file_stem
from passhat.io.tau_bench import tau_bench_runs

__all__ = [
    "MAX_PLAIN_BYTES",
    "PlainCounts",
    "plain_count_csv",
    "plain_ks",
    "plain_runs",
    "plain_runs_csv",
    "plain_view",
]


@dataclass(frozen=True)
class PlainCounts:
    """Decided runs n and successes c over (system, task), systems and tasks in order of
    first appearance, and which system ran which task (``present``)."""

    systems: tuple[str, ...]
    n: NDArray[np.int64]
    c: NDArray[np.int64]
    present: NDArray[np.bool_]


def _plain_text(value: Any) -> bool:
    """Text an id rule leaves as it is: printable ASCII, not blank, no surrounding space, no
    quote."""
    return (
        isinstance(value, str)
        and value.isascii()
        and value.isprintable()
        and value.strip() == value
        and value != ""
        and '"' not in value
    )


def _plain_ids(ids: Sequence[Any]) -> bool:
    """Ids all whole numbers (not booleans) or all plain text: one id, one task, as read."""
    if all(type(v) is int for v in ids):
        return True
    return all(_plain_text(v) for v in ids)


#: The largest trial number the trial table reads (``passhat.trials.MAX_COUNT``, without pandas).
_MAX_TRIAL = 2**53


def plain_runs(path: Path) -> PlainCounts | None:
    """The runs of a τ-bench file counted per task, or None where :func:`passhat.estimate`
    must read it (an unscored run, an id or trial it would read differently, a duplicate run,
    a pass with a failure status, a file it would refuse: its reader says why)."""
    try:
        runs = tau_bench_runs(path)
    except (PasshatError, OSError, RecursionError, ValueError):
        return None  # the whole reader raises its error, or reads what this one cannot
    system = file_stem(path)
    tasks = [r["task_id"] for r in runs]
    trials = [r["trial"] for r in runs]
    if not runs or not _plain_text(system) or not _plain_ids(tasks):
        return None
    if not all(type(t) is int and 0 <= t <= _MAX_TRIAL for t in trials):
        return None  # the trial table's rule: whole numbers from 0 to 2^53
    if len(set(zip(tasks, trials, strict=True))) != len(runs):
        return None  # duplicate runs: the trial table's error names them
    success = [r["success"] for r in runs]
    if not all(type(s) is bool for s in success):
        return None  # unscored runs: a note, and the count in the table's notes
    failing = (str(r["status"]).casefold() in FAILURE_STATUSES for r in runs)
    if any(s and f for s, f in zip(success, failing, strict=True)):
        return None  # a pass whose status says failure: a note
    order = {t: i for i, t in enumerate(dict.fromkeys(tasks))}
    at = np.fromiter((order[t] for t in tasks), dtype=np.int64, count=len(tasks))
    n = np.bincount(at, minlength=len(order)).astype(np.int64)
    c = np.bincount(at, weights=np.asarray(success, dtype=float), minlength=len(order))
    grid = (1, len(order))
    return PlainCounts(
        (system,), n.reshape(grid), c.astype(np.int64).reshape(grid), np.ones(grid, dtype=bool)
    )


#: A count or trial number in a plain CSV: digits only.
_COUNT = re.compile(r"[0-9]{1,15}")

#: The columns of a plain count table (in any order), with and without a system column.
_COUNT_COLUMNS = ({"task_id", "n", "c"}, {"system", "task_id", "n", "c"})

#: The columns of a plain CSV of runs (in any order): task and verdict, system and trial.
_RUN_COLUMNS = (
    {"task_id", "success"},
    {"system", "task_id", "success"},
    {"task_id", "trial", "success"},
    {"system", "task_id", "trial", "success"},
)

#: Verdicts a plain CSV of runs may write (the trial table reads every one as it is).
_VERDICTS = {"1": True, "true": True, "True": True, "0": False, "false": False, "False": False}

#: Larger CSV files go the whole way (a columnar reader; large tidy files stream).
MAX_PLAIN_BYTES = 1 << 20


def _csv_rows(path: Path, layouts: Sequence[set[str]]) -> list[dict[str, str]] | None:
    """A CSV file's rows by column name, or None unless it is plain: at most
    :data:`MAX_PLAIN_BYTES`, UTF-8 (a byte-order mark allowed), ``\\n`` line ends, no quote,
    no blank line, its columns one of ``layouts``."""
    try:
        with open(path, "rb") as fh:  # builtins.open, as the readers (and their tests) use
            raw = fh.read(MAX_PLAIN_BYTES + 1)
        if len(raw) > MAX_PLAIN_BYTES:
            return None
        text = raw.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) < 2 or any(ch in text for ch in '"\r\x00'):
        return None
    names = lines[0].split(",")
    if len(set(names)) != len(names) or set(names) not in layouts:
        return None
    rows = [line.split(",") for line in lines[1:]]
    if any(len(row) != len(names) for row in rows):
        return None  # a blank line, or a row of other width
    return [dict(zip(names, row, strict=True)) for row in rows]


def _plain_table(
    path: Path, layouts: Sequence[set[str]]
) -> tuple[list[dict[str, str]], list[str], list[str]] | None:
    """A plain CSV's rows (:func:`_csv_rows`) with each row's system (the default system
    without a system column) and task, or None unless the ids are plain (:func:`_plain_ids`)."""
    rows = _csv_rows(path, layouts)
    if rows is None:
        return None
    systems = [r.get("system", DEFAULT_SYSTEM) for r in rows]
    tasks = [r["task_id"] for r in rows]
    if not (_plain_ids(systems) and _plain_ids(tasks)):
        return None
    return rows, systems, tasks


def _grid(
    systems: Sequence[str], tasks: Sequence[str], n_c: Sequence[tuple[int, int]]
) -> PlainCounts | None:
    """The (system, task) grid of counts, one (n, c) per row of a system and task; None for
    system names that differ only in case (a note) or a task given twice (an error)."""
    names = list(dict.fromkeys(systems))
    if len({s.casefold() for s in names}) != len(names):
        return None  # "GPT" and "gpt": a note
    if len(set(zip(systems, tasks, strict=True))) != len(n_c):
        return None  # a task twice: an error
    si = {s: i for i, s in enumerate(names)}
    ti = {t: i for i, t in enumerate(dict.fromkeys(tasks))}
    shape = (len(si), len(ti))
    n, c = np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=np.int64)
    present = np.zeros(shape, dtype=bool)
    for s, t, (nv, cv) in zip(systems, tasks, n_c, strict=True):
        n[si[s], ti[t]], c[si[s], ti[t]], present[si[s], ti[t]] = nv, cv, True
    return PlainCounts(tuple(names), n, c, present)


def plain_runs_csv(path: Path) -> PlainCounts | None:
    """A CSV of runs (``task_id, success``, optionally ``system`` and ``trial``) written
    plainly, counted per (system, task); None where the CSV reader must read it (other
    columns, which it may read as the system or a status; quoting; a verdict it reads as
    missing or as a word; a duplicate run; ids or trials it reads differently)."""
    table = _plain_table(path, _RUN_COLUMNS)
    if table is None:
        return None
    rows, systems, tasks = table
    if any(r["success"] not in _VERDICTS for r in rows):
        return None
    if "trial" in rows[0]:
        trials = [r["trial"] for r in rows]
        if not all(_COUNT.fullmatch(t) for t in trials):
            return None
        if len(set(zip(systems, tasks, map(int, trials), strict=True))) != len(rows):
            return None  # a run twice: an error
    cells: dict[tuple[str, str], list[int]] = {}
    for s, t, r in zip(systems, tasks, rows, strict=True):
        n_c = cells.setdefault((s, t), [0, 0])
        n_c[0] += 1
        n_c[1] += _VERDICTS[r["success"]]
    keys = list(cells)
    return _grid([s for s, _ in keys], [t for _, t in keys], [(n, c) for n, c in cells.values()])


def plain_count_csv(path: Path) -> PlainCounts | None:
    """A count table (``task_id, n, c``, optionally ``system``) written as plain CSV, or None
    where the count-table reader must read it (quoting, other columns, ids it reads
    differently, a duplicate task, n = 0, c > n, system names differing only in case)."""
    table = _plain_table(path, _COUNT_COLUMNS)
    if table is None:
        return None
    rows, systems, tasks = table
    if not all(_COUNT.fullmatch(r["n"]) and _COUNT.fullmatch(r["c"]) for r in rows):
        return None
    n_c = [(int(r["n"]), int(r["c"])) for r in rows]
    if any(n == 0 or c > n for n, c in n_c):
        return None  # a task without a decided run (a note), or an error
    return _grid(systems, tasks, n_c)


def plain_ks(counts: PlainCounts, k: Sequence[int] | None) -> list[int] | None:
    """The k values (``None``: passhat's default, 1, 2, 5 capped at the fewest runs, as
    :func:`passhat.exclusions.default_ks`), or None when a task has fewer runs than the
    largest (:func:`passhat.estimate` names it)."""
    n_min = int(counts.n[counts.present].min())
    if k is None:
        ks = sorted({*(v for v in (1, 2, 5) if v <= n_min), *([n_min] if n_min < 5 else [])})
    else:
        ks = norm_k(k)
    return ks if max(ks) <= n_min else None


def plain_view(counts: PlainCounts, *, k: Sequence[int] | None = None) -> Display | None:
    """The benchmark table of :func:`passhat.estimate` with equal weights and no intervals
    (``Estimate.view()``), or None where a task has fewer runs than the largest k."""
    ks = plain_ks(counts, k)
    if ks is None:
        return None
    weights = counts.present.astype(float)
    values = benchmark_values(counts.n, counts.c, weights, ks)
    tasks, runs = counts.present.sum(axis=1), np.where(counts.present, counts.n, 0).sum(axis=1)
    rows = [
        (name, int(tasks[s]), int(runs[s]), 0, kv, values[s, ki].tolist())
        for s, name in enumerate(counts.systems)
        for ki, kv in enumerate(ks)
    ]
    return Display((values_view(rows, METRICS),))
