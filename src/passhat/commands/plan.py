"""``passhat plan …``: how many runs, tasks and dollars, with the reasoning.

Every subcommand prints the answer first, then one or two sentences of
reasoning and the assumptions; ``--json`` writes the same as JSON.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Iterable
from typing import Any

import click
import pandas as pd

from passhat import planner as plan
from passhat._format import fixed
from passhat._version import __version__
from passhat.commands._common import emit_json, load_input, quiet_option, records
from passhat.commands._output import Table, echo, make_console, table_output
from passhat.commands._solve_for import in_cli_terms, leave_one_out
from passhat.errors import InputError, OptionError
from passhat.estimators import as_counts
from passhat.io import input_stamp
from passhat.planner.assumptions import FIT_HINT, LOG_KAPPA_LIMITS

__all__ = ["prior_options", "register", "resolve_prior"]


def _fmt_value(res: plan.PlanResult) -> str:
    v = res.value
    s = res.solved_for
    if s in ("runs", "runs_per_task"):
        return f"{v} runs" + (" per task" if s == "runs_per_task" else "")
    if s == "tasks":
        return f"{v} tasks"
    if s == "k":
        return f"k = {v}"
    if s == "delta":
        return f"delta = {fixed(v, 4, sign=True)}"
    if s == "half_width":
        return f"±{v:.2%}"
    if s == "all_must_pass":
        q = res.quantities
        return (
            f"retry-until-green {q['retry_until_green']:.1%} vs all-must-pass "
            f"{q['all_must_pass']:.1%}"
        )
    if s == "failure_rate":
        return f"failure rate ≤ {v:.1%}"
    return f"{s.replace('_', ' ')} = {v:.2%}"


def _explain(reasoning: str, method: str | None, assumptions: Iterable[str]) -> None:
    """Print the reasoning, the method (when given) and the assumptions."""
    echo(reasoning)
    if method is not None:
        echo(f"Method: {method}.")
    echo("Assumes: " + "; ".join(assumptions) + ".")


def _json(stamp: dict[str, Any] | None, **parts: Any) -> None:
    """Write ``parts`` as JSON after the version and (when given) the input ``stamp``."""
    emit_json(
        {"passhat_version": __version__, **({"input": stamp} if stamp is not None else {}), **parts}
    )


def _emit(res: plan.PlanResult, as_json: bool, stamp: dict[str, Any] | None = None) -> None:
    """Print a result, or write it as JSON (with the input ``stamp`` when given)."""
    if as_json:
        _json(stamp, **res.to_dict())
        return
    click.echo(_fmt_value(res))
    _explain(res.reasoning, res.method, res.assumptions)


json_opt = click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
#: --quiet on the closed-form commands: accepted like every command's, nothing to silence.
closed_form_quiet = quiet_option(
    "Accepted like every command's; a closed form has no notes or progress."
)


# --------------------------------------------------------------- closed forms
@click.command("detect")
@click.option("--flip-rate", type=float, default=None, help="Per-run failure rate f.")
@click.option("--confidence", type=float, default=None, help="Probability q (default 0.95).")
@click.option("--runs", type=int, default=None, help="Number of runs.")
@json_opt
@closed_form_quiet
@in_cli_terms
def detect_cmd(
    flip_rate: float | None, confidence: float | None, runs: int | None, as_json: bool
) -> None:
    """Runs to see at least one failure with probability q at flip rate f."""
    f, q, n = leave_one_out(
        "detect",
        {"--flip-rate": flip_rate, "--confidence": confidence, "--runs": runs},
        example="--flip-rate 0.1",
        default=("--confidence", 0.95),
    )
    _emit(plan.runs_to_detect(flip_rate=f, confidence=q, runs=n), as_json)


@click.command("bound")
@click.option("--runs", type=int, required=True, help="Runs observed.")
@click.option("--failures", type=int, default=0, show_default=True, help="Failures seen.")
@click.option("--confidence", type=float, default=0.95, show_default=True)
@json_opt
@closed_form_quiet
@in_cli_terms
def bound_cmd(runs: int, failures: int, confidence: float, as_json: bool) -> None:
    """One-sided (Clopper–Pearson) upper bound on the per-run failure rate."""
    _emit(plan.failure_upper_bound(runs=runs, failures=failures, confidence=confidence), as_json)


@click.command("certify")
@click.option("--max-failure-rate", type=float, default=None, help="Failure rate f₀ to rule out.")
@click.option("--confidence", type=float, default=None, help="Confidence (default 0.95).")
@click.option("--allowed-failures", type=int, default=0, show_default=True)
@click.option("--runs", type=int, default=None, help="Runs (solve for the rest).")
@json_opt
@closed_form_quiet
@in_cli_terms
def certify_cmd(
    max_failure_rate: float | None,
    confidence: float | None,
    allowed_failures: int,
    runs: int | None,
    as_json: bool,
) -> None:
    """Runs needed to certify a failure rate below f₀ with x allowed failures."""
    f, q, n = leave_one_out(
        "certify",
        {"--max-failure-rate": max_failure_rate, "--confidence": confidence, "--runs": runs},
        example="--max-failure-rate 0.05",
        default=("--confidence", 0.95),
    )
    _emit(
        plan.runs_to_certify(
            max_failure_rate=f, confidence=q, runs=n, allowed_failures=allowed_failures
        ),
        as_json,
    )


@click.command("width")
@click.option("--half-width", type=float, default=None, help="Target interval half-width.")
@click.option("--rate", type=float, required=True, help="Expected per-task success rate.")
@click.option(
    "--method",
    type=click.Choice(["wilson", "clopper-pearson"]),
    default="wilson",
    show_default=True,
)
@click.option("--confidence", type=float, default=0.95, show_default=True)
@click.option("--runs", type=int, default=None, help="Runs (then the half-width is solved).")
@json_opt
@closed_form_quiet
@in_cli_terms
def width_cmd(
    half_width: float | None,
    rate: float,
    method: str,
    confidence: float,
    runs: int | None,
    as_json: bool,
) -> None:
    """Runs for a per-task interval of a given half-width (exact search)."""
    half_width, runs = leave_one_out(
        "width",
        {"--half-width": half_width, "--runs": runs},
        example="--rate 0.8 --half-width 0.1",
    )
    _emit(
        plan.runs_for_width(
            half_width=half_width,
            rate=rate,
            method=method,  # type: ignore[arg-type]
            confidence=confidence,
            runs=runs,
        ),
        as_json,
    )


@click.command("gate")
@click.option("--rate", type=float, required=True, help="Per-run pass rate p.")
@click.option("--attempts", type=int, required=True, help="Attempts k.")
@json_opt
@closed_form_quiet
@in_cli_terms
def gate_cmd(rate: float, attempts: int, as_json: bool) -> None:
    """Retry-until-green 1−(1−p)^k vs all-k-must-pass p^k."""
    _emit(plan.gate(rate=rate, attempts=attempts), as_json)


@click.command("table")
@click.option("--confidence", type=float, default=0.95, show_default=True)
@json_opt
@closed_form_quiet
@in_cli_terms
def table_cmd(confidence: float, as_json: bool) -> None:
    """Reference tables: clean runs vs ruled-out failure rate, runs to see a flip, gate odds."""
    tables = plan.seed_tables(confidence=confidence)
    if as_json:
        tabs = {k: records(v) for k, v in tables.items()}
        _json(None, confidence=confidence, **tabs, assumptions=list(plan.ASSUMPTIONS))
        return
    for _, r in tables["clean_runs"].iterrows():
        click.echo(
            f"{int(r['runs']):>2} clean runs rule out failure rates above "
            f"{r['failure_rate_upper']:.1%}"
        )
    for _, r in tables["flip_rate"].iterrows():
        click.echo(f"flip rate {r['flip_rate']:.0%}: {int(r['runs'])} runs")
    g = tables["gate"].iloc[0]
    click.echo(
        f"p={g['rate']:g}, gate passes if any of {int(g['attempts'])} attempts passes: "
        f"{g['retry_until_green']:.1%}; all {int(g['attempts'])} must pass: "
        f"{g['all_must_pass']:.1%}"
    )
    _explain(
        f"Bounds are exact one-sided Clopper–Pearson at {confidence:.0%}; runs to see a flip "
        f"are ⌈ln(1−q)/ln(1−f)⌉ at q = {confidence:.0%}.",
        None,
        plan.ASSUMPTIONS,
    )


# ------------------------------------------------------ design and power
def prior_options(
    f: Callable[..., Any] | None = None, /, *, prefix: str = ""
) -> Callable[..., Any]:
    """--from RUNS (with --format/--system) or --mean with --icc/--kappa.

    ``prefix`` names a second set beside a command's own input options:
    ``prior-`` gives --prior-from, --prior-format, --prior-system, --prior-mean,
    --prior-icc, --prior-kappa (parameters ``prior_from`` … ``prior_kappa``);
    read them with :func:`resolve_prior` and the same ``prefix``.
    """
    if f is None:
        return lambda g: prior_options(g, prefix=prefix)
    what = "Earlier trial results" if prefix else "Trial results"
    helps = {
        "from": f"{what} to fit (μ, κ) from (Beta-Binomial ML).",
        "mean": "Mean success μ.",
        "icc": "Within-task correlation 1/(κ+1).",
        "kappa": "Beta concentration κ.",
        "format": f"Format of --{prefix}from (sniffed).",
        "system": "System in a multi-system --prior-from."
        if prefix
        else "System in a multi-system input.",
    }
    plain = {"from": "from_path", "mean": "mean_", "format": "fmt"}
    for name in reversed(helps):  # click lists the options in the order applied last first
        extra: dict[str, Any] = {"type": float} if name in ("mean", "icc", "kappa") else {}
        if name == "from":
            extra["metavar"] = "EARLIER_RUNS" if prefix else "RUNS"
        param = f"prior_{name}" if prefix else plain.get(name, name)
        f = click.option(f"--{prefix}{name}", param, default=None, help=helps[name], **extra)(f)
    return f


#: The refusal of ``plan design`` / ``plan power`` without --from or --mean.
NO_PRIOR = "no assumptions: give --from RUNS, or --mean with --icc or --kappa"


def resolve_prior(
    from_path: str | None,
    mean_: float | None,
    icc: float | None,
    kappa: float | None,
    fmt: str | None,
    system: str | None,
    *,
    prefix: str = "",
) -> tuple[plan.Assumptions | None, dict[str, Any]]:
    """The (μ, κ) the options of :func:`prior_options` with ``prefix`` state, and the stamp
    of the file fitted ({} for stated values).

    None when no option is given (``plan design`` / ``plan power`` require one:
    :func:`_prior`). With ``prefix`` (``prior-``) a fit whose κ ends at a search
    limit is refused, and the prior's ``source`` names the file: "fitted to
    EARLIER: T tasks, N runs".
    """

    def opt(name: str) -> str:
        return f"--{prefix}{name}"

    if from_path is not None:
        if mean_ is not None or icc is not None or kappa is not None:
            raise OptionError(
                f"give {opt('from')} {'EARLIER_RUNS' if prefix else 'RUNS'} or {opt('mean')} "
                f"with {opt('icc')}/{opt('kappa')}, not both"
            )
        if not prefix:
            data = load_input(from_path, example=None, fmt=fmt)
            return plan.from_counts(data, system=system), input_stamp(data)
        try:
            data = load_input(from_path, example=None, fmt=fmt)
        except InputError as err:  # which file: the input or the earlier one
            raise type(err)(f"{opt('from')}: {err}") from err
        return _fit_earlier(data, from_path, system, opt), input_stamp(data)
    if prefix and (fmt is not None or system is not None):
        raise OptionError(f"{opt('format')} and {opt('system')} describe {opt('from')}: give it")
    if mean_ is None:
        if icc is None and kappa is None:
            return None, {}  # required without a prefix: _prior says so
        raise OptionError(
            NO_PRIOR
            if not prefix
            else f"{opt('icc')}/{opt('kappa')} need {opt('mean')} (or give {opt('from')} "
            "EARLIER_RUNS)"
        )
    if (icc is None) == (kappa is None):
        raise OptionError(f"with {opt('mean')} give exactly one of {opt('icc')} or {opt('kappa')}")
    try:
        stated = plan.Assumptions(
            mean=mean_,
            icc=icc,
            kappa=kappa,
            source=f"stated with {opt('mean')}/{opt('icc' if icc is not None else 'kappa')}"
            if prefix
            else "stated assumptions",
        )
    except OptionError as err:
        raise OptionError(re.sub(r"^(mean|icc|kappa)\b", lambda m: opt(m[1]), str(err))) from err
    return stated, {}


def _fit_earlier(
    data: Any, path: str, system: str | None, opt: Callable[[str], str]
) -> plan.Assumptions:
    """``plan.from_counts`` of an earlier evaluation, refused where the fit is degenerate."""
    state = f"state the prior with {opt('mean')} and {opt('kappa')} or {opt('icc')}"
    ds = as_counts(data)
    systems = [str(x) for x in ds["system"].values]
    if system is None and len(systems) > 1:
        raise OptionError(
            f"{opt('from')} {path} holds {len(systems)} systems ({', '.join(systems[:5])}); "
            f"name one with {opt('system')}"
        )
    if system is not None and system not in systems:
        raise OptionError(
            f"{opt('system')} {system!r} is not in {opt('from')} {path} (have "
            f"{', '.join(systems[:5])})"
        )
    name = system if system is not None else systems[0]
    try:
        fit = plan.from_counts(data, system=name)
    except InputError as err:
        raise InputError(f"{opt('from')} {path}: " + str(err).replace(FIT_HINT, state)) from err
    n = ds.sel(system=name)["n"].values
    tasks, runs = int((n > 0).sum()), int(n.sum())
    log_kappa = math.log(float(fit.kappa))  # type: ignore[arg-type]
    low, high = LOG_KAPPA_LIMITS
    if log_kappa <= low + 1e-6:
        raise InputError(
            f"{opt('from')} {path}: the fit of system {name!r} ({tasks} tasks, {runs} runs) "
            f"puts κ at its lower limit e^{low:.0f}: (nearly) every task passed all its runs or "
            "failed all of them (no flaky task), so the fit cannot tell how the tasks' rates "
            f"spread; use an earlier evaluation with flaky tasks, or {state}"
        )
    if log_kappa >= high - 1e-6:
        raise InputError(
            f"{opt('from')} {path}: the fit of system {name!r} ({tasks} tasks, {runs} runs) "
            f"puts κ at its upper limit e^{high:.0f}: the tasks' rates do not differ beyond "
            "run-to-run chance here, so any larger κ fits as well; use an earlier evaluation "
            f"with more tasks or runs per task, or {state}"
        )
    where = f"{path} (system {name!r})" if ds.sizes["system"] > 1 else path
    return plan.Assumptions(
        mean=fit.mean, kappa=fit.kappa, source=f"fitted to {where}: {tasks:,} tasks, {runs:,} runs"
    )


def _prior(
    from_path: str | None,
    mean_: float | None,
    icc: float | None,
    kappa: float | None,
    fmt: str | None,
    system: str | None,
) -> tuple[plan.Assumptions, dict[str, Any]]:
    """The required prior of ``plan design`` / ``plan power`` (:func:`resolve_prior`)."""
    prior, stamp = resolve_prior(from_path, mean_, icc, kappa, fmt, system)
    if prior is None:
        raise OptionError(NO_PRIOR)
    return prior, stamp


def _show_table(df: pd.DataFrame, cols: list[tuple[str, str, str]], title: str) -> None:
    table = Table(title=title)
    for _, head, _ in cols:
        table.add_column(head, justify="right")
    for _, r in df.iterrows():
        cells = []
        for col, _, spec in cols:
            v = int(r[col]) if spec == "d" else r[col]
            cells.append(
                "★"
                if col == "optimal" and v
                else ""
                if col == "optimal"
                else fixed(v, int(spec[1:-1]))  # ".3f": never "-0.000"
                if spec.endswith("f")
                else f"{v:{spec}}"
            )
        table.add_row(*cells)
    make_console().print(table)


@click.command("design")
@click.option("--budget-runs", type=float, default=None, help="Total runs you can afford.")
@click.option("--budget-cost", type=float, default=None, help="Total money you can spend.")
@click.option("--k", "k", type=int, default=5, show_default=True)
@click.option("--cost-per-run", type=float, default=1.0, show_default=True)
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
@click.option("--all", "show_all", is_flag=True, help="Show every row, not a selection.")
@click.option(
    "--all-pairs",
    is_flag=True,
    help="Every affordable (tasks, runs) pair, not only the efficient ones (most tasks per n).",
)
@click.option(
    "--check",
    "check",
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
@json_opt
@table_output("table")
@in_cli_terms
def design_cmd(
    budget_runs: float | None,
    budget_cost: float | None,
    k: int,
    cost_per_run: float,
    cost_per_task: float,
    metric: str,
    scope: str,
    tasks: int | None,
    show_all: bool,
    all_pairs: bool,
    check: int,
    scheduler: str | None,
    quiet: bool,
    from_path: str | None,
    mean_: float | None,
    icc: float | None,
    kappa: float | None,
    fmt: str | None,
    system: str | None,
    as_json: bool,
) -> None:
    """Tasks × runs per task for a budget: SEs of pass^k, mean and pass@k, optimum marked."""
    if budget_runs is None and budget_cost is None:
        raise OptionError("give --budget-runs or --budget-cost")
    if scope == "benchmark" and tasks is None:
        raise OptionError(
            "--scope benchmark needs --tasks N: the benchmark value is the mean over these N "
            "tasks, so it changes with N and cannot be optimised over it (or use --scope "
            "population to choose the number of tasks)"
        )
    prior, stamp = _prior(from_path, mean_, icc, kappa, fmt, system)
    t = plan.design(
        budget_runs=budget_runs,
        budget_cost=budget_cost,
        k=k,
        prior=prior,
        cost_per_run=cost_per_run,
        cost_per_task=cost_per_task,
        metric=metric,  # type: ignore[arg-type]
        scope=scope,  # type: ignore[arg-type]
        tasks=tasks,
        all_pairs=all_pairs,
    )
    best = t.attrs["optimum"]
    checked = None
    if check < 0:
        raise OptionError(f"--check must be ≥ 0 replicates (got {check})")
    if check:
        checked = plan.design_check(
            t,
            prior=prior,
            replicates=check,
            scheduler=scheduler,
            progress=not quiet and not as_json and sys.stderr.isatty(),
        )
    if as_json:
        attrs = {key: t.attrs[key] for key in ("reasoning", "assumptions", "method", "n_opt_k1")}
        check_rows = records(checked) if checked is not None else None
        _json(stamp, check=check_rows, optimum=best, **attrs, table=records(t))
        return
    label = metric.replace("pass_hat_k", f"pass^{k}").replace("pass_at_k", f"pass@{k}")
    click.echo(
        f"{best['tasks']} tasks × {best['runs_per_task']} runs per task "
        f"({best['runs']} runs, cost {best['cost']:g}): {scope} SE of {label} "
        f"±{fixed(best['se_' + scope], 4)}"
    )
    _explain(t.attrs["reasoning"], t.attrs["method"], t.attrs["assumptions"])
    _show_table(
        t[t["metric"] == metric] if show_all else plan.design_selection(t),
        [
            ("tasks", "tasks", "d"),
            ("runs_per_task", "runs/task", "d"),
            ("runs", "runs", "d"),
            ("cost", "cost", ".4g"),
            ("se_benchmark", "SE benchmark", ".4f"),
            ("se_task_spread", "SE task spread", ".4f"),
            ("se_population", "SE population", ".4f"),
            ("optimal", "opt", ""),
        ],
        f"{label}: standard errors by design (selection; --all for every row)"
        if not show_all
        else f"{label}: standard errors by design",
    )
    if checked is not None:
        names = {"mean": "mean", "pass_at_k": f"pass@{k}", "pass_hat_k": f"pass^{k}"}
        _show_table(
            checked.assign(metric=checked["metric"].map(names)),
            [
                ("tasks", "tasks", "d"),
                ("runs_per_task", "runs/task", "d"),
                ("metric", "metric", ""),
                ("se_population", "SE pop.", ".4f"),
                ("sd_population_simulated", "simulated", ".4f"),
                ("se_benchmark", "SE bench.", ".4f"),
                ("sd_benchmark_simulated", "simulated", ".4f"),
            ],
            f"check by simulation ({check} benchmarks per design; relative MC error "
            f"±{checked['relative_mc_error'].iloc[0]:.1%})",
        )


@click.group("plan")
def plan_group() -> None:
    """How many runs, tasks and dollars: closed forms, budget design, power."""


for _cmd in (
    detect_cmd,
    bound_cmd,
    certify_cmd,
    width_cmd,
    gate_cmd,
    design_cmd,
    table_cmd,
):
    plan_group.add_command(_cmd)


def register(cli: click.Group) -> None:
    """Attach ``plan`` to the CLI group."""
    cli.add_command(plan_group)
