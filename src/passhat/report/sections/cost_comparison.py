"""Section "Cost comparison": each system's costs against the baseline's on the report's
tasks, when the runs carry a cost and the report holds two systems or more; "Duration
comparison" (the same id) with ``cost_of="duration"``: the same from the duration_s column.

Every number is the report's cost comparison (:func:`passhat.compare_cost` on the report's
tasks with its weights, k, level, resamples and seed: ``results.cost_comparison``): both
systems' cost per run, per success, per all-k-pass and pass^k per unit cost, the difference
(candidate − baseline) and the ratio (candidate / baseline) with their population-scope
intervals (the paired bootstrap over the matched tasks). Nothing is computed here.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from passhat.report.document import Column, Section, Table

if TYPE_CHECKING:
    from passhat.report.results import ReportResults

__all__ = ["COST_COMPARISON_TITLE", "DURATION_COMPARISON_TITLE", "cost_comparison_section"]

COST_COMPARISON_TITLE = "Cost comparison"
DURATION_COMPARISON_TITLE = "Duration comparison"

#: Each compared metric in words (k where it enters), per quantity (``cost_of``).
_WORDS = {
    "cost": {
        "cost_per_run": "cost per run",
        "cost_per_success": "cost per success",
        "cost_per_all_k_pass": "cost per all-{k}-pass",
        "pass_hat_k_per_cost": "pass^{k} per unit cost",
    },
    "duration": {
        "cost_per_run": "duration per run (s)",
        "cost_per_success": "duration per success (s)",
        "cost_per_all_k_pass": "duration per all-{k}-pass (s)",
        "pass_hat_k_per_cost": "pass^{k} per second",
    },
}
_CAPTION = {
    "cost": "Cost per run, per success, per all-k-pass and pass^k per unit cost, each system "
    "against the baseline on the tasks both ran",
    "duration": "Duration per run, per success and per all-k-pass (seconds) and pass^k per "
    "second, each system against the baseline on the tasks both ran",
}


def _amount(x: Any) -> str:
    """A number in a sentence: 4 significant digits, "—" when missing, "∞" when unbounded."""
    v = float(x) if x is not None else math.nan
    if math.isnan(v):
        return "—"
    return ("∞" if v > 0 else "−∞") if math.isinf(v) else f"{v:.4g}"


def _label(metric: str, k: Any, cost_of: str = "cost") -> str:
    return _WORDS[cost_of][metric].format(k="k" if k is None or k != k else int(k))


def _rows(table: Any, cost_of: str) -> list[dict[str, Any]]:
    """The comparison's rows as the table shows them (the metric in words; raw numbers)."""
    rows = []
    for r in table.to_dict(orient="records"):
        row = {str(key): value for key, value in r.items()}
        k = None if row["k"] is None or row["k"] != row["k"] else int(row["k"])
        row["k"] = k
        row["metric"] = _label(str(r["metric"]), k, cost_of)
        rows.append(row)
    return rows


def _sentences(cmp: Any, kmax: int, level: str) -> list[str]:
    """Per candidate at the largest k: the cost per all-k-pass of both and their ratio."""
    t = cmp.table
    at = t[(t["metric"] == "cost_per_all_k_pass") & (t["k"] == kmax)]
    out = []
    spend = "the time spent" if cmp.settings.cost_of == "duration" else "the spend"
    unit = " s" if cmp.settings.cost_of == "duration" else ""
    for r in at.to_dict(orient="records"):
        runs = "run" if kmax == 1 else f"{kmax} runs"
        out.append(
            f"{r['candidate']} against {r['baseline']}: {spend} on {runs} per task whose "
            f"{runs} all pass is {_amount(r['cand_value'])}{unit} against "
            f"{_amount(r['base_value'])}{unit}, a ratio of {_amount(r['ratio'])} ({level} interval "
            f"for tasks like these {_amount(r['ratio_lower'])}–{_amount(r['ratio_upper'])}) "
            f"on {r['tasks']} matched tasks."
        )
    out += [note[0].upper() + note[1:] + "." for note in cmp.all_notes()]
    return out


def cost_comparison_section(results: ReportResults) -> Section | None:
    """The cost-comparison section, the section left out with its reason, or None (no cost
    section, one system or no intervals).

    Parameters
    ----------
    results : ReportResults
        With ``cost_comparison``: the report's cost comparison (or why there is none).

    Returns
    -------
    Section or None
        Id ``cost_comparison``: one row per candidate, metric and k.

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import compute_results
    >>> res = compute_results(ph.load_example("agents"), k=[1, 2], model=False, plan=False,
    ...                       n_boot=200, by=False)
    >>> sec = cost_comparison_section(res)
    >>> sec.tables[0].rows[0]["metric"], bool(
    ...     sec.tables[0].rows[0]["ratio"] == res.cost_comparison.table["ratio"].iloc[0])
    ('cost per run', True)
    """
    cmp = results.cost_comparison
    if cmp is None:
        return None
    title = (
        DURATION_COMPARISON_TITLE if results.extras.cost_of == "duration" else COST_COMPARISON_TITLE
    )
    if isinstance(cmp, str):
        return Section(
            id="cost_comparison",
            title=title,
            status="skipped",
            note=f"Not shown: {cmp}.",
        )
    level = f"{cmp.settings.ci:.0%}"
    where = f" ({level} interval, population scope: tasks like these)"
    cols = [
        Column("candidate", "Candidate"),
        Column("metric", "Metric"),
        Column("base_value", f"Baseline ({cmp.settings.baseline})", "amount"),
        Column("cand_value", "Candidate", "amount"),
        Column("difference", f"Difference, candidate − baseline{where}", "amount_interval"),
        Column("ratio", f"Ratio, candidate / baseline{where}", "amount_interval"),
        Column("tasks", "Matched tasks", "int"),
    ]
    table = Table(
        id="cost_comparison",
        caption=_CAPTION[cmp.settings.cost_of],
        columns=cols,
        rows=_rows(cmp.table, cmp.settings.cost_of),
        note=f"Intervals: {cmp.method}. An end ±∞ (null in results.json): in that share of "
        "resamples a value was unbounded or undefined (no all-k-pass).",
    )
    return Section(
        id="cost_comparison",
        title=title,
        sentences=_sentences(cmp, results.settings.kmax, level),
        tables=[table],
    )
