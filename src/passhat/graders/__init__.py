"""Noisy graders: mean, pass@k and pass^k corrected for a grader's sensitivity and
specificity (:func:`correct`), and how many runs to audit (:func:`audit_size`).

Examples
--------
>>> from passhat import graders
>>> round(float(graders.corrected_mean(10, 6, sensitivity=0.9, specificity=0.8)), 4)
0.5714
"""

from __future__ import annotations

from passhat.graders.audit import audit_size
from passhat.graders.audit_result import AuditPlan
from passhat.graders.correct import correct
from passhat.graders.estimators import corrected_mean, corrected_pass_at_k, corrected_pass_hat_k
from passhat.graders.result import GraderCorrection
from passhat.graders.spec import AuditCounts, GraderSpec

__all__ = [
    "AuditCounts",
    "AuditPlan",
    "GraderCorrection",
    "GraderSpec",
    "audit_size",
    "correct",
    "corrected_mean",
    "corrected_pass_at_k",
    "corrected_pass_hat_k",
]
