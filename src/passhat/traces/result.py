"""The result of :func:`passhat.divergence`: where failing runs diverge, and what it shows.

:class:`Divergence` is frozen and shows itself one way (``passhat traces``, a notebook and
``repr``): each failing run's divergence point, the points by tool and by stage, and notes on
what was left out. :class:`TraceInput` records what the traces held (the tasks chosen, how
many runs and tool calls, what the reader excluded), so that the result can say when there
is nothing to align. Every word of the traces package is here; nothing here aligns a run.

Examples
--------
>>> import pandas as pd
>>> import passhat as ph
>>> steps = pd.DataFrame({"task_id": "t", "trial": [0, 0, 1], "action": ["get_a", "pay", "get_a"]})
>>> trials = pd.DataFrame({"task_id": "t", "trial": [0, 1], "success": [True, False]})
>>> div = ph.divergence(ph.Traces.from_frames(steps, trials))
>>> print(div.view().parts[0].title)
Where failing runs diverge: 1 of 1 tasks have mixed outcomes (1 failing, 1 passing runs)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import pandas as pd

from passhat._format import short
from passhat._repr import Display, View
from passhat._result import Result, records

__all__ = ["Divergence", "TraceInput"]


def _no_excluded() -> pd.DataFrame:
    return pd.DataFrame(columns=["system", "task_id", "trial", "reason"])


@dataclass(frozen=True)
class TraceInput:
    """What :func:`passhat.divergence` was given.

    Attributes
    ----------
    where : str
        How the notes name the input (its path, or ``example NAME``).
    source : dict
        Provenance as the reader recorded it (path, format, sha256, ...), as text.
    excluded : pandas.DataFrame
        Trials the reader could not use, with ``reason`` (the whole input).
    tasks : tuple of str
        The tasks asked for (empty: every task).
    trials, tool_calls : int
        Trials and tool calls of those tasks.
    trials_without_tool_calls : int
        Trials of the whole input that made no tool call, as the reader counted them.
    unknown_stage_tools : tuple of str
        Tools of the stage mapping that no step of the input calls (a misspelling, most
        likely), sorted.
    """

    where: str = "the traces"
    source: dict[str, str] = field(default_factory=dict)
    excluded: pd.DataFrame = field(default_factory=_no_excluded)
    tasks: tuple[str, ...] = ()
    trials: int = 0
    tool_calls: int = 0
    trials_without_tool_calls: int = 0
    unknown_stage_tools: tuple[str, ...] = ()


@dataclass(frozen=True, repr=False, eq=False)
class Divergence(Result):
    """Divergence points of failing runs, per run and aggregated.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per failing decided run of a task with mixed outcomes:
        ``system, task_id, trial, step`` (1-based; ``n_steps + 1`` when the run
        stops), ``kind``, ``failing_action``, ``failing_args``,
        ``passing_actions`` (what the passing runs that reach the point do
        there), ``n_passing_at_point``, ``marker`` (the tool that marks the
        divergence: the passing runs' action for ``skips``/``stops``, the
        failing run's otherwise), ``stage`` (the marker's stage),
        ``termination``, ``n_steps``, ``extra_lookups`` (lookups of the
        failing run before its point that the passing run it follows did not
        make: tolerated under ``tolerate_extra_lookups``, else always 0).
    tasks : pandas.DataFrame
        Per task with mixed outcomes: passing/failing runs, the earliest and
        most common divergence step and marker.
    by_action : pandas.DataFrame
        Failing runs per marker tool (and kind), with the number of tasks.
    by_stage : pandas.DataFrame
        The same per semantic stage.
    counts : dict
        What was analysed and what was left out, with reasons.
    settings : dict
        Normalisation settings used.
    trace_input : TraceInput
        What the traces held (tasks chosen, runs, tool calls, the reader's exclusions).

    Examples
    --------
    >>> from passhat.traces import Traces, divergence
    >>> steps = pd.DataFrame({"task_id": "t", "trial": [0, 0, 1],
    ...                       "action": ["get_a", "pay", "get_a"]})
    >>> trials = pd.DataFrame({"task_id": "t", "trial": [0, 1], "success": [True, False]})
    >>> d = divergence(Traces.from_frames(steps, trials))
    >>> d.counts["divergence_points"], d.by_action[["action", "runs", "kinds"]].values.tolist()
    (1, [['pay', 1, 'stops 1']])
    """

    schema: ClassVar[str] = "divergence"

    table: pd.DataFrame
    tasks: pd.DataFrame
    by_action: pd.DataFrame
    by_stage: pd.DataFrame
    counts: dict[str, int]
    settings: dict[str, Any]
    trace_input: TraceInput = field(default_factory=TraceInput)

    @property
    def no_tool_calls(self) -> bool:
        """Whether no run of the chosen tasks made a tool call (nothing to align)."""
        return self.trace_input.tool_calls == 0

    def to_frame(self) -> pd.DataFrame:
        """One row per failing run of a task with mixed outcomes (the ``table``)."""
        return self.table.copy()

    def _document(self) -> dict[str, Any]:
        no_calls = self.no_tool_calls
        return {
            "input": dict(self.trace_input.source),
            "settings": self.settings,
            "counts": self.counts,
            "divergence": records(self.table.iloc[0:0] if no_calls else self.table),
            "tasks": records(self.tasks),
            "by_action": records(self.by_action),
            "by_stage": records(self.by_stage),
            "excluded": records(self.trace_input.excluded),
            "notes": [no_tool_calls_note(self)] if no_calls else self.notes(),
        }

    def view(self) -> Display:
        """Each failing run's divergence point, the points by tool (and by stage, with a
        stage mapping), and the notes; one line when no run made a tool call."""
        if self.no_tool_calls:
            return Display((View("", None, lines=(no_tool_calls_note(self),)),))
        parts = [_runs_view(self), _tools_view(self)]
        if self.settings.get("stages"):
            parts.append(_stages_view(self))
        notes = (*self.notes(), *_input_notes(self), _closing_note(self))
        parts[-1] = replace(parts[-1], notes=notes)
        return Display(tuple(parts), min_width=140)

    @property
    def sentences(self) -> list[str]:
        """Plain-language summary (used by the report's "Where failing runs diverge")."""
        c = self.counts
        out = [
            f"{c.get('failing_runs', 0)} failing run(s) of the {c.get('tasks_mixed', 0)} task(s) "
            "with both outcomes were aligned against the passing runs of the same task (tool "
            "calls with canonical arguments; reordering read-only lookups is not a divergence"
            + (
                "; nor is an extra read-only lookup: "
                f"{c.get('tolerated_extra_lookups', 0)} tolerated before the points)."
                if self.settings.get("tolerate_extra_lookups")
                else ")."
            )
        ]
        kinds = self.table["kind"].value_counts()
        if len(kinds):
            out.append(
                "At its divergence point the failing run: "
                + ", ".join(f"{kind} {n}" for kind, n in kinds.items())
                + "."
            )
        out.extend(self.notes())
        out.append("A divergence point is a lead to inspect, not proof of cause.")
        return out

    def notes(self) -> list[str]:
        """Plain-language notes on what was left out and why."""
        c = self.counts
        tolerant = bool(self.settings.get("tolerate_extra_lookups"))
        out = []
        if c.get("unscored_trials"):
            out.append(
                f"{c['unscored_trials']} unscored trial(s) are neither pass nor fail: left out."
            )
        if c.get("excluded_trials"):
            out.append(
                f"{c['excluded_trials']} trial(s) excluded by the reader (reasons in excluded)."
            )
        if c.get("failing_runs_without_tool_calls"):
            out.append(
                f"{c['failing_runs_without_tool_calls']} failing run(s) made no tool call "
                "(divergence 'stops' at step 1)."
            )
        if c.get("points_at_lookup") and not tolerant:
            out.append(
                f"{c['points_at_lookup']} divergence point(s) are at a read-only lookup of the "
                "failing run; tolerate_extra_lookups (CLI --tolerate-extra-lookups) looks past "
                "extra lookups to the next difference in what the run does."
            )
        if c.get("no_action_divergence"):
            same = (
                "the tool calls of a passing run, apart from extra read-only lookups"
                if tolerant
                else "exactly the tool calls of a passing run"
            )
            out.append(
                f"{c['no_action_divergence']} failing run(s) made {same} "
                "(kind 'none': the failure is not in the actions)."
            )
        return out


def no_tool_calls_note(div: Divergence) -> str:
    """The one thing to say when no run of the chosen tasks made a tool call."""
    c, given = div.counts, div.trace_input
    which = f" of task {', '.join(given.tasks)}" if given.tasks else ""
    return (
        f"No tool calls to align: none of the {given.trials} run(s){which} in {given.where} "
        "made a tool call, and a divergence point is where a failing run's tool calls leave "
        f"those of the passing runs. {c.get('tasks_mixed', 0)} of {c.get('tasks', 0)} task(s) "
        f"have both outcomes ({c.get('failing_runs', 0)} failing, "
        f"{c.get('passing_runs', 0)} passing runs); passhat estimate and passhat slices "
        "describe them."
    )


def _input_notes(div: Divergence) -> list[str]:
    """What the input held that the tables do not show: exclusions, unknown stage tools,
    trials without a tool call."""
    given = div.trace_input
    notes = []
    if len(given.excluded):
        for reason, n in given.excluded.groupby("reason").size().items():
            notes.append(f"{n} trial(s) excluded: {reason}")
    unknown = given.unknown_stage_tools
    if div.settings.get("stages") and unknown:
        notes.append(
            f"{len(unknown)} tool(s) of the stages file never called in the traces: "
            f"{', '.join(unknown[:8])}{' ...' if len(unknown) > 8 else ''} "
            "(check the spelling)"
        )
    if given.trials_without_tool_calls:
        notes.append(
            f"{given.trials_without_tool_calls} trial(s) in the file made no tool "
            "call (kept, with zero steps)"
        )
    return notes


def _closing_note(div: Divergence) -> str:
    c = div.counts
    return (
        f"{c['tasks_all_pass']} task(s) always pass and {c['tasks_all_fail']} always fail: "
        "nothing to align. A divergence point is a lead to inspect, not proof of cause."
    )


def _call_cells(r: dict[str, Any]) -> tuple[str, str]:
    """What the failing run does and what the passing runs do at the point, shortened."""
    f_args = r["failing_args"]
    fail = str(r["failing_action"]) if isinstance(r["failing_action"], str) else "—"
    if isinstance(f_args, str) and f_args != "{}":
        fail += f"({short(f_args, 40)})"
    passing = "; ".join(short(str(p), 50) for p in r["passing_actions"][:2])
    if len(r["passing_actions"]) > 2:
        passing += f"; +{len(r['passing_actions']) - 2} more"
    return str(short(fail, 55)), passing


def _runs_view(div: Divergence) -> View:
    """One row per failing run: its divergence step, the kind, both sides' calls."""
    c = div.counts
    tolerant = bool(div.settings.get("tolerate_extra_lookups"))
    rows = []
    for _, r in div.table.iterrows():
        fail, passing = _call_cells(r.to_dict())
        cells = [
            str(r["task_id"]),
            str(r["trial"]),
            "—" if pd.isna(r["step"]) else str(r["step"]),
            str(r["kind"]),
            fail,
            passing,
            str(r["termination"]),
        ]
        if tolerant:
            cells.insert(4, str(r["extra_lookups"]))
        rows.append(cells)
    cols = ["task", "trial", "step", "kind", "failing run does", "passing runs do", "ended"]
    if tolerant:
        cols.insert(4, "extra lookups")
    title = (
        f"Where failing runs diverge: {c['tasks_mixed']} of {c['tasks']} tasks have mixed "
        f"outcomes ({c['failing_runs']} failing, {c['passing_runs']} passing runs)"
    )
    left = frozenset(cols) - {"trial", "step", "extra lookups"}
    return View(title, pd.DataFrame(rows, columns=cols), left=left, fold=True)


def _tools_view(div: Divergence) -> View:
    """Failing runs per marker tool."""
    rows = [
        [str(r["action"]), str(r["runs"]), str(r["tasks"]), f"{r['share']:.0%}", str(r["kinds"])]
        for _, r in div.by_action.iterrows()
    ]
    cols = ["tool", "failing runs", "tasks", "share", "kinds"]
    return View(
        "Divergence points by tool (marker: the action that differs)",
        pd.DataFrame(rows, columns=cols),
        left=frozenset({"tool", "kinds"}),
    )


def _stages_view(div: Divergence) -> View:
    """Failing runs per stage of the marker tool."""
    rows = [
        [str(r["stage"]), str(r["runs"]), str(r["tasks"]), f"{r['share']:.0%}"]
        for _, r in div.by_stage.iterrows()
    ]
    return View(
        "Divergence points by stage",
        pd.DataFrame(rows, columns=["stage", "failing runs", "tasks", "share"]),
        left=frozenset({"stage"}),
    )
