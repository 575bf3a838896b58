"""The result of :func:`passhat.compare.categories.compare_by_category`: the paired difference
per category, Holm across the categories, and whether the difference differs between them.

Examples
--------
>>> import passhat as ph
>>> from passhat.compare.categories import compare_by_category
>>> res = compare_by_category(ph.load_example("agents"), k=1, n_boot=200, n_perm=200)
>>> res.to_frame()[["category", "metric", "scope"]].iloc[0].tolist()[1:]
['mean', 'benchmark']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import pandas as pd

from passhat._format import num
from passhat._format import p_text as _p_text
from passhat._repr import Display, View
from passhat._result import Result, records
from passhat.estimators import METRIC_LABELS

__all__ = ["CategoryComparison"]


@dataclass(frozen=True, repr=False, eq=False)
class CategoryComparison(Result):
    """Paired differences per category of tasks, and the test of whether they differ.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (baseline, candidate, category, k, metric, scope): the columns of
        :attr:`passhat.compare.Comparison.table` on the category's matched tasks, and
        ``p_holm``: the p-values adjusted by Holm across the categories (per candidate, k,
        metric and scope).
    tests : pandas.DataFrame
        Per (baseline, candidate, k, metric): categories, tasks, statistic (between-category
        sum of squares of the per-task differences), p_value (permutation F test), method.
    settings : dict
        The options used (as :class:`~passhat.compare.Comparison`'s, and n_perm).
    notes : list of str
    source : dict
    """

    schema: ClassVar[str] = "comparison_by"

    table: pd.DataFrame
    tests: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    source: dict[str, dict[str, str]] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """The per-category table (a copy)."""
        return self.table.copy()

    def _document(self) -> dict[str, Any]:
        return {
            "inputs": dict(self.source),
            "by": "category",
            "settings": dict(self.settings),
            "by_category": records(self.table),
            "category_tests": records(self.tests),
            "notes": list(self.notes),
        }

    def view(self) -> Display:
        """Per candidate the per-category differences (population scope, with Holm), then
        the tests across categories."""
        return Display((_table_view(self), _tests_view(self)))


def _table_view(res: CategoryComparison) -> View:
    t = res.table
    kmin = t["k"].min()
    no_k = t["metric"].isin(["mean", "mean_score"])
    pop = t[(t["scope"] == "population") & (~no_k | (t["k"] == kmin))]
    rows = [
        [
            str(r["candidate"]),
            str(r["category"]),
            "—" if r["metric"] in ("mean", "mean_score") else str(r["k"]),
            METRIC_LABELS[str(r["metric"])],
            str(int(r["tasks"])),
            num(r["base_value"]),
            num(r["cand_value"]),
            f"{r['difference']:+.3f}",
            f"[{r['lower']:+.3f}, {r['upper']:+.3f}]",
            _p_text(r["p_value"]),
            _p_text(r["p_holm"]),
        ]
        for _, r in pop.iterrows()
    ]
    heads = ["candidate", "category", "k", "metric", "tasks", "baseline", "candidate value"]
    heads += ["difference", "population", "p", "Holm"]
    base = str(t["baseline"].iloc[0]) if len(t) else ""
    return View(
        f"paired difference per category, candidate − {base} "
        f"({res.settings.get('ci', 0.95):g} intervals, population scope)",
        pd.DataFrame(rows, columns=heads),
        lines=(
            "Holm: the p-values adjusted across the categories of each candidate, k and metric; "
            "the benchmark scope's rows are in --json",
        ),
        left=frozenset({"candidate", "category", "metric"}),
    )


def _tests_view(res: CategoryComparison) -> View:
    t = res.tests
    rows = [
        [
            str(r["candidate"]),
            "—" if r["metric"] in ("mean", "mean_score") else str(r["k"]),
            METRIC_LABELS[str(r["metric"])],
            str(int(r["categories"])),
            str(int(r["tasks"])),
            f"{r['statistic']:.4g}",
            _p_text(r["p_value"]),
        ]
        for _, r in t.iterrows()
    ]
    heads = ["candidate", "k", "metric", "categories", "tasks", "between-category SS", "p"]
    how = str(t["method"].iloc[0]) if len(t) else ""
    return View(
        "does the difference differ between categories?",
        pd.DataFrame(rows, columns=heads),
        lines=(f"test: {how}",),
        notes=tuple(res.notes),
        left=frozenset({"candidate", "metric"}),
    )
