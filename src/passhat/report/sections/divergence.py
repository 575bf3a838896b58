"""Section 7, "Where failing runs diverge": each failing run's divergence point, from traces.

:func:`divergence_section` writes the section from the report's divergence: the one
:func:`passhat.report.build.trace_divergence` computed from traces of the same runs, or any
object with a ``table`` (and ``by_action``) frame given to the report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from passhat._format import plural, short
from passhat.report.document import Column, Section, Table, frame_rows, frame_table

if TYPE_CHECKING:
    from passhat.report.results import ReportResults

__all__ = [
    "DIVERGENCE_COLUMNS",
    "MAX_DIVERGENCE_ROWS",
    "call_text",
    "divergence_section",
]

#: Columns of the traces module's divergence table shown in the report, when present.
DIVERGENCE_COLUMNS = {
    "system": ("System", "str"),
    "task_id": ("Task", "str"),
    "trial": ("Failing run", "int"),
    "step": ("Step", "int"),
    "kind": ("What differs", "str"),
    "failing_action": ("Failing run does", "str"),
    "passing_actions": ("Passing runs do", "str"),
    "termination": ("Ends by", "str"),
}
MAX_DIVERGENCE_ROWS = 100
DIVERGENCE_TITLE = "7. Where failing runs diverge"


#: Characters of one tool call (name and arguments) in the table; the same for both sides.
CALL_CHARS = 80
#: Passing runs' calls shown per row (the rest are counted).
MAX_PASSING_CALLS = 3


def call_text(action: Any, args: Any = None) -> str:
    """One tool call as the table shows it, ``name(arguments)``, cut to :data:`CALL_CHARS`.

    The failing run's call is written like the passing runs' (whose calls
    arrive as ``name(arguments)`` already); the end of a run reads as such.

    Examples
    --------
    >>> call_text("get_user", '{"id":1}'), call_text('get_user({"id":1})'), call_text("<end>")
    ('get_user({"id":1})', 'get_user({"id":1})', '(the run ends)')
    """
    if not isinstance(action, str) or action == "<end>":
        return "(the run ends)"
    text = f"{action}({args})" if isinstance(args, str) else action
    return str(short(text, CALL_CHARS))


def _passing_text(calls: Any) -> str:
    if not isinstance(calls, list | tuple) or not calls:
        return "—"
    shown = [call_text(c) for c in calls[:MAX_PASSING_CALLS]]
    more = len(calls) - MAX_PASSING_CALLS
    return "; ".join(shown) + (f"; +{more} more" if more > 0 else "")


def _run_table(table: pd.DataFrame) -> Table:
    n_total = len(table)
    table = table.head(MAX_DIVERGENCE_ROWS)
    calls = {}
    if {"failing_action", "passing_actions"} <= set(table.columns):
        args = table["failing_args"] if "failing_args" in table.columns else None
        calls["failing_action"] = [
            call_text(a, None if args is None else args.iloc[i])
            for i, a in enumerate(table["failing_action"])
        ]
        calls["passing_actions"] = [_passing_text(p) for p in table["passing_actions"]]
    table = table.drop(columns=list(calls)).map(short).assign(**calls)
    cols = [c for c in DIVERGENCE_COLUMNS if c in table.columns]
    if "system" in cols and table["system"].nunique() == 1:
        cols.remove("system")  # one system: the column says nothing
    if len(cols) < 4:
        return frame_table(
            table,
            id="divergence_table",
            caption="Divergence point of each failing run of a flaky task",
        )
    return Table(
        id="divergence_table",
        caption="Divergence point of each failing run of a flaky task",
        columns=[
            Column(c, DIVERGENCE_COLUMNS[c][0], DIVERGENCE_COLUMNS[c][1])  # type: ignore[arg-type]
            for c in cols
        ],
        rows=frame_rows(table[cols]),
        note=" ".join(
            x
            for x in (
                "Calls are written name(arguments) on both sides; the passing runs' first "
                f"{MAX_PASSING_CALLS} calls at the point are shown."
                if calls
                else "",
                f"{n_total - MAX_DIVERGENCE_ROWS} more rows in the traces output."
                if n_total > MAX_DIVERGENCE_ROWS
                else "",
            )
            if x
        ),
    )


def divergence_section(results: ReportResults) -> Section:
    """The divergence section, from the report's divergence: any object with a ``table`` (and
    ``by_action``) frame.

    Parameters
    ----------
    results : ReportResults
        The report's results: their ``divergence`` (its ``table``, one row per failing run,
        ``by_action``, runs per marker action, and optional ``sentences`` are shown) and,
        when it was computed from traces, what the traces held (without a tool call there is
        nothing to align: the section is skipped and says so).

    Returns
    -------
    Section
        Id ``divergence``.

    Examples
    --------
    >>> import pandas as pd, passhat as ph
    >>> from passhat.report.build import compute_results
    >>> class Div:
    ...     table = pd.DataFrame({"task_id": ["t1"], "trial": [2], "step": [3], "kind": ["skips"]})
    ...     by_action = None
    >>> res = compute_results(ph.load_example("abcd"), k=[1], divergence=Div(), n_boot=200,
    ...                       model=False, plan=False)
    >>> divergence_section(res).tables[0].id
    'divergence_table'
    """
    divergence, counts = results.divergence, results.trace_counts
    if counts is not None and counts.tool_calls == 0:
        return Section(
            id="divergence",
            title=DIVERGENCE_TITLE,
            status="skipped",
            note=f"No tool calls to align: none of the {counts.trials} run(s) in the "
            "traces made a tool call, and a divergence point is where a failing run's tool "
            "calls leave those of the passing runs.",
        )
    tables = []
    sentences = list(getattr(divergence, "sentences", []) or [])
    table = getattr(divergence, "table", None)
    if isinstance(table, pd.DataFrame) and len(table):
        tables.append(_run_table(table))
        if not sentences and "kind" in table.columns:
            kinds = table["kind"].value_counts()
            sentences.append(
                f"{len(table)} failing run(s) of flaky tasks were aligned against the passing "
                "runs of the same task. How the failing run departs at its divergence point: "
                + ", ".join(f"{kind} {n}" for kind, n in kinds.items())
                + "."
            )
    by_action = getattr(divergence, "by_action", None)
    if isinstance(by_action, pd.DataFrame) and len(by_action):
        tables.append(
            frame_table(
                by_action.head(20).map(short),
                id="divergence_by_action",
                caption="Actions that most often mark the divergence",
                formats={"share": "pct"},
                labels={
                    "action": "Action",
                    "stage": "Stage",
                    "runs": "Failing runs",
                    "tasks": "Tasks",
                    "share": "Share of failing runs",
                    "kinds": "How the failing runs depart",
                },
            )
        )
        if "action" in by_action.columns and "share" in by_action.columns:
            sentences.append(_top_sentence(by_action.iloc[0], table, results))
    return Section(
        id="divergence",
        title=DIVERGENCE_TITLE,
        sentences=sentences
        or ["The earliest point where each failing run does something no passing run does."],
        tables=tables,
        note="A divergence point is a diagnostic lead, not proof of cause: check the arguments "
        "and observations, then test a fix.",
    )


def _top_sentence(top: Any, table: Any, results: ReportResults) -> str:
    """The most frequent divergence point with its denominators: the failing runs that have a
    divergence point (its share is of those), the tasks they come from, and every failing run
    of the systems traced.

    Examples
    --------
    >>> import pandas as pd, passhat as ph
    >>> from passhat.report.build import compute_results
    >>> res = compute_results(ph.load_example("abcd"), k=[1], n_boot=200, model=False,
    ...                       plan=False)
    >>> top = pd.Series({"action": "pay", "runs": 3, "share": 0.5})
    >>> table = pd.DataFrame({"system": "seed-example", "task_id": list("aabbcc"),
    ...                       "kind": ["skips"] * 6})
    >>> print(_top_sentence(top, table, res))  # doctest: +NORMALIZE_WHITESPACE
    The most frequent divergence point is pay: 3 of the 6 failing runs with a divergence
    point (50%), from 3 tasks with mixed outcomes; the runs hold 9 failing runs in all
    (a task that always fails has no passing run to align with).
    """
    runs, share = int(top["runs"]), float(top["share"])
    head = f"The most frequent divergence point is {top['action']}"
    if not isinstance(table, pd.DataFrame) or "kind" not in table.columns:
        return f"{head} ({share:.0%} of the failing runs with a divergence point)."
    hit = table[table["kind"] != "none"]
    text = (
        f"{head}: {runs} of the {len(hit)} failing runs with a divergence point ({share:.0%}), "
        f"from {plural(int(hit['task_id'].nunique()), 'task')} with mixed outcomes"
    )
    ds = results.counts_all
    systems = [s for s in ds["system"].values if "system" not in hit or s in set(hit["system"])]
    if systems:
        part = ds.sel(system=systems)
        failing = int((part["n"] - part["c"]).sum())
        text += (
            f"; the runs hold {failing} failing runs in all (a task that always fails has no "
            "passing run to align with)"
        )
    return text + "."
