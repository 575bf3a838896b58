"""``passhat spread``: clustered vs uniform failures, from runs or from a published pair."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import click

from passhat.commands._common import InputSpec, input_options, parse_k, quiet_option
from passhat.commands._options import (
    ci_option,
    command,
    json_option,
    k_option,
    n_boot_option,
    paper_option,
    seed_option,
)
from passhat.commands._output import emit_json, emit_paper, show
from passhat.errors import OptionError

if TYPE_CHECKING:  # the computations (pandas, xarray, SciPy) load when the command runs
    from passhat.spread import Spread, SummarySpread

__all__ = ["register"]


def _rate(text: str | None, param: str) -> float | None:
    """Parse 0.774 or 77.4% into a fraction."""
    if text is None:
        return None
    raw = text.strip()
    try:
        value = float(raw[:-1]) / 100.0 if raw.endswith("%") else float(raw)
    except ValueError as err:
        raise OptionError(
            f"{{param}}: {text!r} is not a number (write 0.774 or 77.4%)", param=param
        ) from err
    if not 0.0 <= value <= 1.0 or not math.isfinite(value):
        raise OptionError(
            f"{{param}}: {text!r} is outside [0, 1] (write 0.774 or 77.4%)", param=param
        )
    return value


def _from_pair(
    mean_text: str | None,
    hat_text: str | None,
    k: list[int] | None,
    *,
    label: str | None,
    runs: int | None,
    mixed_text: str | None,
    predict_text: str,
) -> SummarySpread:
    """The spread of a published pair (an impossible pair is an error)."""
    from passhat.spread import spread_from_summary

    mean, hat = _rate(mean_text, "mean"), _rate(hat_text, "pass_hat_k")
    if mean is None or hat is None or k is None:
        raise OptionError(
            "a published pair needs {mean}, {pass_hat_k} and {k}",
            param="mean",
            also=("pass_hat_k", "k"),
        )
    if len(k) != 1:
        given = ",".join(map(str, k))
        raise OptionError(f"{{param}}: a published pair has one k (got {given!r})", param="k")
    return spread_from_summary(
        mean=mean,
        pass_hat_k=hat,
        k=k[0],
        label=label,
        predict_k=parse_k(predict_text, option="--predict-k"),
        runs=runs,
        mixed_share=_rate(mixed_text, "mixed_share"),
        strict=True,
    )


@command("spread")
@input_options
@click.option("--mean", "mean", default=None, help="Published Mean@k (0.774 or 77.4%).")
@click.option("--pass-hat", "pass_hat_k", default=None, help="Published pass^k (0.530 or 53%).")
@k_option(help="k of the pair (one value), or k values for runs.")
@click.option("--label", default=None, help="Name of the published row.")
@click.option(
    "--runs", type=int, default=None, help="Runs per task for the mixed-share prediction."
)
@click.option(
    "--mixed-share", "mixed_share", default=None, help="Published share of flaky tasks to check."
)
@click.option(
    "--predict-k",
    "predict_k",
    default="1,2,3,5,10",
    show_default=True,
    help="k values at which the implied Beta predicts pass^k.",
)
@click.option(
    "--min-runs",
    type=int,
    default=None,
    help="Runs: exclude tasks with fewer decided runs than this, and tasks with n < k, listing "
    "them.",
)
@ci_option(
    default=0.95,
    help="Runs: level of the population intervals; the clustering test runs at 1 − ci.",
)
@n_boot_option(help="Runs: bootstrap resamples and Monte Carlo draws of the clustering test.")
@seed_option(help="Runs: seed of every random step (printed with the results).")
@quiet_option("No notes, only the tables.")
@json_option("spread")
@paper_option()
def spread_cmd(
    source: InputSpec,
    mean: str | None,
    pass_hat_k: str | None,
    k: list[int] | None,
    label: str | None,
    runs: int | None,
    mixed_share: str | None,
    predict_k: str,
    min_runs: int | None,
    ci: float,
    n_boot: int,
    seed: int,
    as_json: bool,
    paper: str | None,
) -> None:
    """Measured pass^k against the uniform-spread reference Mean^k.

    From runs (a file or --example): per system and k, the ratio with its
    population interval, the consistency pass^k/Mean, the flaky share, which
    tasks carry the gap, and a test of whether the tasks' success rates
    differ at all ("clustered" is that test's decision). From a published
    pair (--mean, --pass-hat, --k): the same ratio and the Beta
    heterogeneity the pair implies; an impossible pair is an error.
    """
    res: Spread | SummarySpread
    if mean is not None or pass_hat_k is not None:
        if min_runs is not None:
            raise OptionError(
                "{param} applies to runs (a file or --example) only", param="min_runs"
            )
        if source.given:
            raise OptionError("give runs (a file or --example) or --mean/--pass-hat, not both")
        res = _from_pair(
            mean,
            pass_hat_k,
            k,
            label=label,
            runs=runs,
            mixed_text=mixed_share,
            predict_text=predict_k,
        )
    else:
        if label is not None or runs is not None or mixed_share is not None:
            raise OptionError("--label, --runs and --mixed-share apply to a published pair only")
        from passhat.spread import spread

        res = spread(
            source.load(),
            k=k,
            on_short="exclude" if min_runs is not None else "error",
            min_runs=min_runs,
            ci=ci,
            n_boot=n_boot,
            seed=seed,
        )
    if as_json:
        emit_json(res.to_dict())
    elif paper is not None:
        emit_paper(res, paper)
    else:
        show(res)


def register(cli: click.Group) -> None:
    """Attach ``spread`` to the CLI group."""
    cli.add_command(spread_cmd)
