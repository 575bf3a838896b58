"""``passhat plan audit``: how many runs to audit so that a noisy grader's uncertainty stays
small in a corrected pass^k / pass@k / mean (:func:`passhat.graders.audit_size`)."""

from __future__ import annotations

import click

from passhat.commands._common import quiet_option
from passhat.commands._options import ci_option, command, grader_options, json_option, k_option
from passhat.commands.plan import emit_result, plan_group

__all__ = ["register"]


@command(
    "audit",
    example="--grader-sensitivity 0.9 --grader-specificity 0.85 --mean 0.6 --half-width 0.02",
)
@grader_options(audit=False)
@click.option("--mean", type=float, required=True, help="True mean pass rate of a run.")
@click.option(
    "--icc",
    type=float,
    default=None,
    help="Task-to-task spread of the rates (ICC of a Beta) [default: every task at --mean].",
)
@click.option(
    "--metric",
    type=click.Choice(["pass_hat_k", "pass_at_k", "mean"]),
    default="pass_hat_k",
    show_default=True,
    help="The corrected value whose interval is planned.",
)
@k_option(single=True, default=1, help="k of pass^k / pass@k.")
@click.option(
    "--half-width", "half_width", type=float, default=None, help="Target grader's half-width."
)
@click.option(
    "--grader-share",
    "grader_share",
    type=float,
    default=None,
    help="Or: the largest share of the interval's variance due to the grader (needs "
    "--other-half-width).",
)
@click.option(
    "--other-half-width",
    "other_half_width",
    type=float,
    default=None,
    help="Half-width of the interval without the grader (e.g. estimate --ci's population one).",
)
@ci_option(default=0.95, help="Level of the intervals.")
@json_option("table")
@quiet_option("No notes, only the table.")
def audit_cmd(
    sensitivity: float | None,
    specificity: float | None,
    mean: float,
    icc: float | None,
    metric: str,
    k: int,
    half_width: float | None,
    grader_share: float | None,
    other_half_width: float | None,
    ci: float,
    as_json: bool,
    quiet: bool,
) -> None:
    """Runs to audit (truly passing and failing) for a target half-width of a noisy grader's
    part of a corrected interval, and the half-width other audit sizes give."""
    from passhat.graders.audit import audit_size  # SciPy: not for --help

    res = audit_size(
        sensitivity=sensitivity,  # type: ignore[arg-type]  # the library names a missing one
        specificity=specificity,  # type: ignore[arg-type]
        mean=mean,
        metric=metric,
        k=k,
        icc=icc,
        half_width=half_width,
        grader_share=grader_share,
        other_half_width=other_half_width,
        ci=ci,
    )
    emit_result(res, as_json, quiet=quiet)


def register(cli: click.Group) -> None:
    """Attach ``plan audit`` to the ``plan`` group."""
    plan_group.add_command(audit_cmd)
