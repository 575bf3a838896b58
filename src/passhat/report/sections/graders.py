"""Section "Grader correction": the headline's mean, pass@k and pass^k corrected for a noisy
grader's sensitivity and specificity, beside the grader's own (uncorrected) values, when the
report is given the grader's error (``grader=``; ``passhat report --grader-…``).

Every number is the report's :class:`~passhat.graders.result.GraderCorrection`
(:attr:`passhat.report.results.ReportResults.grader`), computed on the headline's tasks with
its weights, clusters, k and interval level. Nothing is computed here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from passhat._format import fixed, pct
from passhat._labels import METRIC_LABELS
from passhat.graders.result import ASSUMPTION
from passhat.report.document import Column, Section, Table
from passhat.report.sections._rows import methods_note, scope_columns, shown

if TYPE_CHECKING:
    from passhat.graders.result import GraderCorrection
    from passhat.report.results import ReportResults

__all__ = ["GRADER_TITLE", "MAX_OUTSIDE_ROWS", "grader_section"]

GRADER_TITLE = "Grader correction"

#: Rows of the table of tasks whose corrected rate left [0, 1] (one per distinct system, runs
#: and grader passes; the largest departures first).
MAX_OUTSIDE_ROWS = 40


def _value_rows(res: GraderCorrection, ks: list[int]) -> tuple[list[dict[str, Any]], dict]:
    """One row per (system, metric, k) the report shows: the grader's value, the corrected one
    and both scopes' intervals; and each scope's method(s)."""
    t = res.table
    rows: dict[tuple[str, str, int], dict[str, Any]] = {}
    methods: dict[str, list[str]] = {}
    for r in t.to_dict(orient="records"):
        k = ks[0] if pd.isna(r["k"]) else int(r["k"])
        if not shown(str(r["metric"]), k, ks):
            continue
        key = (str(r["system"]), str(r["metric"]), k)
        row = rows.setdefault(key, {
            "system": key[0], "metric": METRIC_LABELS.get(key[1], key[1]),
            "k": None if key[1] == "mean" else k, "observed": float(r["observed"]),
            "value": float(r["value"]),
        })  # fmt: skip
        if "scope" in r and isinstance(r["scope"], str):
            row[f"{r['scope']}_lower"], row[f"{r['scope']}_upper"] = r["lower"], r["upper"]
            seen = methods.setdefault(r["scope"], [])
            seen += [] if r["method"] in seen else [r["method"]]
    return list(rows.values()), methods


def _rates_table(res: GraderCorrection) -> Table:
    """The grader's sensitivity and specificity, their intervals and where they came from."""
    g, level = res.grader, res.level
    (se_lo, se_hi), (sp_lo, sp_hi) = res.rate_intervals or (
        (g.sensitivity,) * 2, (g.specificity,) * 2)  # fmt: skip
    a = g.audit
    counts = (None, None) if a is None else (f"TP {a.tp}, FN {a.fn}", f"TN {a.tn}, FP {a.fp}")
    rows = [
        {
            "rate": name,
            "value": v,
            "interval_lower": None if g.stated else lo,
            "interval_upper": None if g.stated else hi,
            "counts": cnt or "—",
            "source": g.source,
        }
        for name, v, lo, hi, cnt in (
            ("sensitivity", g.sensitivity, se_lo, se_hi, counts[0]),
            ("specificity", g.specificity, sp_lo, sp_hi, counts[1]),
        )
    ]
    how = (
        "stated as points: no interval (the corrected intervals ignore their uncertainty)"
        if g.stated
        else f"{level:.0%} equal-tailed intervals of the Beta posteriors (Jeffreys prior "
        "Beta(1/2, 1/2)) that the corrected intervals draw se and sp from"
    )
    return Table(
        id="grader_rates",
        caption="The grader's sensitivity (truly passing runs it passes) and specificity "
        "(truly failing runs it fails)",
        columns=[
            Column("rate", "Rate"),
            Column("value", "Value", "num"),
            Column("interval", f"{level:.0%} interval", "interval_fixed"),
            Column("counts", "Audit counts"),
            Column("source", "From"),
        ],
        rows=rows,
        note=f"Intervals: {how}.",
    )


def _outside_table(res: GraderCorrection) -> Table:
    """Tasks whose corrected rate left [0, 1], one row per distinct (system, runs, grader
    passes): how many tasks, the first few by name, the observed and corrected rates."""
    p = res.per_task
    r = p["corrected_rate"].to_numpy(dtype=float)
    out = p[(r < -1e-12) | (r > 1 + 1e-12)]
    rows: list[dict[str, Any]] = []
    for (system, n, c), part in out.groupby(["system", "n", "c"], sort=False):
        names = [str(t) for t in part["task"].head(3)]
        rows.append({
            "system": str(system), "n": int(n), "c": int(c), "tasks": len(part),
            "examples": ", ".join(names) + (" …" if len(part) > 3 else ""),
            "observed_rate": float(part["observed_rate"].iloc[0]),
            "corrected_rate": float(part["corrected_rate"].iloc[0]),
        })  # fmt: skip
    rows.sort(key=lambda x: -max(x["corrected_rate"] - 1.0, -x["corrected_rate"]))
    for i, row in enumerate(rows):
        row["shown"] = i < MAX_OUTSIDE_ROWS
    hidden = max(len(rows) - MAX_OUTSIDE_ROWS, 0)
    return Table(
        id="grader_outside",
        caption="Tasks whose corrected pass rate left [0, 1] (by runs and grader passes)",
        columns=[
            Column("system", "System"),
            Column("n", "Runs", "int"),
            Column("c", "Grader passes", "int"),
            Column("tasks", "Tasks", "int"),
            Column("examples", "For example"),
            Column("observed_rate", "Grader's rate", "pct"),
            Column("corrected_rate", "Corrected rate", "num"),
        ],
        rows=rows,
        hidden_rows=hidden,
        note=(f"{hidden} more rows are in results.json. " if hidden else "")
        + "A task's grader pass rate outside [1 − sp, se] gives a corrected rate outside "
        "[0, 1]: expected with few runs (a task that always passes shows n of n grader passes "
        "with probability se^n); the averages stay unbiased and the interval ends are cut to "
        "[0, 1].",
    )


def _sentences(
    res: GraderCorrection, rows: list[dict[str, Any]], kmax: int, level: str
) -> list[str]:
    """The grader, each system's corrected pass^kmax against the grader's, the method."""
    g = res.grader
    src = "stated" if g.stated else f"from {g.source}"
    out = [
        f"The grader's sensitivity is {fixed(g.sensitivity)} and its specificity "
        f"{fixed(g.specificity)} ({src}); the values below are corrected for its errors."
    ]
    # a truth column's audit: which runs it counted (the runs of the tasks averaged here)
    out += [note[0].upper() + note[1:] + "." for note in res.audit_notes]
    label = METRIC_LABELS["pass_hat_k"]
    for r in rows:
        if r["metric"] != label or r["k"] != kmax:
            continue
        iv = (
            f" ({level} interval for tasks like these {pct(r['population_lower'])}–"
            f"{pct(r['population_upper'])})"
            if "population_lower" in r and pd.notna(r["population_lower"])
            else ""
        )
        out.append(
            f"{r['system']}: corrected pass^{kmax} {pct(r['value'])}{iv}, against "
            f"{pct(r['observed'])} on the grader's labels."
        )
    out.append(
        "The correction is a measurement-error correction (not prediction-powered inference): "
        "each task's corrected value is unbiased for known sensitivity and specificity, and "
        f"the tasks are averaged with the headline's weights ({res.weights_text()}). The "
        "intervals draw sensitivity and specificity from their posteriors together with a run "
        "bootstrap (benchmark scope) or a "
        + ("cluster" if res.clusters else "task")
        + " bootstrap (population scope)"
        + (
            ", so they include the grader's uncertainty."
            if not g.stated
            else "; stated values are taken as exact, so the intervals leave out the grader's own "
            "uncertainty."
        )
    )
    out.append(ASSUMPTION[0].upper() + ASSUMPTION[1:] + ".")
    outside = res.outside_tasks()
    if outside:
        out.append(
            f"{outside} of {len(res.per_task)} tasks have a corrected pass rate outside [0, 1] "
            "(listed by runs and grader passes below)."
        )
    return out


def grader_section(results: ReportResults) -> Section | None:
    """The grader-correction section, or None (no grader's error given).

    Parameters
    ----------
    results : ReportResults
        With ``grader``: the report's grader correction.

    Returns
    -------
    Section or None
        Id ``grader``: the corrected values beside the grader's (open), the grader's rates
        and the tasks whose corrected rate left [0, 1] (folded).

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import compute_results
    >>> res = compute_results(ph.load_example("abcd"), k=[1, 2], model=False, plan=False,
    ...                       n_boot=200, grader={"audit": (95, 5, 90, 10)})
    >>> s = grader_section(res)
    >>> [t.id for t in s.tables]
    ['grader_correction', 'grader_rates', 'grader_outside']
    >>> bool(s.tables[0].rows[0]["value"] == res.grader.table["value"].iloc[0])
    True
    """
    res = results.grader
    if res is None:
        return None
    ks = results.ks
    rows, methods = _value_rows(res, ks)
    level = f"{res.ci:.0%}" if res.ci is not None else ""
    cols = [
        Column("system", "System"),
        Column("metric", "Metric"),
        Column("k", "k", "int"),
        Column("observed", "Grader's labels (uncorrected)", "pct"),
        Column("value", "Corrected", "pct"),
    ]
    if methods:
        cols += scope_columns(level, "interval")
    note = methods_note(methods, none="No intervals (a report without ci=).")
    main = Table(
        id="grader_correction",
        caption="Mean, pass@k and pass^k corrected for the grader's errors, beside the "
        "grader's own values",
        columns=cols,
        rows=rows,
        note=note,
    )
    sent = _sentences(res, rows, results.settings.kmax, level)
    return Section(
        id="grader",
        title=GRADER_TITLE,
        sentences=sent,
        tables=[main, _rates_table(res), _outside_table(res)],
    )
