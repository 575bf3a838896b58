"""``passhat estimate``: the benchmark table per system and k."""

from __future__ import annotations

from typing import Any

import click

from passhat.commands._common import (
    InputSpec,
    cluster_options,
    clustered_input,
    clustered_spec,
    input_options,
    plain_estimate,
    quiet_option,
    unscored_tasks_option,
)
from passhat.commands._options import (
    ci_option,
    command,
    cost_of_option,
    grader_options,
    json_option,
    k_option,
    n_boot_option,
    paper_option,
    seed_option,
    thresholds_option,
    weights_option,
)
from passhat.commands._output import emit_json, emit_paper, show
from passhat.errors import OptionError

__all__ = ["register"]


@command("estimate")
@input_options
@k_option()
@weights_option()
@click.option(
    "--min-runs",
    type=int,
    default=None,
    help="Exclude tasks with fewer decided runs than this, and tasks with n < k, listing them.",
)
@click.option(
    "--matched",
    is_flag=True,
    help="With several systems: a task excluded for one system is excluded for all (listed).",
)
@unscored_tasks_option()
@ci_option()
@n_boot_option()
@seed_option(help="Seed of the resamples and draws (printed with the intervals).")
@click.option(
    "--ci-method",
    type=click.Choice(["bca", "percentile", "analytic"]),
    default="bca",
    show_default=True,
    help="The population interval where the rule picks the task bootstrap: BCa (falls back "
    "to percentile where degenerate), percentile, or analytic (logit-t on the per-task "
    "estimates, no resampling).",
)
@click.option(
    "--predictive",
    type=click.IntRange(min=1),
    default=None,
    metavar="T",
    help="With --ci: also the interval a new benchmark of T tasks like these would show.",
)
@cluster_options
@click.option(
    "--per-task",
    is_flag=True,
    help="Per-task table: n, c, unscored, rates with intervals, flaky flag.",
)
@click.option(
    "--task-method",
    type=click.Choice(["wilson", "clopper-pearson", "jeffreys"]),
    default="wilson",
    show_default=True,
    help="Per-task interval method (with --per-task).",
)
@click.option(
    "--scores",
    is_flag=True,
    help="Also the mean score and the expected best / worst of k of each run's score in [0, 1] "
    "(partial credit; unbiased per task), and the threshold curve in --json.",
)
@thresholds_option()
@click.option(
    "--curve",
    is_flag=True,
    help="With --scores: show pass^k and pass@k by pass threshold.",
)
@click.option(
    "--by",
    type=click.Choice(["category"]),
    default=None,
    help="Also pass@k / pass^k per category (with --ci: intervals) and a permutation test of "
    "whether the categories differ.",
)
@click.option(
    "--cost",
    is_flag=True,
    help="Also cost per run, per success, per all-k-pass and pass^k per unit cost (needs a "
    "cost column).",
)
@cost_of_option()
@grader_options()
@json_option("tasks", "estimates")
@paper_option(scopes=("population", "benchmark", "predictive"))
@quiet_option("No notes, only the table.")
def estimate_cmd(
    source: InputSpec,
    k: list[int] | None,
    weights: str,
    min_runs: int | None,
    matched: bool,
    unscored_tasks: str,
    ci: float | None,
    n_boot: int,
    seed: int,
    ci_method: str,
    predictive: int | None,
    cluster_column: str | None,
    ignore_clusters: bool,
    per_task: bool,
    task_method: str,
    scores: bool,
    thresholds: list[float] | None,
    by: str | None,
    curve: bool,
    cost: bool,
    cost_of: str,
    sensitivity: float | None,
    specificity: float | None,
    audit: list[int] | None,
    truth: str | None,
    as_json: bool,
    paper: str | None,
    scope: str,
    quiet: bool,
) -> None:
    """Mean success, pass@k and pass^k per system (unbiased, per task, then averaged).

    With --grader-sensitivity and --grader-specificity, --grader-audit or --grader-truth: the
    same corrected for a noisy grader, with intervals that include the grader's uncertainty
    (with --weights and clusters too).
    """
    cost = cost or cost_of != "cost"  # --cost-of duration asks for the figures
    grader = {"sensitivity": sensitivity, "specificity": specificity, "audit": audit,
              "truth": truth}  # fmt: skip
    if any(v is not None for v in grader.values()):
        others = {"--min-runs": min_runs is not None,
                  "--matched": matched, "--predictive": predictive is not None,
                  "--scores": scores, "--thresholds": thresholds is not None, "--curve": curve,
                  "--by": by is not None, "--cost": cost, f"--{paper}": paper is not None,
                  "--ci-method": ci_method != "bca"}  # fmt: skip
        source = clustered_spec(
            source, cluster_column=cluster_column, ignore_clusters=ignore_clusters
        )
        grader["weights"] = None if weights == "equal" else weights
        _grader_estimate(source, k, ci, n_boot, seed, grader, others, per_task, as_json, quiet)
        return
    extra = {"--per-task": per_task, "--by": by is not None, "--scores": scores,
             "--thresholds": thresholds is not None, "--curve": curve, "--cost": cost}  # fmt: skip
    asked = [name for name, on in extra.items() if on]
    if paper is not None and asked:
        raise OptionError(
            f"--{paper} writes the benchmark table; {asked[0]} is not in it (its table is in the "
            "terminal output and --json)"
        )
    plain = not (asked or as_json or paper or ci is not None or predictive or min_runs is not None
                 or matched or cluster_column or ignore_clusters or weights != "equal"
                 or unscored_tasks != "exclude")  # fmt: skip
    if plain and (shown := plain_estimate(source, k=k)) is not None:
        show(shown, quiet=quiet)  # the same table, without pandas and xarray
        return
    from passhat.estimate import estimate as _estimate  # pandas, xarray: not for --help

    # --scores and --cost need every run (its score, its cost): a large file is read whole
    data = clustered_input(
        source, cluster_column=cluster_column, ignore_clusters=ignore_clusters, quiet=quiet,
        runs=scores or thresholds is not None or cost,
    )  # fmt: skip
    est = _estimate(
        data,
        k=k,
        weights=None if weights == "equal" else weights,
        on_short="exclude" if min_runs is not None else "error",
        min_runs=min_runs,
        unscored_tasks=unscored_tasks,  # type: ignore[arg-type]
        matched=matched,
        ci=ci,
        n_boot=n_boot,
        seed=seed,
        ci_method=ci_method,  # type: ignore[arg-type]
        task_method=task_method,
        predictive=predictive,
        scores=thresholds if thresholds is not None else scores,
        by=by,
    ).with_cost_of(cost_of)
    if as_json:
        emit_json(est.to_dict(per_task=per_task, cost=cost))
    elif paper is not None:
        emit_paper(est, paper, scope=scope)
    else:
        show(est.view(per_task=per_task, curve=curve, cost=cost), quiet=quiet)


def _grader_estimate(
    source: InputSpec,
    k: list[int] | None,
    ci: float | None,
    n_boot: int,
    seed: int,
    grader: dict[str, Any],
    others: dict[str, bool],
    per_task: bool,
    as_json: bool,
    quiet: bool,
) -> None:
    """``estimate --grader-…``: the estimate corrected for the grader's error."""
    asked = [name for name, on in others.items() if on]
    if asked:
        raise OptionError(
            f"{asked[0]} does not combine with the grader options (--grader-sensitivity, "
            "--grader-specificity, --grader-audit, --grader-truth) yet; leave one out"
        )
    from passhat.graders.correct import correct  # pandas, SciPy: not for --help

    data = source.load(quiet=quiet, runs=grader["truth"] is not None)
    res = correct(data, k=k, ci=ci, n_boot=n_boot, seed=seed, **grader)
    if as_json:
        emit_json(res.to_dict(per_task=per_task))
    else:
        show(res.view(per_task=per_task), quiet=quiet)


def register(cli: click.Group) -> None:
    """Attach ``estimate`` to the CLI group."""
    cli.add_command(estimate_cmd)
