"""The cluster-robust t interval of a weighted mean of per-task estimates (few clusters).

With clustered tasks the population value E g(p) is estimated by the weighted mean
θ̂ = Σ w_i v_i / Σ w_i of the tasks' unbiased estimates v_i, and the clusters (not the tasks)
are the independent draws. With G clusters and S_g = Σ_{i ∈ g} w_i (v_i − θ̂) the total of a
cluster's weighted residuals, the CR1 cluster-robust standard error is

    SE² = G / (G − 1) · Σ_g S_g² / (Σ w)²

— the sandwich variance of the intercept of a weighted least-squares fit of v on a constant
with the small-sample factor G / (G − 1) (statsmodels' ``cov_type="cluster"`` with its default
correction: G / (G − 1) · (N − 1) / (N − K), and K = 1). With one task per cluster it is the
ordinary s² / T. With clusters of equal total weight it equals CR2 (Bell and McCaffrey's bias
reduction, whose factor for this model is 1 / (1 − W_g / W) per cluster). Two intervals use
it, both with the t quantile on G − 1 degrees of freedom: the linear θ̂ ± t_{G−1} · SE
clipped to [0, 1] (:func:`cluster_t_interval`), and the logit-t interval
expit(logit θ̂ ± t_{G−1} · SE / (θ̂ (1 − θ̂))) (:func:`cluster_logit_t_interval`, the linear one
where θ̂ is 0 or 1 or SE is 0), which :mod:`passhat.scopes` uses below
:data:`passhat.clusters.FEW_CLUSTERS` clusters: the cluster bootstrap under-covers with few
clusters, and of the two t intervals the logit one covers best near 0 and 1
(studies/cluster_coverage).

References
----------
.. [1] Cameron, A. C., & Miller, D. L. (2015). A practitioner's guide to cluster-robust
   inference. *Journal of Human Resources*, 50(2), 317–372 (CR1, t on G − 1 df).
.. [2] Bell, R. M., & McCaffrey, D. F. (2002). Bias reduction in standard errors for linear
   regression with multi-stage samples. *Survey Methodology*, 28(2), 169–181.

Examples
--------
>>> import numpy as np
>>> from passhat.cluster_robust import cluster_robust_se, cluster_t_interval
>>> v = np.array([[0.0], [0.5], [1.0], [1.0]])
>>> theta, se = cluster_robust_se(v, np.ones(4), np.array([0, 0, 1, 1]))
>>> [round(float(x), 4) for x in (theta[0], se[0])]
[0.625, 0.375]
>>> lo, hi = cluster_t_interval(v, np.ones(4), np.array([0, 0, 1, 1]), ci=0.9)
>>> [round(float(x), 4) for x in (lo[0], hi[0])]
[0.0, 1.0]
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from passhat.analytic import logit_t_interval

__all__ = ["cluster_logit_t_interval", "cluster_robust_se", "cluster_t_interval"]


def cluster_robust_se(
    values: ArrayLike, weights: ArrayLike, codes: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The weighted mean of each column and its CR1 cluster-robust standard error.

    Parameters
    ----------
    values : array_like, shape (T, C)
        Each task's estimate of each column (a 1-d array is one column).
    weights : array_like, shape (T,)
        Task weights (any positive scale).
    codes : array_like of int, shape (T,)
        Each task's cluster code 0 … G − 1 (every code used).

    Returns
    -------
    theta, se : ndarray, shape (C,)
        The weighted means and SE² = G / (G − 1) · Σ_g S_g² / (Σ w)²; NaN below 2 clusters.

    Examples
    --------
    >>> import numpy as np
    >>> theta, se = cluster_robust_se(np.array([0.0, 1.0, 1.0]), np.ones(3), np.arange(3))
    >>> round(float(se[0]), 4)   # one task per cluster: s / sqrt(T)
    0.3333
    """
    v = np.asarray(values, dtype=float)
    v = v[:, None] if v.ndim == 1 else v
    w = np.asarray(weights, dtype=float).ravel()
    g = np.asarray(codes, dtype=np.int64).ravel()
    total = w.sum()
    theta = w @ v / total
    n_cl = int(g.max()) + 1
    sums = np.zeros((n_cl, v.shape[1]))
    np.add.at(sums, g, w[:, None] * (v - theta))
    if n_cl < 2:
        return theta, np.full(v.shape[1], np.nan)
    return theta, np.sqrt(n_cl / (n_cl - 1) * np.sum(sums**2, axis=0)) / total


def cluster_t_interval(
    values: ArrayLike, weights: ArrayLike, codes: ArrayLike, *, ci: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """θ̂ ± t_{G−1} · SE (CR1), clipped to [0, 1], for each column.

    Parameters
    ----------
    values, weights, codes
        As for :func:`cluster_robust_se`.
    ci : float
        Confidence level.

    Returns
    -------
    lower, upper : ndarray, shape (C,)

    Examples
    --------
    >>> import numpy as np
    >>> lo, hi = cluster_t_interval([0.2, 0.4, 0.6], np.ones(3), [0, 1, 2], ci=0.9)
    >>> [round(float(x), 4) for x in (lo[0], hi[0])]   # 0.4 ± t_2 · 0.1155
    [0.0628, 0.7372]
    """
    theta, se = cluster_robust_se(values, weights, codes)
    return _linear_t(theta, se, int(np.max(np.asarray(codes))) + 1, ci=ci)


def _linear_t(
    theta: NDArray[np.float64], se: NDArray[np.float64], n_cl: int, *, ci: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """θ̂ ± t_{G−1} · SE clipped to [0, 1] (NaN below two clusters)."""
    q = float(special.stdtrit(n_cl - 1, 0.5 + ci / 2.0)) if n_cl >= 2 else float("nan")
    return np.clip(theta - q * se, 0.0, 1.0), np.clip(theta + q * se, 0.0, 1.0)


def cluster_logit_t_interval(
    values: ArrayLike, weights: ArrayLike, codes: ArrayLike, *, ci: float
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """The logit-t interval on the CR1 standard error with G − 1 degrees of freedom, and the
    linear :func:`cluster_t_interval` where it is undefined (θ̂ 0 or 1, SE 0).

    Parameters
    ----------
    values, weights, codes
        As for :func:`cluster_robust_se`.
    ci : float
        Confidence level.

    Returns
    -------
    lower, upper : ndarray, shape (C,)
    logit : ndarray of bool, shape (C,)
        Whether a column's interval is the logit-t one (else the linear t).

    Examples
    --------
    >>> import numpy as np
    >>> v = np.array([[0.2, 1.0], [0.4, 1.0], [0.6, 1.0]])
    >>> lo, hi, logit = cluster_logit_t_interval(v, np.ones(3), [0, 1, 2], ci=0.9)
    >>> [round(float(x), 4) for x in (lo[0], hi[0])], logit.tolist()
    ([0.1406, 0.7309], [True, False])
    >>> float(lo[1]), float(hi[1])
    (1.0, 1.0)
    """
    theta, se = cluster_robust_se(values, weights, codes)
    n_cl = int(np.max(np.asarray(codes))) + 1
    lo_t, hi_t = _linear_t(theta, se, n_cl, ci=ci)
    if n_cl < 2:
        return lo_t, hi_t, np.zeros(theta.size, dtype=bool)
    lo, hi = logit_t_interval(theta, se, float(n_cl - 1), ci=ci)
    logit = np.isfinite(lo) & np.isfinite(hi)
    return np.where(logit, lo, lo_t), np.where(logit, hi, hi_t), logit
