"""The per-category estimate (a result): pass@k / pass^k per category, and whether they differ.

Examples
--------
>>> import passhat as ph
>>> est = ph.estimate(ph.load_example("agents"), k=[1, 2], by="category")
>>> est.by_category.to_frame().columns.tolist()[:6]
['system', 'category', 'k', 'metric', 'value', 'tasks']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import pandas as pd

from passhat._format import num
from passhat._repr import Display, View
from passhat._result import Result, records
from passhat.estimators import METRIC_LABELS

__all__ = ["CategoryEstimate"]


@dataclass(frozen=True, repr=False, eq=False)
class CategoryEstimate(Result):
    """pass@k / pass^k per (system, category), with intervals when asked, and the permutation
    test of whether the categories differ (:mod:`passhat.groups.differ`).

    Attributes
    ----------
    table : pandas.DataFrame
        system, category, k, metric, value, tasks (and scope, lower, upper, method with ``ci``).
    tests : pandas.DataFrame
        Per (system, k, metric): categories, tasks, statistic (between-category sum of squares
        of the per-task values), p_value, holm (Holm-adjusted over the table's rows), method.
    by : str
        The task attribute grouped by ("category").
    settings : dict
        n_perm, seed.
    source : dict
        Where the data came from.
    """

    schema: ClassVar[str] = "estimate_by"

    table: pd.DataFrame
    tests: pd.DataFrame
    by: str = "category"
    settings: dict[str, Any] = field(default_factory=dict)
    source: dict[str, str] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """The per-category table, tidy (a copy)."""
        return self.table.copy()

    def _document(self) -> dict[str, Any]:
        return {
            "input": dict(self.source),
            "by": self.by,
            "settings": dict(self.settings),
            "by_category": records(self.table),
            "category_tests": records(self.tests),
        }

    def view(self) -> Display:
        """The per-category values (with each scope's interval), then the tests."""
        return Display((_values_view(self), _tests_view(self)))


def _values_view(res: CategoryEstimate) -> View:
    """One row per (system, category, k, metric); the mean once per (system, category)."""
    t = res.table
    has_iv = "scope" in t.columns
    first = t[t["scope"] == "benchmark"] if has_iv else t
    kmin = first["k"].min()
    flat = first["metric"].isin(["mean", "mean_score"])
    keep = ~flat | (first["k"] == kmin)
    first = first[keep]
    frame = pd.DataFrame(
        {
            "system": first["system"].astype(str).to_numpy(),
            res.by: first["category"].astype(str).to_numpy(),
            "tasks": first["tasks"].astype(str).to_numpy(),
            "k": [
                "—" if m in ("mean", "mean_score") else str(k)
                for m, k in zip(first["metric"], first["k"], strict=True)
            ],
            "metric": [METRIC_LABELS[str(m)] for m in first["metric"]],
            "value": [num(v) for v in first["value"]],
        }
    )
    notes: list[str] = []
    if has_iv:
        idx = t.set_index(["system", "category", "k", "metric", "scope"])
        for scope in ("benchmark", "population"):
            frame[scope] = [
                f"[{num(idx.loc[(s, c, k, m, scope), 'lower'])}, "
                f"{num(idx.loc[(s, c, k, m, scope), 'upper'])}]"
                for s, c, k, m in zip(first["system"], first["category"], first["k"],
                                      first["metric"], strict=True)
            ]  # fmt: skip
        methods = t.drop_duplicates(["scope", "method"])[["scope", "method"]]
        notes += [f"{s} method: {m}" for s, m in methods.itertuples(index=False)]
    return View(
        f"passhat estimate by {res.by}" + (" (two scopes)" if has_iv else ""),
        frame,
        notes=tuple(notes),
        section_by="system",
    )


def _tests_view(res: CategoryEstimate) -> View:
    """Per (system, k, metric): do the categories differ?"""
    t = res.tests
    frame = pd.DataFrame(
        {
            "system": t["system"].astype(str).to_numpy(),
            "k": [
                "—" if m in ("mean", "mean_score") else str(k)
                for m, k in zip(t["metric"], t["k"], strict=True)
            ],
            "metric": [METRIC_LABELS[str(m)] for m in t["metric"]],
            "categories": t["categories"].astype(str).to_numpy(),
            "p": [num(p) for p in t["p_value"]],
            "Holm p": [num(p) for p in t["holm"]],
        }
    )
    methods = tuple(dict.fromkeys(t["method"].astype(str)))
    return View(
        f"Do the {res.by} values differ? (permutation F test of the per-task values)",
        frame,
        notes=(
            *methods,
            "H0: a task's value does not depend on its category (labels exchangeable over "
            "tasks); Holm adjusts over the rows of this table",
        ),
        section_by="system",
    )
