"""Section 6, "What to run next": runs that bound flip rates, the next batch task by task
(:func:`passhat.plan.next_runs`), the design of the same budget, and what more runs on these
tasks would buy.

From :mod:`passhat.planner` and, when the model ran, :meth:`passhat.Fit.more_runs` (pure: no I/O).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import xarray as xr

from passhat import planner
from passhat._format import plural
from passhat.errors import InputError
from passhat.estimators import as_counts
from passhat.report.document import Column, Section, Table
from passhat.trials import Trials

__all__ = ["PLAN_TITLE", "plan_section"]

PLAN_TITLE = "6. What to run next"

#: Flip rate whose detection the section plans for on tasks that never failed.
FLIP_RATE = 0.10
#: Half-width of a per-task success-rate interval the flaky tasks are planned for.
HALF_WIDTH = 0.10
#: Tasks of the next batch listed in the report (all are in results.json).
NEXT_SHOWN = 10
#: Next-batch rows per system kept in the report and results.json (the batch's largest
#: shares first); ``passhat plan next`` writes the whole batch.
MAX_NEXT_ROWS = 60
#: Simulated sets of new runs behind the "more runs" rows (expected widths; MC error ≈ 1%).
MORE_RUNS_SIMULATIONS = 100


def _prior_for(fit: Any, ds: xr.Dataset, system: str) -> tuple[Any, str]:
    """Assumptions: the model's posterior when it ran, else an ML Beta-Binomial fit."""
    if fit is not None:
        post = fit.idata.posterior
        if "mu" in post and "kappa" in post:
            return fit, "the hierarchical model's posterior (means of μ and κ)"
    return ds, "a Beta-Binomial maximum-likelihood fit to these counts"


def _runs_row(system: str, n: np.ndarray, c: np.ndarray, detect: int) -> tuple[dict[str, Any], str]:
    """Runs that bound the flip rate on the clean tasks and pin the flaky tasks' rates."""
    flaky = (c > 0) & (c < n)
    clean = c == n
    n_clean = int(np.median(n[clean])) if clean.any() else int(np.median(n))
    bound = planner.failure_upper_bound(runs=max(n_clean, 1), failures=0, ci=0.95)
    row: dict[str, Any] = {
        "system": system,
        "clean_tasks": int(clean.sum()),
        "clean_runs": n_clean,
        "ruled_out_above": float(bound),
        "detect_runs": int(detect),
        "flaky_tasks": int(flaky.sum()),
    }
    if flaky.any():
        rate = float(np.median(c[flaky] / n[flaky]))
        rate = min(max(rate, 0.01), 0.99)
        width = planner.runs_for_width(half_width=HALF_WIDTH, rate=rate, method="wilson")
        row.update(flaky_rate=rate, width_runs=int(width))
        extra = max(int(width) - int(np.median(n[flaky])), 0)
        row["extra_runs_flaky"] = extra * int(flaky.sum())
    n_ok = int(clean.sum())
    if n_ok == 0:  # no task passed every run: no bound to state (was "on the 0 tasks")
        row.update(clean_runs=None, ruled_out_above=None)
    bounded = (
        f"{plural(n_clean, 'clean run')} rule{'s' if n_clean == 1 else ''} out failure rates "
        f"above {float(bound):.1%} on the {plural(n_ok, 'task')} that never failed"
        if n_ok
        else "no task passed all its runs, so no failure rate is ruled out on clean tasks"
    )
    sentence = (
        f"{system}: {bounded}; "
        f"{int(detect)} runs per task would show a {FLIP_RATE:.0%} flip rate with 95% "
        "probability."
        + (
            f" To pin the {int(flaky.sum())} flaky tasks' success rates to ±"
            f"{HALF_WIDTH:.0%} (Wilson, at their median rate {row['flaky_rate']:.0%}) takes "
            f"{row['width_runs']} runs each, {row['extra_runs_flaky']} more runs in all."
            if flaky.any()
            else ""
        )
    )
    return row, sentence


def _design(
    ds: xr.Dataset, fit: Any, system: str, n: np.ndarray, kmax: int
) -> tuple[list[dict[str, Any]], str]:
    """Rows of the current design, the best design of the same budget and the one that halves
    the population interval, and a sentence (only the sentence when no design is possible)."""
    rows: list[dict[str, Any]] = []
    budget = int(n.sum())
    prior, source = _prior_for(fit, ds, system)
    try:
        designs = planner.design(budget_runs=budget, k=kmax, prior=prior, system=system)
    except InputError as err:  # all runs pass (or fail): no spread to plan a design from
        return [], f"{system}: no design of the budget: {err}."
    tab, opt = designs.table, designs.optimum
    cur_n = round(float(np.median(n)))
    cur_t = int(n.size)
    cur = tab[
        (tab["metric"] == "pass_hat_k")
        & (tab["runs_per_task"] == cur_n)
        & (tab["tasks"] == budget // cur_n)
    ]
    se_cur = float(cur["se_population"].iloc[0]) if len(cur) else math.nan
    se_opt = float(opt["se_population"])
    # se_population ∝ 1/√T at fixed n (exact under the design's model): tasks to halve it
    target = se_cur / 2 if math.isfinite(se_cur) else se_opt / 2
    t_half = math.ceil(opt["tasks"] * (se_opt / target) ** 2)
    rows.append(
        {
            "system": system,
            "design": "current",
            "tasks": cur_t,
            "runs_per_task": cur_n,
            "runs": budget,
            "se_population": se_cur,
            "se_benchmark": float(cur["se_benchmark"].iloc[0]) if len(cur) else math.nan,
        }
    )
    rows.append(
        {
            "system": system,
            "design": "best for the same budget",
            "tasks": int(opt["tasks"]),
            "runs_per_task": int(opt["runs_per_task"]),
            "runs": int(opt["runs"]),
            "se_population": se_opt,
            "se_benchmark": float(opt["se_benchmark"]),
        }
    )
    rows.append(
        {
            "system": system,
            "design": "halves the population interval",
            "tasks": t_half,
            "runs_per_task": int(opt["runs_per_task"]),
            "runs": t_half * int(opt["runs_per_task"]),
            "se_population": target,
            "se_benchmark": math.nan,
        }
    )
    better = se_opt < se_cur * 0.99 if math.isfinite(se_cur) else False
    sentence = (
        f"{system}: the same {budget} runs "
        + (
            f"spent as {opt['tasks']} tasks × {plural(int(opt['runs_per_task']), 'run')} would "
            "cut the "
            f"population standard error of pass^{kmax} from {se_cur:.3f} to {se_opt:.3f}"
            if better
            else f"are already best spent as {opt['tasks']} tasks × "
            f"{plural(int(opt['runs_per_task']), 'run')} (population standard error of "
            f"pass^{kmax} "
            f"{se_opt:.3f})"
        )
        + f"; halving the population interval needs about {t_half} tasks × "
        f"{plural(int(opt['runs_per_task']), 'run')} "
        f"({t_half * int(opt['runs_per_task'])} runs): task "
        f"spread shrinks only with more tasks. Assumptions from {source}."
    )
    return rows, sentence


def _more_runs(fit: Any, n_runs: int, kmax: int) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows and sentences: the expected interval after as many more runs per task again."""
    if fit is None or getattr(fit, "model", None) != "beta":
        return [], []
    table = fit.more_runs(runs=[n_runs], k=[kmax], simulations=MORE_RUNS_SIMULATIONS)
    table = table[(table["metric"] == "pass_hat_k") & (table["k"] == kmax)]
    summary = fit.summary(k=[kmax])
    rows, sent = [], []
    for system, part in table.groupby("system", sort=False):
        width = {(r.scope, r.runs_added): r.expected_width for r in part.itertuples()}
        for r in part.itertuples():
            rows.append(
                {
                    "system": system,
                    "scope": r.scope,
                    "runs": "now"
                    if r.runs_added == 0
                    else "unlimited"
                    if math.isinf(r.runs_added)
                    else f"+{int(r.runs_added)} per task",
                    "expected_width": float(r.expected_width),
                    "width_ratio": float(r.width_ratio),
                }
            )
        pop = summary[
            (summary["system"] == system)
            & (summary["metric"] == "pass_hat_k")
            & (summary["scope"] == "population")
        ]
        share = float(pop["task_sampling_share"].iloc[0]) if len(pop) else math.nan
        m = float(n_runs)
        sent.append(
            f"{system}: {plural(int(n_runs), 'more run')} on each task would narrow the 95% "
            "interval of "
            f"pass^{kmax} from {width[('population', 0.0)]:.3f} to "
            f"{width[('population', m)]:.3f} wide (expected) for the population scope and from "
            f"{width[('benchmark', 0.0)]:.3f} to {width[('benchmark', m)]:.3f} for these tasks; "
            "however many runs are added, the population interval stays about "
            f"{width[('population', math.inf)]:.3f} wide: {share:.0%} of its variance comes "
            "from which tasks were sampled, which only more tasks reduce."
        )
    return rows, sent


def _next_batch(
    ds: xr.Dataset, system: str, n_tasks: int, kmax: int
) -> tuple[list[dict[str, Any]], list[str]]:
    """The next batch of as many runs as tasks, by :func:`passhat.plan.next_runs`."""
    batch = planner.next_runs(ds, budget=max(n_tasks, 1), k=kmax, system=system)
    t = batch.batch
    first = batch.sentences[0] if batch.sentences else ""
    why = batch.hedge_sentence  # the batch spread evenly, and why
    sentence = f"{system}: {first}" + (f" {why}" if why else "")
    rows = [
        {
            "system": system,
            "task": str(r.task),
            "status": str(r.status),
            "runs": int(r.runs),
            "extra_runs": int(r.extra_runs),
            "variance_share": float(r.variance_share),
            "reason": str(r.reason),
            "shown": i < NEXT_SHOWN,
        }
        for i, r in enumerate(t.head(MAX_NEXT_ROWS).itertuples())
    ]
    left = len(t) - len(rows)
    if left > 0:
        sentence += (
            f" The report lists {len(rows)} of the {len(t)} tasks that get runs; "
            "`passhat plan next` writes the whole batch."
        )
    return rows, [sentence]


def plan_section(
    data: Trials | xr.Dataset, *, fit: Any, ks: list[int], plan: bool = True
) -> Section:
    """Runs for the flaky tasks and the design of the same budget, per system.

    Parameters
    ----------
    data : Trials or xarray.Dataset
        The report's input.
    fit : passhat.Fit, optional
        The model's fit: its posterior is the design's assumption when given
        (else a Beta-Binomial maximum-likelihood fit to the counts); a plain
        Beta-Binomial fit also gives the expected interval after as many more
        runs per task again (table ``plan_more_runs``).
    ks : list of int
        k values; the design is for pass^k at the largest.
    plan : bool
        False: a skipped section ("Planning was not asked for.").

    Returns
    -------
    Section
        Id ``plan``.

    Examples
    --------
    >>> import passhat as ph
    >>> sec = plan_section(ph.load_example("agents"), fit=None, ks=[1, 5])
    >>> [t.id for t in sec.tables]
    ['plan_tasks', 'plan_next', 'plan_design']
    """
    if not plan:
        return Section(
            id="plan", title=PLAN_TITLE, status="skipped", note="Planning was not asked for."
        )
    ds = as_counts(data)
    kmax = ks[-1]
    rows_tasks: list[dict[str, Any]] = []
    rows_design: list[dict[str, Any]] = []
    rows_next: list[dict[str, Any]] = []
    sent: list[str] = []
    detect = planner.runs_to_detect(flip_rate=FLIP_RATE, ci=0.95)
    for s, system in enumerate(str(x) for x in ds["system"].values):
        present = ds["present"].values[s].astype(bool)
        n = ds["n"].values[s][present]
        c = ds["c"].values[s][present]
        if n.size < 2 or int(n.sum()) < kmax:
            continue
        row, sentence = _runs_row(system, n, c, int(detect))
        rows_tasks.append(row)
        sent.append(sentence)
        next_rows, next_sent = _next_batch(ds, system, int(n.size), kmax)
        rows_next += next_rows
        sent += next_sent
        design_rows, sentence = _design(ds, fit, system, n, kmax)
        rows_design += design_rows
        sent.append(sentence)
    n_all = ds["n"].values[ds["present"].values.astype(bool)]
    rows_more, sent_more = _more_runs(fit, int(np.median(n_all)) if n_all.size else 1, kmax)
    sent += sent_more
    tables = []
    if rows_tasks:
        tables.append(
            Table(
                id="plan_tasks",
                caption="Runs to bound the flip rate (independent runs from a clean state)",
                columns=[
                    Column("system", "System"),
                    Column("clean_tasks", "Tasks that never failed", "int"),
                    Column("clean_runs", "Their runs", "int"),
                    Column("ruled_out_above", "Failure rates ruled out above (95%)", "pct"),
                    Column("detect_runs", f"Runs to see a {FLIP_RATE:.0%} flip (95%)", "int"),
                    Column("flaky_tasks", "Flaky tasks", "int"),
                    Column("width_runs", f"Runs for ±{HALF_WIDTH:.0%} on a flaky task", "int"),
                    Column("extra_runs_flaky", "Extra runs over all flaky tasks", "int"),
                ],
                rows=rows_tasks,
                note="From passhat.plan: failure_upper_bound (exact Clopper–Pearson), "
                "runs_to_detect, runs_for_width (exact Wilson search).",
            )
        )
    if rows_next:
        tables.append(
            Table(
                id="plan_next",
                caption=f"The next batch (as many runs as tasks): where they go for pass^{kmax}",
                columns=[
                    Column("system", "System"),
                    Column("task", "Task"),
                    Column("status", "Status"),
                    Column("runs", "Runs so far", "int"),
                    Column("extra_runs", "More runs", "int"),
                    Column("variance_share", "Share of the variance", "pct"),
                    Column("reason", "Why"),
                ],
                rows=rows_next,
                hidden_rows=sum(not r["shown"] for r in rows_next),
                note="From passhat.plan.next_runs: greedy allocation by the expected reduction "
                "of the average estimate's squared error given the runs so far; the "
                "`passhat plan next` command writes the whole batch as CSV for a harness.",
            )
        )
    if rows_design:
        tables.append(
            Table(
                id="plan_design",
                caption=f"Designs of the budget: standard error of pass^{kmax}",
                columns=[
                    Column("system", "System"),
                    Column("design", "Design"),
                    Column("tasks", "Tasks", "int"),
                    Column("runs_per_task", "Runs per task", "int"),
                    Column("runs", "Runs", "int"),
                    Column("se_population", "SE, population scope", "num"),
                    Column("se_benchmark", "SE, benchmark scope", "num"),
                ],
                rows=rows_design,
                note="From passhat.plan.design: exact under a Beta-Binomial model of the tasks.",
            )
        )
    if rows_more:
        tables.append(
            Table(
                id="plan_more_runs",
                caption=f"More runs on these tasks: expected 95% interval width of pass^{kmax}",
                columns=[
                    Column("system", "System"),
                    Column("scope", "Scope"),
                    Column("runs", "Runs added"),
                    Column("expected_width", "Expected width", "num"),
                    Column("width_ratio", "Relative to now", "num"),
                ],
                rows=rows_more,
                note="From passhat.Fit.more_runs: new runs simulated from the posterior "
                "predictive, each posterior exact on a grid (a preposterior computation). "
                "Unlimited runs reveal these tasks' rates: the population interval keeps the "
                "part that comes from which tasks were sampled.",
            )
        )
    return Section(id="plan", title=PLAN_TITLE, sentences=sent, tables=tables)
