"""The plain estimate from a τ-bench file without pandas or xarray: a fast start for the CLI.

``passhat estimate --example tau-airline --k 1-4`` shows the benchmark table of one system
and no option but k. Building it through :class:`~passhat.trials.Trials` and the count table
costs the import of pandas and xarray, about three times the import of numpy, for a file of
a few hundred runs. This module counts such a file's runs with plain Python and computes the
table with the estimator's own numpy core (:func:`passhat.estimators.benchmark_values`),
shown with the words of :func:`passhat.estimate_view.values_view`.

It answers only where it can vouch for the answer: every run decided, ids and trial numbers
that the trial table's rules read unchanged (whole numbers, or printable ASCII text), no
duplicate (task, trial), no pass whose status says failure, every task with at least max(k)
runs. Anything else (:func:`plain_runs` returns None) goes the whole way, through
:func:`passhat.estimate`, whose reader and rules give the note or the error. The values
are the same numbers (tests/test_estimate_quick.py compares both on several inputs).

Examples
--------
>>> from passhat.examples import example_path
>>> counts = plain_runs(example_path("tau-airline"))
>>> counts.system, counts.n.size, int(counts.n.sum()), int(counts.c.sum())
('gpt-4o-airline', 50, 200, 84)
>>> plain_view(counts, k=[1, 2]).parts[0].frame.rows[1]
('gpt-4o-airline', '50', '200', '0', '2', '0.420', '0.567', '0.273')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from passhat._repr import Display
from passhat._status import FAILURE_STATUSES
from passhat._validate import norm_k
from passhat.errors import PasshatError
from passhat.estimate_view import values_view
from passhat.estimators import METRICS, benchmark_values
from passhat.io._json import file_stem
from passhat.io.tau_bench import tau_bench_runs

__all__ = ["PlainRuns", "plain_ks", "plain_runs", "plain_view"]


@dataclass(frozen=True)
class PlainRuns:
    """One system's decided runs and successes per task (in order of first appearance)."""

    system: str
    n: NDArray[np.int64]
    c: NDArray[np.int64]


def _plain_text(value: Any) -> bool:
    """Text an id rule leaves as it is: printable ASCII, not blank, no surrounding space."""
    return (
        isinstance(value, str)
        and value.isascii()
        and value.isprintable()
        and value.strip() == value
        and value != ""
    )


def _plain_ids(ids: Sequence[Any]) -> bool:
    """Ids all whole numbers (not booleans) or all plain text: one id, one task, as read."""
    if all(type(v) is int for v in ids):
        return True
    return all(_plain_text(v) for v in ids)


def plain_runs(path: Path) -> PlainRuns | None:
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
    if not all(type(t) is int and t >= 0 for t in trials):
        return None
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
    return PlainRuns(system, n, c.astype(np.int64))


def plain_ks(runs: PlainRuns, k: Sequence[int] | None) -> list[int] | None:
    """The k values (``None``: passhat's default, 1, 2, 5 capped at the fewest runs, as
    :func:`passhat.exclusions.default_ks`), or None when a task has fewer runs than the
    largest (:func:`passhat.estimate` names it)."""
    n_min = int(runs.n.min())
    if k is None:
        ks = sorted({*(v for v in (1, 2, 5) if v <= n_min), *([n_min] if n_min < 5 else [])})
    else:
        ks = norm_k(k)
    return ks if max(ks) <= n_min else None


def plain_view(runs: PlainRuns, *, k: Sequence[int] | None = None) -> Display | None:
    """The benchmark table of :func:`passhat.estimate` with equal weights and no intervals
    (``Estimate.view()``), or None where a task has fewer runs than the largest k."""
    ks = plain_ks(runs, k)
    if ks is None:
        return None
    n, c = runs.n[None, :], runs.c[None, :]
    values = benchmark_values(n, c, np.ones(n.shape), ks)
    rows = [
        (runs.system, int(runs.n.size), int(runs.n.sum()), 0, kv, values[0, ki].tolist())
        for ki, kv in enumerate(ks)
    ]
    return Display((values_view(rows, METRICS),))
