"""``passhat traces``: where failing runs diverge from passing runs."""

from __future__ import annotations

import click

from passhat.commands._common import quiet_option
from passhat.commands._options import command, json_option
from passhat.commands._output import emit_json, show
from passhat.errors import OptionError
from passhat.examples import TRACE_EXAMPLES, load_example_traces
from passhat.io import formats, load_stages, read_traces
from passhat.traces import divergence

__all__ = ["register"]


@command("traces")
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
@json_option("divergence")
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
        where=path or f"example {example}",
    )
    if as_json:
        emit_json(div.to_dict())
    else:
        show(div, quiet=quiet)


def register(cli: click.Group) -> None:
    """Attach ``traces`` to the CLI group."""
    cli.add_command(traces_cmd)
