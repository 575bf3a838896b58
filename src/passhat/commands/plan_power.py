"""``passhat plan power`` and ``passhat plan more-runs``: comparisons and rounds of runs.

``plan power [PILOT [CAND]]``: tasks × runs to detect a difference between two
systems (paired); with pilot runs of both the spread of per-task differences
is measured, without them it is modelled from ``--from``/``--mean`` and the
between-system correlation is assumed (0.5) unless given. Every answer prints
its sensitivity to that correlation. ``plan more-runs RUNS``: the expected
interval width after m more runs on the same tasks, and the floor only more
tasks lower.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import click

from passhat import planner as plan
from passhat._format import fixed, pct
from passhat.commands._common import (
    InputSpec,
    check_path_given,
    input_options,
    load_input,
    parse_k,
    quiet_option,
    records,
)
from passhat.commands._output import echo, table_output
from passhat.commands._solve_for import in_cli_terms
from passhat.commands.plan import (
    _emit,
    _explain,
    _json,
    _prior,
    _show_table,
    json_opt,
    plan_group,
    prior_options,
)
from passhat.errors import OptionError
from passhat.io import input_stamp
from passhat.planner.pilot import rho_text

__all__ = ["register"]


def _int_list(text: str | None, name: str) -> list[int] | None:
    if text is None:
        return None
    vals = parse_k(text, option=name) if text else []
    if not vals:
        raise OptionError(f"{name}: give values like 20,50,100")
    return vals


def _pilot(
    pilot: str | None,
    cand: str | None,
    example: str | None,
    fmt: str | None,
    baseline: str | None,
    candidate: str | None,
) -> tuple[Any, Any, dict[str, Any] | None]:
    """Read PILOT (and CAND) into the planner's pilot argument, with the input stamp."""
    if pilot is None and example is None:
        if cand is not None or baseline is not None or candidate is not None:
            raise OptionError("--baseline/--candidate and CAND need pilot runs: give PILOT")
        return None, None, None
    if example is not None and cand is not None:
        raise OptionError("--example is one input with both systems: give no CAND with it")
    data = load_input(pilot, example=example, fmt=fmt)
    data_b = load_input(cand, example=None, fmt=fmt) if cand is not None else None
    stamp: dict[str, Any] = input_stamp(data)
    if data_b is not None:
        stamp = {"pilot": stamp, "candidate": input_stamp(data_b)}
    return data, data_b, stamp


def _joint_spread(
    path: str, baseline: str | None, candidate: str | None, metric: str, k: int
) -> Any:
    """The planner's spread from a saved joint fit (``--rho-from FIT``)."""
    from passhat.model import JointFit, load_fit

    fitted = load_fit(path)
    if not isinstance(fitted, JointFit):
        raise OptionError(f"--rho-from {path}: not a joint fit (fit it with --model joint)")
    return fitted.pilot(baseline, candidate, metric=metric, k=1 if metric == "mean" else k)


def _sensitivity(q: dict[str, Any], solve: str, where: str = "") -> None:
    """The answer at each between-system correlation, the one used marked."""
    rows = q.get("sensitivity") or []
    if not rows:
        return
    kind = (
        "latent correlation of a task's rates"
        if q["correlation_source"] != "measured"
        else "correlation of per-task values"
    )
    rho = rho_text(q["correlation"])
    echo(f"Sensitivity to ρ{where} ({kind}; {q['correlation_source']} ρ = {rho}):")
    for r in rows:
        v = r[solve]
        shown = (
            "out of reach"
            if v is None
            else pct(v)
            if solve == "power"
            else fixed(v, 4, sign=True)
            if solve == "delta"
            else f"{int(v)}"
        )
        sd = "" if not math.isfinite(r["sd_difference"]) else f" (SD {fixed(r['sd_difference'])})"
        mark = "  ← used" if r["used"] else ""
        echo(f"  ρ = {fixed(r['correlation'], 2)}: {solve.replace('_', ' ')} {shown}{sd}{mark}")


@click.command("power")
@click.argument("pilot", required=False, metavar="[PILOT [CAND]]")
@click.argument("cand", required=False, metavar="")
@click.option(
    "--example", default=None, metavar="NAME", help="Pilot runs from a bundled example (agents)."
)
@click.option("--baseline", default=None, help="With PILOT: the baseline system (A).")
@click.option("--candidate", default=None, help="With PILOT: the candidate system (B).")
@click.option("--delta", type=float, default=None, help="Difference to detect (B − A).")
@click.option("--tasks", type=int, default=None, help="Matched tasks.")
@click.option("--runs-per-task", type=int, default=None, help="Runs per task per system.")
@click.option("--power", "power_", type=float, default=None, help="Required power.")
@click.option("--alpha", type=float, default=0.05, show_default=True)
@click.option(
    "--metric",
    type=click.Choice(["mean", "pass_hat_k", "pass_at_k"]),
    default="mean",
    show_default=True,
)
@click.option("--k", "k", type=int, default=1, show_default=True)
@click.option(
    "--correlation",
    type=float,
    default=None,
    help="Between-system correlation (default: measured from PILOT; without pilot runs 0.5 "
    "is assumed, and the sensitivity table shows what it decides).",
)
@click.option(
    "--rho-from",
    "rho_from",
    default=None,
    metavar="FIT",
    help="A joint fit (passhat fit --model joint -o FIT): the spread of per-task differences "
    "and its between-system correlation come from the model (with --baseline/--candidate).",
)
@click.option(
    "--method", type=click.Choice(["analytic", "simulation"]), default="analytic", show_default=True
)
@click.option("--replicates", type=int, default=2000, show_default=True)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--grid-tasks", default=None, help="Sweep: task counts, e.g. 25,50,100.")
@click.option("--grid-runs", default=None, help="Sweep: runs per task, e.g. 3,5,10.")
@click.option(
    "--scheduler",
    default=None,
    help="Sweep: dask scheduler address, or synchronous/threads (default: a local cluster).",
)
@quiet_option("No progress bar and no notes.")
@prior_options
@json_opt
@table_output("grid", "table")
@in_cli_terms
def power_cmd(
    pilot: str | None,
    cand: str | None,
    example: str | None,
    baseline: str | None,
    candidate: str | None,
    delta: float | None,
    tasks: int | None,
    runs_per_task: int | None,
    power_: float | None,
    alpha: float,
    metric: str,
    k: int,
    correlation: float | None,
    rho_from: str | None,
    method: str,
    replicates: int,
    seed: int,
    grid_tasks: str | None,
    grid_runs: str | None,
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
    """Tasks × runs to detect a difference between two systems (paired), or a design's power.

    PILOT: paired pilot runs of both systems (one file with two systems, or
    PILOT and CAND); the spread of per-task differences is then measured.
    """
    pilot_arg: Any = None
    if rho_from is not None:
        check_path_given(rho_from, option="--rho-from")
        if pilot is not None or example is not None or from_path is not None or mean_ is not None:
            raise OptionError("--rho-from FIT replaces PILOT and --from/--mean: give one of them")
        data, data_b = None, None
        stamp: dict[str, Any] | None = {"joint_fit": rho_from}
        pilot_arg = _joint_spread(rho_from, baseline, candidate, metric, k)
        prior = None
    else:
        data, data_b, stamp = _pilot(pilot, cand, example, fmt, baseline, candidate)
    if data is not None:
        if from_path is not None or mean_ is not None or icc is not None or kappa is not None:
            raise OptionError("give pilot runs (PILOT) or --from/--mean assumptions, not both")
        kk = 1 if metric == "mean" else k
        pilot_arg = plan.paired_pilot(
            data, data_b, baseline=baseline, candidate=candidate, metric=metric, k=kk
        )
        prior = None
    elif rho_from is None:
        prior, stamp = _prior(from_path, mean_, icc, kappa, fmt, system)
    common: dict[str, Any] = {
        "prior": prior,
        "pilot": pilot_arg,
        "k": k,
        "metric": metric,
        "alpha": alpha,
        "correlation": correlation,
    }
    gt, gr = _int_list(grid_tasks, "--grid-tasks"), _int_list(grid_runs, "--grid-runs")
    if gt is not None or gr is not None:
        if gt is None or gr is None or delta is None:
            raise OptionError("a sweep needs --grid-tasks, --grid-runs and --delta")
        if tasks is not None or runs_per_task is not None or power_ is not None:
            raise OptionError("a sweep takes --grid-tasks/--grid-runs, not --tasks/--runs/--power")
        if pilot_arg is not None:
            raise OptionError("a simulated sweep draws from a model: give --from/--mean, not PILOT")
        common.pop("pilot")
        df = plan.power_grid(
            delta=delta,
            tasks=gt,
            runs_per_task=gr,
            replicates=replicates,
            seed=seed,
            scheduler=scheduler,
            progress=not quiet and sys.stderr.isatty() and not as_json,
            **common,
        )
        if as_json:
            _json(stamp, **df.attrs, grid=records(df))
            return
        _explain(df.attrs["reasoning"], None, df.attrs["assumptions"])
        _show_table(
            df,
            [
                ("tasks", "tasks", "d"),
                ("runs_per_task", "runs/task", "d"),
                ("power_analytic", "power (analytic)", ".3f"),
                ("power", "power (simulated)", ".3f"),
                ("mc_error", "± MC error", ".3f"),
            ],
            f"power to detect {delta:+g}",
        )
        return
    quantities = {
        "--delta": delta,
        "--tasks": tasks,
        "--runs-per-task": runs_per_task,
        "--power": power_,
    }
    unset = [name for name, v in quantities.items() if v is None]
    if len(unset) != 1 and unset != ["--tasks", "--runs-per-task"]:
        given = [name for name, v in quantities.items() if v is not None]
        raise OptionError(
            "plan power: give three of --delta, --tasks, --runs-per-task and --power and the "
            "fourth is solved for, or leave out --tasks and --runs-per-task for a table of "
            f"designs (given: {', '.join(given) or 'none'}); e.g. passhat plan power "
            "--mean 0.6 --icc 0.3 --delta 0.1 --power 0.8"
        )
    if delta is not None and power_ is not None and tasks is None and runs_per_task is None:
        df = plan.power_table(delta=delta, power=power_, **common)
        best = df.attrs["optimum"]
        if as_json:
            _json(stamp, **df.attrs, table=records(df))
            return
        echo(
            f"{best['tasks']} tasks × {best['runs_per_task']} runs per task per system "
            f"({best['runs']} runs per system)"
        )
        _explain(df.attrs["reasoning"], df.attrs["method"], df.attrs["assumptions"])
        _show_table(
            df,
            [
                ("runs_per_task", "runs/task", "d"),
                ("tasks", "tasks", "d"),
                ("runs", "runs/system", "d"),
                ("sd_difference", "SD of difference", ".3f"),
                ("optimal", "opt", ""),
            ],
            f"tasks needed per runs per task (ρ = {rho_text(df.attrs['correlation'])}, "
            f"{df.attrs['correlation_source']})",
        )
        _sensitivity(df.attrs, "tasks", f" at {int(df['runs_per_task'].iloc[0])} runs per task")
        return
    res = plan.power(
        delta=delta,
        tasks=tasks,
        runs_per_task=runs_per_task,
        power=power_,
        method=method,  # type: ignore[arg-type]
        replicates=replicates,
        seed=seed,
        **common,
    )
    _emit(res, as_json, stamp)
    if not as_json:
        _sensitivity(res.quantities, res.solved_for)


@click.command("more-runs")
@input_options
@click.option("--runs", "runs_text", default="1,2,5,10", show_default=True, help="m values.")
@click.option("--k", "k_text", default=None, help="k values (default: 1 and the fewest runs).")
@click.option("--ci", type=float, default=0.95, show_default=True, help="Interval level.")
@click.option(
    "--simulations",
    type=click.IntRange(1, 1_000_000),
    default=200,
    show_default=True,
    help="Simulated sets of new runs per m (at most 10^6).",
)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@quiet_option("No notes, only the table.")
@json_opt
def more_runs_cmd(
    source: InputSpec,
    runs_text: str,
    k_text: str | None,
    ci: float,
    simulations: int,
    seed: int,
    as_json: bool,
) -> None:
    """Expected interval width after m more runs on the same tasks, and the floor."""
    data = source.load()
    ms = _int_list(runs_text, "--runs")
    ks = parse_k(k_text) if k_text is not None else None
    t = plan.more_runs(data, runs=ms or [], k=ks, ci=ci, simulations=simulations, seed=seed)
    if as_json:
        _json(input_stamp(data), **t.attrs, table=records(t))
        return
    for sentence in t.attrs["sentences"]:
        echo(sentence)
    echo(f"Method: {t.attrs['method']}.")
    kmax = int(t["k"].max())
    part = t[(t["metric"] == "pass_hat_k") & (t["k"] == kmax)].copy()
    part["runs"] = [
        "now" if m == 0 else "∞" if math.isinf(m) else f"+{int(m)}" for m in part["runs_added"]
    ]
    for system, rows in part.groupby("system", sort=False):
        _show_table(
            rows,
            [
                ("scope", "scope", ""),
                ("runs", "more runs/task", ""),
                ("expected_sd", "expected sd", ".4f"),
                ("expected_width", f"{ci:.0%} width", ".4f"),
                ("width_ratio", "vs now", ".2f"),
            ],
            f"{system}: pass^{kmax}, expected interval after more runs per task",
        )


def register(cli: click.Group) -> None:
    """Attach ``plan power`` and ``plan more-runs`` to the ``plan`` group."""
    plan_group.add_command(power_cmd)
    plan_group.add_command(more_runs_cmd)
