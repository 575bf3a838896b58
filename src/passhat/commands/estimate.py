"""``passhat estimate``: the benchmark table per system and k."""

from __future__ import annotations

from typing import Any

import click
import pandas as pd

from passhat._format import row_names
from passhat._validate import DEFAULT_N_BOOT, DEFAULT_SEED, check_ci, check_n_boot
from passhat._version import __version__
from passhat.commands._common import (
    InputSpec,
    emit_json,
    fmt_num,
    input_options,
    parse_k,
    quiet_option,
    records,
    unscored_tasks_option,
)
from passhat.commands._output import Table, make_console, table_output
from passhat.errors import OptionError
from passhat.estimate import Estimate
from passhat.estimate import estimate as _estimate
from passhat.estimators import METRIC_LABELS
from passhat.io import input_stamp

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
@click.option(
    "--matched",
    is_flag=True,
    help="With several systems: a task excluded for one system is excluded for all (listed).",
)
@unscored_tasks_option()
@click.option(
    "--ci",
    type=float,
    default=None,
    help="Confidence level, e.g. 0.95: add benchmark- and population-scope intervals.",
)
@click.option(
    "--n-boot",
    type=int,
    default=DEFAULT_N_BOOT,
    show_default=True,
    help="Bootstrap resamples and posterior draws of the intervals.",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=DEFAULT_SEED,
    show_default=True,
    help="Seed of the resamples and draws (printed with the intervals).",
)
@click.option(
    "--ci-method",
    type=click.Choice(["bca", "percentile"]),
    default="bca",
    show_default=True,
    help="Task-bootstrap interval, where the rule picks the bootstrap (BCa falls back to "
    "percentile where degenerate).",
)
@click.option(
    "--predictive",
    type=click.IntRange(min=1),
    default=None,
    metavar="T",
    help="With --ci: also the interval a new benchmark of T tasks like these would show.",
)
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
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@table_output("tasks", "estimates")
@quiet_option("No notes, only the table.")
def estimate_cmd(
    source: InputSpec,
    k_text: str,
    weights: str,
    min_runs: int | None,
    matched: bool,
    unscored_tasks: str,
    ci: float | None,
    n_boot: int,
    seed: int,
    ci_method: str,
    predictive: int | None,
    per_task: bool,
    task_method: str,
    as_json: bool,
    quiet: bool,
) -> None:
    """Mean success, pass@k and pass^k per system (unbiased, per task, then averaged)."""
    ks = parse_k(k_text)
    if ci is not None:
        check_ci(ci)
        check_n_boot(n_boot)
    elif predictive is not None:
        raise OptionError("--predictive needs --ci (a confidence level)")
    data = source.load(quiet=quiet)
    est = _estimate(
        data,
        k=ks,
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
                "notes": est.notes,
                **({"tasks": records(est.tasks)} if per_task else {}),
            }
        )
        return
    console = make_console()
    if per_task:
        console = make_console(min_width=140)
        _print_tasks(console, est.tasks, ks, level=ci if ci is not None else 0.95)
    if ci is not None:
        _print_intervals(console, est, quiet=quiet)
        return
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
        _print_notes(console, est)
        unscored = int(est.summary["unscored"].sum())
        if unscored:
            console.print(
                f"{unscored} unscored run(s) (no verdict: grader, harness or infrastructure "
                "error) are excluded from n."
            )


def _print_notes(console: Any, est: Estimate) -> None:
    """The estimate's notes: exclusions, unmatched task sets, bootstrap resamples and seed."""
    for note in est.notes:
        console.print(note)  # the console prints every string literally


def _iv(lo: float, hi: float) -> str:
    return f"[{fmt_num(lo)}, {fmt_num(hi)}]"


def _print_intervals(console: Any, est: Estimate, *, quiet: bool) -> None:
    """One row per (system, k, metric): value and the intervals of every scope asked for."""
    t = est.table
    level = est.settings["ci"]
    new_t = est.settings.get("predictive")
    scopes = ["benchmark", "population"] + (["predictive"] if new_t else [])
    iv = t.set_index(["system", "k", "metric", "scope"])
    first = t[t["scope"] == "benchmark"].reset_index(drop=True)
    table = Table(title=f"passhat estimate with {level:g} intervals (two scopes)")
    heads = {
        "benchmark": "benchmark",
        "population": "population",
        "predictive": f"new benchmark ({new_t} tasks)",
    }
    for col in ["system", "tasks", "k", "metric", "value"] + [heads[s] for s in scopes]:
        table.add_column(col, justify="left" if col in ("system", "metric") else "right")
    kmin = first["k"].min()
    for _, b in first.iterrows():
        if b["metric"] == "mean" and b["k"] != kmin:
            continue  # mean does not depend on k
        cells = []
        for scope in scopes:
            r = iv.loc[(b["system"], b["k"], b["metric"], scope)]
            cells.append(_iv(r["lower"], r["upper"]))
        table.add_row(
            str(b["system"]),
            str(b["tasks"]),
            "—" if b["metric"] == "mean" else str(b["k"]),
            METRIC_LABELS[str(b["metric"])],
            fmt_num(b["value"]),
            *cells,
        )
    console.print(table)
    if quiet:
        return
    console.print(
        "benchmark: these tasks, uncertainty from their finite runs only; "
        "population: the expected value over tasks like these (adds which tasks were drawn)"
        + (
            f"; new benchmark: the value a new set of {new_t} tasks like these would show."
            if new_t
            else "."
        )
    )
    of = t["system"].nunique()
    by = "system" if of > 1 else None
    for scope in scopes:
        part = t[t["scope"] == scope]
        for method, rows in part.groupby("method", sort=False):
            console.print(
                f"{scope} method ({row_names(rows, by=by, of=of)}): {method}",
                markup=False,
                highlight=False,
            )
    s = est.summary
    for _, r in s.iterrows():
        console.print(
            f"{r['system']}: flaky tasks {r['flaky_share']:.1%}, all-pass "
            f"{r['all_pass_share']:.1%}, all-fail {r['all_fail_share']:.1%}"
        )
    _print_notes(console, est)


def _print_tasks(console: Any, tasks: pd.DataFrame, ks: list[int], *, level: float) -> None:
    """Per-task table: n, c, unscored, rate and pass^k with intervals, flaky."""
    kmax = max(ks)
    table = Table(
        title=f"per-task estimates with {level:g} {tasks['method'].iloc[0].split()[0]} intervals"
    )
    cols = ["system", "task", "n", "c", "unscored", "rate", f"pass^{kmax}", f"pass@{kmax}", "flaky"]
    for col in cols:
        table.add_column(
            col, justify="left" if col in ("system", "task") else "right", no_wrap=True
        )
    for _, r in tasks.iterrows():
        table.add_row(
            str(r["system"]),
            str(r["task"]),
            str(r["n"]),
            str(r["c"]),
            str(r["unscored"]),
            f"{fmt_num(r['rate'])} {_iv(r['rate_lower'], r['rate_upper'])}",
            f"{fmt_num(r[f'pass_hat_{kmax}'])} "
            f"{_iv(r[f'pass_hat_{kmax}_lower'], r[f'pass_hat_{kmax}_upper'])}",
            f"{fmt_num(r[f'pass_at_{kmax}'])} "
            f"{_iv(r[f'pass_at_{kmax}_lower'], r[f'pass_at_{kmax}_upper'])}",
            "yes" if r["flaky"] else "",
        )
    console.print(table)
    outside = False
    for m in (f"pass_hat_{kmax}", f"pass_at_{kmax}"):
        v, lo, hi = tasks[m], tasks[f"{m}_lower"], tasks[f"{m}_upper"]
        outside = outside or bool(((v < lo - 1e-12) | (v > hi + 1e-12)).any())
    if outside:
        console.print(
            f"pass^{kmax} and pass@{kmax} intervals are for p^k and 1 − (1 − p)^k themselves "
            "(the rate's interval, transformed); the unbiased point value C(c,k)/C(n,k) can lie "
            "outside them.",
            markup=False,
            highlight=False,
        )


def register(cli: click.Group) -> None:
    """Attach ``estimate`` to the CLI group."""
    cli.add_command(estimate_cmd)
