"""Section 1, "Data": systems, tasks, decided and unscored runs, status slices, exclusions."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import xarray as xr

from passhat._format import plural
from passhat.report.document import Column, Section, Table, frame_rows, frame_table
from passhat.report.sections.weights import weights_sentence, weights_table

if TYPE_CHECKING:
    from passhat.report.results import ReportResults

__all__ = ["MAX_TASK_ROWS", "data_section"]


def _systems_table(ds: xr.Dataset, est: Any) -> Table:
    systems = [str(s) for s in ds["system"].values]
    n = ds["n"].values
    present = ds["present"].values.astype(bool)
    rows = []
    for s, name in enumerate(systems):
        nn = n[s][present[s]]
        ex = est.excluded
        rows.append(
            {
                "system": name,
                "tasks": int(present[s].sum()),
                "included": int(est.summary["tasks"].iloc[s]),
                "runs": int(nn.sum()),
                "unscored": int(ds["unscored"].values[s].sum()),
                "runs_min": int(nn.min()) if nn.size else 0,
                "runs_median": float(np.median(nn)) if nn.size else math.nan,
                "runs_max": int(nn.max()) if nn.size else 0,
                "excluded_tasks": int((ex["system"] == name).sum()) if len(ex) else 0,
            }
        )
    return Table(
        id="data_systems",
        caption="Systems, tasks and decided runs (unscored runs are counted apart, not in n)",
        columns=[
            Column("system", "System"),
            Column("tasks", "Tasks run", "int"),
            Column("included", "Tasks in the averages", "int"),
            Column("runs", "Decided runs", "int"),
            Column("unscored", "Unscored runs", "int"),
            Column("runs_min", "Runs per task (min)", "int"),
            Column("runs_median", "(median)", "g"),
            Column("runs_max", "(max)", "int"),
            Column("excluded_tasks", "Excluded tasks", "int"),
        ],
        rows=rows,
    )


def _runs_table(ds: xr.Dataset) -> Table:
    systems = [str(s) for s in ds["system"].values]
    n = ds["n"].values
    present = ds["present"].values.astype(bool)
    dist_rows = []
    for s, name in enumerate(systems):
        vals, cnt = np.unique(n[s][present[s]], return_counts=True)
        for v, c in zip(vals, cnt, strict=True):
            dist_rows.append({"system": name, "runs": int(v), "tasks": int(c)})
    return Table(
        id="data_runs_per_task",
        caption="Distribution of decided runs per task",
        columns=[
            Column("system", "System"),
            Column("runs", "Decided runs n", "int"),
            Column("tasks", "Tasks", "int"),
        ],
        rows=dist_rows,
    )


def _slice_tables(sl: Any, tables: list[Table], sent: list[str]) -> None:
    """Runs by status (and category) from :func:`passhat.slices`."""
    for key, st in sl.tables.items():
        tables.append(
            Table(
                id=f"data_{key}",
                caption=(
                    "Runs by status (slices): where failures and unscored runs come from"
                    if key == "status"
                    else "Runs by category (slices)"
                ),
                columns=[
                    Column("system", "System"),
                    Column(key, key.capitalize()),
                    Column("runs", "Runs", "int"),
                    Column("share_of_runs", "Share of runs", "pct"),
                    Column("decided", "Decided", "int"),
                    Column("failures", "Failed", "int"),
                    Column("share_of_failures", "Share of failures", "pct"),
                    Column("unscored", "Unscored (not in n)", "int"),
                    Column("success_rate", "Success rate of decided runs", "pct"),
                ],
                rows=frame_rows(st),
                note="From passhat.slices. Unscored runs are neither passes nor failures.",
            )
        )
    st = sl.tables["status"]
    for system, part in st.groupby("system", sort=False):
        named = part[(part["status"] != "ok") & (part["failures"] > 0)]
        named = named.sort_values("share_of_failures", ascending=False, kind="stable")
        if len(named):
            sent.append(
                f"{system}: {named['share_of_failures'].sum():.0%} of failed runs end in a "
                "named status ("
                + ", ".join(
                    f"{r.status} {r.share_of_failures:.0%}" for r in named.head(3).itertuples()
                )
                + ")."
            )


def _reader_table(ex: pd.DataFrame | None, tables: list[Table], sent: list[str]) -> None:
    """The rows the reader excluded, with reasons."""
    if ex is not None and len(ex):
        tables.append(
            frame_table(
                ex.astype(str),
                id="data_reader_excluded",
                caption="Rows the reader excluded, with reasons",
            )
        )
        sent.append(f"The reader excluded {len(ex)} row(s); the table lists each reason.")


#: Excluded-task rows listed in the report and results.json (all are in tasks.parquet).
MAX_TASK_ROWS = 60


def data_section(results: ReportResults) -> Section:
    """The data section: what was run, what was decided, and what was left out and why.

    Parameters
    ----------
    results : ReportResults
        The report's results: its input's count table, the estimate (its summary and
        excluded tasks) and, for trials, the status and category slices and the reader's
        exclusions (a count table has neither).

    Returns
    -------
    Section
        Id ``data``.

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import compute_results
    >>> res = compute_results(ph.load_example("abcd"), k=[1, 2], n_boot=200, model=False,
    ...                       plan=False)
    >>> [t.id for t in data_section(res).tables]
    ['data_systems', 'data_runs_per_task', 'data_status']
    """
    ds, est = results.counts_all, results.estimate
    tables = [_systems_table(ds, est), _runs_table(ds)]
    systems = [str(s) for s in ds["system"].values]
    n = ds["n"].values
    present = ds["present"].values.astype(bool)
    n_tasks = len(ds["task"])
    total_unscored = int(ds["unscored"].values.sum())
    all_n = n[present]
    ran = ds["present"].astype(bool).sum("task").values
    partial = [
        f"{s} {int(r)} of {n_tasks}" for s, r in zip(systems, ran, strict=True) if r < n_tasks
    ]
    runs = int(all_n.min())
    sent = [
        f"{plural(len(systems), 'system')} on {plural(n_tasks, 'task')}; "
        + (f"not every system ran every task ({', '.join(partial)}); " if partial else "")
        + (
            f"every {'task' if not partial else 'task a system ran'} has "
            f"{plural(runs, 'decided run')}."
            if all_n.min() == all_n.max()
            else f"decided runs per task range from {runs} to {int(all_n.max())} "
            f"(median {float(np.median(all_n)):g})."
        )
    ]
    if total_unscored:
        sent.append(
            f"{total_unscored} run(s) were not decided by the grader (unscored); they are "
            "reported apart and left out of n, so an outage does not read as agent failure."
        )
    else:
        sent.append("Every run was decided (no unscored runs).")
    if results.slices is not None:
        _slice_tables(results.slices, tables, sent)
    _reader_table(results.reader_excluded, tables, sent)
    if len(est.excluded):
        tables.append(
            Table(
                id="data_excluded_tasks",
                caption="Tasks left out of the averages, with reasons",
                columns=[
                    Column("system", "System"),
                    Column("task", "Task"),
                    Column("n", "Decided runs", "int"),
                    Column("reason", "Reason"),
                ],
                rows=[
                    {"system": r.system, "task": r.task, "n": int(r.n), "reason": r.reason}
                    for r in est.excluded.head(MAX_TASK_ROWS).itertuples()
                ],
                hidden_rows=max(len(est.excluded) - MAX_TASK_ROWS, 0),
                note=(
                    f"The first {MAX_TASK_ROWS}; all {len(est.excluded)} are in tasks.parquet "
                    "(included = false)."
                    if len(est.excluded) > MAX_TASK_ROWS
                    else ""
                ),
            )
        )
        sent.append(f"{len(est.excluded)} task(s) were left out of the averages (listed below).")
    sent.extend(x for x in est.notes if x.startswith("k = ") and " left out: " in x)  # a k too big
    if (weights := weights_table(results)) is not None:
        sent += weights_sentence(results)
        tables.append(weights)
    return Section(id="data", title="1. Data", sentences=sent, tables=tables)
