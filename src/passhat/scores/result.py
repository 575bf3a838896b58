"""The threshold curve: pass^k and pass@k as functions of the pass threshold (a result).

With scores in [0, 1], "success" is a choice of threshold t (success = score ≥ t). The curve
gives, per system, threshold and k, the unbiased pass^k and pass@k at that threshold averaged
over the tasks :func:`passhat.estimate` averages (:func:`passhat.scores.benchmark.threshold_curve`
computes it). The area under the pass^k curve over t ∈ [0, 1] is the expected worst of k,
under pass@k the expected best of k.

Examples
--------
>>> import pandas as pd
>>> import passhat as ph
>>> df = pd.DataFrame({"task_id": list("aabb"), "success": [True, False, True, True],
...                    "score": [1.0, 0.5, 0.75, 1.0]})
>>> curve = ph.estimate(ph.Trials.from_frame(df), k=[1, 2], scores=True).curve
>>> curve.to_frame().query("k == 2")[["threshold", "pass_hat_k"]].values.tolist()
[[0.5, 1.0], [0.75, 0.5], [1.0, 0.0]]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import pandas as pd

from passhat._format import num
from passhat._repr import View
from passhat._result import Result, records
from passhat.estimators import METRIC_LABELS

__all__ = ["ThresholdCurve"]


@dataclass(frozen=True, repr=False, eq=False)
class ThresholdCurve(Result):
    """pass^k and pass@k by pass threshold (success = score ≥ threshold).

    Attributes
    ----------
    table : pandas.DataFrame
        Tidy: system, threshold, k, pass_hat_k, pass_at_k (unbiased, macro-averaged).
    source : dict
        Where the data came from (as :attr:`passhat.Estimate.source`).
    """

    schema: ClassVar[str] = "threshold_curve"

    table: pd.DataFrame
    source: dict[str, str] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """The curve, tidy (a copy)."""
        return self.table.copy()

    def _document(self) -> dict[str, Any]:
        return {"input": dict(self.source), "curve": records(self.table)}

    def view(self) -> View:
        """One row per (system, threshold), a column per metric and k."""
        curve = self.table
        wide = curve.pivot_table(
            index=["system", "threshold"], columns="k", values=["pass_hat_k", "pass_at_k"],
            sort=False, dropna=False,
        )  # fmt: skip
        frame = pd.DataFrame(
            {
                "system": [str(s) for s, _ in wide.index],
                "threshold": [f"{t:g}" for _, t in wide.index],
            }
        )
        for metric in ("pass_hat_k", "pass_at_k"):
            for kv in sorted(curve["k"].unique()):
                label = METRIC_LABELS[metric].replace("k", str(kv))
                frame[label] = [num(v) for v in wide[(metric, kv)]]
        return View(
            "pass^k and pass@k by pass threshold (success = score ≥ threshold; unbiased, "
            "averaged over tasks)",
            frame,
            notes=(
                "the area under the pass^k curve is the expected worst of k, under pass@k the "
                "expected best of k",
            ),
            section_by="system",
        )
