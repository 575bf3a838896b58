"""What is known about a grader's error: stated sensitivity and specificity, or audit counts.

A grader's **sensitivity** se is the share of truly passing runs it passes, its
**specificity** sp the share of truly failing runs it fails. They are known either as point
values (then every interval that uses them ignores their uncertainty), or from an **audit**:
runs whose true label was checked by hand, counted as TP / FN (grader pass / fail among the
truly passing runs) and TN / FP (grader fail / pass among the truly failing runs). With an
audit, se and sp get independent Beta posteriors (Jeffreys prior, Beta(½, ½)):
se ~ Beta(TP + ½, FN + ½), sp ~ Beta(TN + ½, FP + ½); their point values are TP / (TP + FN)
and TN / (TN + FP). Both assume non-differential error: the grader errs with the same
probabilities on every task, independently of its other labels, and the audited runs are a
random sample of runs.

Examples
--------
>>> g = GraderSpec.from_audit((90, 10, 80, 20))
>>> g.sensitivity, g.specificity
(0.9, 0.8)
>>> GraderSpec.from_rates(sensitivity=0.95, specificity=0.9).stated
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from passhat.errors import OptionError

__all__ = ["AuditCounts", "GraderSpec", "audit_from_labels"]


@dataclass(frozen=True)
class AuditCounts:
    """Counts of an audit: TP, FN among truly passing runs; TN, FP among truly failing runs."""

    tp: int
    fn: int
    tn: int
    fp: int

    @property
    def positives(self) -> int:
        """Audited runs that truly pass."""
        return self.tp + self.fn

    @property
    def negatives(self) -> int:
        """Audited runs that truly fail."""
        return self.tn + self.fp


def _check_rate(value: Any, param: str) -> float:
    """A stated sensitivity or specificity: a number in [0, 1]."""
    try:
        x = float(value)
    except (TypeError, ValueError) as err:
        raise OptionError(
            "{param} must be a number in [0, 1], got " + repr(value), param=param
        ) from err
    if not (0.0 <= x <= 1.0):  # NaN fails too
        raise OptionError(f"{{param}} must lie in [0, 1], got {x:g}", param=param)
    return x


def _check_better_than_chance(se: float, sp: float, param: str) -> None:
    """se + sp > 1: otherwise the grader's labels carry no information about the truth."""
    if se + sp <= 1.0:
        raise OptionError(
            f"the grader's sensitivity + specificity is {se + sp:g} (se {se:g}, sp {sp:g}): it "
            "must exceed 1 (a grader no better than a coin cannot be corrected for); check {param}",
            param=param,
        )


def _audit_counts(audit: Any) -> AuditCounts:
    """Four whole counts TP, FN, TN, FP ≥ 0, with at least one run on each side of the truth."""
    if isinstance(audit, AuditCounts):
        audit = (audit.tp, audit.fn, audit.tn, audit.fp)
    items = list(audit) if isinstance(audit, Sequence) and not isinstance(audit, str) else None
    if items is None or len(items) != 4:
        raise OptionError(
            "{param} must be four counts TP,FN,TN,FP (e.g. 90,10,80,20), got " + repr(audit),
            param="audit",
        )
    out = []
    for name, v in zip(("TP", "FN", "TN", "FP"), items, strict=True):
        if (
            isinstance(v, bool)
            or not isinstance(v, int | np.integer | float)
            or v != int(v)
            or v < 0
        ):
            raise OptionError(
                f"{{param}}: {name} must be a whole count ≥ 0, got {v!r}", param="audit"
            )
        out.append(int(v))
    counts = AuditCounts(*out)
    if counts.positives == 0 or counts.negatives == 0:
        side = "truly passing" if counts.positives == 0 else "truly failing"
        raise OptionError(
            f"{{param}} has no {side} run: sensitivity and specificity need audited runs on both "
            "sides of the truth",
            param="audit",
        )
    return counts


@dataclass(frozen=True)
class GraderSpec:
    """A grader's error: point sensitivity and specificity, and the audit behind them if any.

    Attributes
    ----------
    sensitivity, specificity : float
        Point values (stated, or the audit's TP / (TP + FN) and TN / (TN + FP)).
    audit : AuditCounts or None
        The audit's counts; None when the values were stated (no uncertainty).
    source : str
        Where the values came from, in words (for the notes).
    """

    sensitivity: float
    specificity: float
    audit: AuditCounts | None = None
    source: str = "stated"

    @property
    def stated(self) -> bool:
        """True when the values were stated as points (intervals ignore their uncertainty)."""
        return self.audit is None

    @classmethod
    def from_rates(cls, *, sensitivity: Any, specificity: Any) -> GraderSpec:
        """Stated point values (each in [0, 1], se + sp > 1)."""
        se = _check_rate(sensitivity, "sensitivity")
        sp = _check_rate(specificity, "specificity")
        _check_better_than_chance(se, sp, "sensitivity")
        return cls(se, sp, None, "stated")

    @classmethod
    def from_audit(cls, audit: Any, *, source: str = "audit counts") -> GraderSpec:
        """Audit counts (TP, FN, TN, FP), whose point values must have se + sp > 1."""
        counts = _audit_counts(audit)
        se = counts.tp / counts.positives
        sp = counts.tn / counts.negatives
        _check_better_than_chance(se, sp, "audit")
        return cls(se, sp, counts, source)

    def draws(
        self, size: int, rng: np.random.Generator
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``size`` draws of (se, sp) from their Beta posteriors (constant when stated)."""
        if self.audit is None:
            return np.full(size, self.sensitivity), np.full(size, self.specificity)
        a = self.audit
        return (
            rng.beta(a.tp + 0.5, a.fn + 0.5, size=size),
            rng.beta(a.tn + 0.5, a.fp + 0.5, size=size),
        )

    def intervals(self, ci: float) -> tuple[tuple[float, float], tuple[float, float]]:
        """Equal-tailed ``ci`` posterior intervals of se and sp (points when stated)."""
        if self.audit is None:
            return (self.sensitivity,) * 2, (self.specificity,) * 2
        from scipy.stats import beta

        a, tail = self.audit, (1.0 - ci) / 2.0
        se = beta.ppf([tail, 1.0 - tail], a.tp + 0.5, a.fn + 0.5)
        sp = beta.ppf([tail, 1.0 - tail], a.tn + 0.5, a.fp + 0.5)
        return (float(se[0]), float(se[1])), (float(sp[0]), float(sp[1]))


def audit_from_labels(grader: Any, truth: Any, *, where: str = "the audit") -> AuditCounts:
    """TP, FN, TN, FP from paired boolean labels of the audited runs (grader's, true).

    Examples
    --------
    >>> audit_from_labels([True, True, False, False], [True, False, False, True])
    AuditCounts(tp=1, fn=1, tn=1, fp=1)
    """
    g = np.asarray(grader, dtype=bool)
    t = np.asarray(truth, dtype=bool)
    if g.shape != t.shape:
        raise OptionError(
            f"{where}: {g.size} grader labels but {t.size} true labels", param="truth"
        )
    return AuditCounts(
        tp=int(np.sum(g & t)),
        fn=int(np.sum(~g & t)),
        tn=int(np.sum(~g & ~t)),
        fp=int(np.sum(g & ~t)),
    )


def rate_text(x: float) -> str:
    """A rate with 3 decimals (``0.950``)."""
    return "—" if math.isnan(x) else f"{x:.3f}"
