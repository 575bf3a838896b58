"""What runs cost per success (a result): cost per run, per success, per all-k-pass, and pass^k
per unit cost, per system and k (:func:`passhat.cost.cost_estimate` computes it).

Examples
--------
>>> import passhat as ph
>>> c = ph.estimate(ph.load_example("agents"), k=[1, 2]).cost
>>> c.to_frame().columns.tolist()[:5]
['system', 'k', 'tasks', 'runs', 'total_cost']
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pandas as pd

from passhat._format import num
from passhat._repr import View
from passhat._result import Result, records
from passhat.cost_of import label

__all__ = ["COST_COLUMNS", "CostEstimate"]

#: The table's columns after system and k, and their display labels.
COST_COLUMNS = {
    "tasks": "tasks",
    "runs": "runs paid",
    "total_cost": "total cost",
    "cost_per_run": "cost / run",
    "mean": "mean",
    "cost_per_success": "cost / success",
    "pass_hat_k": "pass^k",
    "cost_per_all_k_pass": "cost / all-k-pass",
    "pass_hat_k_per_cost": "pass^k / cost",
}


#: The columns whose label names the quantity (cost or duration).
_FIGURES = frozenset(
    {"runs", "total_cost", "cost_per_run", "cost_per_success", "cost_per_all_k_pass",
     "pass_hat_k_per_cost"}
)  # fmt: skip

#: The view's title and definitions, per quantity.
_TITLE = {
    "cost": "cost per success and per all-k-pass (the cost column; ratios of benchmark averages)",
    "duration": "duration per success and per all-k-pass, in seconds (the duration_s column; "
    "ratios of benchmark averages)",
}
_HOW = {
    "cost": "cost / run: the tasks' mean cost per run, every run counted (unscored ones "
    "too); cost / success = cost per run / mean; cost / all-k-pass = k × cost per "
    "run / pass^k; pass^k / cost = its inverse",
    "duration": "duration / run: the tasks' mean seconds per run, every run counted (unscored "
    "ones too); duration / success = duration per run / mean; duration / all-k-pass = k × "
    "duration per run / pass^k; pass^k / second = its inverse",
}


def _amount(x: float) -> str:
    """A cost (4 significant digits), "—" when missing, "∞" when unbounded."""
    if math.isnan(x):
        return "—"
    return "∞" if math.isinf(x) else f"{x:.4g}"


@dataclass(frozen=True, repr=False, eq=False)
class CostEstimate(Result):
    """Cost per success, per all-k-pass, and pass^k per unit cost.

    Definitions, per system over the tasks the estimate averages (weights w̃ᵢ summing to 1):
    cost per run c̄ = Σ w̃ᵢ (cost of task i's runs / its runs), every run counted whatever its
    status (an unscored run was paid for too); cost per success = c̄ / mean success;
    cost per all-k-pass = k·c̄ / pass^k, the expected spend on k runs of a task per event
    "all k passed"; pass^k per unit cost = pass^k / (k·c̄), its inverse. Ratios of the
    benchmark averages (unbiased numerator and denominator; the ratio itself is not
    unbiased); with ``ci``, population-scope intervals (``method``). NaN where the
    denominator is 0.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (system, k): system, k and :data:`COST_COLUMNS`; with ``ci`` also
        cost_per_success_lower / _upper, cost_per_all_k_pass_lower / _upper and
        pass_hat_k_per_cost_lower / _upper (the inverse of the cost per all-k-pass's ends).
    source : dict
        Where the data came from.
    ci : float or None
        The level of the intervals (the estimate's ``ci``), None without intervals.
    method : str
        How the intervals were computed (population scope: the percentile task bootstrap of
        the ratio Σ wᵢ cᵢ / Σ wᵢ Uᵢ, each task drawn with its cost per run and its rates).
    cost_of : {"cost", "duration"}
        What the figures measure: the runs' ``cost`` column, or their ``duration_s`` column
        (seconds: duration per run, per success, per all-k-pass, pass^k per second). The
        table's column names are the same for both; the labels and ``to_dict()["cost_of"]``
        say which.
    """

    schema: ClassVar[str] = "cost"

    table: pd.DataFrame
    source: dict[str, str] = field(default_factory=dict)
    ci: float | None = None
    method: str = ""
    cost_of: str = "cost"

    def to_frame(self) -> pd.DataFrame:
        """The table (a copy)."""
        return self.table.copy()

    def _document(self) -> dict[str, Any]:
        return {
            "input": dict(self.source),
            "ci": self.ci,
            "method": self.method,
            "cost_of": self.cost_of,
            "cost": records(self.table),
        }

    def view(self) -> View:
        """One row per (system, k)."""
        t, of = self.table, self.cost_of
        frame = pd.DataFrame({"system": t["system"].astype(str), "k": t["k"].astype(str)})
        for col, plain in COST_COLUMNS.items():
            shown = label(col, of) if col in _FIGURES else plain
            if col in ("tasks", "runs"):
                frame[shown] = t[col].astype(str)
            elif col in ("mean", "pass_hat_k"):
                frame[shown] = [num(v) for v in t[col]]
            else:
                frame[shown] = [_amount(v) for v in t[col]]
        if self.ci is not None:
            for col in ("cost_per_success", "cost_per_all_k_pass", "pass_hat_k_per_cost"):
                lo, hi = t[f"{col}_lower"], t[f"{col}_upper"]
                frame[label(col, of)] = [
                    f"{_amount(v)} [{_amount(a)}, {_amount(b)}]"
                    for v, a, b in zip(t[col], lo, hi, strict=True)
                ]
        return View(
            _TITLE[of],
            frame,
            notes=(
                _HOW[of],
                f"{self.ci:g} intervals, {self.method}"
                if self.ci is not None
                else "no intervals (ask with ci= / --ci)",
            ),
            section_by="system",
        )
