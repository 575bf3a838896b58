"""The leaderboard per category of tasks (a result), and whether the systems' differences
depend on the category: :attr:`passhat.Ranking.by_category` (``rank(..., by="category")``).

Examples
--------
>>> import passhat as ph
>>> r = ph.rank(ph.load_example("leaderboard"), k=[1, 2], metrics=["pass_hat_k"], n_boot=200,
...             by="category")
>>> r.by_category.to_frame()["category"].unique().tolist()
['support', 'search', 'refund', 'booking']
>>> r.by_category.tests[["metric", "k", "categories"]].values.tolist()
[['pass_hat_k', 1, 4], ['pass_hat_k', 2, 4]]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import pandas as pd

from passhat._format import num, p_text
from passhat._paper import PaperTable, interval_cell, level_words, metric_label
from passhat._repr import Display, View, interval_text
from passhat._result import Result, records

__all__ = ["CategoryRanking"]


@dataclass(frozen=True, repr=False, eq=False)
class CategoryRanking(Result):
    """The leaderboard of each category of tasks, and the permutation test across categories.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (category, metric, k, system), best first within each category, metric
        and k: the columns of :attr:`passhat.Ranking.table` on the category's tasks alone
        (value, lower, upper, scope, interval, rank, rank interval, share first, group,
        tasks, engine) and ``method``, how the category's value intervals were made (the
        paired task bootstrap's percentiles, or below 30 tasks each system's posterior), each
        row equal to :func:`passhat.rank` of those tasks with the same
        options and seed.
    pairs : pandas.DataFrame
        The pairwise matrix of each category (:attr:`passhat.Ranking.pairs` with a
        ``category`` column); Holm is across the pairs within a category.
    tests : pandas.DataFrame
        Per (metric, k): categories, tasks, systems, statistic (between-category sum of
        squares of the task-centred per-task values, summed over the systems), p_value,
        holm (adjusted over this table's rows), method.
    by : str
        The task attribute grouped by ("category").
    settings : dict
        n_perm, seed, categories.
    notes : list of str
    sources : tuple of dict
    """

    schema: ClassVar[str] = "ranking_by"

    table: pd.DataFrame
    pairs: pd.DataFrame
    tests: pd.DataFrame
    by: str = "category"
    settings: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    sources: tuple[dict[str, str], ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """The per-category leaderboard (a copy)."""
        return self.table.copy()

    def _document(self) -> dict[str, Any]:
        return {
            "input": [dict(src) for src in self.sources],
            "by": self.by,
            "settings": dict(self.settings),
            "by_category": records(self.table),
            "category_pairs": records(self.pairs),
            "category_tests": records(self.tests),
            "notes": list(self.notes),
        }

    def _paper(self) -> PaperTable:
        """The table for papers: per category, metric and k (the rows and columns the terminal
        shows), best first: the category's tasks, each system's group letter, value with its
        interval and rank with its interval; the caption says what each is.

        Examples
        --------
        >>> import passhat as ph
        >>> r = ph.rank(ph.load_example("leaderboard"), k=1, metrics=["mean"], n_boot=200,
        ...             by="category")
        >>> print(r.by_category.to_markdown().splitlines()[2])
        | support | 30 | mean | a | frontier | 0.627 [0.486, 0.747] | 1 [1, 5] |
        """
        t = self.table[_shown(self.table)]
        rows = [
            {
                self.by: str(r["category"]),
                "tasks": str(r["tasks"]),
                "metric": metric_label(str(r["metric"]), int(r["k"])),
                "group": str(r["group"]),
                "system": str(r["system"]),
                "value": interval_cell(num(r["value"]), num(r["lower"]), num(r["upper"])),
                "rank": f"{r['rank']} [{r['rank_lower']}, {r['rank_upper']}]",
            }
            for r in t.to_dict(orient="records")
        ]
        columns = [self.by, "tasks", "metric", "group", "system", "value", "rank"]
        return PaperTable(pd.DataFrame(rows, columns=columns), self._caption(), group=self.by)

    def _caption(self) -> str:
        """What the per-category table holds, its level, scope and methods."""
        methods = "; ".join(
            f"{how} ({', '.join(dict.fromkeys(rows['category'].astype(str)))})"
            + _exceptions(rows)  # a degenerate bootstrap, a bound: as the terminal says
            for how, rows in self.table[_shown(self.table)].groupby("method", sort=False)
        )
        return (
            f"Leaderboard of each {self.by}: the leaderboard of its tasks alone, best first per "
            f"metric; {level_words(self.settings.get('ci', 0.95))} intervals. Value: population "
            f"scope (expected value over tasks like these); {methods}. Rank interval and group "
            f"letters from the paired tests, Holm across that {self.by}'s pairs (systems that "
            f"share a letter are not separated). Seed {self.settings.get('seed')}."
        )

    def view(self) -> Display:
        """Per metric and k the leaderboard of each category, then the tests."""
        shown = _shown(self.table)
        parts = [
            _board_view(self, str(m), int(kk), part)
            for (m, kk), part in self.table[shown].groupby(["metric", "k"], sort=False)
        ]
        parts.append(_tests_view(self))
        return Display(tuple(parts), min_width=100)


def _shown(t: pd.DataFrame) -> Any:
    """The rows shown: pass@1 / pass^1 (or best / worst of 1) only where the mean is not
    ranked (they equal it)."""
    means = {"mean", "mean_score"}
    has_mean = bool(t["metric"].isin(list(means)).any())
    return ~(has_mean & ~t["metric"].isin(list(means)) & (t["k"] == 1))


def _board_view(res: CategoryRanking, metric: str, kk: int, part: pd.DataFrame) -> View:
    """One metric and k: per category, group, system, value (interval), rank (interval)."""
    frame = pd.DataFrame(
        {
            res.by: part["category"].astype(str).to_numpy(),
            "tasks": part["tasks"].astype(str).to_numpy(),
            "group": part["group"].astype(str).to_numpy(),
            "system": part["system"].astype(str).to_numpy(),
            "value (interval)": [
                interval_text(v, lo, hi)
                for v, lo, hi in zip(part["value"], part["lower"], part["upper"], strict=True)
            ],
            "rank (interval)": [
                f"{r} ({lo}–{hi})" if lo != hi else f"{r} ({lo})"
                for r, lo, hi in zip(
                    part["rank"], part["rank_lower"], part["rank_upper"], strict=True
                )
            ],
        }
    )
    methods = tuple(
        f"{scope} scope ({', '.join(dict.fromkeys(rows['category'].astype(str)))}): {how}"
        + _exceptions(rows)
        for (scope, how), rows in part.groupby(["scope", "method"], sort=False)
    )
    return View(
        f"{metric_label(metric, kk)} by {res.by} ({res.settings.get('ci', 0.95):g} intervals)",
        frame,
        notes=(
            *methods,
            f"each {res.by}: the leaderboard of its tasks alone (value: population scope, the "
            "expected value over tasks like these; rank interval and group letters from the "
            f"paired tests, Holm across that {res.by}'s pairs)",
        ),
        left=frozenset({res.by, "group", "system"}),
        section_by=res.by,
    )


def _exceptions(rows: pd.DataFrame) -> str:
    """Where a value's interval is not the method's (a degenerate bootstrap, a bound)."""
    other = rows[rows["interval"].astype(str) != "marginal"]
    if other.empty:
        return ""
    cells = "; ".join(
        f"{c} {s}: {i}"
        for c, s, i in zip(other["category"], other["system"], other["interval"], strict=True)
    )
    return f"; except {cells}"


def _tests_view(res: CategoryRanking) -> View:
    """Per metric and k: do the systems' differences depend on the category?"""
    t = res.tests
    frame = pd.DataFrame(
        {
            "metric": [
                metric_label(str(m), int(k)) for m, k in zip(t["metric"], t["k"], strict=True)
            ],
            "categories": t["categories"].astype(str).to_numpy(),
            "tasks": t["tasks"].astype(str).to_numpy(),
            "statistic": [f"{x:.4g}" for x in t["statistic"]],
            "p": [p_text(p) for p in t["p_value"]],
            "Holm p": [p_text(p) for p in t["holm"]],
        }
    )
    return View(
        f"Do the systems' differences depend on the {res.by}? (permutation test)",
        frame,
        lines=tuple(dict.fromkeys(t["method"].astype(str))),
        notes=(
            "H0: a task's values relative to their mean over the systems do not depend on its "
            f"{res.by} (labels exchangeable over tasks); statistic: the between-{res.by} sum "
            "of squares of those centred values, summed over the systems; Holm adjusts over "
            "the rows of this table",
            *res.notes,
        ),
        left=frozenset({"metric"}),
    )
