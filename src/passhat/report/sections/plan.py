"""Section 6, "What to run next": runs that bound flip rates, the next batch task by task
(:func:`passhat.plan.next_runs`), the design of the same budget, and what more runs on these
tasks would buy.

From the planner's results in :class:`~passhat.report.results.PlanResults` (computed by
:func:`passhat.report.build.compute_results`); nothing here computes.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from passhat._format import plural
from passhat.report.document import Column, Section, Table
from passhat.report.sections._rows import weighted

if TYPE_CHECKING:
    from passhat.report.results import DesignPlan, FlipPlan, MoreRuns, NextBatch, ReportResults

__all__ = ["NEXT_SHOWN", "PLAN_TITLE", "PLAN_WEIGHTS", "plan_section"]

PLAN_TITLE = "6. What to run next"
#: Why the plan is not weighted (a report with unequal task weights says it).
PLAN_WEIGHTS = "the planner has no task weights: it plans runs for the unweighted metrics"

#: Tasks of the next batch listed in the report (all the batch's rows kept are in
#: results.json).
NEXT_SHOWN = 10


def _flips(p: FlipPlan, detect: int, flip_rate: float, half_width: float) -> tuple[dict, str]:
    """The row and sentence of the runs that bound the flip rate and pin the flaky rates."""
    row: dict[str, Any] = {
        "system": p.system,
        "clean_tasks": p.clean_tasks,
        "clean_runs": p.clean_runs,
        "ruled_out_above": p.ruled_out_above,
        "detect_runs": detect,
        "flaky_tasks": p.flaky_tasks,
    }
    if p.flaky_tasks:
        row.update(
            flaky_rate=p.flaky_rate, width_runs=p.width_runs, extra_runs_flaky=p.extra_runs_flaky
        )
    n_clean, n_ok = p.clean_runs, p.clean_tasks
    if n_ok == 0:  # no task passed every run: no bound to state (was "on the 0 tasks")
        row.update(clean_runs=None, ruled_out_above=None)
    bounded = (
        f"{plural(n_clean, 'clean run')} rule{'s' if n_clean == 1 else ''} out failure rates "
        f"above {p.ruled_out_above:.1%} on the {plural(n_ok, 'task')} that never failed"
        if n_ok
        else "no task passed all its runs, so no failure rate is ruled out on clean tasks"
    )
    sentence = (
        f"{p.system}: {bounded}; "
        f"{detect} runs per task would show a {flip_rate:.0%} flip rate with 95% probability."
        + (
            f" To pin the {p.flaky_tasks} flaky tasks' success rates to ±"
            f"{half_width:.0%} (Wilson, at their median rate {row['flaky_rate']:.0%}) takes "
            f"{row['width_runs']} runs each, {row['extra_runs_flaky']} more runs in all."
            if p.flaky_tasks
            else ""
        )
    )
    return row, sentence


def _next_batch(b: NextBatch) -> tuple[list[dict[str, Any]], str]:
    """The rows and sentence of the next batch (:func:`passhat.plan.next_runs`)."""
    sentence = f"{b.system}: {b.sentence}" + (f" {b.hedge}" if b.hedge else "")
    rows = [
        {
            "system": b.system,
            "task": str(r.task),
            "status": str(r.status),
            "runs": int(r.runs),
            "extra_runs": int(r.extra_runs),
            "variance_share": float(r.variance_share),
            "reason": str(r.reason),
            "shown": i < NEXT_SHOWN,
        }
        for i, r in enumerate(b.table.itertuples())
    ]
    if b.tasks > len(rows):
        sentence += (
            f" The report lists {len(rows)} of the {b.tasks} tasks that get runs; "
            "`passhat plan next` writes the whole batch."
        )
    return rows, sentence


def _design(d: DesignPlan, kmax: int) -> tuple[list[dict[str, Any]], str]:
    """Rows of the current design, the best of the same budget and the one that halves the
    population interval, and a sentence (only the sentence when no design is possible)."""
    if d.error is not None:
        return [], f"{d.system}: no design of the budget: {d.error}."
    runs = plural(d.best_runs_per_task, "run")
    rows = [
        _design_row(d, "current", d.current_tasks, d.current_runs_per_task, d.budget),
        _design_row(d, "best for the same budget", d.best_tasks, d.best_runs_per_task, d.best_runs),
        _design_row(d, "halves the population interval", d.half_tasks, d.best_runs_per_task),
    ]
    better = d.se_best < d.se_current * 0.99 if math.isfinite(d.se_current) else False
    source = (
        "the hierarchical model's posterior (means of μ and κ)"
        if d.from_model
        else "a Beta-Binomial maximum-likelihood fit to these counts"
    )
    sentence = (
        f"{d.system}: the same {d.budget} runs "
        + (
            f"spent as {d.best_tasks} tasks × {runs} would cut the population standard error "
            f"of pass^{kmax} from {d.se_current:.3f} to {d.se_best:.3f}"
            if better
            else f"are already best spent as {d.best_tasks} tasks × {runs} (population "
            f"standard error of pass^{kmax} {d.se_best:.3f})"
        )
        + f"; halving the population interval needs about {d.half_tasks} tasks × {runs} "
        f"({d.half_tasks * d.best_runs_per_task} runs): task spread shrinks only with more "
        f"tasks. Assumptions from {source}."
    )
    return rows, sentence


def _design_row(
    d: DesignPlan, name: str, tasks: int, runs_per_task: int, runs: int | None = None
) -> dict[str, Any]:
    """One design's row: its size and the standard errors of pass^k it gives."""
    se = {
        "current": (d.se_current, d.se_current_benchmark),
        "best for the same budget": (d.se_best, d.se_best_benchmark),
    }.get(name, (d.se_half, math.nan))
    return {
        "system": d.system,
        "design": name,
        "tasks": tasks,
        "runs_per_task": runs_per_task,
        "runs": runs if runs is not None else tasks * runs_per_task,
        "se_population": se[0],
        "se_benchmark": se[1],
    }


def _more_runs(m: MoreRuns | None, kmax: int) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows and sentences: the expected interval after as many more runs per task again."""
    if m is None:
        return [], []
    rows, sent = [], []
    for system, part in m.table.groupby("system", sort=False):
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
        n = float(m.runs)
        sent.append(
            f"{system}: {plural(m.runs, 'more run')} on each task would narrow the 95% "
            "interval of "
            f"pass^{kmax} from {width[('population', 0.0)]:.3f} to "
            f"{width[('population', n)]:.3f} wide (expected) for the population scope and from "
            f"{width[('benchmark', 0.0)]:.3f} to {width[('benchmark', n)]:.3f} for these tasks; "
            "however many runs are added, the population interval stays about "
            f"{width[('population', math.inf)]:.3f} wide: {m.shares[str(system)]:.0%} of its "
            "variance comes from which tasks were sampled, which only more tasks reduce."
        )
    return rows, sent


def plan_section(results: ReportResults) -> Section:
    """Runs for the flaky tasks and the design of the same budget, per system.

    Parameters
    ----------
    results : ReportResults
        The report's results: their ``plan`` (the planner's numbers, with the model's
        posterior as the design's assumption when the model ran, else a Beta-Binomial
        maximum-likelihood fit to the counts; a plain Beta-Binomial fit also gives the
        expected interval after as many more runs per task again). Without a plan
        (``plan=False``) the section is skipped.

    Returns
    -------
    Section
        Id ``plan``.

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import compute_results
    >>> res = compute_results(ph.load_example("agents"), k=[1, 5], n_boot=200, model=False)
    >>> [t.id for t in plan_section(res).tables]
    ['plan_tasks', 'plan_next', 'plan_design']
    """
    p = results.plan
    if p is None:
        return Section(
            id="plan", title=PLAN_TITLE, status="skipped", note="Planning was not asked for."
        )
    rows_tasks: list[dict[str, Any]] = []
    rows_design: list[dict[str, Any]] = []
    rows_next: list[dict[str, Any]] = []
    sent: list[str] = []
    for s in p.systems:
        row, sentence = _flips(s.flips, p.detect_runs, p.flip_rate, p.half_width)
        rows_tasks.append(row)
        next_rows, next_sentence = _next_batch(s.next_batch)
        rows_next += next_rows
        design_rows, design_sentence = _design(s.design, p.kmax)
        rows_design += design_rows
        sent += [sentence, next_sentence, design_sentence]
    rows_more, sent_more = _more_runs(p.more_runs, p.kmax)
    if weighted(results.settings.weights):
        sent.append(f"Not weighted: {PLAN_WEIGHTS}.")
    tables = [
        table
        for table in (
            _tasks_table(rows_tasks, p.flip_rate, p.half_width),
            _next_table(rows_next, p.kmax),
            _design_table(rows_design, p.kmax),
            _more_runs_table(rows_more, p.kmax),
        )
        if table.rows
    ]
    return Section(id="plan", title=PLAN_TITLE, sentences=sent + sent_more, tables=tables)


def _tasks_table(rows: list[dict[str, Any]], flip_rate: float, half_width: float) -> Table:
    return Table(
        id="plan_tasks",
        caption="Runs to bound the flip rate (independent runs from a clean state)",
        columns=[
            Column("system", "System"),
            Column("clean_tasks", "Tasks that never failed", "int"),
            Column("clean_runs", "Their runs", "int"),
            Column("ruled_out_above", "Failure rates ruled out above (95%)", "pct"),
            Column("detect_runs", f"Runs to see a {flip_rate:.0%} flip (95%)", "int"),
            Column("flaky_tasks", "Flaky tasks", "int"),
            Column("width_runs", f"Runs for ±{half_width:.0%} on a flaky task", "int"),
            Column("extra_runs_flaky", "Extra runs over all flaky tasks", "int"),
        ],
        rows=rows,
        note="From passhat.plan: failure_upper_bound (exact Clopper–Pearson), "
        "runs_to_detect, runs_for_width (exact Wilson search).",
    )


def _next_table(rows: list[dict[str, Any]], kmax: int) -> Table:
    return Table(
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
        rows=rows,
        hidden_rows=sum(not r["shown"] for r in rows),
        note="From passhat.plan.next_runs: greedy allocation by the expected reduction "
        "of the average estimate's squared error given the runs so far; the "
        "`passhat plan next` command writes the whole batch as CSV for a harness.",
    )


def _design_table(rows: list[dict[str, Any]], kmax: int) -> Table:
    return Table(
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
        rows=rows,
        note="From passhat.plan.design: exact under a Beta-Binomial model of the tasks.",
    )


def _more_runs_table(rows: list[dict[str, Any]], kmax: int) -> Table:
    return Table(
        id="plan_more_runs",
        caption=f"More runs on these tasks: expected 95% interval width of pass^{kmax}",
        columns=[
            Column("system", "System"),
            Column("scope", "Scope"),
            Column("runs", "Runs added"),
            Column("expected_width", "Expected width", "num"),
            Column("width_ratio", "Relative to now", "num"),
        ],
        rows=rows,
        note="From passhat.Fit.more_runs: new runs simulated from the posterior "
        "predictive, each posterior exact on a grid (a preposterior computation). "
        "Unlimited runs reveal these tasks' rates: the population interval keeps the "
        "part that comes from which tasks were sampled.",
    )
