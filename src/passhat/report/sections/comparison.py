"""The headline's paired comparison: each system against the baseline on matched tasks."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from passhat._format import p_clause
from passhat._labels import METRIC_LABELS
from passhat.report.document import Column, Table
from passhat.report.sections._rows import outside

if TYPE_CHECKING:
    from passhat.report.results import ReportResults

__all__ = ["comparison_sentence", "comparison_table"]


def _rows(table: Any) -> list[dict[str, Any]]:
    """Population-scope rows; the mean once per pair, pass@k and pass^k only for k > 1."""
    t = table[table["scope"] == "population"] if "scope" in table.columns else table
    rows = []
    for r in t.to_dict(orient="records"):
        rows.append(
            {
                "baseline": r.get("baseline"),
                "candidate": r.get("candidate"),
                "metric": METRIC_LABELS.get(str(r.get("metric")), str(r.get("metric"))),
                "k": int(r["k"]) if r.get("metric") != "mean" else None,
                "difference": r.get("difference"),
                "diff_lower": r.get("lower"),
                "diff_upper": r.get("upper"),
                "p_value": r.get("p_value"),
                "tasks": r.get("tasks"),
                "method": r.get("method"),
            }
        )
    seen_mean: set[tuple[Any, Any]] = set()
    kept = []
    for r in rows:  # the mean does not depend on k: keep one row per pair
        if r["metric"] == "mean":
            key = (r["baseline"], r["candidate"])
            if key in seen_mean:
                continue
            seen_mean.add(key)
        elif r["k"] == 1 and r["metric"] in ("pass@k", "pass^k"):
            continue  # equal to the mean at k = 1
        kept.append(r)
    return kept


def comparison_table(results: ReportResults) -> tuple[Table, list[str]]:
    """Paired differences (candidate − baseline) with intervals and p-values, population scope.

    Parameters
    ----------
    results : ReportResults
        The report's results; their ``comparison`` (two systems or more, with intervals) is
        shown, the sentences speak of pass^k at the largest k.

    Returns
    -------
    (Table, list of str)
        The ``headline_compare`` table and one sentence per candidate.

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import compute_results
    >>> res = compute_results(ph.load_example("agents"), k=[1, 5], baseline="baseline",
    ...                       n_boot=200, model=False, plan=False)
    >>> table, sentences = comparison_table(res)
    >>> sorted({(r["baseline"], r["candidate"]) for r in table.rows})
    [('baseline', 'guided')]
    """
    cmp, ci, ks = results.comparison, results.settings.ci, results.ks
    if cmp is None or ci is None:
        raise ValueError("the report has no paired comparison (one system, or no intervals)")
    rows = _rows(cmp.table)
    table = Table(
        id="headline_compare",
        caption="Paired comparison on matched tasks (candidate − baseline): the expected "
        "difference over tasks like these (population scope)",
        columns=[
            Column("baseline", "Baseline"),
            Column("candidate", "Candidate"),
            Column("metric", "Metric"),
            Column("k", "k", "int"),
            Column("difference", "Difference", "dpts"),
            Column("diff", f"{ci:.0%} interval", "interval"),
            Column("p_value", "p-value", "p"),
            Column("tasks", "Tasks", "int"),
        ],
        rows=rows,
        note=(
            f"{rows[0]['method']}; the interval excludes 0 exactly when p ≤ {1 - ci:.2g}"
            + _outside_note(rows)
            if rows
            else ""
        ),
    )
    kmax = ks[-1]
    # at k = 1 the table keeps only the mean row (pass^1 is the mean): read that one
    sent = [
        comparison_sentence(r, k=kmax, level=ci)
        for r in rows
        if (r["metric"] == "pass^k" and r["k"] == kmax) or (kmax == 1 and r["metric"] == "mean")
    ]
    return table, sent


def _outside(r: dict[str, Any]) -> bool:
    """Whether the row's difference lies outside its own interval."""
    return outside(r.get("difference"), r.get("diff_lower"), r.get("diff_upper"))


#: Why an observed difference can lie outside its interval (the comparison's sentence and note).
_OUTSIDE_WHY = (
    "the difference is the one observed on these tasks, while the interval is for tasks like "
    "these and comes from the method named under the table (a posterior pools the tasks and "
    "pulls each toward the others; with few tasks the two can disagree)"
)


def _outside_note(rows: list[dict[str, Any]]) -> str:
    out = [
        f"{r['candidate']} − {r['baseline']} {r['metric']}"
        + (f" (k = {r['k']})" if r.get("k") is not None else "")
        for r in rows
        if _outside(r)
    ]
    return (
        f". The difference lies outside its interval for {', '.join(out)}: {_OUTSIDE_WHY}"
        if out
        else ""
    )


def _float(x: Any) -> float:
    """A float, or NaN when missing or not a number."""
    try:
        return float(x) if x is not None else math.nan
    except (TypeError, ValueError):
        return math.nan


def comparison_sentence(r: dict[str, Any], *, k: int, level: float) -> str:
    """One sentence reading a paired-comparison row of pass^k (candidate − baseline).

    The verdict follows the interval: when it excludes zero the sentence
    names the system with the higher pass^k; otherwise it says the data do
    not settle which is better. A difference of exactly zero is called no
    difference on these tasks.

    Examples
    --------
    >>> row = {"candidate": "b", "baseline": "a", "difference": 0.05, "diff_lower": 0.01,
    ...        "diff_upper": 0.09, "p_value": 0.02}
    >>> print(comparison_sentence(row, k=4, level=0.95))
    b − a: pass^4 differs by +5.0 points (95% interval +1.0 to +9.0, p = 0.0200); the interval \
excludes zero: b has the higher pass^4.
    >>> row = {"candidate": "b", "baseline": "a", "difference": 1.0, "diff_lower": -0.39,
    ...        "diff_upper": 0.89, "p_value": 0.26}
    >>> "lies outside the interval" in comparison_sentence(row, k=5, level=0.95)
    True
    """
    cand, base = r["candidate"], r["baseline"]
    diff = float(r["difference"])
    lo, hi = _float(r.get("diff_lower")), _float(r.get("diff_upper"))
    p = _float(r.get("p_value"))
    p_txt = f", {p_clause(p)}" if math.isfinite(p) else ""
    if diff == 0:
        head = f"{cand} − {base}: pass^{k} is the same on these tasks (0.0 points"
    else:
        head = f"{cand} − {base}: pass^{k} differs by {diff * 100:+.1f} points ("
    if not (math.isfinite(lo) and math.isfinite(hi)):
        sep = "; " if diff == 0 else ""
        return f"{head}{sep}no interval{p_txt}); the data do not settle which is better."
    sep = ", " if diff == 0 else ""
    head += f"{sep}{level:.0%} interval {lo * 100:+.1f} to {hi * 100:+.1f}{p_txt})"
    if lo > 0:
        verdict = f"the interval excludes zero: {cand} has the higher pass^{k}"
    elif hi < 0:
        verdict = f"the interval excludes zero: {base} has the higher pass^{k}"
    else:
        verdict = "the interval includes zero, so the data do not settle which is better"
    if not lo <= diff <= hi:
        verdict += f". The observed difference lies outside the interval: {_OUTSIDE_WHY}"
    return f"{head}; {verdict}."
