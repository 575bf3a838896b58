"""How many runs to audit (a result): the audit size that brings the grader's part of a
corrected interval to a target, and the half-width other audit sizes give
(:func:`passhat.graders.audit.audit_size` computes it).

Examples
--------
>>> from passhat.graders import audit_size
>>> r = audit_size(sensitivity=0.9, specificity=0.85, mean=0.6, half_width=0.02)
>>> r.runs, r.to_frame().columns.tolist()[:3]
(1793, ['audited_runs', 'positives', 'negatives'])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import pandas as pd

from passhat._format import num
from passhat._labels import METRIC_LABELS
from passhat._repr import View
from passhat._result import Result, records

__all__ = ["AuditPlan"]


@dataclass(frozen=True, repr=False, eq=False)
class AuditPlan(Result):
    """The audit size for a target, and the grader's half-width at other sizes.

    Attributes
    ----------
    runs : int
        Audited runs needed (drawn at random from all runs), ``positives`` and ``negatives``
        of them truly passing / failing on average.
    target : str
        The target in words (a half-width, or a share of the interval's variance).
    table : pandas.DataFrame
        audited_runs, positives, negatives, grader_half_width (and grader_share with an other
        half-width): the answer's row first, then a ladder of sizes.
    settings : dict
        The inputs: sensitivity, specificity, mean, icc, metric, k, ci and the target's.
    per_run_variance : float
        G, with the grader's variance of the corrected value G / N for N audited runs.
    """

    schema: ClassVar[str] = "plan_audit"

    runs: int
    positives: int
    negatives: int
    target: str
    table: pd.DataFrame
    settings: dict[str, Any]
    per_run_variance: float

    def to_frame(self) -> pd.DataFrame:
        """The table (a copy)."""
        return self.table.copy()

    @property
    def notes(self) -> list[str]:
        """The method and the assumptions, in words."""
        s = self.settings
        tasks = (
            "every task at that rate" if s["icc"] is None else f"task rates Beta, ICC {s['icc']:g}"
        )
        return [
            "grader's part of the interval: z * sqrt(G / N) by the delta method, with "
            "Var(se) = se(1 - se) / (N mean) and Var(sp) = sp(1 - sp) / (N (1 - mean)) from an "
            f"audit of N random runs; true mean pass rate {s['mean']:g} ({tasks})",
            "the other parts (which tasks, which runs) are not in grader_half_width; with "
            "--other-half-width the share of the variance due to the grader is shown",
            "assumes non-differential grader error (the same se and sp on every task, "
            "independent labels) and an audit that is a random sample of runs",
        ]

    def _document(self) -> dict[str, Any]:
        return {
            "audited_runs": self.runs,
            "positives": self.positives,
            "negatives": self.negatives,
            "target": self.target,
            "settings": dict(self.settings),
            "per_run_variance": self.per_run_variance,
            "table": records(self.table),
            "notes": self.notes,
        }

    def view(self) -> View:
        """The answer, then the ladder of audit sizes."""
        t = self.table
        frame = pd.DataFrame(
            {
                "audited runs": t["audited_runs"].astype(str),
                "truly passing": t["positives"].astype(str),
                "truly failing": t["negatives"].astype(str),
                "grader's half-width": [num(v, 4) for v in t["grader_half_width"]],
            }
        )
        if "grader_share" in t:
            frame["grader's share of variance"] = [num(v) for v in t["grader_share"]]
        s = self.settings
        label = METRIC_LABELS.get(s["metric"], s["metric"])
        what = label if s["metric"] == "mean" else f"{label} at k = {s['k']}"
        return View(
            f"runs to audit: {self.runs} ({self.positives} truly passing, {self.negatives} "
            f"truly failing) for {self.target} of the corrected {what}",
            frame,
            lines=(
                f"grader: sensitivity {s['sensitivity']:g}, specificity {s['specificity']:g}; "
                f"{s['ci']:g} intervals; first row: the answer, then other audit sizes",
            ),
            notes=tuple(self.notes),
        )
