"""How many runs to audit: the grader's share of a corrected value's uncertainty.

The corrected value θ(se, sp) (:mod:`passhat.graders.estimators`) moves with the audit's
estimates of se and sp. By the delta method, for an audit of N runs drawn at random from all
runs (true mean pass rate μ: about Nμ truly passing, N(1 − μ) truly failing),

    Var_grader θ ≈ G / N,   G = (∂θ/∂se)² se(1 − se) / μ + (∂θ/∂sp)² sp(1 − sp) / (1 − μ),

with, for pass^k, ∂θ/∂se = −k E[p^k] / a and ∂θ/∂sp = k E[p^{k−1}(1 − p)] / a
(a = se + sp − 1; the mean is k = 1; pass@k = 1 − E(1 − p)^k mirrors it), the moments
taken over task rates p ~ Beta with mean μ and intra-class correlation ``icc`` (every task
at μ when ``icc`` is None). The grader's half-width is z·sqrt(G / N); N is solved for a
target half-width, or for a share s of the interval's variance given the other parts'
half-width h₀: G / N ≤ s / (1 − s) · (h₀ / z)².

Examples
--------
>>> audit_size(sensitivity=0.95, specificity=0.9, mean=0.6, half_width=0.01).runs
3430
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.stats import norm

from passhat._validate import check_ci, check_k
from passhat.errors import OptionError
from passhat.graders.audit_result import AuditPlan
from passhat.graders.spec import GraderSpec

__all__ = ["LADDER", "audit_size", "grader_variance"]

#: The other audit sizes the table shows.
LADDER = (50, 100, 200, 500, 1000, 2000, 5000)


def _moment(mu: float, icc: float | None, up: int, down: int) -> float:
    """E[p^up (1 − p)^down] for p ~ Beta(mean mu, ICC icc) (p = mu when icc is None)."""
    if icc is None or icc == 0:
        return float(mu**up * (1.0 - mu) ** down)
    s = (1.0 - icc) / icc
    a, b = mu * s, (1.0 - mu) * s
    num = np.prod([a + i for i in range(up)]) * np.prod([b + i for i in range(down)])
    return float(num / np.prod([s + i for i in range(up + down)]))


def grader_variance(
    *, sensitivity: float, specificity: float, mean: float, metric: str, k: int,
    icc: float | None = None,
) -> float:  # fmt: skip
    """G: the grader's variance of the corrected value is G / N for N audited random runs.

    Examples
    --------
    >>> round(grader_variance(sensitivity=0.9, specificity=0.9, mean=0.5, metric="mean", k=1), 4)
    0.1406
    """
    a = sensitivity + specificity - 1.0
    if metric == "pass_at_k":
        d_se = -k * _moment(mean, icc, 1, k - 1) / a
        d_sp = k * _moment(mean, icc, 0, k) / a
    else:
        kk = 1 if metric == "mean" else k
        d_se = -kk * _moment(mean, icc, kk, 0) / a
        d_sp = kk * _moment(mean, icc, kk - 1, 1) / a
    return float(
        d_se**2 * sensitivity * (1 - sensitivity) / mean
        + d_sp**2 * specificity * (1 - specificity) / (1 - mean)
    )


def _check_inputs(mean: float, icc: float | None, metric: str) -> None:
    """mean in (0, 1), icc in (0, 1) or None, a known metric."""
    if not (0.0 < mean < 1.0):
        raise OptionError(
            f"{{param}} must lie strictly between 0 and 1, got {mean!r}", param="mean"
        )
    if icc is not None and not (0.0 <= icc < 1.0):
        raise OptionError(f"{{param}} must lie in [0, 1), got {icc!r}", param="icc")
    if metric not in ("mean", "pass_at_k", "pass_hat_k"):
        raise OptionError(
            f"{{param}} must be mean, pass_at_k or pass_hat_k, got {metric!r}", param="metric"
        )


def _target(
    g: float, z: float, half_width: float | None, share: float | None, other: float | None
) -> tuple[int, str]:
    """N for the target, and the target in words."""
    if (half_width is None) == (share is None):
        raise OptionError("give {param} or {grader_share}, one of them", param="half_width",
                          also=("grader_share",))  # fmt: skip
    if share is None:  # so half_width is given
        if not (half_width is not None and half_width > 0 and math.isfinite(half_width)):
            raise OptionError(f"{{param}} must be > 0, got {half_width!r}", param="half_width")
        return max(1, math.ceil(z**2 * g / half_width**2)), f"a grader's half-width {half_width:g}"
    if not (0.0 < share < 1.0):
        raise OptionError(f"{{param}} must lie strictly between 0 and 1, got {share!r}",
                          param="grader_share")  # fmt: skip
    if other is None or not (other > 0 and math.isfinite(other)):
        raise OptionError("{param} needs {other_half_width} (> 0): the half-width of the "
                          "interval without the grader", param="grader_share",
                          also=("other_half_width",))  # fmt: skip
    v0 = (other / z) ** 2
    return max(1, math.ceil(g / (share / (1 - share) * v0))), f"a grader's share {share:g}"


def audit_size(
    *,
    sensitivity: float,
    specificity: float,
    mean: float,
    metric: str = "pass_hat_k",
    k: int = 1,
    icc: float | None = None,
    half_width: float | None = None,
    grader_share: float | None = None,
    other_half_width: float | None = None,
    ci: float = 0.95,
) -> AuditPlan:
    """Audited runs needed so that the grader's part of a corrected interval meets a target.

    Parameters
    ----------
    sensitivity, specificity : float
        The grader's expected values (in [0, 1], se + sp > 1).
    mean : float
        The true mean pass rate of a run (in (0, 1)): the share of audited runs that pass.
    metric : {"pass_hat_k", "pass_at_k", "mean"}
        The corrected value whose interval is planned.
    k : int
        k of pass^k / pass@k.
    icc : float, optional
        Task-to-task spread of the rates (ICC of a Beta); None: every task at ``mean``.
    half_width : float, optional
        Target for the grader's own half-width z·sqrt(G / N).
    grader_share, other_half_width : float, optional
        Or: the largest share of the interval's variance due to the grader, given the
        half-width of the interval without it (e.g. ``estimate --ci``'s population interval).
    ci : float
        Level of the intervals.

    Returns
    -------
    AuditPlan
    """
    if sensitivity is None or specificity is None:
        missing = "sensitivity" if sensitivity is None else "specificity"
        raise OptionError("{param} is needed: the grader's expected value", param=missing)
    GraderSpec.from_rates(sensitivity=sensitivity, specificity=specificity)  # checks
    ci = check_ci(ci)
    k = check_k(k)
    _check_inputs(mean, icc, metric)
    g = grader_variance(sensitivity=sensitivity, specificity=specificity, mean=mean,
                        metric=metric, k=k, icc=icc)  # fmt: skip
    z = float(norm.ppf(0.5 + ci / 2))
    runs, target = _target(g, z, half_width, grader_share, other_half_width)
    sizes = np.array([runs, *[s for s in LADDER if s != runs]])
    table = pd.DataFrame(
        {
            "audited_runs": sizes,
            "positives": np.rint(sizes * mean).astype(int),
            "negatives": sizes - np.rint(sizes * mean).astype(int),
            "grader_half_width": z * np.sqrt(g / sizes),
        }
    )
    if other_half_width is not None:
        vg = g / sizes
        table["grader_share"] = vg / (vg + (other_half_width / z) ** 2)
    settings = {"sensitivity": sensitivity, "specificity": specificity, "mean": mean, "icc": icc,
                "metric": metric, "k": k, "ci": ci, "half_width": half_width,
                "grader_share": grader_share, "other_half_width": other_half_width}  # fmt: skip
    pos = int(table["positives"].iloc[0])
    return AuditPlan(runs, pos, runs - pos, target, table, settings, g)
