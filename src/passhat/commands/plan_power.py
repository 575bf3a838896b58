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

import dataclasses
import sys
from typing import Any

import click

from passhat import planner as plan
from passhat.commands._common import (
    InputSpec,
    ReadOptions,
    check_path_given,
    input_options,
    load_input,
    parse_k,
    quiet_option,
)
from passhat.commands._options import (
    ci_option,
    command,
    json_option,
    k_option,
    say_deprecated,
    seed_option,
)
from passhat.commands.plan import emit_result, plan_group, prior_options, required_prior
from passhat.errors import OptionError

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
    reading: ReadOptions,
    who: tuple[str | None, str | None],
    measure: tuple[str, int],
) -> Any:
    """The paired pilot runs PILOT (and CAND) as the planner's ``pilot``, or None."""
    baseline, candidate = who
    if pilot is None and example is None:
        if cand is not None or baseline is not None or candidate is not None:
            raise OptionError("--baseline/--candidate and CAND need pilot runs: give PILOT")
        return None
    if example is not None and cand is not None:
        raise OptionError("--example is one input with both systems: give no CAND with it")
    files = [p for p in (pilot, cand) if p is not None]
    if example is not None or pilot is None:  # the example (or both given: refused)
        data = load_input(pilot, example=example, fmt=reading.fmt)
    else:
        data = reading.read(pilot, among=files)
    data_b = reading.read(cand, among=files) if cand is not None else None
    metric, k = measure
    return plan.paired_pilot(
        data, data_b, baseline=baseline, candidate=candidate, metric=metric,
        k=1 if metric == "mean" else k,
    )  # fmt: skip


def _joint_spread(path: str, who: tuple[str | None, str | None], metric: str, k: int) -> Any:
    """The planner's spread from a saved joint fit (``--rho-from FIT``)."""
    from passhat.model import JointFit, load_fit

    fitted = load_fit(path)
    if not isinstance(fitted, JointFit):
        raise OptionError(f"--rho-from {path}: not a joint fit (fit it with --model joint)")
    return fitted.pilot(*who, metric=metric, k=1 if metric == "mean" else k)


def _grid(
    grid_tasks: str | None, grid_runs: str | None, given: dict[str, Any], pilot: Any
) -> tuple[list[int], list[int]] | None:
    """The sweep --grid-tasks × --grid-runs (simulated from a model), or None."""
    gt, gr = _int_list(grid_tasks, "--grid-tasks"), _int_list(grid_runs, "--grid-runs")
    if gt is None and gr is None:
        return None
    if gt is None or gr is None or given["delta"] is None:
        raise OptionError("a sweep needs --grid-tasks, --grid-runs and --delta")
    if any(given[name] is not None for name in ("tasks", "runs_per_task", "power")):
        raise OptionError("a sweep takes --grid-tasks/--grid-runs, not --tasks/--runs/--power")
    if pilot is not None:
        raise OptionError("a simulated sweep draws from a model: give --from/--mean, not PILOT")
    return gt, gr


@command("power", example="--mean 0.6 --icc 0.3 --delta 0.1 --power 0.8")
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
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Level of the test.")
@click.option(
    "--metric",
    type=click.Choice(["mean", "pass_hat_k", "pass_at_k"]),
    default="mean",
    show_default=True,
)
@k_option(single=True, default=1, help="k of pass^k and pass@k (pilot runs need 2k per task).")
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
    "--method",
    type=click.Choice(["sign-flip", "simulation", "t-test", "analytic"]),
    default="sign-flip",
    show_default=True,
    help="Power of compare's sign-flip test, computed (sign-flip) or simulated (simulation; "
    "a sweep always simulates); or of the paired t-test (t-test; 'analytic' is its deprecated "
    "name).",
)
@click.option(
    "--replicates",
    type=int,
    default=2000,
    show_default=True,
    help="Simulated benchmarks per design (--method simulation and sweeps).",
)
@seed_option(help="Seed of the simulated benchmarks (point i of a sweep: seed + i).")
@click.option("--grid-tasks", default=None, help="Sweep: task counts, e.g. 25,50,100.")
@click.option("--grid-runs", default=None, help="Sweep: runs per task, e.g. 3,5,10.")
@click.option(
    "--scheduler",
    default=None,
    help="Sweep: dask scheduler address, or synchronous/threads (default: a local cluster).",
)
@quiet_option("No progress bar and no notes.")
@prior_options
@json_option("grid", "table")
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
    prior: str | None,
    mean: float | None,
    icc: float | None,
    kappa: float | None,
    reading: ReadOptions,
    system: str | None,
    as_json: bool,
) -> None:
    """Tasks × runs to detect a difference between two systems (paired), or a design's power.

    PILOT: paired pilot runs of both systems (one file with two systems, or
    PILOT and CAND); the spread of per-task differences is then measured.
    """
    stated = (prior, mean, icc, kappa)
    if method == "analytic":
        say_deprecated("--method analytic", "--method t-test (the paired t-test)")
        method = "t-test"
    if rho_from is not None:
        check_path_given(rho_from, option="--rho-from")
        if pilot is not None or example is not None or prior is not None or mean is not None:
            raise OptionError("--rho-from FIT replaces PILOT and --from/--mean: give one of them")
        spread = _joint_spread(rho_from, (baseline, candidate), metric, k)
    else:
        spread = _pilot(pilot, cand, example, reading, (baseline, candidate), (metric, k))
        if spread is not None and any(v is not None for v in stated):
            raise OptionError("give pilot runs (PILOT) or --from/--mean assumptions, not both")
    given: dict[str, Any] = {
        "delta": delta, "tasks": tasks, "runs_per_task": runs_per_task, "power": power_,
    }  # fmt: skip
    grid = _grid(grid_tasks, grid_runs, given, spread)
    if grid is not None:
        given.update(tasks=grid[0], runs_per_task=grid[1])
    progress = not quiet and sys.stderr.isatty() and not as_json
    stated_prior = None if spread is not None else required_prior(*stated, reading, system)
    with plan.sweep_options(scheduler=scheduler, progress=progress):
        res = plan.power(
            **given,
            prior=stated_prior,
            pilot=spread, k=k, metric=metric, alpha=alpha, correlation=correlation,  # type: ignore[arg-type]
            method="simulation" if grid is not None else method,  # type: ignore[arg-type]
            replicates=replicates, seed=seed, system=system,
        )  # fmt: skip
    if rho_from is not None:  # the fit read from a file: its path is the input
        res = dataclasses.replace(res, source={"joint_fit": rho_from})
    emit_result(res, as_json)


@command("more-runs")
@input_options
@click.option("--runs", "runs_text", default="1,2,5,10", show_default=True, help="m values.")
@k_option()
@ci_option(default=0.95, help="Level of the intervals.")
@click.option(
    "--simulations",
    type=click.IntRange(1, 1_000_000),
    default=200,
    show_default=True,
    help="Simulated sets of new runs per m (at most 10^6).",
)
@seed_option(help="Seed of the fit and the simulated runs.")
@quiet_option("No notes, only the table.")
@json_option("table")
def more_runs_cmd(
    source: InputSpec,
    runs_text: str,
    k: list[int] | None,
    ci: float,
    simulations: int,
    seed: int,
    as_json: bool,
) -> None:
    """Expected interval width after m more runs on the same tasks, and the floor."""
    data = source.load()
    runs = _int_list(runs_text, "--runs") or []
    res = plan.more_runs(data, runs=runs, k=k, ci=ci, simulations=simulations, seed=seed)
    emit_result(res, as_json)


def register(cli: click.Group) -> None:
    """Attach ``plan power`` and ``plan more-runs`` to the ``plan`` group."""
    plan_group.add_command(power_cmd)
    plan_group.add_command(more_runs_cmd)
