"""The benchmark table of an estimate without intervals, as display text (no pandas).

One row per (system, k): the system's tasks, runs and unscored runs, k, and each metric's
value. :meth:`passhat.Estimate.view` shows it, and so does the CLI's plain ``estimate``,
which builds it from counts without a DataFrame (:mod:`passhat.estimate_quick`); the words
and columns live here once.

Examples
--------
>>> v = values_view([("a", 4, 16, 0, 2, (0.5, 0.75, 0.25))], ("mean", "pass_at_k", "pass_hat_k"))
>>> v.frame.columns
('system', 'tasks', 'runs', 'unscored', 'k', 'mean', 'pass@k', 'pass^k')
>>> v.frame.rows[0]
('a', '4', '16', '0', '2', '0.500', '0.750', '0.250')
"""

from __future__ import annotations

from collections.abc import Sequence

from passhat._format import num
from passhat._labels import METRIC_LABELS
from passhat._repr import TextTable, View

__all__ = ["VALUES_TITLE", "ValuesRow", "values_notes", "values_table", "values_view"]

#: The title of the benchmark table without intervals.
VALUES_TITLE = "passhat estimate (unbiased per-task estimates, averaged over tasks)"

#: One row: system, tasks, runs, unscored runs, k, and the metrics' values in order.
ValuesRow = tuple[str, int, int, int, int, Sequence[float]]


def values_table(rows: Sequence[ValuesRow], metrics: Sequence[str]) -> TextTable:
    """The table of values, one row per (system, k); ``metrics`` name the values' columns."""
    cells = tuple(
        (str(system), str(tasks), str(runs), str(unscored), str(k), *(num(v) for v in values))
        for system, tasks, runs, unscored, k, values in rows
    )
    columns = ("system", "tasks", "runs", "unscored", "k", *(METRIC_LABELS[m] for m in metrics))
    return TextTable(columns, cells)


def values_notes(notes: Sequence[str], unscored_runs: int) -> tuple[str, ...]:
    """The estimate's notes, then the count of unscored runs (every system's) when there are
    any."""
    if not unscored_runs:
        return tuple(notes)
    return (
        *notes,
        f"{unscored_runs} unscored run(s) (no verdict: grader, harness or infrastructure "
        "error) are excluded from n.",
    )


def values_view(
    rows: Sequence[ValuesRow],
    metrics: Sequence[str],
    *,
    notes: Sequence[str] = (),
    unscored_runs: int = 0,
) -> View:
    """The table of values (:func:`values_table`) with its notes (:func:`values_notes`)."""
    return View(VALUES_TITLE, values_table(rows, metrics), notes=values_notes(notes, unscored_runs))
