"""``passhat traces`` (divergence points) and the ``compare --classify`` mode."""

from __future__ import annotations

from typing import Any

import click
import pandas as pd
import xarray as xr
from rich.console import Console
from rich.table import Table

from passhat._format import short
from passhat._version import __version__
from passhat.commands._common import emit_json, records
from passhat.compare import Classification, classify
from passhat.errors import OptionError
from passhat.estimators import as_counts
from passhat.io import formats, load_stages, read_traces
from passhat.traces import divergence
from passhat.trials import Trials

__all__ = ["register", "run_classify"]


@click.command("traces")
@click.argument("path", type=click.Path(exists=True, dir_okay=True))
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
@click.option("--quiet", "-q", is_flag=True, help="No notes.")
def traces_cmd(
    path: str,
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
    tr = read_traces(path, format=fmt, system_name=system_name, outcomes=outcomes)
    div = divergence(
        tr,
        stages=stages,
        ignore_args=ignore_args,
        ignore_keys=ignore_keys,
        tolerate_extra_lookups=tolerate_extra_lookups,
        tasks=list(tasks) or None,
    )
    if as_json:
        emit_json(
            {
                "passhat_version": __version__,
                "input": {k: str(v) for k, v in tr.source.items()},
                "settings": div.settings,
                "counts": div.counts,
                "divergence": records(div.table),
                "tasks": records(div.tasks),
                "by_action": records(div.by_action),
                "by_stage": records(div.by_stage),
                "excluded": records(tr.excluded),
            }
        )
        return
    console = Console(width=max(Console().width, 140))
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


def run_classify(
    data_a: Trials | xr.Dataset,
    data_b: Trials | xr.Dataset | None,
    opts: dict[str, Any],
) -> int:
    """``compare --classify``: print verdicts; return 1 when a --fail-on verdict is found."""
    base_system = cand_system = None
    if data_b is None:  # one input with two systems: --baseline names the base (else the first)
        systems = [str(s) for s in as_counts(data_a)["system"].values]
        if len(systems) != 2:
            raise OptionError(
                "--classify needs two run sets: BASE and CAND files, or one input with exactly "
                f"two systems (found {len(systems)}: {', '.join(systems)})"
            )
        base_system = opts.get("baseline") or systems[0]
        if base_system not in systems:
            raise OptionError(f"--baseline {base_system!r} is not one of {', '.join(systems)}")
        cand_system = next(s for s in systems if s != base_system)
        data_b = data_a
    res: Classification = classify(
        data_a,
        data_b,
        alpha=opts["alpha"],
        min_runs=opts["min_runs"],
        base_system=base_system,
        cand_system=cand_system,
    )
    if opts.get("names"):  # two files with one same-named system: label them as compare does
        res.settings.update(base=opts["names"][0], cand=opts["names"][1])
    fail_on = list(opts.get("fail_on") or ())
    failed = [v for v in fail_on if res.has(v)]
    if opts["as_json"]:
        emit_json(
            {
                "passhat_version": __version__,
                "settings": res.settings,
                "counts": res.counts,
                "summary": res.summary(),
                "verdicts": records(res.table),
                "excluded": records(res.excluded),
                "fail_on": fail_on,
                "failed": failed,
            }
        )
    else:
        console = Console(width=max(Console().width, 120))
        shown = res.table[~res.table["verdict"].isin(["stable_pass", "stable_fail"])]
        if len(shown) and not opts.get("quiet"):
            t = Table(title="Tasks that changed, flaked or cannot be decided yet")
            for col in (
                "task",
                "verdict",
                "base c/n",
                "cand c/n",
                "p (regr.)",
                "p (fixed)",
                "note",
            ):
                t.add_column(col, justify="left" if col in ("task", "verdict", "note") else "right")
            for _, r in shown.iterrows():
                t.add_row(
                    str(r["task"]),
                    str(r["verdict"]),
                    f"{r['c_base']}/{r['n_base']}",
                    f"{r['c_cand']}/{r['n_cand']}",
                    f"{r['p_regression']:.3f}",
                    f"{r['p_fixed']:.3f}",
                    str(r["note"]),
                )
            console.print(t)
        if len(res.excluded) and not opts.get("quiet"):
            for reason, part in res.excluded.groupby("reason"):
                console.print(
                    f"not compared, {reason}: {', '.join(map(str, part['task'].tolist()[:10]))}"
                    + (" ..." if len(part) > 10 else "")
                )
        click.echo(res.summary())
        if failed:
            click.echo(f"passhat: failing on {', '.join(failed)} (--fail-on)", err=True)
    return 1 if failed else 0


def register(cli: click.Group) -> None:
    """Attach ``traces`` to the CLI group."""
    cli.add_command(traces_cmd)
