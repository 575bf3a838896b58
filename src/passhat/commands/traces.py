"""``passhat traces``: where failing runs diverge from passing runs."""

from __future__ import annotations

import click
import pandas as pd

from passhat._format import short
from passhat._version import __version__
from passhat.commands._common import emit_json, quiet_option, records
from passhat.commands._output import Table, echo, make_console, table_output
from passhat.errors import OptionError
from passhat.examples import TRACE_EXAMPLES, load_example_traces
from passhat.io import formats, load_stages, read_traces
from passhat.traces import Traces, divergence

__all__ = ["register"]


@click.command("traces")
@click.argument("path", required=False, type=click.Path(exists=True, dir_okay=True))
@click.option(
    "--example",
    type=click.Choice(sorted(TRACE_EXAMPLES)),
    default=None,
    help="Use the bundled trajectories of an example instead of a file.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(formats(kind="traces")),
    default=None,
    help="Trace format (sniffed when omitted).",
)
@click.option("--task", "tasks", multiple=True, help="Only this task (repeatable).")
@click.option(
    "--stages",
    "stages_path",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help='TOML file with a [stages] table: tool = "stage" (stage "lookup" = harmless read).',
)
@click.option("--ignore-args", is_flag=True, help="Compare tool names only.")
@click.option(
    "--ignore-key",
    "ignore_keys",
    multiple=True,
    help="Argument key to ignore at any depth (ids, timestamps); repeatable.",
)
@click.option(
    "--tolerate-extra-lookups",
    is_flag=True,
    help="An extra read-only lookup of a failing run is not a divergence point by itself "
    "(skipped or changed lookups and any differing action still are); the tolerated "
    "lookups are counted per run.",
)
@click.option(
    "--outcomes",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="steps-jsonl only: a trials file holding the outcomes.",
)
@click.option("--system-name", default=None, help="System name when the file has none.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@table_output("divergence")
@quiet_option("No notes.")
def traces_cmd(
    path: str | None,
    example: str | None,
    fmt: str | None,
    tasks: tuple[str, ...],
    stages_path: str | None,
    ignore_args: bool,
    ignore_keys: tuple[str, ...],
    tolerate_extra_lookups: bool,
    outcomes: str | None,
    system_name: str | None,
    as_json: bool,
    quiet: bool,
) -> None:
    """Where failing runs diverge from passing runs, per task with mixed outcomes.

    Each failing run is aligned against the passing runs of its task (tool
    calls with canonical arguments; consecutive read-only lookups compared as
    an order-free multiset). The divergence point is the earliest step where
    the failing run does something no passing run does at that point, or
    stops. It is a lead to inspect, not proof of cause. With
    --tolerate-extra-lookups, lookups a failing run makes in addition to the
    passing runs' are looked past (and counted), so the point lands on the next
    difference in what the run does.
    """
    stages = load_stages(stages_path) if stages_path else None
    if path is not None and example is None:
        tr = read_traces(path, format=fmt, system_name=system_name, outcomes=outcomes)
    elif example is not None and path is None:
        tr = load_example_traces(example)
    else:
        raise OptionError("give a trace file or --example NAME (one of them)")
    div = divergence(
        tr,
        stages=stages,
        ignore_args=ignore_args,
        ignore_keys=ignore_keys,
        tolerate_extra_lookups=tolerate_extra_lookups,
        tasks=list(tasks) or None,
    )
    no_calls = _no_tool_calls(tr, path or f"example {example}", list(tasks), div.counts)
    if as_json:
        empty = div.table.iloc[0:0] if no_calls else div.table
        emit_json(
            {
                "passhat_version": __version__,
                "input": {k: str(v) for k, v in tr.source.items()},
                "settings": div.settings,
                "counts": div.counts,
                "divergence": records(empty),
                "tasks": records(div.tasks),
                "by_action": records(div.by_action),
                "by_stage": records(div.by_stage),
                "excluded": records(tr.excluded),
                "notes": [no_calls] if no_calls else div.notes(),
            }
        )
        return
    if no_calls:
        echo(no_calls)
        return
    console = make_console(min_width=140)
    c = div.counts
    table = Table(
        title=f"Where failing runs diverge: {c['tasks_mixed']} of {c['tasks']} tasks have mixed "
        f"outcomes ({c['failing_runs']} failing, {c['passing_runs']} passing runs)"
    )
    cols = ["task", "trial", "step", "kind", "failing run does", "passing runs do", "ended"]
    if tolerate_extra_lookups:
        cols.insert(4, "extra lookups")
    for col in cols:
        table.add_column(
            col,
            justify="right" if col in ("trial", "step", "extra lookups") else "left",
            overflow="fold",
        )
    for _, r in div.table.iterrows():
        f_args = r["failing_args"]
        fail = str(r["failing_action"]) if isinstance(r["failing_action"], str) else "—"
        if isinstance(f_args, str) and f_args != "{}":
            fail += f"({short(f_args, 40)})"
        passing = "; ".join(short(str(p), 50) for p in r["passing_actions"][:2])
        if len(r["passing_actions"]) > 2:
            passing += f"; +{len(r['passing_actions']) - 2} more"
        cells = [
            str(r["task_id"]),
            str(r["trial"]),
            "—" if pd.isna(r["step"]) else str(r["step"]),
            str(r["kind"]),
            short(fail, 55),
            passing,
            str(r["termination"]),
        ]
        if tolerate_extra_lookups:
            cells.insert(4, str(r["extra_lookups"]))
        table.add_row(*cells)
    console.print(table)
    agg = Table(title="Divergence points by tool (marker: the action that differs)")
    for col in ("tool", "failing runs", "tasks", "share", "kinds"):
        agg.add_column(col, justify="left" if col in ("tool", "kinds") else "right")
    for _, r in div.by_action.iterrows():
        agg.add_row(
            str(r["action"]), str(r["runs"]), str(r["tasks"]), f"{r['share']:.0%}", str(r["kinds"])
        )
    console.print(agg)
    if stages:
        st = Table(title="Divergence points by stage")
        for col in ("stage", "failing runs", "tasks", "share"):
            st.add_column(col, justify="left" if col == "stage" else "right")
        for _, r in div.by_stage.iterrows():
            st.add_row(str(r["stage"]), str(r["runs"]), str(r["tasks"]), f"{r['share']:.0%}")
        console.print(st)
    if not quiet:
        notes = div.notes()
        if len(tr.excluded):
            for reason, n in tr.excluded.groupby("reason").size().items():
                notes.append(f"{n} trial(s) excluded: {reason}")
        if stages:
            called = set(tr.steps["action"].dropna().astype(str))
            unknown = sorted(set(stages) - called)
            if unknown:
                notes.append(
                    f"{len(unknown)} tool(s) of the stages file never called in the traces: "
                    f"{', '.join(unknown[:8])}{' ...' if len(unknown) > 8 else ''} "
                    "(check the spelling)"
                )
        if tr.source.get("trials_without_tool_calls"):
            notes.append(
                f"{tr.source['trials_without_tool_calls']} trial(s) in the file made no tool "
                "call (kept, with zero steps)"
            )
        notes.append(
            f"{c['tasks_all_pass']} task(s) always pass and {c['tasks_all_fail']} always fail: "
            "nothing to align. A divergence point is a lead to inspect, not proof of cause."
        )
        for n in notes:
            console.print(n)


def _no_tool_calls(tr: Traces, path: str, tasks: list[str], counts: dict[str, int]) -> str:
    """The one note to print when no run (of the selected tasks) made a tool call, else ""."""
    steps, trials = tr.steps, tr.trials
    if tasks:
        steps = steps[steps["task_id"].astype(str).isin(tasks)]
        trials = trials[trials["task_id"].astype(str).isin(tasks)]
    if len(steps):
        return ""
    which = f" of task {', '.join(tasks)}" if tasks else ""
    return (
        f"No tool calls to align: none of the {len(trials)} run(s){which} in {path} made a "
        "tool call, and a divergence point is where a failing run's tool calls leave those of "
        f"the passing runs. {counts.get('tasks_mixed', 0)} of {counts.get('tasks', 0)} task(s) "
        f"have both outcomes ({counts.get('failing_runs', 0)} failing, "
        f"{counts.get('passing_runs', 0)} passing runs); passhat estimate and passhat slices "
        "describe them."
    )


def register(cli: click.Group) -> None:
    """Attach ``traces`` to the CLI group."""
    cli.add_command(traces_cmd)
