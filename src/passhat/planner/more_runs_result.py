"""The result of :func:`passhat.plan.more_runs` (:class:`MoreRuns`): the expected interval after m
more runs per task, the floor only more tasks lower, and the sentences that say so.

Examples
--------
>>> import passhat as ph
>>> r = ph.plan.more_runs(ph.load_example("abcd"), runs=[5], k=2, simulations=50, seed=0)
>>> r.explain()[0].startswith("seed-example: 5 more runs on each task")
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pandas as pd

from passhat._format import pct
from passhat._repr import Display, View
from passhat._result import Result, records
from passhat.planner._checks import label
from passhat.planner.result import cells

__all__ = ["MoreRuns"]


@dataclass(frozen=True, repr=False, eq=False)
class MoreRuns(Result):
    """Result of :func:`passhat.plan.more_runs`.

    Attributes
    ----------
    table : pandas.DataFrame
        :meth:`passhat.Fit.more_runs`'s table (per system, metric, k, scope and number of
        more runs ``runs_added``: expected_sd, expected_width, width_ratio, …) plus
        ``within_task_share`` (of today's population-scope variance: what unlimited runs
        would remove).
    ci : float
        Interval level.
    simulations : int
        Simulated sets of new runs per m.
    fit_method : str
        The fit's method (exact grid, …); ``fit_seed`` its seed.
    source : dict
        Where the runs came from (empty for a fit given as such).
    """

    schema: ClassVar[str] = "plan_more_runs"

    table: pd.DataFrame
    ci: float
    simulations: int
    fit_method: str
    fit_seed: int | None
    source: Mapping[str, str] = field(default_factory=dict)

    @property
    def method(self) -> str:
        """How the expected widths were computed."""
        return (
            f"preposterior: {self.simulations} simulated sets of new runs per m from the "
            f"posterior predictive, each posterior exact on a grid ({self.fit_method}, "
            f"seed {self.fit_seed}); population intervals from the grid's cdf, benchmark ±z·sd"
        )

    @property
    def reasoning(self) -> str:
        """The explanation in one paragraph."""
        return " ".join(self.explain())

    def _largest_k(self) -> pd.DataFrame:
        """The pass^k rows at the largest k (what the sentences and the tables show)."""
        t = self.table
        kmax = int(t["k"].max())
        return t[(t["metric"] == "pass_hat_k") & (t["k"] == kmax)]

    def explain(self) -> list[str]:
        """One sentence per system: the population interval after the most runs asked and its
        floor, and the benchmark interval."""
        kmax = int(self.table["k"].max())
        out = []
        for system, part in self._largest_k().groupby("system", sort=False):
            p = part[part["scope"] == "population"].set_index("runs_added")
            b = part[part["scope"] == "benchmark"].set_index("runs_added")
            m = max(x for x in p.index if x != float("inf"))
            out.append(
                f"{system}: {int(m)} more runs on each task would narrow the {self.ci:.0%} "
                f"interval of {label('pass_hat_k', kmax)} for a new task (population) from "
                f"{p.loc[0.0, 'expected_width']:.3f} to {p.loc[m, 'expected_width']:.3f} on "
                f"average ({p.loc[m, 'width_ratio'] - 1:+.0%}), and no number of runs below "
                f"{p.loc[float('inf'), 'expected_width']:.3f}: "
                f"{pct(1 - float(p['within_task_share'].iloc[0]), 0)} of today's variance comes "
                "from which tasks were sampled, which only more tasks reduce. For these tasks "
                f"(benchmark) the interval would go from {b.loc[0.0, 'expected_width']:.3f} to "
                f"{b.loc[m, 'expected_width']:.3f} ({b.loc[m, 'width_ratio'] - 1:+.0%})."
            )
        return out

    def to_frame(self) -> pd.DataFrame:
        """The expected widths per system, metric, k, scope and number of more runs."""
        return self.table.copy()

    def _document(self) -> dict[str, Any]:
        sentences = self.explain()
        return {
            "input": dict(self.source),
            "reasoning": " ".join(sentences),
            "sentences": sentences,
            "method": self.method,
            "table": records(self.table),
        }

    def view(self) -> Display:
        """The sentences and the method, then per system pass^k at the largest k: the expected
        sd and width now, after each m and with unlimited runs."""
        kmax = int(self.table["k"].max())
        parts = [View("", None, lines=(*self.explain(), f"Method: {self.method}."))]
        part = self._largest_k().copy()
        part["runs"] = [
            "now" if m == 0 else "∞" if math.isinf(m) else f"+{int(m)}" for m in part["runs_added"]
        ]
        cols = (
            ("scope", "scope", ""),
            ("runs", "more runs/task", ""),
            ("expected_sd", "expected sd", ".4f"),
            ("expected_width", f"{self.ci:.0%} width", ".4f"),
            ("width_ratio", "vs now", ".2f"),
        )
        for system, rows in part.groupby("system", sort=False):
            parts.append(
                View(
                    f"{system}: pass^{kmax}, expected interval after more runs per task",
                    cells(rows, cols),
                    left=frozenset(),
                )
            )
        return Display(tuple(parts))
