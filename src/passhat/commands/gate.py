"""``passhat gate``: an anytime-valid release gate — pass (0), fail (1) or continue (3).

Parses, calls :func:`passhat.plan.sequential`, prints its view (or its JSON document). A
harness may call it after every batch of runs: the decision's error rates hold however often
it is checked.
"""

from __future__ import annotations

import click

from passhat.commands._common import InputSpec, input_options, quiet_option
from passhat.commands._options import command, json_option, k_option, weights_option
from passhat.commands._output import emit_json, show
from passhat.errors import OptionError

__all__ = ["register"]


@command("gate")
@input_options(system="one")
@k_option(single=True, default=1, help="Runs per block: guard pass^k.")
@click.option(
    "--metric",
    type=click.Choice(["pass_hat_k", "pass_at_k", "mean"]),
    default="pass_hat_k",
    show_default=True,
    help="A block fails when any of its k runs fails (pass^k) or all do (pass@k); mean: k = 1.",
)
@click.option(
    "--max-failure-rate",
    type=float,
    default=None,
    help="Pass when 1 − metric over these tasks is shown below this (e.g. 0.01).",
)
@click.option(
    "--margin",
    type=float,
    default=None,
    help="With a baseline: pass when the metric is shown at most this far below the "
    "baseline's, fail when shown further below.",
)
@click.option(
    "--baseline",
    "baseline_path",
    type=click.Path(dir_okay=True, readable=False),
    default=None,
    help="A file with the baseline's runs of the same tasks (read like RUNS; "
    "--system-name FILE=NAME names its system).",
)
@click.option(
    "--baseline-system",
    default=None,
    help="The baseline's system: in --baseline's file, or in RUNS when it holds both builds.",
)
@click.option(
    "--alpha",
    type=float,
    default=0.05,
    show_default=True,
    help="P(wrong pass) and P(wrong fail), each at most this, however often it is checked.",
)
@weights_option()
@json_option("gate")
@quiet_option("Only the decision line (no notes).")
def gate_cmd(
    source: InputSpec,
    k: int,
    metric: str,
    max_failure_rate: float | None,
    margin: float | None,
    baseline_path: str | None,
    baseline_system: str | None,
    alpha: float,
    weights: str,
    as_json: bool,
    quiet: bool,
) -> None:
    """Pass, fail or continue: a gate on RUNS that stays valid however often it is checked.

    With --max-failure-rate F: is 1 − pass^k over these tasks below F? With --margin D and
    a baseline (--baseline FILE, or --baseline-system NAME in RUNS): is the candidate's
    pass^k at most D below the baseline's? Exit 0 pass, 1 fail, 3 continue (more runs
    needed: the expected number is printed), 2 bad input.
    """
    from passhat.planner.sequential import sequential

    if not source.given:
        raise OptionError("no input: give a file of runs (or --example NAME)")
    extra = () if baseline_path is None else (baseline_path,)
    runs = source.load(extra=extra)
    base = source.read(baseline_path) if baseline_path is not None else None
    res = sequential(
        runs,
        base,
        k=k,
        metric=metric,
        max_failure_rate=max_failure_rate,
        margin=margin,
        alpha=alpha,
        system=source.system,
        baseline_system=baseline_system,
        weights=None if weights == "equal" else weights,
        sources=(source.where, baseline_path or "the baseline"),
    )
    if as_json:
        emit_json(res.to_dict())
    else:
        show(res.view(decision_only=quiet), quiet=quiet)
    if res.exit_code:
        click.get_current_context().exit(res.exit_code)


def register(cli: click.Group) -> None:
    """Attach ``gate`` to the CLI group."""
    cli.add_command(gate_cmd)
