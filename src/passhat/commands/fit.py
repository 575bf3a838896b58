"""``passhat fit``: posterior of pass^k / pass@k / mean per system (stacked models by default)."""

from __future__ import annotations

import click

from passhat.commands._common import (
    InputSpec,
    input_options,
    quiet_option,
    unscored_tasks_option,
)
from passhat.commands._options import (
    ci_option,
    command,
    json_option,
    k_option,
    paper_option,
    seed_option,
    weights_option,
)
from passhat.commands._output import echo, emit_json, emit_paper, show
from passhat.errors import EXIT_FAIL, OptionError

__all__ = ["register"]

#: ``--strict`` is a gate on the diagnostics: "fail" is exit status 1 (docs/guide/cli.md).
EXIT_DIAGNOSTICS = EXIT_FAIL


@command("fit")
@input_options
@k_option()
@click.option(
    "--method",
    type=click.Choice(["auto", "grid", "nuts"]),
    default="auto",
    show_default=True,
    help="grid: each model on its grid (no sampler, no compiling); nuts: NUTS sampling of "
    "the beta or inflated model (compiles first); auto: the grid; for joint, independence "
    "Metropolis-Hastings from a t at the mode when its PSIS k-hat <= 0.7 and its chains mix, "
    "else NUTS; NUTS for rasch.",
)
@click.option(
    "--model",
    "model",
    type=click.Choice(["auto", "beta", "inflated", "discrete", "joint", "rasch"]),
    default="auto",
    show_default=True,
    help="How task rates spread, one fit per system: auto stacks the beta, inflated and "
    "discrete models by exact leave-one-task-out (it bends to data that are not "
    "Beta-distributed and says which models it used); beta: Beta-Binomial; inflated: with "
    "shares of always-pass / always-fail tasks; discrete: any shape on a grid of p. joint: "
    "all systems in one model with shared task effects; rasch: the joint model without its "
    "system × task deviation (cost nearly flat in the tasks).",
)
@weights_option(help="Task weights in benchmark-scope metrics.")
@unscored_tasks_option(impute=True)
@seed_option()
@click.option("--draws", type=int, default=1000, show_default=True, help="Draws per chain.")
@click.option("--tune", type=int, default=1000, show_default=True, help="Tuning steps per chain.")
@click.option("--chains", type=int, default=4, show_default=True, help="Chains.")
@ci_option(default=0.95, help="Level of the posterior intervals.")
@click.option(
    "--sampler",
    type=click.Choice(["auto", "nutpie", "pymc"]),
    default="auto",
    show_default=True,
    help="NUTS implementation (auto: nutpie when installed; joint: see --method).",
)
@click.option(
    "-o",
    "--output",
    default=None,
    help="Save the posterior as netCDF here (checked before fitting; never over the input).",
)
@click.option("--force", is_flag=True, help="With -o: replace an existing file.")
@click.option("--strict", is_flag=True, help=f"Exit {EXIT_DIAGNOSTICS} when diagnostics fail.")
@json_option("summary")
@paper_option()
@quiet_option("No progress bar and no notes.")
def fit_cmd(
    source: InputSpec,
    k: list[int] | None,
    method: str,
    model: str,
    weights: str,
    unscored_tasks: str,
    seed: int,
    draws: int,
    tune: int,
    chains: int,
    ci: float,
    sampler: str,
    output: str | None,
    force: bool,
    strict: bool,
    as_json: bool,
    paper: str | None,
    quiet: bool,
) -> int:
    """Posterior of mean, pass@k and pass^k in two scopes, with diagnostics and checks.

    benchmark = these tasks (only within-task uncertainty); population = the
    expected value over tasks like these (adds task sampling). The output warns when the
    data contradict a model (shape check, disagreement with the unbiased estimate) and marks
    every k above the runs as the model's extrapolation.
    """
    from passhat._write import check_file, input_paths
    from passhat.model import fit as _fit  # PyMC and ArviZ load only when a command fits

    if output is not None:  # before sampling, not after
        check_file(output, inputs=input_paths(*source.paths), force=force)
    elif force:
        raise OptionError("--force applies to -o FILE")
    fitted = _fit(
        source.load(),
        k=k,
        method=method,
        model=model,
        weights=None if weights == "equal" else weights,
        unscored_tasks=unscored_tasks,
        seed=seed,
        draws=draws,
        tune=tune,
        chains=chains,
        sampler=sampler,
        progress=False if (quiet or as_json or paper) else None,
    )
    result = fitted.summarize(ci=ci)
    if output is not None:
        fitted.to_netcdf(output, force=force)
    if as_json:
        emit_json(result.to_dict(output=output))
    elif paper is not None:
        emit_paper(result, paper)
    else:
        show(result.view(output=output), quiet=quiet)
    if strict and not result.diagnostics.passed:
        if not as_json and paper is None:
            echo(f"--strict: diagnostics failed, exit status {EXIT_DIAGNOSTICS}")
        return EXIT_DIAGNOSTICS
    return 0


def register(cli: click.Group) -> None:
    """Attach ``fit`` to the CLI group."""
    cli.add_command(fit_cmd)
