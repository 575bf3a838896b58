"""``passhat rank``: a leaderboard of several systems on the same tasks, with rank uncertainty.

Reads several files (one system each, or several systems each) or one file with
a system column, calls :func:`passhat.rank`, and prints per metric and k the
leaderboard: tier, value and interval, rank and rank interval, P(rank = 1).
``--json`` / ``--csv`` write the whole table (every metric and k), the pairwise
matrix and the simultaneous k-grid bands.
"""

from __future__ import annotations

from typing import Any

import click

from passhat._repr import interval_text
from passhat._validate import DEFAULT_N_BOOT, DEFAULT_SEED
from passhat._version import __version__
from passhat.commands._common import (
    load_input,
    parse_k,
    quiet_option,
    records,
    unscored_tasks_option,
)
from passhat.commands._output import Table, emit_json, make_console, table_output
from passhat.errors import OptionError
from passhat.estimators import METRICS
from passhat.examples import EXAMPLES
from passhat.io import input_stamp
from passhat.rank import Ranking, rank
from passhat.rank.result import metric_name

__all__ = ["register"]


def _metrics(text: str) -> list[str]:
    alias = {"mean": "mean", "pass@k": "pass_at_k", "pass^k": "pass_hat_k"}
    out = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        m = alias.get(part, part)
        if m not in METRICS:
            raise OptionError(
                f"--metric: unknown metric {part!r}; choose from mean, pass_at_k, pass_hat_k"
            )
        out.append(m)
    if not out:
        raise OptionError("--metric: give at least one metric")
    return out


def _print(res: Ranking, *, quiet: bool) -> None:
    console = make_console(min_width=100)
    level = res.settings["ci"]
    has_mean = "mean" in res.settings["metrics"]
    for (metric, kk), part in res.table.groupby(["metric", "k"], sort=False):
        if has_mean and metric != "mean" and int(kk) == 1:
            continue  # pass@1 = pass^1 = the mean
        table = Table(
            title=f"{metric_name(str(metric), int(kk))}: {len(res.systems)} systems on "
            f"{res.settings['tasks']} common tasks ({level:g} intervals)"
        )
        for col in ("tier", "system", "value (interval)", "rank (interval)", "P(rank = 1)"):
            table.add_column(col, justify="left" if col == "system" else "right")
        for r in part.itertuples():
            table.add_row(
                f"{r.tier}*" if r.separated_from_leader else str(r.tier),
                str(r.system),
                interval_text(r.value, r.lower, r.upper),
                f"{r.rank} ({r.rank_lower}–{r.rank_upper})"
                if r.rank_lower != r.rank_upper
                else f"{r.rank} ({r.rank_lower})",
                f"{r.p_first:.2f}",
            )
        console.print(table)
        pop = res.pairs[
            (res.pairs["metric"] == metric)
            & (res.pairs["k"] == kk)
            & (res.pairs["scope"] == "population")
        ]
        console.print(
            f"pairs separated at {1 - level:.0%} after Holm: {int(pop['separated'].sum())} of "
            f"{len(pop)}"
        )
    console.print(
        f"engine: {res.settings['engine_label']}; {res.settings['n_boot']} "
        f"{res.settings.get('draws_word', 'resamples')}, seed "
        f"{res.settings['seed']}"
    )
    if len(res.dropped):
        shown = "; ".join(f"{r.task} ({r.reason})" for r in res.dropped.head(5).itertuples())
        more = " ..." if len(res.dropped) > 5 else ""
        console.print(
            f"left out {len(res.dropped)} task(s): {shown}{more}", markup=False, highlight=False
        )
    for note in res.notes:
        console.print(note, markup=False, highlight=False)
    if not quiet:
        for line in (
            "value: population scope (expected value over tasks like these), marginal "
            f"{res.settings['value_interval']} per system",
            "rank interval: marginal per system, simultaneous over its comparisons with the "
            "others (pairwise rank set); ties in the values share a rank",
            f"P(rank = 1): share of {res.settings['draws_word']} in which the system ranks "
            "first (a tie at the top is split)",
            "tier: walking down from the leader, a new tier starts only at a system separated "
            "from every system of the tier above (the compare rule, Holm across all pairs)",
        ):
            console.print(line)
        if res.table["separated_from_leader"].any():
            console.print("* in its leader's tier through a chain of ties, but separated from it")


@click.command("rank")
@click.argument("runs", nargs=-1, type=click.Path(dir_okay=True, readable=False))
@click.option(
    "--example",
    type=click.Choice(sorted(EXAMPLES)),
    default=None,
    help="Use a bundled example (several systems) instead of files.",
)
@click.option("--format", "fmt", default=None, help="Input format (sniffed when omitted).")
@click.option(
    "--map", "maps", multiple=True, metavar="FIELD=COLUMN", help="Column map for tidy files."
)
@click.option("--threshold", type=float, default=None, help="Numeric score → success when ≥ this.")
@click.option("--k", "k_text", default="1,4", show_default=True, help="k values: 1,4 or 1-5.")
@click.option(
    "--metric",
    "metric_text",
    default="mean,pass_hat_k",
    show_default=True,
    help="Metrics to rank by (comma-separated: mean, pass_at_k, pass_hat_k).",
)
@click.option("--ci", type=float, default=0.95, show_default=True, help="Confidence level.")
@click.option(
    "--n-boot", type=int, default=DEFAULT_N_BOOT, show_default=True, help="Bootstrap resamples."
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=DEFAULT_SEED,
    show_default=True,
    help="Seed of the bootstrap and the permutations (printed with the results).",
)
@click.option(
    "--intersect", is_flag=True, help="Rank on the tasks every system ran; list the others."
)
@click.option(
    "--engine",
    type=click.Choice(["bootstrap", "joint", "rasch"]),
    default="bootstrap",
    show_default=True,
    help="Where the draws come from: the paired task bootstrap, or the joint hierarchical "
    "model with crossed task effects (NUTS, slower; see passhat fit --model joint), or its "
    "Rasch form without the system × task deviation (fit --model rasch).",
)
@unscored_tasks_option()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@table_output("leaderboard")
@quiet_option("No notes, only the tables.")
def rank_cmd(**opts: Any) -> None:
    """Leaderboard of several systems on the same tasks: rank intervals, P(rank = 1), tiers.

    RUNS are files with one system each, or one file with a system column.
    """
    read_opts = {"fmt": opts["fmt"], "maps": opts["maps"], "threshold": opts["threshold"]}
    runs = list(opts["runs"])
    if opts["example"] is not None:
        if runs:
            raise OptionError("give input files or --example, not both")
        inputs = [load_input(None, example=opts["example"], **read_opts)]
    elif not runs:
        raise OptionError("no input: give RUNS files (or one file with a system column)")
    else:
        inputs = [load_input(p, example=None, **read_opts) for p in runs]
    res = rank(
        inputs,
        k=parse_k(opts["k_text"]),
        metrics=_metrics(opts["metric_text"]),
        ci=opts["ci"],
        n_boot=opts["n_boot"],
        seed=opts["seed"],
        intersect=opts["intersect"],
        unscored_tasks=opts["unscored_tasks"],
        engine=opts["engine"],
    )
    if opts["as_json"]:
        settings = {k: v for k, v in res.settings.items() if k != "headline"}
        emit_json(
            {
                "passhat_version": __version__,
                "input": [input_stamp(d) for d in inputs],
                "settings": settings,
                "leaderboard": records(res.table),
                "pairs": records(res.pairs),
                "bands": records(res.bands),
                "dropped": records(res.dropped),
                "notes": list(res.notes),
            }
        )
        return
    _print(res, quiet=opts["quiet"])


def register(cli: click.Group) -> None:
    """Attach ``rank`` to the CLI group."""
    cli.add_command(rank_cmd)
