"""``passhat plan next RUNS --budget B --k K``: which tasks get the next runs.

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
from passhat.commands._common import InputSpec, input_options, quiet_option, records
from passhat.commands._output import Table, echo, make_console, table_output
from passhat.commands._solve_for import in_cli_terms
from passhat.commands.plan import _json, json_opt, plan_group, prior_options, resolve_prior
from passhat.io import input_stamp

__all__ = ["register"]

#: Rows printed on a terminal (--json/--csv carry every row).
_SHOWN = 20


@click.command("next")
@input_options(system="none")  # its own --system (one system)
@click.option("--budget", type=int, required=True, help="Runs to allocate in the next batch.")
@click.option("--k", "k", type=int, default=5, show_default=True, help="k of pass^k / pass@k.")
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
@click.option("--system", default=None, help="System in a multi-system input.")
@click.option("--max-per-task", type=int, default=None, help="At most this many runs per task.")
@click.option("--ci", type=float, default=0.95, show_default=True, help="Interval level.")
@click.option("--all", "show_all", is_flag=True, help="Print every task of the batch.")
@quiet_option("No notes, only the batch.")
@prior_options(prefix="prior-")
@json_opt
@table_output("batch")
@in_cli_terms
def next_cmd(
    source: InputSpec,
    budget: int,
    k: int,
    metric: str,
    scope: str,
    system: str | None,
    max_per_task: int | None,
    ci: float,
    show_all: bool,
    prior_from: str | None,
    prior_mean: float | None,
    prior_icc: float | None,
    prior_kappa: float | None,
    prior_format: str | None,
    prior_system: str | None,
    as_json: bool,
) -> None:
    """The next batch of runs: which tasks, how many runs each, and what each buys.

    The prior of the task rates comes from these runs (hedged), or from an earlier
    evaluation (--prior-from) or stated values (--prior-mean with --prior-kappa or
    --prior-icc): a stated prior is trusted, no hedge.
    """
    prior, prior_stamp = resolve_prior(
        prior_from,
        prior_mean,
        prior_icc,
        prior_kappa,
        prior_format,
        prior_system,
        prefix="prior-",
    )
    data = source.load()
    t = plan.next_runs(
        data,
        budget=budget,
        k=k,
        metric=metric,  # type: ignore[arg-type]
        scope=scope,  # type: ignore[arg-type]
        system=system,
        ci=ci,
        max_per_task=max_per_task,
        prior=prior,
    )
    if as_json:
        earlier = {"prior_input": prior_stamp} if prior_stamp else {}
        _json(input_stamp(data), **earlier, **t.attrs, batch=records(t))
        return
    for sentence in t.attrs["sentences"]:
        echo(sentence)
    echo(f"Method: {t.attrs['method']}.")
    if t.empty:
        return
    label = t.attrs["metric"].replace("pass_hat_k", "pass^{k}").replace("pass_at_k", "pass@{k}")
    label = label.format(k=t.attrs["k"])
    shown = t if show_all else t.head(_SHOWN)
    more = "" if len(shown) == len(t) else f"; first {len(shown)} of {len(t)} tasks, --all for all"
    table = Table(
        title=f"{t.attrs['system']}: next {t.attrs['spent']} runs for {label}{more}; prior "
        f"{t.attrs['prior_text']}"
    )
    for head in ("task", "status", "runs", "passed", "more runs", "share", "width −"):
        table.add_column(head, justify="left" if head in ("task", "status") else "right")
    for r in shown.itertuples():
        table.add_row(
            str(r.task),
            str(r.status),
            str(r.runs),
            str(r.successes),
            f"+{r.extra_runs}",
            "" if r.variance_share != r.variance_share else f"{r.variance_share:.1%}",
            "" if r.width_reduction != r.width_reduction else f"{r.width_reduction:.4f}",
        )
    make_console().print(table)


def register(cli: click.Group) -> None:
    """Attach ``plan next`` to the ``plan`` group."""
    plan_group.add_command(next_cmd)
