"""Section "Cost": cost per run, per success, per all-k-pass and pass^k per unit cost, when the
runs carry a cost.

Every number is the report's estimate's cost result (:attr:`passhat.Estimate.cost`,
:class:`~passhat.cost_result.CostEstimate`), with its population-scope intervals when the
report has intervals. Nothing is computed here.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from passhat.report.document import Column, Fmt, Section, Table
from passhat.report.sections.scores import skipped_section

if TYPE_CHECKING:
    from passhat.cost_result import CostEstimate
    from passhat.report.results import ReportResults

__all__ = ["COST_TITLE", "cost_section"]

COST_TITLE = "Cost"


def _amount(x: Any) -> str:
    """A cost in a sentence: 4 significant digits, "—" when missing, "∞" when unbounded."""
    v = float(x)
    if math.isnan(v):
        return "—"
    return ("∞" if v > 0 else "−∞") if math.isinf(v) else f"{v:.4g}"


def _sentences(cost: CostEstimate, kmax: int, level: str) -> list[str]:
    """At the largest k, per system: what a run, a success and an all-k-pass cost."""
    t = cost.table
    out = []
    for r in t[t["k"] == kmax].to_dict(orient="records"):
        iv = (
            f" ({level} interval for tasks like these {_amount(r['cost_per_all_k_pass_lower'])}"
            f"–{_amount(r['cost_per_all_k_pass_upper'])})"
            if "cost_per_all_k_pass_lower" in r
            else ""
        )
        runs = "run" if kmax == 1 else f"{kmax} runs"
        out.append(
            f"{r['system']}: a run costs {_amount(r['cost_per_run'])} on average "
            f"({r['runs']} runs, {_amount(r['total_cost'])} in all); a success costs "
            f"{_amount(r['cost_per_success'])}, and the spend on {runs} per task whose "
            f"{runs} all pass is {_amount(r['cost_per_all_k_pass'])}{iv}; pass^{kmax} per "
            f"unit cost is {_amount(r['pass_hat_k_per_cost'])}."
        )
    out.append(
        "Costs are in the unit of the cost column. Cost per run averages each task's mean "
        "cost per run with the headline's task weights, every run counted (unscored runs were "
        "paid for too); cost per success = cost per run / mean success; cost per all-k-pass = "
        "k × cost per run / pass^k; pass^k per unit cost is its inverse. They are ratios of "
        "the benchmark averages."
    )
    return out


def cost_section(results: ReportResults) -> Section | None:
    """The cost section, the section left out with its reason, or None (no cost column).

    Parameters
    ----------
    results : ReportResults
        With ``extras.cost``: the estimate's cost result.

    Returns
    -------
    Section or None
        Id ``cost``: one row per system and k.

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import compute_results
    >>> res = compute_results(ph.load_example("agents"), k=[1, 2], model=False, plan=False,
    ...                       n_boot=200, by=False)
    >>> row = cost_section(res).tables[0].rows[0]
    >>> bool(row["cost_per_success"] == res.cost.table["cost_per_success"].iloc[0])
    True
    """
    cost = results.cost
    if not results.extras.cost or cost is None:
        return skipped_section("cost", COST_TITLE, results)
    level = f"{cost.ci:.0%}" if cost.ci is not None else ""
    has_iv = cost.ci is not None
    shown_iv: Fmt = "amount_interval" if has_iv else "amount"
    where = f" ({level} interval, population)" if has_iv else ""
    cols = [
        Column("system", "System"),
        Column("k", "k", "int"),
        Column("tasks", "Tasks", "int"),
        Column("runs", "Runs paid", "int"),
        Column("total_cost", "Total cost", "amount"),
        Column("cost_per_run", "Cost per run", "amount"),
        Column("mean", "Mean success", "pct"),
        Column("cost_per_success", f"Cost per success{where}", shown_iv),
        Column("pass_hat_k", "pass^k", "pct"),
        Column("cost_per_all_k_pass", f"Cost per all-k-pass{where}", shown_iv),
        Column("pass_hat_k_per_cost", f"pass^k per unit cost{where}", shown_iv),
    ]
    rows = [
        {str(key): value for key, value in r.items()} for r in cost.table.to_dict(orient="records")
    ]
    note = (
        f"Intervals: {cost.method}. An upper end ∞ (null in results.json): in that share of "
        "resamples no drawn task passed all k runs."
        if has_iv
        else "No intervals (a report without ci=)."
    )
    sent = _sentences(cost, results.settings.kmax, level)
    if results.clusters is not None and has_iv:
        sent.append(
            "These intervals resample tasks, not clusters: only the headline's pass/fail "
            "metrics resample the clusters."
        )
    return Section(
        id="cost",
        title=COST_TITLE,
        sentences=sent,
        tables=[
            Table(
                id="cost",
                caption="Cost per run, per success, per all-k-pass and pass^k per unit cost",
                columns=cols,
                rows=rows,
                note=note,
            )
        ],
    )
