"""``passhat estimate``: the benchmark table per system and k."""

from __future__ import annotations

import click
from rich.console import Console
from rich.table import Table

from passhat import __version__
from passhat.cli import emit_json, fmt_num, input_options, input_stamp, load_input, parse_k, records
from passhat.estimators import estimate as _estimate

__all__ = ["register"]


@click.command("estimate")
@input_options
@click.option("--k", "k_text", default="1", show_default=True, help="k values: 1,2,5 or 1-5.")
@click.option(
    "--weights",
    type=click.Choice(["equal", "declared", "category"]),
    default="equal",
    show_default=True,
    help="Task weights in the benchmark average.",
)
@click.option(
    "--min-runs",
    type=int,
    default=None,
    help="Exclude tasks with fewer decided runs than this, and tasks with n < k, listing them.",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@click.option("--quiet", "-q", is_flag=True, help="No notes, only the table.")
def estimate_cmd(
    path: str | None,
    example: str | None,
    fmt: str | None,
    maps: tuple[str, ...],
    threshold: float | None,
    system_name: str | None,
    k_text: str,
    weights: str,
    min_runs: int | None,
    as_json: bool,
    quiet: bool,
) -> None:
    """Mean success, pass@k and pass^k per system (unbiased, per task, then averaged)."""
    ks = parse_k(k_text)
    data = load_input(
        path, example=example, fmt=fmt, maps=maps, threshold=threshold, system_name=system_name
    )
    est = _estimate(
        data,
        k=ks,
        weights=None if weights == "equal" else weights,
        on_short="exclude" if min_runs is not None else "error",
        min_runs=min_runs,
    )
    if as_json:
        emit_json(
            {
                "passhat_version": __version__,
                "input": input_stamp(data),
                "settings": est.settings,
                "summary": records(est.summary),
                "estimates": records(est.table),
                "excluded": records(est.excluded),
            }
        )
        return
    console = Console()
    wide = est.wide().merge(est.summary, on="system")
    table = Table(title="passhat estimate (unbiased per-task estimates, averaged over tasks)")
    for col in ("system", "tasks", "runs", "unscored", "k", "mean", "pass@k", "pass^k"):
        table.add_column(col, justify="left" if col == "system" else "right")
    for _, r in wide.iterrows():
        table.add_row(
            str(r["system"]),
            str(r["tasks"]),
            str(r["runs"]),
            str(r["unscored"]),
            str(r["k"]),
            fmt_num(r["mean"]),
            fmt_num(r["pass_at_k"]),
            fmt_num(r["pass_hat_k"]),
        )
    console.print(table)
    if not quiet:
        if len(est.excluded):
            reasons = est.excluded.groupby("reason").size()
            for reason, count in reasons.items():
                console.print(f"excluded {count} task(s): {reason}")
        unscored = int(est.summary["unscored"].sum())
        if unscored:
            console.print(
                f"{unscored} unscored run(s) (not decided by the grader) are excluded from n."
            )


def register(cli: click.Group) -> None:
    """Attach ``estimate`` to the CLI group."""
    cli.add_command(estimate_cmd)
