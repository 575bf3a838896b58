"""``passhat report``: the reliability report as HTML, Markdown and JSON."""

from __future__ import annotations

import sys

import click

from passhat.commands._common import (
    InputSpec,
    check_path_given,
    cluster_options,
    clustered_input,
    input_options,
    quiet_option,
    unscored_tasks_option,
)
from passhat.commands._options import (
    ci_option,
    command,
    cost_of_option,
    grader_options,
    json_option,
    k_option,
    n_boot_option,
    seed_option,
    thresholds_option,
    weights_option,
)
from passhat.commands._output import emit_json, show
from passhat.errors import OptionError

__all__ = ["register"]


@command("report")
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
@k_option()
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
@seed_option(help="Seed of every random step (recorded in results.json).")
@ci_option(default=0.95)
@n_boot_option()
@click.option(
    "--min-runs",
    type=int,
    default=None,
    help="Exclude tasks with fewer decided runs than this, and tasks with n < k, listing them "
    "(with several systems: for every system).",
)
@weights_option(
    help="Task weights of the report's averages over tasks, as in estimate; the 'Data' section "
    "lists which sections use them and why the others do not."
)
@unscored_tasks_option()
@cluster_options
@click.option(
    "--scores/--no-scores",
    default=None,
    help="The 'Partial credit' section (expected best / worst of k runs' scores, pass^k by "
    "pass threshold). Default: shown when the runs' score column gives partial credit.",
)
@thresholds_option()
@click.option(
    "--by",
    type=click.Choice(["category"]),
    default=None,
    help="The 'By category' section (pass^k / pass@k per category with intervals, and a test "
    "of whether the categories differ). Default: shown when every task names a category.",
)
@click.option("--no-by", is_flag=True, help="Leave out the 'By category' section.")
@click.option(
    "--cost/--no-cost",
    default=None,
    help="The 'Cost' section (cost per run, per success, per all-k-pass, pass^k per unit "
    "cost). Default: shown when the runs have a cost column.",
)
@cost_of_option()
@grader_options()
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
@json_option()
@quiet_option("Print only the path of index.html (no notes).")
def report_cmd(
    source: InputSpec,
    out_dir: str,
    force: bool,
    k: list[int] | None,
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
    weights: str,
    unscored_tasks: str,
    cluster_column: str | None,
    ignore_clusters: bool,
    scores: bool | None,
    thresholds: list[float] | None,
    by: str | None,
    no_by: bool,
    cost: bool | None,
    cost_of: str,
    sensitivity: float | None,
    specificity: float | None,
    audit: list[int] | None,
    truth: str | None,
    traces_path: str | None,
    tolerate_extra_lookups: bool,
    as_json: bool,
    quiet: bool,
) -> None:
    """Write the reliability report of RUNS (one file or several: each file's systems, a file
    without a system column named after the file) or --example NAME into -o DIR.

    With --json: where the files are, the summary and each section's status (the numbers
    are in results.json). With --grader-sensitivity and --grader-specificity, --grader-audit
    or --grader-truth: a 'Grader correction' section.
    """
    from passhat.io import read_traces
    from passhat.report import check_report_dir, report

    # the output directory first: refused in milliseconds, not after the work
    check_report_dir(out_dir, inputs=(*source.paths, traces_path), force=force)
    if no_by and by is not None:
        raise OptionError("--by and --no-by contradict each other; give one")
    if scores is False and thresholds is not None:
        raise OptionError("--thresholds and --no-scores contradict each other; give one")
    # --scores and --cost need every run (its score, its cost): a large file is read whole
    data = clustered_input(
        source, cluster_column=cluster_column, ignore_clusters=ignore_clusters,
        runs=bool(scores) or thresholds is not None or bool(cost) or truth is not None
        or cost_of != "cost",
    )  # fmt: skip
    grader = {name: v for name, v in (("sensitivity", sensitivity), ("specificity", specificity),
              ("audit", audit), ("truth", truth)) if v is not None}  # fmt: skip
    if traces_path is not None:
        check_path_given(traces_path, option="--traces")
    traces = (
        read_traces(traces_path, format=source.fmt, system_name=source.trace_name(traces_path))
        if traces_path is not None
        else None
    )
    res = report(
        data,
        out_dir,
        k=k,
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
        weights=None if weights == "equal" else weights,
        unscored_tasks=unscored_tasks,  # type: ignore[arg-type]
        traces=traces,
        tolerate_extra_lookups=tolerate_extra_lookups,
        baseline=baseline,
        force=force,
        progress=False if quiet or as_json else None,
        scores=thresholds if thresholds is not None else scores,
        by=False if no_by else by,
        cost=cost,
        cost_of=cost_of,
        grader=grader or None,
    )
    if as_json:
        emit_json(res.to_dict())
        return
    show(res.view(paths_only=quiet, warnings=False))
    if not quiet and res.warnings():  # a section that failed: said on stderr
        show(res.warnings_view(), stderr=True)
    sys.stdout.flush()


def register(cli: click.Group) -> None:
    """Attach ``report`` to the CLI group."""
    cli.add_command(report_cmd)
