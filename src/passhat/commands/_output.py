"""How every command prints: tables and text that show names literally, and CSV or JSON.

* :func:`make_console` gives a rich console that never reads text as markup (a system named ``[/x]``
  or ``[red]t2[/red]`` is printed as it is, a ``[link=…]`` is no hyperlink), never turns
  ``:smile:`` into an emoji, and shows control characters escaped (``\\x1b``, ``\\u202e``) so
  that names cannot move the cursor, recolour or retitle the terminal; a name longer than 160
  characters is shown by its start and end (CSV and JSON keep it whole). When stdout is not a
  terminal (a pipe, a CI log) it never wraps: a table keeps each row on one line.
* :class:`Table` is rich's table with every cell, header and title shown literally.
* :func:`echo` is ``click.echo`` for text holding names.
* :func:`emit_json` writes a payload as JSON (floats without last-bit noise: 0.42, not
  0.42000000000000004); :func:`table_output` adds ``--csv`` to a command, which then writes
  the main table of that same payload as CSV.

Examples
--------
>>> import io
>>> from passhat.commands._output import Table
>>> out = io.StringIO()
>>> c = make_console(file=out)
>>> t = Table(title="runs")
>>> t.add_column("system")
>>> t.add_row("[red]t2[/red]\\x1b]8;;x\\x07")
>>> c.print(t)
>>> "[red]t2[/red]\\\\x1b]8;;x\\\\x07" in out.getvalue()
True
"""

from __future__ import annotations

import contextvars
import csv
import functools
import io
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import click

from passhat._format import jsonable, printable, short_names
from passhat._repr import Display, View, as_rich, display
from passhat._result import Records, Result
from passhat.errors import OptionError

if TYPE_CHECKING:  # rich loads when something is printed (not for --help or --json)
    from passhat.commands._rich import Table

__all__ = [
    "Records",
    "Table",
    "echo",
    "emit",
    "emit_csv",
    "emit_json",
    "emit_paper",
    "make_console",
    "show",
    "table_output",
]

#: Width of a console whose output is not a terminal: wide enough that nothing wraps.
PIPE_WIDTH = 10_000

# The keys of the payload that ``--csv`` writes, while a command runs with ``--csv``.
_CSV_KEYS: contextvars.ContextVar[tuple[str | tuple[str, ...], ...] | None] = (
    contextvars.ContextVar("passhat_csv_keys", default=None)
)


def make_console(*, min_width: int | None = None, stderr: bool = False, file: Any = None) -> Any:
    """The console a command prints with (see the module's docstring).

    Parameters
    ----------
    min_width : int, optional
        On a terminal narrower than this, print this wide anyway (wide tables).
    stderr : bool
        Print to stderr.
    file : file-like, optional
        Print there instead (tests).
    """
    from passhat.commands._rich import LiteralConsole as _LiteralConsole

    opts: dict[str, Any] = {"markup": False, "emoji": False, "highlight": False}
    probe = _LiteralConsole(stderr=stderr, file=file, **opts)
    if not probe.is_terminal:
        return _LiteralConsole(stderr=stderr, file=file, width=PIPE_WIDTH, **opts)
    if min_width is not None and probe.width < min_width:
        return _LiteralConsole(stderr=stderr, file=file, width=min_width, **opts)
    return probe


def echo(message: Any = "", *, err: bool = False) -> None:
    """``click.echo`` of a message that may hold names: control characters shown escaped.

    Examples
    --------
    >>> echo("system v1\\x1b[2J")
    system v1\\x1b[2J
    """
    click.echo(short_names(printable(message, keep_newlines=True)), err=err)


def show(shown: Result | View | Display, *, quiet: bool = False, stderr: bool = False) -> None:
    """Print a result's view (or a display) in the terminal: its tables, lines and notes
    (``quiet``: no notes), every name literal.

    Examples
    --------
    >>> import pandas as pd
    >>> show(View("runs", pd.DataFrame({"system": ["[red]a[/red]"]}), notes=("a note",)))
    ... # doctest: +NORMALIZE_WHITESPACE
    runs
    ┏━━━━━━━━━━━━━━┓
    ┃ system       ┃
    ┡━━━━━━━━━━━━━━┩
    │ [red]a[/red] │
    └──────────────┘
    a note
    """
    disp = display(shown.view() if isinstance(shown, Result) else shown)
    if quiet:
        disp = disp.quiet()
    make_console(min_width=disp.min_width, stderr=stderr).print(as_rich(disp))


def __getattr__(name: str) -> Any:
    """:class:`Table` (rich's table, shown literally), loaded with rich on first use."""
    if name == "Table":
        from passhat.commands._rich import Table

        return Table
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def emit_paper(result: Result, paper: str, **options: Any) -> None:
    """Write a result's table for papers to stdout: LaTeX (``paper="latex"``) or Markdown
    (``"markdown"``); ``options`` as for :meth:`~passhat._result.Result.to_latex`."""
    text = result.to_latex(**options) if paper == "latex" else result.to_markdown(**options)
    click.echo(text, nl=False)


# --------------------------------------------------------------- JSON and CSV
def emit(result: Result) -> None:
    """Write a result's JSON document (:meth:`~passhat._result.Result.to_dict`) to stdout, or
    under ``--csv`` its main table as CSV."""
    emit_json(result.to_dict())


def emit_json(payload: dict[str, Any]) -> None:
    """Write a JSON document to stdout (or, under ``--csv``, its main table as CSV).

    Numbers pass through :func:`passhat._format.jsonable`: NaN → null, floats rounded to 12
    significant digits. Names are written exactly (JSON escapes control characters).
    """
    keys = _CSV_KEYS.get()
    if keys is not None:
        emit_csv(_csv_rows(payload, keys))
        return
    click.echo(json.dumps(jsonable(payload), indent=2, sort_keys=False))


#: Keys of a JSON document's header, left out of the one-row CSV of a document without a table.
_HEADER = ("schema", "schema_version", "passhat_version")


def _stacked(payload: dict[str, Any], keys: tuple[str, ...]) -> list[dict[str, Any]] | None:
    """The record lists of ``keys`` as one table (None unless every key holds one): the rows
    in the order of ``keys``, the columns of the widest table first, then any others; a
    column a table lacks is empty in its rows.

    Examples
    --------
    >>> rows = _stacked({"all": [{"s": "a"}], "by": [{"g": "x", "s": "a"}]}, ("all", "by"))
    >>> rows.columns, list(rows)
    (['g', 's'], [{'s': 'a'}, {'g': 'x', 's': 'a'}])
    """
    tables: list[list[dict[str, Any]]] = []
    for key in keys:
        table = payload.get(key)
        if not isinstance(table, list):
            return None
        tables.append(table)
    heads: list[tuple[str, ...]] = [
        tuple(getattr(t, "columns", ()) or (t[0] if t else ())) for t in tables
    ]
    columns = dict.fromkeys(sorted(heads, key=len, reverse=True)[0])
    for head in heads:
        columns.update(dict.fromkeys(head))
    return Records([r for t in tables for r in t], columns=tuple(columns))


def _csv_rows(
    payload: dict[str, Any], keys: Sequence[str | tuple[str, ...]]
) -> list[dict[str, Any]]:
    """The rows ``--csv`` writes: the first of ``keys`` in the payload (a list of records; a
    mapping of such lists, tagged by key; or one record; a tuple of keys: their record lists
    as one table, :func:`_stacked`), else the payload as one row."""
    for key in keys:
        if isinstance(key, tuple):
            if (stacked := _stacked(payload, key)) is not None:
                return stacked
            continue
        value = payload.get(key)
        if value is None:
            continue
        if isinstance(value, list):
            rows = [r if isinstance(r, dict) else {key: r} for r in value]
            return Records(rows, columns=getattr(value, "columns", ()))
        if isinstance(value, dict) and value and all(isinstance(v, list) for v in value.values()):
            return [{key: name, **r} for name, rows in value.items() for r in rows]
        if isinstance(value, dict):
            return [value]
    return [{k: v for k, v in payload.items() if k not in _HEADER}]


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, list | tuple | dict):
        return printable(json.dumps(jsonable(value), ensure_ascii=False))
    if isinstance(value, str):
        return printable(value)
    return jsonable(value)


def emit_csv(rows: Sequence[dict[str, Any]]) -> None:
    """Write records as CSV to stdout: one header line (the union of the records' keys, in order
    of appearance, after the table's columns when ``rows`` are :class:`Records`), empty cells for
    missing values, names with control characters escaped as in the tables, nested values as
    JSON. No records: the header alone when the columns are known (an empty batch is still a
    table), else nothing.

    Examples
    --------
    >>> emit_csv([{"system": "a,b", "value": 0.1 + 0.2}, {"system": "c", "lower": None}])
    system,value,lower
    "a,b",0.3,
    c,,
    """
    columns: dict[str, None] = dict.fromkeys(getattr(rows, "columns", ()))
    if not rows and not columns:  # no rows, no columns known: nothing to write
        return
    for r in rows:
        columns.update(dict.fromkeys(map(str, r)))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for r in rows:
        cells = {str(k): v for k, v in r.items()}
        writer.writerow([_cell(cells.get(c)) for c in columns])
    click.echo(buf.getvalue(), nl=False)


def table_output(
    *keys: str | tuple[str, ...],
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Add ``--csv`` to a command that has ``--json``: the command runs its JSON path, and the
    first of ``keys`` found in its payload is written as CSV instead of the JSON document.

    Examples
    --------
    >>> @click.command()
    ... @click.option("--json", "as_json", is_flag=True)
    ... @table_output("rows")
    ... def cmd(as_json: bool) -> None:
    ...     emit_json({"rows": [{"task": "t1", "rate": 0.5}]}) if as_json else echo("table")
    >>> from click.testing import CliRunner
    >>> print(CliRunner().invoke(cmd, ["--csv"]).output.strip())
    task,rate
    t1,0.5
    """

    def deco(f: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(f)
        def wrapper(*args: Any, as_csv: bool = False, **kwargs: Any) -> Any:
            if not as_csv:
                return f(*args, **kwargs)
            if kwargs.get("as_json"):
                raise OptionError("--csv and --json: choose one")
            kwargs["as_json"] = True
            token = _CSV_KEYS.set(keys)
            try:
                return f(*args, **kwargs)
            finally:
                _CSV_KEYS.reset(token)

        return click.option(
            "--csv",
            "as_csv",
            is_flag=True,
            help="The main table as CSV on stdout (the rows of --json).",
        )(wrapper)

    return deco
