"""Section "Cost": cost per run, per success, per all-k-pass and pass^k per unit cost, when the
runs carry a cost; section "Duration" (the same id, ``cost``) with ``cost_of="duration"``: the
same figures from the runs' duration_s column, in seconds.

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

__all__ = ["COST_TITLE", "DURATION_TITLE", "cost_section"]

COST_TITLE = "Cost"
DURATION_TITLE = "Duration"

#: The columns' headers, the caption and the closing definitions, per quantity (``cost_of``).
_HEADERS = {
    "cost": ("Runs paid", "Total cost", "Cost per run", "Cost per success",
             "Cost per all-k-pass", "pass^k per unit cost"),
    "duration": ("Runs timed", "Total duration (s)", "Duration per run (s)",
                 "Duration per success (s)", "Duration per all-k-pass (s)", "pass^k per second"),
}  # fmt: skip
_CAPTION = {
    "cost": "Cost per run, per success, per all-k-pass and pass^k per unit cost",
    "duration": "Duration per run, per success and per all-k-pass (seconds) and pass^k per second",
}
_DEFINITIONS = {
    "cost": "Costs are in the unit of the cost column. Cost per run averages each task's mean "
    "cost per run with the headline's task weights, every run counted (unscored runs were "
    "paid for too); cost per success = cost per run / mean success; cost per all-k-pass = "
    "k × cost per run / pass^k; pass^k per unit cost is its inverse. They are ratios of "
    "the benchmark averages.",
    "duration": "Durations are in seconds (the duration_s column). Duration per run averages "
    "each task's mean seconds per run with the headline's task weights, every run counted "
    "(unscored runs took time too); duration per success = duration per run / mean success; "
    "duration per all-k-pass = k × duration per run / pass^k; pass^k per second is its "
    "inverse. They are ratios of the benchmark averages.",
}


def _title(cost_of: str) -> str:
    return DURATION_TITLE if cost_of == "duration" else COST_TITLE


def _amount(x: Any) -> str:
    """A cost in a sentence: 4 significant digits, "—" when missing, "∞" when unbounded."""
    v = float(x)
    if math.isnan(v):
        return "—"
    return ("∞" if v > 0 else "−∞") if math.isinf(v) else f"{v:.4g}"


def _sentences(cost: CostEstimate, kmax: int, level: str) -> list[str]:
    """At the largest k, per system: what a run, a success and an all-k-pass cost (or take)."""
    t, of = cost.table, cost.cost_of
    out = []
    for r in t[t["k"] == kmax].to_dict(orient="records"):
        iv = (
            f" ({level} interval for tasks like these {_amount(r['cost_per_all_k_pass_lower'])}"
            f"–{_amount(r['cost_per_all_k_pass_upper'])})"
            if "cost_per_all_k_pass_lower" in r
            else ""
        )
        runs = "run" if kmax == 1 else f"{kmax} runs"
        if of == "duration":
            out.append(
                f"{r['system']}: a run takes {_amount(r['cost_per_run'])} s on average "
                f"({r['runs']} runs, {_amount(r['total_cost'])} s in all); a success takes "
                f"{_amount(r['cost_per_success'])} s, and the time spent on {runs} per task "
                f"whose {runs} all pass is {_amount(r['cost_per_all_k_pass'])} s{iv}; "
                f"pass^{kmax} per second is {_amount(r['pass_hat_k_per_cost'])}."
            )
            continue
        out.append(
            f"{r['system']}: a run costs {_amount(r['cost_per_run'])} on average "
            f"({r['runs']} runs, {_amount(r['total_cost'])} in all); a success costs "
            f"{_amount(r['cost_per_success'])}, and the spend on {runs} per task whose "
            f"{runs} all pass is {_amount(r['cost_per_all_k_pass'])}{iv}; pass^{kmax} per "
            f"unit cost is {_amount(r['pass_hat_k_per_cost'])}."
        )
    out.append(_DEFINITIONS[of])
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
        return skipped_section("cost", _title(results.extras.cost_of), results)
    paid, total, per_run, per_success, per_all, per_unit = _HEADERS[cost.cost_of]
    level = f"{cost.ci:.0%}" if cost.ci is not None else ""
    has_iv = cost.ci is not None
    shown_iv: Fmt = "amount_interval" if has_iv else "amount"
    where = f" ({level} interval, population)" if has_iv else ""
    cols = [
        Column("system", "System"),
        Column("k", "k", "int"),
        Column("tasks", "Tasks", "int"),
        Column("runs", paid, "int"),
        Column("total_cost", total, "amount"),
        Column("cost_per_run", per_run, "amount"),
        Column("mean", "Mean success", "pct"),
        Column("cost_per_success", f"{per_success}{where}", shown_iv),
        Column("pass_hat_k", "pass^k", "pct"),
        Column("cost_per_all_k_pass", f"{per_all}{where}", shown_iv),
        Column("pass_hat_k_per_cost", f"{per_unit}{where}", shown_iv),
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
        title=_title(cost.cost_of),
        sentences=sent,
        tables=[
            Table(
                id="cost",
                caption=_CAPTION[cost.cost_of],
                columns=cols,
                rows=rows,
                note=note,
            )
        ],
    )
