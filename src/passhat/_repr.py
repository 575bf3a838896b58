"""How results show themselves in a terminal and a notebook: a title, a table, a few notes.

Each result class (:class:`~passhat.Estimate`, :class:`~passhat.Comparison`,
:class:`~passhat.Fit`, :class:`~passhat.plan.PlanResult`, …) builds a :class:`View` of
itself; :func:`as_text` gives its ``__repr__`` (what ``print`` and the REPL show) and
:func:`as_html` its ``_repr_html_`` (what Jupyter shows): a readable table instead of a
dataclass dump. Names from the data are escaped in HTML, and control characters in them
(ESC, NUL, a right-to-left override, ...) are shown escaped in both
(:func:`passhat._format.printable`), so a repr cannot drive the terminal.

Examples
--------
>>> import pandas as pd
>>> v = View("Runs", pd.DataFrame({"system": ["a<b>"], "runs": [3]}), ("one note",))
>>> print(as_text(v))
Runs
system  runs
  a<b>     3
one note
>>> "a&lt;b&gt;" in as_html(v)
True
>>> print(as_text(View("Runs", pd.DataFrame({"system": ["x\\x1b[31m"]}))).splitlines()[2])
x\\x1b[31m
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from passhat._format import pct, printable

__all__ = ["MAX_ROWS", "View", "as_html", "as_text", "interval_text", "metric_grid"]

#: Rows shown before the middle of a long table is elided (all rows stay in the result).
MAX_ROWS = 30

#: Labels of the metrics in the tables.
_LABELS = {"mean": "mean", "pass_at_k": "pass@k", "pass_hat_k": "pass^k"}


@dataclass(frozen=True)
class View:
    """What a result shows: a title line, a table of display text, notes under it."""

    title: str
    frame: pd.DataFrame
    notes: tuple[str, ...] = ()


def _shown(view: View) -> View:
    """The view with every string (cells, column names, title, notes) made printable."""
    frame = view.frame.map(lambda v: printable(v) if isinstance(v, str) else v)
    frame.columns = [printable(c) for c in frame.columns]
    notes = tuple(printable(n, keep_newlines=True) for n in view.notes)
    return View(printable(view.title), frame, notes)


def as_text(view: View) -> str:
    """The view as plain text (a result's ``__repr__``), control characters escaped."""
    view = _shown(view)
    body = view.frame.to_string(index=False, max_rows=MAX_ROWS) if len(view.frame) else "(no rows)"
    return "\n".join([view.title, body, *view.notes])


def as_html(view: View) -> str:
    """The view as an HTML fragment (a result's ``_repr_html_``), every string escaped."""
    view = _shown(view)
    table = (
        view.frame.to_html(index=False, max_rows=MAX_ROWS, escape=True, border=0)
        if len(view.frame)
        else "<p>(no rows)</p>"
    )
    notes = "".join(f"<p>{html.escape(n)}</p>" for n in view.notes)
    return f"<div><p><strong>{html.escape(view.title)}</strong></p>{table}{notes}</div>"


def _finite(x: Any) -> bool:
    try:
        return math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def interval_text(value: Any, lower: Any = None, upper: Any = None) -> str:
    """A share with its interval, ``63.7% (56.8–71.4%)``; the value alone without one.

    Examples
    --------
    >>> interval_text(0.637, 0.568, 0.714), interval_text(0.5)
    ('63.7% (56.8–71.4%)', '50.0%')
    """
    if not _finite(value):
        return "—"
    text = pct(float(value))
    if _finite(lower) and _finite(upper):
        text += f" ({float(lower) * 100:.1f}–{pct(float(upper))})"
    return text


def metric_grid(
    table: pd.DataFrame, *, value: str = "value", scope: str | None = "population"
) -> tuple[pd.DataFrame, list[str]]:
    """One row per (system, k), one column per metric, each cell the value (and interval).

    Parameters
    ----------
    table : pandas.DataFrame
        Tidy rows with system, k, metric, ``value`` and, when there are
        intervals, scope, lower, upper, method (an estimate's table or a fit's
        summary).
    value : str
        The column of the point value.
    scope : str, optional
        The scope whose intervals are shown.

    Returns
    -------
    (pandas.DataFrame, list of str)
        The grid, and the interval methods shown (for a note).

    Examples
    --------
    >>> import passhat as ph
    >>> grid, methods = metric_grid(ph.estimate(ph.load_example("abcd"), k=2).table)
    >>> grid.columns.tolist(), grid["pass^k"].tolist(), methods
    (['system', 'k', 'tasks', 'mean', 'pass@k', 'pass^k'], ['42.5%'], [])
    """
    t = table[table["metric"].isin(list(_LABELS))]
    if scope is not None and "scope" in t.columns:
        t = t[t["scope"] == scope]
    has_iv = {"lower", "upper"} <= set(t.columns)
    rows: dict[tuple[str, int], dict[str, str]] = {}
    for r in t.to_dict(orient="records"):
        key = (str(r["system"]), int(r["k"]))
        row = rows.setdefault(key, {"system": key[0], "k": str(key[1])})
        if "tasks" in r and _finite(r["tasks"]):
            row.setdefault("tasks", str(int(r["tasks"])))
        lo, hi = (r.get("lower"), r.get("upper")) if has_iv else (None, None)
        row[_LABELS[str(r["metric"])]] = interval_text(r[value], lo, hi)
    cols = [
        "system",
        "k",
        *(c for c in ("tasks", *_LABELS.values()) if any(c in r for r in rows.values())),
    ]
    grid = pd.DataFrame(list(rows.values()), columns=cols).fillna("—")
    methods: list[str] = []
    if has_iv and "method" in t.columns:
        methods = [str(m) for m in pd.unique(t["method"].dropna())]
    return grid, methods


def joined(items: Sequence[Any], limit: int = 8) -> str:
    """Items joined with commas, the rest counted: ``a, b, c and 5 more``."""
    items = [str(i) for i in items]
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f" and {len(items) - limit} more"
