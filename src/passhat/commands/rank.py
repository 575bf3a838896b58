"""``passhat rank``: a leaderboard of several systems on the same tasks, with rank uncertainty.

Reads several files (one system each, or several systems each) or one file with
a system column, calls :func:`passhat.rank`, and prints per metric and k the
leaderboard: group letters, value and interval, rank and rank interval, share first.
``--json`` writes the whole table (every metric and k), the pairwise matrix and the
simultaneous k-grid bands; ``--csv`` the leaderboard (with ``--by``: stacked with each
category's, a ``category`` column telling them apart).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from passhat.commands._common import (
    InputSpec,
    cluster_options,
    clustered_spec,
    input_options,
    quiet_option,
    unscored_tasks_option,
)
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
from passhat.estimators import METRICS
from passhat.rank import rank

__all__ = ["register"]


def _metrics(text: str, scores: bool) -> list[str]:
    alias = {"mean": "mean", "pass@k": "pass_at_k", "pass^k": "pass_hat_k"}
    # with --scores: the score metrics by name (or by the 0/1 metric each generalises)
    named = {"mean_score": "mean", "best_of_k": "pass_at_k", "worst_of_k": "pass_hat_k"}
    out = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        m = alias.get(part, named.get(part, part) if scores else part)
        if m not in METRICS:
            more = ", mean_score, best_of_k, worst_of_k" if scores else ""
            raise OptionError(
                f"--metric: unknown metric {part!r}; choose from mean, pass_at_k, pass_hat_k" + more
            )
        out.append(m)
    if not out:
        raise OptionError("--metric: give at least one metric")
    return out


@command("rank")
@input_options
@cluster_options
@k_option()
@click.option(
    "--metric",
    "metric_text",
    default="mean,pass_hat_k",
    show_default=True,
    help="Metrics to rank by (comma-separated: mean, pass_at_k, pass_hat_k).",
)
@ci_option(default=0.95, help="Confidence level.")
@n_boot_option(help="Bootstrap resamples.")
@seed_option(help="Seed of the bootstrap and the permutations (printed with the results).")
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
@click.option(
    "--scores",
    is_flag=True,
    help="Rank each run's score in [0, 1] (partial credit): the mean score and the expected "
    "best / worst of k (for mean, pass@k, pass^k), paired bootstrap, >= 30 common tasks.",
)
@click.option(
    "--by",
    type=click.Choice(["category"]),
    default=None,
    help="Also the leaderboard of each category and a permutation test of whether the "
    "systems' differences depend on the category (bootstrap engine). With --csv: the overall "
    "and each category's leaderboard as one table with a category column (empty on the "
    "overall rows; the test is in --json); with --markdown / --latex: each category's "
    "leaderboard as a second table.",
)
@json_option(("leaderboard", "by_category"), "leaderboard")
@paper_option()
@quiet_option("No notes, only the tables.")
def rank_cmd(source: InputSpec, **opts: Any) -> None:
    """Leaderboard of several systems on the same tasks: rank intervals, group letters.

    RUNS are files with one system each (a file without a system column is named after the
    file), or one file with a system column.
    """
    if not source.given:
        raise OptionError("no input: give RUNS files (or one file with a system column)")
    source = clustered_spec(
        source, cluster_column=opts["cluster_column"], ignore_clusters=opts["ignore_clusters"]
    )
    inputs = source.inputs(quiet=opts["quiet"], runs=opts["scores"])
    fitter: Callable[..., Any] | None = None
    if opts["engine"] != "bootstrap":  # the model fits the joint engines (loaded only then)
        from passhat.model import fit

        fitter = fit
    res = rank(
        inputs,
        k=opts["k"],
        metrics=_metrics(opts["metric_text"], opts["scores"]),
        ci=opts["ci"],
        n_boot=opts["n_boot"],
        seed=opts["seed"],
        intersect=opts["intersect"],
        unscored_tasks=opts["unscored_tasks"],
        engine=opts["engine"],
        fit=fitter,
        scores=opts["scores"],
        by=opts["by"],
    )
    if opts["as_json"]:
        emit_json(res.to_dict())
    elif opts["paper"] is not None:
        emit_paper(res, opts["paper"])
    else:
        show(res, quiet=opts["quiet"])


def register(cli: click.Group) -> None:
    """Attach ``rank`` to the CLI group."""
    cli.add_command(rank_cmd)
