"""``passhat slices``: where failures and unscored runs come from (status, category)."""

from __future__ import annotations

import click

from passhat.commands._common import InputSpec, input_options, quiet_option
from passhat.commands._options import ci_option, command, json_option
from passhat.commands._output import emit_json, show

__all__ = ["register"]


def _split(values: tuple[str, ...]) -> list[str]:
    return [v.strip() for item in values for v in item.split(",") if v.strip()]


@command("slices")
@input_options
@click.option(
    "--by",
    "by",
    default=None,
    help="Slice keys, comma-separated: status, category.  [default: status, and category "
    "when the data have one]",
)
@click.option(
    "--severe",
    multiple=True,
    metavar="STATUS",
    help="Status that gets its own rate with an interval (repeat or comma-separate).",
)
@ci_option(default=0.95, help="Level of the intervals.")
@quiet_option("No notes, only the tables.")
@json_option("slices")
def slices_cmd(
    source: InputSpec, by: str | None, severe: tuple[str, ...], ci: float, as_json: bool
) -> None:
    """Counts and rates of runs by status and category, per system.

    Unscored runs (the grader could not decide) are listed with their status
    and are never counted in n (decided runs).
    """
    from passhat.slices import slices  # pandas, xarray: not for --help

    sl = slices(
        source.load(runs=True),
        by=None if by is None else _split((by,)),
        severe=_split(severe),
        ci=ci,
    )
    if as_json:
        emit_json(sl.to_dict())
    else:
        show(sl)


def register(cli: click.Group) -> None:
    """Attach ``slices`` to the CLI group."""
    cli.add_command(slices_cmd)
