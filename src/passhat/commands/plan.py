"""``passhat plan …``: how many runs, tasks and dollars, with the reasoning.

Every subcommand parses its options, calls one planner function and prints the result's view
(the answer first, then one or two sentences of reasoning and the assumptions), or its
``to_dict()`` with ``--json``. The planner states its rules in terms of its parameters; each
command shows them as its options.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from passhat import planner as plan
from passhat._result import Result
from passhat.commands._common import (
    ReadOptions,
    check_path_given,
    quiet_option,
    reading_options,
)
from passhat.commands._options import (
    ci_option,
    command,
    json_option,
    k_option,
    renamed_option,
)
from passhat.commands._output import emit_json, show
from passhat.errors import InputError, OptionError

__all__ = ["emit_result", "plan_group", "prior_options", "register", "resolve_prior"]


def emit_result(res: Result, as_json: bool, *, quiet: bool = False, **view: Any) -> None:
    """Print a result's view (``view`` its options), or write its JSON document."""
    if as_json:
        emit_json(res.to_dict())
    else:
        show(res.view(**view), quiet=quiet)


#: --quiet on the closed-form commands: accepted like every command's, nothing to silence.
closed_form_quiet = quiet_option(
    "Accepted like every command's; a closed form has no notes or progress."
)


def renamed_ci(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--confidence``, the old name of ``--ci`` (deprecated: hidden, with a note)."""
    return renamed_option("--confidence", "--ci", "ci", type=float)(f)


# --------------------------------------------------------------- closed forms
@command("detect", example="--flip-rate 0.1")
@click.option("--flip-rate", type=float, default=None, help="Per-run failure rate f.")
@ci_option(help="Probability q of seeing at least one failure (0.95 unless solved for).")
@click.option("--runs", type=int, default=None, help="Number of runs.")
@renamed_ci
@json_option()
@closed_form_quiet
def detect_cmd(flip_rate: float | None, ci: float | None, runs: int | None, as_json: bool) -> None:
    """Runs to see at least one failure with probability q at flip rate f."""
    emit_result(plan.runs_to_detect(flip_rate=flip_rate, ci=ci, runs=runs), as_json)


@command("bound")
@click.option("--runs", type=int, required=True, help="Runs observed.")
@click.option("--failures", type=int, default=0, show_default=True, help="Failures seen.")
@ci_option(default=0.95, help="Confidence level of the one-sided bound.")
@renamed_ci
@json_option()
@closed_form_quiet
def bound_cmd(runs: int, failures: int, ci: float, as_json: bool) -> None:
    """One-sided (Clopper–Pearson) upper bound on the per-run failure rate."""
    emit_result(plan.failure_upper_bound(runs=runs, failures=failures, ci=ci), as_json)


@command("certify", example="--max-failure-rate 0.05")
@click.option("--max-failure-rate", type=float, default=None, help="Failure rate f₀ to rule out.")
@ci_option(help="Confidence level (0.95 unless solved for).")
@click.option("--allowed-failures", type=int, default=0, show_default=True)
@click.option("--runs", type=int, default=None, help="Runs (solve for the rest).")
@renamed_ci
@json_option()
@closed_form_quiet
def certify_cmd(
    max_failure_rate: float | None,
    ci: float | None,
    allowed_failures: int,
    runs: int | None,
    as_json: bool,
) -> None:
    """Runs needed to certify a failure rate below f₀ with x allowed failures."""
    res = plan.runs_to_certify(
        max_failure_rate=max_failure_rate, ci=ci, runs=runs, allowed_failures=allowed_failures
    )
    emit_result(res, as_json)


@command("width", example="--rate 0.8 --half-width 0.1")
@click.option("--half-width", type=float, default=None, help="Target interval half-width.")
@click.option("--rate", type=float, required=True, help="Expected per-task success rate.")
@click.option(
    "--method",
    type=click.Choice(["wilson", "clopper-pearson"]),
    default="wilson",
    show_default=True,
)
@ci_option(default=0.95, help="Confidence level of the interval.")
@click.option("--runs", type=int, default=None, help="Runs (then the half-width is solved).")
@renamed_ci
@json_option()
@closed_form_quiet
def width_cmd(
    half_width: float | None,
    rate: float,
    method: str,
    ci: float,
    runs: int | None,
    as_json: bool,
) -> None:
    """Runs for a per-task interval of a given half-width (exact search)."""
    res = plan.runs_for_width(
        half_width=half_width,
        rate=rate,
        method=method,  # type: ignore[arg-type]
        ci=ci,
        runs=runs,
    )
    emit_result(res, as_json)


def _retry_options(f: Callable[..., Any]) -> Callable[..., Any]:
    for deco in reversed(
        (
            click.option("--rate", type=float, required=True, help="Per-run pass rate p."),
            click.option("--attempts", type=int, required=True, help="Attempts k."),
            json_option(),
            closed_form_quiet,
        )
    ):
        f = deco(f)
    return f


@command("retry")
@_retry_options
def retry_cmd(rate: float, attempts: int, as_json: bool) -> None:
    """Retry-until-green 1−(1−p)^k vs all-k-must-pass p^k (a CI job's odds)."""
    emit_result(plan.retry(rate=rate, attempts=attempts), as_json)


@command("gate", hidden=True)
@_retry_options
def gate_cmd(rate: float, attempts: int, as_json: bool) -> None:
    """Deprecated name of ``plan retry`` ("gate" is ``passhat gate``, the anytime-valid gate)."""
    click.echo(
        "passhat: 'plan gate' is deprecated: use 'plan retry' (the retry formula; 'passhat gate' "
        "is the anytime-valid gate); 'plan gate' goes in the next release",
        err=True,
    )
    emit_result(plan.retry(rate=rate, attempts=attempts), as_json)


@command("table")
@ci_option(default=0.95, help="Confidence level of the bounds (and q of the flips).")
@renamed_ci
@json_option()
@closed_form_quiet
def table_cmd(ci: float, as_json: bool) -> None:
    """Reference tables: clean runs vs ruled-out failure rate, runs to see a flip, retry odds."""
    emit_result(plan.seed_tables(ci=ci), as_json)


# ------------------------------------------------------ the prior of design, power, next
def prior_options(
    f: Callable[..., Any] | None = None, /, *, prefix: str = ""
) -> Callable[..., Any]:
    """--from RUNS (read with the reading options: --format, --map, --threshold,
    --system-name; and --system) or --mean with --icc/--kappa.

    ``prefix`` names a second set beside a command's own input options:
    ``prior-`` gives --prior-from, --prior-format, --prior-map, --prior-threshold,
    --prior-system-name, --prior-system, --prior-mean, --prior-icc, --prior-kappa. The
    parameters are named as the planner's (``prior``, ``mean``, ``icc``, ``kappa``;
    ``prior_system`` with a prefix, ``system`` without), so that its errors name these
    options; the reading options arrive as one :class:`~passhat.commands._common.ReadOptions`
    (``reading``, or ``prior_reading`` with a prefix). Read them with :func:`resolve_prior`.
    """
    if f is None:
        return lambda g: prior_options(g, prefix=prefix)
    what = "Earlier trial results" if prefix else "Trial results"
    helps = {
        "from": f"{what} to fit (μ, κ) from (Beta-Binomial ML).",
        "mean": "Mean success μ.",
        "icc": "Within-task correlation 1/(κ+1).",
        "kappa": "Beta concentration κ.",
        "system": "System in a multi-system --prior-from."
        if prefix
        else "System in a multi-system input.",
    }
    names = {"from": "prior", "system": "prior_system" if prefix else "system"}
    for name in reversed(helps):  # click lists the options in the order applied last first
        extra: dict[str, Any] = {"type": float} if name in ("mean", "icc", "kappa") else {}
        if name == "from":
            extra["metavar"] = "EARLIER_RUNS" if prefix else "RUNS"
        param = names.get(name, name)
        f = click.option(f"--{prefix}{name}", param, default=None, help=helps[name], **extra)(f)
        if name == "system":  # the reading options of --from, beside it
            dest = "prior_reading" if prefix else "reading"
            f = reading_options(prefix, dest=dest, of=f"--{prefix}from")(f)
    return f


#: The refusal of ``plan design`` / ``plan power`` without --from or --mean.
NO_PRIOR = "no assumptions: give --from RUNS, or --mean with --icc or --kappa"


def resolve_prior(
    path: str | None,
    mean: float | None,
    icc: float | None,
    kappa: float | None,
    reading: ReadOptions,
    system: str | None,
    *,
    prefix: str = "",
) -> Any:
    """The planner's ``prior`` from the options of :func:`prior_options` with ``prefix``: the
    runs read from --from (the planner fits them), stated :class:`~passhat.plan.Assumptions`,
    or None when no option is given (``plan design`` / ``plan power`` require one:
    :func:`required_prior`). The rules checked here are the options' own (which go together);
    the planner checks the values."""

    def opt(name: str) -> str:
        return f"--{prefix}{name}"

    if path is not None:
        if mean is not None or icc is not None or kappa is not None:
            raise OptionError(
                f"give {opt('from')} {'EARLIER_RUNS' if prefix else 'RUNS'} or {opt('mean')} "
                f"with {opt('icc')}/{opt('kappa')}, not both"
            )
        check_path_given(path, option=opt("from"))
        try:
            return reading.read(path)
        except InputError as err:  # which file: the input or the earlier one
            if not prefix:
                raise
            raise type(err)(f"{opt('from')}: {err}") from err
    if prefix and (reading != ReadOptions() or system is not None):
        raise OptionError(
            f"{opt('format')}, {opt('map')}, {opt('threshold')}, {opt('system-name')} and "
            f"{opt('system')} describe {opt('from')}: give it"
        )
    if mean is None:
        if icc is None and kappa is None:
            return None  # required without a prefix: required_prior says so
        raise OptionError(
            NO_PRIOR
            if not prefix
            else f"{opt('icc')}/{opt('kappa')} need {opt('mean')} (or give {opt('from')} "
            "EARLIER_RUNS)"
        )
    source = (
        f"stated with {opt('mean')}/{opt('icc' if icc is not None else 'kappa')}"
        if prefix
        else "stated assumptions"
    )
    return plan.Assumptions(mean=mean, icc=icc, kappa=kappa, source=source)


def required_prior(
    path: str | None,
    mean: float | None,
    icc: float | None,
    kappa: float | None,
    reading: ReadOptions,
    system: str | None,
) -> Any:
    """The required prior of ``plan design`` / ``plan power`` (:func:`resolve_prior`)."""
    prior = resolve_prior(path, mean, icc, kappa, reading, system)
    if prior is None:
        raise OptionError(NO_PRIOR)
    return prior


def budget_cost_option(f: Any) -> Any:
    """``--budget-cost MONEY`` (plan design, plan next): a budget in money."""
    return click.option(
        "--budget-cost",
        type=float,
        default=None,
        help="Total money you can spend (converted into runs at --cost-per-run, or at the cost "
        "per run observed in the runs' cost column).",
    )(f)


def cost_per_run_option(f: Any) -> Any:
    """``--cost-per-run C`` (plan design, plan next): what one run costs."""
    return click.option(
        "--cost-per-run",
        type=float,
        default=None,
        help="What one run costs [default: with --budget-cost, observed in the runs' cost "
        "column; else 1, a budget in runs].",
    )(f)


# ------------------------------------------------------------------ design
@command("design")
@click.option("--budget-runs", type=float, default=None, help="Total runs you can afford.")
@budget_cost_option
@k_option(
    single=True,
    help="k of pass^k and pass@k [default: 5; with --from, the largest of 1, 2, 5 its "
    "fewest runs allow].",
)
@cost_per_run_option
@click.option("--cost-per-task", type=float, default=0.0, show_default=True)
@click.option(
    "--metric",
    type=click.Choice(["pass_hat_k", "mean", "pass_at_k"]),
    default="pass_hat_k",
    show_default=True,
    help="The standard error the optimum minimises.",
)
@click.option(
    "--scope",
    type=click.Choice(["population", "benchmark"]),
    default="population",
    show_default=True,
)
@click.option("--tasks", type=int, default=None, help="Fix the number of tasks.")
@click.option("--all", "every_row", is_flag=True, help="Show every row, not a selection.")
@click.option(
    "--all-pairs",
    is_flag=True,
    help="Every affordable (tasks, runs) pair, not only the efficient ones (most tasks per n).",
)
@click.option(
    "--check",
    "replicates",
    type=int,
    default=0,
    metavar="REPLICATES",
    help="Also simulate a few designs (this many benchmarks each) to check the SEs.",
)
@click.option(
    "--scheduler",
    default=None,
    help="For --check: dask scheduler address, or synchronous/threads (default: local cluster).",
)
@quiet_option("No progress bar and no notes.")
@prior_options
@json_option("table")
def design_cmd(
    budget_runs: float | None,
    budget_cost: float | None,
    k: int | None,
    cost_per_run: float | None,
    cost_per_task: float,
    metric: str,
    scope: str,
    tasks: int | None,
    every_row: bool,
    all_pairs: bool,
    replicates: int,
    scheduler: str | None,
    quiet: bool,
    prior: str | None,
    mean: float | None,
    icc: float | None,
    kappa: float | None,
    reading: ReadOptions,
    system: str | None,
    as_json: bool,
) -> None:
    """Tasks × runs per task for a budget: SEs of pass^k, mean and pass@k, optimum marked."""
    res = plan.design(
        budget_runs=budget_runs,
        budget_cost=budget_cost,
        k=k,
        prior=required_prior(prior, mean, icc, kappa, reading, system),
        cost_per_run=cost_per_run,
        cost_per_task=cost_per_task,
        metric=metric,  # type: ignore[arg-type]
        scope=scope,  # type: ignore[arg-type]
        tasks=tasks,
        system=system,
        all_pairs=all_pairs,
    )
    if replicates:
        progress = not quiet and not as_json and sys.stderr.isatty()
        res = res.check(replicates=replicates, scheduler=scheduler, progress=progress)
    emit_result(res, as_json, every_row=every_row)


@click.group("plan")
def plan_group() -> None:
    """How many runs, tasks and dollars: closed forms, budget design, power."""


for _cmd in (
    detect_cmd,
    bound_cmd,
    certify_cmd,
    width_cmd,
    retry_cmd,
    gate_cmd,
    design_cmd,
    table_cmd,
):
    plan_group.add_command(_cmd)


def register(cli: click.Group) -> None:
    """Attach ``plan`` to the CLI group."""
    cli.add_command(plan_group)
