"""How results show themselves in a terminal and a notebook: tables of display text and lines.

Every result (:class:`~passhat.Estimate`, :class:`~passhat.Comparison`, :class:`~passhat.Fit`,
:class:`~passhat.plan.PlanResult`, …) builds one :class:`Display` of itself
(:meth:`passhat._result.Result.view`): a sequence of :class:`View` parts, each an optional
titled table followed by lines of text (always shown) and notes (left out by ``--quiet``).
That one display is what every surface shows:

* :func:`as_rich` for the terminal (the CLI prints it; rich is imported only here, when asked),
* :func:`as_html` for a notebook (``_repr_html_``),
* :func:`as_text` for ``repr`` and ``print``.

Names from the data are escaped in HTML, and control characters in them (ESC, NUL, a
right-to-left override, ...) are shown escaped everywhere (:func:`passhat._format.printable`),
so a result cannot drive the terminal.

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
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from passhat._format import pct, printable, short_names
from passhat._labels import METRIC_LABELS

if TYPE_CHECKING:  # pandas only where a table is built (a view of lines alone needs none)
    import pandas as pd

__all__ = [
    "LEFT",
    "MAX_ROWS",
    "Display",
    "TextTable",
    "View",
    "as_html",
    "as_rich",
    "as_text",
    "display",
    "interval_text",
    "metric_grid",
]

#: Rows shown before the middle of a long table is elided (all rows stay in the result).
MAX_ROWS = 30


#: Columns aligned left in a terminal table (names and words); every other column is aligned
#: right (numbers).
LEFT = frozenset({"system", "task", "metric", "baseline", "candidate", "category", "tool", "scope"})


@dataclass(frozen=True)
class TextTable:
    """A table of display text held without pandas: its column names and rows of cells.

    What a :class:`View` shows where building a DataFrame would cost more than the table
    (a command that imports no pandas); a terminal shows it as it shows a frame.

    Examples
    --------
    >>> t = TextTable(("system", "runs"), (("a", "3"),))
    >>> len(t), t.to_frame().values.tolist()
    (1, [['a', '3']])
    """

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def __len__(self) -> int:
        return len(self.rows)

    def to_frame(self) -> pd.DataFrame:
        """The table as a pandas DataFrame (every cell text)."""
        import pandas as pd

        return pd.DataFrame(list(self.rows), columns=list(self.columns))


@dataclass(frozen=True)
class View:
    """One part of what a result shows: a titled table of display text, then lines and notes.

    Parameters
    ----------
    title : str
        The table's title (the line above it).
    frame : pandas.DataFrame or TextTable, optional
        The table, every cell display text; None for a part that is only lines.
    notes : tuple of str
        Lines under the table that ``--quiet`` leaves out (method lines, notes).
    lines : tuple of str
        Lines under the table that are always shown (before the notes).
    left : frozenset of str
        Columns aligned left in a terminal (default :data:`LEFT`).
    no_wrap : bool
        Keep every cell on one line in a terminal.
    fold : bool
        In a terminal too narrow for a cell, fold it onto further lines (rather than cut it
        with an ellipsis).
    section_by : str, optional
        A column whose value, where it changes, starts a new section of the table (a rule
        between the rows in a terminal), e.g. one section per system.
    """

    title: str
    frame: pd.DataFrame | TextTable | None
    notes: tuple[str, ...] = ()
    lines: tuple[str, ...] = ()
    left: frozenset[str] = LEFT
    no_wrap: bool = False
    fold: bool = False
    section_by: str | None = None


@dataclass(frozen=True)
class Display:
    """What a result shows, in order: its parts, and the terminal width its tables need.

    Parameters
    ----------
    parts : tuple of View
        The parts, shown one after the other.
    min_width : int, optional
        On a terminal narrower than this, the CLI prints this wide anyway (wide tables).
    """

    parts: tuple[View, ...]
    min_width: int | None = None

    def quiet(self) -> Display:
        """The display without notes (what ``--quiet`` shows)."""
        return replace(self, parts=tuple(replace(p, notes=()) for p in self.parts))


def display(shown: View | Display | Sequence[View]) -> Display:
    """A :class:`Display` of one view, of several, or a display itself."""
    if isinstance(shown, Display):
        return shown
    if isinstance(shown, View):
        return Display((shown,))
    return Display(tuple(shown))


def _display(value: Any, *, keep_newlines: bool = False) -> str:
    """A string as shown: control characters escaped, a name over 160 characters cut to its
    start and end (:func:`passhat._format.short_names`; records and CSV keep it whole)."""
    return str(short_names(printable(value, keep_newlines=keep_newlines)))


def _as_frame(frame: pd.DataFrame | TextTable | None) -> pd.DataFrame | None:
    """The view's table as a DataFrame (text and HTML are written by pandas)."""
    return frame.to_frame() if isinstance(frame, TextTable) else frame


def _shown(view: View) -> View:
    """The view with every string (cells, column names, title, lines, notes) made printable."""
    frame = _as_frame(view.frame)
    if frame is not None:
        frame = frame.map(lambda v: _display(v) if isinstance(v, str) else v)
        frame.columns = [_display(c) for c in frame.columns]
    return replace(
        view,
        title=_display(view.title),
        frame=frame,
        notes=tuple(_display(n, keep_newlines=True) for n in view.notes),
        lines=tuple(_display(n, keep_newlines=True) for n in view.lines),
    )


def _text_part(view: View) -> list[str]:
    view = _shown(view)
    out = [view.title] if view.title else []
    frame = _as_frame(view.frame)
    if frame is not None:
        out.append(frame.to_string(index=False, max_rows=MAX_ROWS) if len(frame) else "(no rows)")
    return [*out, *view.lines, *view.notes]


def as_text(shown: View | Display | Sequence[View]) -> str:
    """The display as plain text (a result's ``__repr__``), control characters escaped."""
    return "\n".join(line for part in display(shown).parts for line in _text_part(part))


def _html_part(view: View) -> str:
    view = _shown(view)
    title = f"<p><strong>{html.escape(view.title)}</strong></p>" if view.title else ""
    table = ""
    frame = _as_frame(view.frame)
    if frame is not None:
        table = (
            frame.to_html(index=False, max_rows=MAX_ROWS, escape=True, border=0)
            if len(frame)
            else "<p>(no rows)</p>"
        )
    lines = "".join(f"<p>{html.escape(n)}</p>" for n in (*view.lines, *view.notes))
    return title + table + lines


def as_html(shown: View | Display | Sequence[View]) -> str:
    """The display as an HTML fragment (a result's ``_repr_html_``), every string escaped."""
    return "<div>" + "".join(_html_part(p) for p in display(shown).parts) + "</div>"


def _rich_table(view: View) -> Any:
    """A rich table of the view, every title, header and cell literal text."""
    import rich.table
    from rich.text import Text

    frame = view.frame
    table = rich.table.Table(title=Text(_display(view.title)) if view.title else None)
    for col in frame.columns if frame is not None else ():
        table.add_column(
            Text(_display(col)),
            justify="left" if str(col) in view.left else "right",
            no_wrap=view.no_wrap,
            overflow="fold" if view.fold else "ellipsis",
        )
    if isinstance(frame, TextTable):
        rows: list[Any] = list(frame.rows)
    else:
        rows = list(frame.itertuples(index=False)) if frame is not None else []
    cols = [str(c) for c in frame.columns] if frame is not None else []
    at = cols.index(view.section_by) if view.section_by in cols else None
    for i, row in enumerate(rows):
        end = at is not None and i + 1 < len(rows) and rows[i + 1][at] != row[at]
        table.add_row(
            *(Text(_display(v)) if isinstance(v, str) else Text(str(v)) for v in row),
            end_section=end,
        )
    return table


def as_rich(shown: View | Display | Sequence[View]) -> Any:
    """The display as a rich renderable (the terminal view the CLI prints): per part its table,
    then its lines and notes, every string literal (no markup, control characters escaped)."""
    from rich.console import Group
    from rich.text import Text

    items: list[Any] = []
    for part in display(shown).parts:
        if part.frame is not None:
            items.append(_rich_table(part))
        elif part.title:
            items.append(Text(_display(part.title, keep_newlines=True)))
        items.extend(Text(_display(n, keep_newlines=True)) for n in (*part.lines, *part.notes))
    return Group(*items)


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
    import pandas as pd

    t = table[table["metric"].isin(list(METRIC_LABELS))]
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
        row[METRIC_LABELS[str(r["metric"])]] = interval_text(r[value], lo, hi)
    cols = [
        "system",
        "k",
        *(c for c in ("tasks", *METRIC_LABELS.values()) if any(c in r for r in rows.values())),
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
