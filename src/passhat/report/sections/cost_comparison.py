"""Section "Cost comparison": each system's costs against the baseline's on the report's
tasks, when the runs carry a cost and the report holds two systems or more.

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

__all__ = ["COST_COMPARISON_TITLE", "cost_comparison_section"]

COST_COMPARISON_TITLE = "Cost comparison"

#: Each compared metric in words (k where it enters).
_WORDS = {
    "cost_per_run": "cost per run",
    "cost_per_success": "cost per success",
    "cost_per_all_k_pass": "cost per all-{k}-pass",
    "pass_hat_k_per_cost": "pass^{k} per unit cost",
}


def _amount(x: Any) -> str:
    """A number in a sentence: 4 significant digits, "—" when missing, "∞" when unbounded."""
    v = float(x) if x is not None else math.nan
    if math.isnan(v):
        return "—"
    return ("∞" if v > 0 else "−∞") if math.isinf(v) else f"{v:.4g}"


def _label(metric: str, k: Any) -> str:
    return _WORDS[metric].format(k="k" if k is None or k != k else int(k))


def _rows(table: Any) -> list[dict[str, Any]]:
    """The comparison's rows as the table shows them (the metric in words; raw numbers)."""
    rows = []
    for r in table.to_dict(orient="records"):
        row = {str(key): value for key, value in r.items()}
        k = None if row["k"] is None or row["k"] != row["k"] else int(row["k"])
        row["k"] = k
        row["metric"] = _label(str(r["metric"]), k)
        rows.append(row)
    return rows


def _sentences(cmp: Any, kmax: int, level: str) -> list[str]:
    """Per candidate at the largest k: the cost per all-k-pass of both and their ratio."""
    t = cmp.table
    at = t[(t["metric"] == "cost_per_all_k_pass") & (t["k"] == kmax)]
    out = []
    for r in at.to_dict(orient="records"):
        runs = "run" if kmax == 1 else f"{kmax} runs"
        out.append(
            f"{r['candidate']} against {r['baseline']}: the spend on {runs} per task whose "
            f"{runs} all pass is {_amount(r['cand_value'])} against "
            f"{_amount(r['base_value'])}, a ratio of {_amount(r['ratio'])} ({level} interval "
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
    if isinstance(cmp, str):
        return Section(
            id="cost_comparison",
            title=COST_COMPARISON_TITLE,
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
        caption="Cost per run, per success, per all-k-pass and pass^k per unit cost, each "
        "system against the baseline on the tasks both ran",
        columns=cols,
        rows=_rows(cmp.table),
        note=f"Intervals: {cmp.method}. An end ±∞ (null in results.json): in that share of "
        "resamples a value was unbounded or undefined (no all-k-pass).",
    )
    return Section(
        id="cost_comparison",
        title=COST_COMPARISON_TITLE,
        sentences=_sentences(cmp, results.settings.kmax, level),
        tables=[table],
    )
