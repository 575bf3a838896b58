"""Section "By category": mean, pass^k and pass@k per category of tasks with intervals, and
the permutation test of whether the categories differ, when the tasks carry a category.

Every number is the report's estimate's per-category result (``by="category"``:
:class:`~passhat.groups.result.CategoryEstimate`): each category's values average the same
per-task estimates as the headline over that category's tasks, its intervals come from the
same rule on those tasks alone, and the test is its permutation F test. Nothing is computed
here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from passhat._format import p_text, pct
from passhat._labels import METRIC_LABELS
from passhat.report.document import Column, Section, Table
from passhat.report.sections._rows import methods_note, scope_columns, shown
from passhat.report.sections.scores import skipped_section

if TYPE_CHECKING:
    import pandas as pd

    from passhat.groups.result import CategoryEstimate
    from passhat.report.results import ReportResults

__all__ = ["CATEGORY_TITLE", "category_section"]

CATEGORY_TITLE = "By category"

#: The metrics of the open table (value with its population interval), at the largest k.
_OPEN = (("mean", "mean"), ("pass_hat_k", "pass^{k}"), ("pass_at_k", "pass@{k}"))


def _cells(t: pd.DataFrame) -> dict[tuple[str, str, int, str, str], tuple[float, Any, Any]]:
    """(system, category, k, metric, scope or "") → (value, lower, upper)."""
    has_iv = "scope" in t.columns
    out = {}
    for r in t.to_dict(orient="records"):
        key = (
            str(r["system"]),
            str(r["category"]),
            int(r["k"]),
            str(r["metric"]),
            str(r["scope"]) if has_iv else "",
        )
        lo, hi = (r["lower"], r["upper"]) if has_iv else (None, None)
        out[key] = (float(r["value"]), lo, hi)
    return out


def _open_table(res: CategoryEstimate, kmax: int, level: str, has_iv: bool) -> Table:
    """One row per (system, category) at the largest k: tasks, then each metric with its
    population interval."""
    cells = _cells(res.table)
    scope = "population" if has_iv else ""
    rows = []
    first = res.table.drop_duplicates(["system", "category"])
    for r in first.to_dict(orient="records"):
        row: dict[str, Any] = {
            "system": str(r["system"]),
            "category": str(r["category"]),
            "tasks": int(r["tasks"]),
        }
        for metric, _ in _OPEN:
            got = cells.get((row["system"], row["category"], kmax, metric, scope))
            if got is not None:
                row[metric], row[f"{metric}_lower"], row[f"{metric}_upper"] = got
        rows.append(row)
    shown_metrics = _OPEN if kmax > 1 else _OPEN[:1]
    cols = [
        Column("system", "System"),
        Column("category", "Category"),
        Column("tasks", "Tasks", "int"),
    ]
    cols += [
        Column(
            m,
            label.format(k=kmax) + (f" ({level} interval, population)" if has_iv else ""),
            "pct_interval",
        )
        for m, label in shown_metrics
    ]
    return Table(
        id="by_category",
        caption=f"Mean success, pass^{kmax} and pass@{kmax} per category (unbiased per-task "
        "estimates, averaged over the category's tasks)",
        columns=cols,
        rows=rows,
    )


def _all_table(res: CategoryEstimate, ks: list[int], level: str, has_iv: bool) -> Table:
    """Every (system, category, metric, k) the report shows, with both scopes' intervals."""
    t = res.table
    first = t[t["scope"] == "benchmark"] if has_iv else t
    cells = _cells(t)
    rows = []
    for r in first.to_dict(orient="records"):
        metric, k = str(r["metric"]), int(r["k"])
        flat = metric in ("mean", "mean_score")
        if not shown("mean" if flat else "pass_hat_k", k, ks):
            continue
        row: dict[str, Any] = {
            "system": str(r["system"]),
            "category": str(r["category"]),
            "metric": METRIC_LABELS[metric],
            "k": None if flat else k,
            "tasks": int(r["tasks"]),
            "value": float(r["value"]),
        }
        for scope in ("benchmark", "population") if has_iv else ():
            _, row[f"{scope}_lower"], row[f"{scope}_upper"] = cells[
                (row["system"], row["category"], k, metric, scope)
            ]
        rows.append(row)
    cols = [
        Column("system", "System"),
        Column("category", "Category"),
        Column("metric", "Metric"),
        Column("k", "k", "int"),
        Column("tasks", "Tasks", "int"),
        Column("value", "Estimate", "num"),
    ]
    if has_iv:
        cols += scope_columns(level, "interval_fixed")
    methods: dict[str, list[str]] = {}
    for scope, method in sorted(set(zip(t["scope"], t["method"], strict=True))) if has_iv else []:
        methods.setdefault(str(scope), []).append(str(method))
    return Table(
        id="by_category_all",
        caption="Every metric per category, with both scopes' intervals",
        columns=cols,
        rows=rows,
        note=methods_note(methods, none=""),
    )


def _tests_table(res: CategoryEstimate) -> Table:
    """Per (system, metric, k): do the categories differ?"""
    rows = [
        {
            "system": str(r["system"]),
            "metric": METRIC_LABELS[str(r["metric"])],
            "k": None if r["metric"] in ("mean", "mean_score") else int(r["k"]),
            "categories": int(r["categories"]),
            "tasks": int(r["tasks"]),
            "p_value": float(r["p_value"]),
            "holm": float(r["holm"]),
        }
        for r in res.tests.to_dict(orient="records")
    ]
    methods = "; ".join(dict.fromkeys(str(m) for m in res.tests["method"]))
    return Table(
        id="by_category_tests",
        caption="Do the categories differ? (permutation F test of the per-task values)",
        columns=[
            Column("system", "System"),
            Column("metric", "Metric"),
            Column("k", "k", "int"),
            Column("categories", "Categories", "int"),
            Column("tasks", "Tasks", "int"),
            Column("p_value", "p", "p"),
            Column("holm", "Holm-adjusted p", "p"),
        ],
        rows=rows,
        note=f"{methods}. H0: a task's value does not depend on its category (labels "
        "exchangeable over tasks); Holm adjusts over the rows of this table.",
    )


def _sentences(res: CategoryEstimate, rows: list[dict[str, Any]], kmax: int) -> list[str]:
    """Per system: the lowest and highest category at the largest k, and the test."""
    metric = "pass_hat_k" if kmax > 1 else "mean"
    label = f"pass^{kmax}" if kmax > 1 else "mean success"
    tests = {
        (str(r["system"]), str(r["metric"]), int(r["k"])): r
        for r in res.tests.to_dict(orient="records")
    }
    out = []
    for system in dict.fromkeys(r["system"] for r in rows):
        mine = [r for r in rows if r["system"] == system and r.get(metric) is not None]
        if len(mine) < 2:
            continue
        low = min(mine, key=lambda r: r[metric])
        high = max(mine, key=lambda r: r[metric])
        test = tests.get((system, metric, kmax))
        said = (
            f"; the permutation test of whether they differ gives p = {p_text(test['p_value'])}"
            f" (Holm-adjusted over the test table: {p_text(test['holm'])})"
            if test is not None
            else ""
        )
        out.append(
            f"{system}: {label} ranges from {pct(low[metric])} ({low['category']}) to "
            f"{pct(high[metric])} ({high['category']}) over {len(mine)} categories{said}."
        )
    return out


def category_section(results: ReportResults) -> Section | None:
    """The per-category section, the section left out with its reason, or None (no category).

    Parameters
    ----------
    results : ReportResults
        With ``extras.by_category``: the estimate's per-category result.

    Returns
    -------
    Section or None
        Id ``by_category``: the open table at the largest k, every metric and scope (folded)
        and the tests.

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import compute_results
    >>> res = compute_results(ph.load_example("abcd"), model=False, plan=False)
    >>> category_section(res) is None
    True
    """
    res = results.estimate.by_category
    if not results.extras.by_category or res is None:
        return skipped_section("by_category", CATEGORY_TITLE, results)
    ci = results.settings.ci
    level = f"{ci:.0%}" if ci else ""
    has_iv = "scope" in res.table.columns
    kmax = results.settings.kmax
    open_table = _open_table(res, kmax, level, has_iv)
    sent = _sentences(res, open_table.rows, kmax)
    sent.append(
        "Each category's values average the headline's per-task estimates over that "
        "category's tasks; its intervals follow the headline's rule on those tasks alone (the "
        "methods are named under the table of every metric)."
    )
    if results.clusters is not None and has_iv:
        sent.append(
            "These intervals and tests treat the tasks as independent: only the headline's "
            "pass/fail metrics resample the clusters."
        )
    return Section(
        id="by_category",
        title=CATEGORY_TITLE,
        sentences=sent,
        tables=[open_table, _tests_table(res), _all_table(res, results.ks, level, has_iv)],
    )
