"""``passhat plan next RUNS --budget B --k K``: which tasks get the next runs.

``--budget-cost MONEY`` instead of ``--budget``: the money is converted into runs at
``--cost-per-run``, or at the cost per run observed in RUNS' cost column (said, with its
interval, and the batch priced at each chosen task's own cost per run).

Prints the reasoning (the interval now, after the batch and after the same
runs spread evenly; the tasks that matter most and why), then the batch as a
table: task, more runs, the task's share of the variance runs can remove and
the expected reduction of the interval width. ``--json`` writes the same with
the input's stamp; ``--csv`` writes the batch (one row per task) for a
harness to consume.

The prior of the task rates is fitted to these runs (hedged against its
uncertainty) unless one is stated: ``--prior-from EARLIER_RUNS`` fits it to an
earlier evaluation of similar tasks (``--prior-format``/``--prior-system``
read that file), ``--prior-mean`` with ``--prior-kappa`` or ``--prior-icc``
states it. A stated prior is trusted (no hedge); the output names it.
"""

from __future__ import annotations

import click

from passhat import planner as plan
from passhat.commands._common import InputSpec, ReadOptions, input_options, quiet_option
from passhat.commands._options import ci_option, command, json_option, k_option
from passhat.commands.plan import (
    budget_cost_option,
    cost_per_run_option,
    emit_result,
    plan_group,
    prior_options,
    resolve_prior,
)

__all__ = ["register"]


@command("next")
@input_options(system="one")
@click.option("--budget", type=int, default=None, help="Runs to allocate in the next batch.")
@budget_cost_option
@cost_per_run_option
@k_option(
    single=True,
    help="k of pass^k / pass@k [default: the largest of 1, 2, 5 the fewest runs allow].",
)
@click.option(
    "--metric",
    type=click.Choice(["pass_hat_k", "mean", "pass_at_k"]),
    default="pass_hat_k",
    show_default=True,
    help="The estimate whose variance the batch lowers.",
)
@click.option(
    "--scope",
    type=click.Choice(["benchmark", "population"]),
    default="benchmark",
    show_default=True,
    help="These tasks, or tasks like these (then new tasks are weighed against reruns).",
)
@click.option("--max-per-task", type=int, default=None, help="At most this many runs per task.")
@ci_option(default=0.95, help="Level of the interval whose width is reported.")
@click.option("--all", "every_row", is_flag=True, help="Print every task of the batch.")
@quiet_option("No notes, only the batch.")
@prior_options(prefix="prior-")
@json_option("batch")
def next_cmd(
    source: InputSpec,
    budget: int | None,
    budget_cost: float | None,
    cost_per_run: float | None,
    k: int | None,
    metric: str,
    scope: str,
    max_per_task: int | None,
    ci: float,
    every_row: bool,
    prior: str | None,
    mean: float | None,
    icc: float | None,
    kappa: float | None,
    prior_reading: ReadOptions,
    prior_system: str | None,
    as_json: bool,
) -> None:
    """The next batch of runs: which tasks, how many runs each, and what each buys.

    The prior of the task rates comes from these runs (hedged), or from an earlier
    evaluation (--prior-from) or stated values (--prior-mean with --prior-kappa or
    --prior-icc): a stated prior is trusted, no hedge.
    """
    stated = resolve_prior(prior, mean, icc, kappa, prior_reading, prior_system, prefix="prior-")
    res = plan.next_runs(
        source.load(),
        budget=budget,
        k=k,
        metric=metric,  # type: ignore[arg-type]
        scope=scope,  # type: ignore[arg-type]
        system=source.system,
        prior=stated,
        prior_system=prior_system,
        ci=ci,
        max_per_task=max_per_task,
        budget_cost=budget_cost,
        cost_per_run=cost_per_run,
    )
    emit_result(res, as_json, every_row=every_row)


def register(cli: click.Group) -> None:
    """Attach ``plan next`` to the ``plan`` group."""
    plan_group.add_command(next_cmd)
