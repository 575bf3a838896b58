"""Section 5, "Flaky tasks": tasks with both outcomes, lowest success rate first, with intervals."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from passhat.report.document import Column, Section, Table

if TYPE_CHECKING:
    from passhat.report.results import ReportResults

__all__ = ["MAX_FLAKY_ROWS", "flaky_section", "flaky_sentences"]

#: Flaky-task rows per system in the report and results.json (every task is in tasks.parquet).
MAX_FLAKY_ROWS = 60


def flaky_section(results: ReportResults) -> Section:
    """The flaky section: every flaky task's runs, successes and per-task interval.

    Parameters
    ----------
    results : ReportResults
        The report's results: the estimate's per-task table
        (:attr:`passhat.Estimate.tasks`) gives the flaky flag and the per-task intervals;
        the report's interval level names the column.

    Returns
    -------
    Section
        Id ``flaky``; at most :data:`MAX_FLAKY_ROWS` rows per system (the lowest success
        rates), so the page and ``results.json`` stay small at any number of tasks; the
        table's ``hidden_rows`` counts the rest, which the report's ``tasks.parquet`` holds
        (column ``flaky``).

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import compute_results
    >>> res = compute_results(ph.load_example("abcd"), k=[1, 2], n_boot=200, model=False,
    ...                       plan=False)
    >>> sec = flaky_section(res)
    >>> sec.tables[0].id, all(r["c"] < r["n"] for r in sec.tables[0].rows)
    ('flaky', True)
    """
    est, level = results.estimate, results.settings.ci
    tasks = est.tasks
    # only the two sort keys of the flaky tasks are copied (a million-task table is ~250 MB)
    keep = np.flatnonzero(
        tasks["flaky"].to_numpy(dtype=bool) & tasks["included"].to_numpy(dtype=bool)
    )
    method = str(tasks["method"].iloc[keep[0]]) if len(keep) else ""
    flaky = tasks[["system", "rate"]].iloc[keep]
    flaky["_row"] = keep
    order = {str(sys_): i for i, sys_ in enumerate(est.summary["system"])}
    flaky = flaky.sort_values("rate", kind="stable")  # ties keep the tasks' order
    flaky = flaky.sort_values("system", key=lambda c: c.map(order), kind="stable")
    rows = []
    hidden = 0
    for system, part in flaky.groupby("system", sort=False):
        hidden += max(len(part) - MAX_FLAKY_ROWS, 0)
        shown = tasks.iloc[part["_row"].to_numpy()[:MAX_FLAKY_ROWS]]
        for i, r in enumerate(shown.to_dict(orient="records")):
            rows.append(
                {
                    "system": system,
                    "task": str(r["task"]),
                    "n": int(r["n"]),
                    "c": int(r["c"]),
                    "rate": float(r["rate"]),
                    "rate_lower": float(r["rate_lower"]),
                    "rate_upper": float(r["rate_upper"]),
                    "interval_method": method,
                    "shown": i < MAX_FLAKY_ROWS,
                }
            )
    table = Table(
        id="flaky",
        caption="Flaky tasks (both outcomes among decided runs), lowest success rate first",
        columns=[
            Column("system", "System"),
            Column("task", "Task"),
            Column("n", "Runs", "int"),
            Column("c", "Successes", "int"),
            Column("rate", "Success rate", "pct"),
            Column("rate", f"{level or 0.95:.0%} interval ({method})", "interval"),
        ],
        rows=rows,
        hidden_rows=hidden,
        note=" ".join(
            x
            for x in (
                f"{hidden} more flaky tasks are in tasks.parquet (column flaky)." if hidden else "",
                f"Per-task interval: {method}." if method else "",
            )
            if x
        ),
    )
    return Section(
        id="flaky", title="5. Flaky tasks", sentences=flaky_sentences(est), tables=[table]
    )


def flaky_sentences(est: Any) -> list[str]:
    """Per system: how many flaky tasks, how well their rates are known, where the failing runs are.

    Failing runs sit in flaky tasks and in tasks that always fail; the
    sentence gives both counts, so "flaky" is not mistaken for "where the
    failures are" (the gap mean − pass^k sits on flaky tasks alone, the
    failing runs often do not).

    Examples
    --------
    >>> import passhat as ph
    >>> counts = ph.counts_from_arrays([4, 4, 4], [2, 0, 4], tasks=["a", "b", "c"])
    >>> print(flaky_sentences(ph.estimate(counts, k=1))[0])
    system: 1 flaky task(s). With 4 runs each, a task's success rate is known only to within a \
median interval width of 70%; more runs on these tasks narrow it (see What to run next). They \
hold 2 of the system's 6 failing runs (33%); the other 4 are in tasks that always fail.
    """
    tasks = est.tasks
    # per-column arrays, not row subsets of the whole table (a million tasks: ~250 MB a copy)
    inc = tasks["included"].to_numpy(dtype=bool)
    flaky = inc & tasks["flaky"].to_numpy(dtype=bool)
    if not flaky.any():
        return ["No task had both outcomes: every task's decided runs agree."]
    n = tasks["n"].to_numpy()
    fails_all = n - tasks["c"].to_numpy()
    width_all = tasks["rate_upper"].to_numpy() - tasks["rate_lower"].to_numpy()
    names = tasks["system"].astype(str)
    sent = []
    order = [str(s) for s in est.summary["system"]]
    for system in order:
        mine = inc & (names == system).to_numpy(dtype=bool)
        part = mine & flaky
        count = int(part.sum())
        if count == 0:
            sent.append(f"{system}: no flaky task; every task's decided runs agree.")
            continue
        width = pd.Series(width_all[part]).median()
        n_part = pd.Series(n[part])
        runs = (
            f"{int(n_part.iloc[0])} runs each"
            if n_part.nunique() == 1
            else f"a median of {n_part.median():g} runs"
        )
        text = (
            f"{system}: {count} flaky task(s). With {runs}, a task's success rate is known "
            f"only to within a median interval width of {width:.0%}; more runs on these "
            "tasks narrow it (see What to run next)."
        )
        fails = int(fails_all[mine].sum())
        in_flaky = int(fails_all[part].sum())
        if fails:
            text += (
                f" They hold {in_flaky} of the system's {fails} failing runs "
                f"({in_flaky / fails:.0%}); the other {fails - in_flaky} are in tasks that "
                "always fail."
            )
        sent.append(text)
    return sent
