"""``passhat slices``: where failures and unscored runs come from (status, category)."""

from __future__ import annotations

import click

from passhat._version import __version__
from passhat.commands._common import (
    InputSpec,
    emit_json,
    fmt_num,
    input_options,
    quiet_option,
    records,
)
from passhat.commands._output import Table, make_console, table_output
from passhat.errors import ValidationError
from passhat.io import input_stamp
from passhat.slices import SLICE_KEYS, slices
from passhat.trials import Trials

__all__ = ["register"]


def _split(values: tuple[str, ...]) -> list[str]:
    return [v.strip() for item in values for v in item.split(",") if v.strip()]


@click.command("slices")
@input_options
@click.option(
    "--by",
    "by_text",
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
@click.option("--ci", type=float, default=0.95, show_default=True, help="Level of the intervals.")
@quiet_option("No notes, only the tables.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@table_output("slices")
def slices_cmd(
    source: InputSpec,
    by_text: str | None,
    severe: tuple[str, ...],
    ci: float,
    as_json: bool,
) -> None:
    """Counts and rates of runs by status and category, per system.

    Unscored runs (the grader could not decide) are listed with their status
    and are never counted in n (decided runs).
    """
    data = source.load()
    if not isinstance(data, Trials):
        raise ValidationError(
            f"{source.path or source.example}: a count table has no per-run statuses; "
            "slices need trial-level input"
        )
    note = ""
    if by_text is None:
        by = list(SLICE_KEYS)
        if "category" not in data.frame.columns:
            by.remove("category")
            note = "no category column: runs sliced by status only (map one with --map)."
    else:
        by = _split((by_text,))
    sl = slices(data, by=by, severe=_split(severe), ci=ci)
    if as_json:
        emit_json(
            {
                "passhat_version": __version__,
                "input": input_stamp(data),
                "settings": sl.settings,
                "slices": {key: records(df) for key, df in sl.tables.items()},
                "severe": records(sl.severe),
            }
        )
        return
    console = make_console(min_width=140)
    for key in (k for k in SLICE_KEYS if k in sl.tables):
        df = sl.tables[key]
        table = Table(title=f"runs by {key}")
        cols = [
            "system",
            key,
            "runs",
            "decided",
            "passed",
            "failed",
            "unscored",
            "% of runs",
            "% of failures",
            "pass rate",
        ]
        for col in cols:
            table.add_column(
                col, justify="left" if col in ("system", key) else "right", no_wrap=True
            )
        for _, r in df.iterrows():
            table.add_row(
                str(r["system"]),
                str(r[key]),
                str(r["runs"]),
                str(r["decided"]),
                str(r["successes"]),
                str(r["failures"]),
                str(r["unscored"]),
                f"{r['share_of_runs']:.1%}",
                "—"
                if r["share_of_failures"] != r["share_of_failures"]
                else (f"{r['share_of_failures']:.1%}"),
                fmt_num(r["success_rate"]),
            )
        console.print(table)
    if len(sl.severe):
        table = Table(title=f"severe statuses: rate over all runs ({sl.settings['ci']:g} interval)")
        for col in ("system", "status", "runs", "count", "rate", "interval"):
            table.add_column(col, justify="left" if col in ("system", "status") else "right")
        for _, r in sl.severe.iterrows():
            table.add_row(
                str(r["system"]),
                str(r["status"]),
                str(r["runs"]),
                str(r["count"]),
                f"{r['rate']:.2%}",
                f"[{r['lower']:.2%}, {r['upper']:.2%}]",
            )
        console.print(table)
        console.print(f"method: {sl.severe['method'].iloc[0]}")
        seen = sorted(str(x) for x in data.frame["status"].dropna().unique())
        for status, count in sl.severe.groupby("status", sort=False)["count"].sum().items():
            if count == 0:
                console.print(
                    f"note: status {status!r} occurs in no run (statuses seen: "
                    f"{', '.join(seen)}); check the spelling.",
                    markup=False,
                    highlight=False,
                )
    console.print("unscored runs are not decided: they are never counted in n.")
    if note:
        console.print(note)


def register(cli: click.Group) -> None:
    """Attach ``slices`` to the CLI group."""
    cli.add_command(slices_cmd)
