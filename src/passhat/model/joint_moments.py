"""numba kernels of the joint model's summaries: moments of p (imported when they are asked).

**Population scope** (:func:`weighted_moments`).
For every posterior draw d and system s, E_β E[p^m | β] for m = 1..M by the Gauss–Hermite
rule over β ~ N(0, σ_β) (:func:`passhat.model.joint_metrics.gh_rule`), with p ~ Beta(κμ,
κ(1 − μ)), μ = logistic(θ_s + β): E[p^m | β] = Π_{j<m} (κμ + j)/(κ + j) as one running
product per node (κ = ∞: μ^m); with ``failures``, the same moments of 1 − p. The numpy form
is :func:`passhat.model.joint_metrics.moment_draws` (tested equal to 1e-12).

**Benchmark scope** (:func:`power_means`): per draw, the mean over tasks of p^m and of
(1 − p)^m for m = 0..M from drawn rates p, in one pass.

Examples
--------
>>> import numpy as np
>>> from passhat.model.joint_metrics import gh_rule
>>> from passhat.model.joint_moments import weighted_moments
>>> z, w = gh_rule()
>>> out = weighted_moments(np.zeros((1, 1)), np.full(1, 1e-9), np.full(1, np.inf), z, w, 2, False)
>>> out.round(6).tolist()      # σ_β → 0, κ = ∞: p = ½ always
[[[1.0, 0.5, 0.25]]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from passhat.model._numba import njit_cached

__all__ = ["power_means", "weighted_moments"]


@njit_cached
def _moments(
    theta: Any, task_sd: Any, kappa: Any, z: Any, w: Any, top: int, failures: bool, out: Any
) -> None:
    D, S = theta.shape
    for d in range(D):
        kap = kappa[d]
        rasch = np.isinf(kap)
        for s in range(S):
            for q in range(z.shape[0]):
                x = theta[d, s] + task_sd[d] * z[q]
                if failures:
                    x = -x
                if x >= 0:
                    mu = 1.0 / (1.0 + np.exp(-x))
                else:
                    e = np.exp(x)
                    mu = e / (1.0 + e)
                run = w[q]
                out[d, s, 0] += run
                for j in range(top):
                    run *= mu if rasch else (kap * mu + j) / (kap + j)
                    out[d, s, j + 1] += run


def weighted_moments(
    theta: Any, task_sd: Any, kappa: Any, z: Any, w: Any, top: int, failures: bool
) -> Any:
    """Σ_q w_q E[p^m | β_q] (or of 1 − p) for m = 0..top per draw and system: (D, S, top + 1).

    ``theta`` is (D, S); ``task_sd``, ``kappa`` (D,); ``z``, ``w`` the rule's standard-normal
    nodes and weights (summing to 1).
    """
    th = np.ascontiguousarray(theta, dtype=np.float64)
    out = np.zeros((th.shape[0], th.shape[1], int(top) + 1))
    _moments(
        th,
        np.ascontiguousarray(task_sd, dtype=np.float64),
        np.ascontiguousarray(kappa, dtype=np.float64),
        np.ascontiguousarray(z, dtype=np.float64),
        np.ascontiguousarray(w, dtype=np.float64),
        int(top),
        bool(failures),
        out,
    )
    return out


@njit_cached
def _power_means(p: Any, top: int, out: Any) -> None:
    D, T = p.shape
    for d in range(D):
        for t in range(T):
            x = p[d, t]
            y = 1.0 - x
            rx = 1.0
            ry = 1.0
            out[d, 0, 0] += 1.0
            out[d, 0, 1] += 1.0
            for m in range(1, top + 1):
                rx *= x
                ry *= y
                out[d, m, 0] += rx
                out[d, m, 1] += ry
        for m in range(top + 1):
            out[d, m, 0] /= T
            out[d, m, 1] /= T


def power_means(p: Any, top: int) -> Any:
    """Mean over the last axis of p^m and (1 − p)^m, m = 0..top, of (D, T) rates: (D, top + 1,
    2) (``[..., 0]``: p^m, ``[..., 1]``: (1 − p)^m).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_moments import power_means
    >>> power_means(np.array([[0.5, 1.0]]), 2)[0].tolist()
    [[1.0, 1.0], [0.75, 0.25], [0.625, 0.125]]
    """
    arr = np.ascontiguousarray(p, dtype=np.float64)
    out = np.zeros((arr.shape[0], int(top) + 1, 2))
    _power_means(arr, int(top), out)
    return out
