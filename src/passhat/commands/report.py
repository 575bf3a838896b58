"""``passhat report``: the reliability report as HTML, Markdown and JSON."""

from __future__ import annotations

import sys
from typing import Any

import click

from passhat._validate import DEFAULT_N_BOOT, DEFAULT_SEED, check_ci
from passhat._version import __version__
from passhat.commands._common import (
    InputSpec,
    check_path_given,
    emit_json,
    input_options,
    parse_k,
    quiet_option,
    unscored_tasks_option,
)
from passhat.commands._output import echo
from passhat.errors import OptionError
from passhat.io import input_stamp
from passhat.trials import Trials

__all__ = ["register"]


@click.command("report")
@input_options(bare_example="agents")  # `passhat report --example -o DIR`: the two-system example
@click.option(
    "-o",
    "--out",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False),
    help="Directory for index.html, report.md, figures/ and results.json (replaced as a whole; "
    "checked before any work).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace files of the report's names in -o DIR that passhat did not write.",
)
@click.option(
    "--k",
    "k_text",
    default=None,
    help="k values: 1,2,5 or 1-5 (default 1,2,5, capped at the fewest decided runs of a task).",
)
@click.option("--title", default=None, help="Title of the report.")
@click.option("--no-model", is_flag=True, help="Skip the hierarchical model (fast).")
@click.option(
    "--model-method",
    type=click.Choice(["grid", "nuts"]),
    default="grid",
    show_default=True,
    help="How the model is fitted: exact quadrature (grid) or MCMC (nuts).",
)
@click.option(
    "--compare-models/--no-compare-models",
    default=True,
    show_default=True,
    help="Also fit the zero/one-inflated model (NUTS) and compare the two by PSIS-LOO.",
)
@click.option("--no-plan", is_flag=True, help="Leave out 'What to run next'.")
@click.option(
    "--baseline", default=None, help="System the others are compared with (default: the first)."
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=DEFAULT_SEED,
    show_default=True,
    help="Seed of every random step (recorded in results.json).",
)
@click.option("--ci", type=float, default=0.95, show_default=True, help="Interval level.")
@click.option(
    "--n-boot", type=int, default=DEFAULT_N_BOOT, show_default=True, help="Bootstrap resamples."
)
@click.option(
    "--min-runs",
    type=int,
    default=None,
    help="Exclude tasks with fewer decided runs than this, and tasks with n < k, listing them "
    "(with several systems: for every system).",
)
@unscored_tasks_option()
@click.option(
    "--traces",
    "traces_path",
    default=None,
    type=click.Path(dir_okay=True, readable=False),
    help="Trace file (e.g. the same τ-bench file) for 'Where failing runs diverge'.",
)
@click.option(
    "--tolerate-extra-lookups",
    is_flag=True,
    help="With --traces: look past lookups a failing run makes in addition to the passing runs'.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Where the files are, the summary and each section's status, as JSON on stdout (the "
    "numbers are in results.json).",
)
@quiet_option("Print only the path of index.html (no notes).")
def report_cmd(
    source: InputSpec,
    out_dir: str,
    force: bool,
    k_text: str | None,
    title: str | None,
    no_model: bool,
    model_method: str,
    compare_models: bool,
    no_plan: bool,
    baseline: str | None,
    seed: int,
    ci: float,
    n_boot: int,
    min_runs: int | None,
    unscored_tasks: str,
    traces_path: str | None,
    tolerate_extra_lookups: bool,
    as_json: bool,
    quiet: bool,
) -> None:
    """Write the reliability report of RUNS (or --example NAME) into -o DIR."""
    from passhat.io import read_traces
    from passhat.report import check_report_dir, report

    # the output directory first: refused in milliseconds, not after the work
    check_report_dir(out_dir, inputs=(source.path, traces_path), force=force)
    ks = parse_k(k_text) if k_text is not None else None
    check_ci(ci, name="--ci")
    data = source.load()
    if traces_path is not None:
        check_path_given(traces_path, option="--traces")
    if tolerate_extra_lookups and traces_path is None:
        raise OptionError("--tolerate-extra-lookups needs --traces FILE")
    traces = (
        read_traces(traces_path, format=source.fmt, system_name=source.system_name)
        if traces_path is not None
        else None
    )
    res = report(
        data,
        out_dir,
        k=ks,
        seed=seed,
        model=not no_model,
        title=title,
        ci=ci,
        n_boot=n_boot,
        model_method=model_method,
        compare_models=compare_models and not no_model,
        plan=not no_plan,
        on_short="exclude" if min_runs is not None else "error",
        min_runs=min_runs,
        unscored_tasks=unscored_tasks,
        traces=traces,
        tolerate_extra_lookups=tolerate_extra_lookups,
        baseline=baseline,
        force=force,
        progress=False if quiet or as_json else None,
    )
    if as_json:
        emit_json(_json_payload(res, data))
        return
    if quiet:
        echo(str(res.paths.html))
        return
    failed = [s for s in res.data.sections if s.status == "failed"]
    skipped = [s for s in res.data.sections if s.status == "skipped"]
    echo(f"report written to {res.paths.out_dir}/")
    echo(f"  open:     {res.paths.html}")
    echo(f"  markdown: {res.paths.markdown} (figures in {res.paths.out_dir / 'figures'})")
    echo(f"  numbers:  {res.paths.json}")
    for line in res.data.section("summary").sentences:  # the report's own summary, verbatim
        echo(f"  {line}")
    settings = res.data.stamp["settings"]
    echo(
        f"  k = {', '.join(map(str, settings['k']))}; bootstrap {settings['n_boot']} resamples, "
        f"seed {res.data.stamp['seed']}"
    )
    for note in _new_notes(res, data):  # the reader's notes are on stderr
        if not note.startswith(("population intervals:", "intervals:")):
            # the k line above says the resamples and the seed
            echo(f"  note: {note}")
    for s in skipped:
        echo(f"  {s.title}: not shown ({s.note})")
    for s in failed:
        echo(f"  warning: {s.title}: {s.note}", err=True)
    sys.stdout.flush()


def _new_notes(res: Any, data: Any) -> list[str]:
    """The report's notes that the reader's notes (stderr) did not already say."""
    said = set(data.notes if isinstance(data, Trials) else data.attrs.get("notes", []))
    return [str(n) for n in res.data.stamp.get("notes", []) if n not in said]


def _json_payload(res: Any, data: Any) -> dict[str, Any]:
    """``report --json``: the files written, the summary and each section's status (the
    numbers themselves are in results.json). Keys are always present."""
    paths = res.paths
    return {
        "passhat_version": __version__,
        "input": input_stamp(data),
        "out_dir": str(paths.out_dir),
        "files": {
            "html": str(paths.html),
            "markdown": str(paths.markdown),
            "json": str(paths.json),
            "tasks": str(paths.tasks) if paths.tasks is not None else None,
            "figures": [str(f) for f in paths.figures],
        },
        "seed": res.data.stamp.get("seed"),
        "settings": res.data.stamp.get("settings", {}),
        "summary": list(res.data.section("summary").sentences),
        "sections": [
            {"id": s.id, "title": s.title, "status": s.status, "note": s.note}
            for s in res.data.sections
        ],
        "notes": _new_notes(res, data),
    }


def register(cli: click.Group) -> None:
    """Attach ``report`` to the CLI group."""
    cli.add_command(report_cmd)
