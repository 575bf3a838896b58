"""Per-task estimators of a run's pass rate, pass@k and pass^k corrected for grader error.

A grader that passes a truly passing run with probability se (its sensitivity) and fails a
truly failing run with probability sp (its specificity), independently of the task and of its
other labels (non-differential error), passes a run of a task whose true rate is p with
probability

    q = a·p + b,   a = se + sp − 1,   b = 1 − sp.

So p = (q − b) / a and, by the binomial theorem,

    p^k = a^{−k} Σ_{j=0..k} C(k, j) q^j (−b)^{k−j}.

With c grader passes among n runs, C(c, j) / C(n, j) is unbiased for q^j (j ≤ n), so the same
sum over those ratios is an unbiased estimate of p^k for known (se, sp) whenever k ≤ n.
pass@k = 1 − (1 − p)^k uses the failures: 1 − q = a·(1 − p) + (1 − se). With se = sp = 1 the
sums reduce to the usual unbiased estimators (:mod:`passhat.estimators`). The estimates are
unbiased, not bounded: a task's corrected value can lie below 0 or above 1.

Examples
--------
>>> import numpy as np
>>> float(corrected_pass_hat_k(5, 4, 2, sensitivity=1.0, specificity=1.0))
0.6
>>> round(float(corrected_mean(10, 6, sensitivity=0.9, specificity=0.8)), 4)
0.5714
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import comb

from passhat.estimators import subset_ratio

__all__ = [
    "corrected_mean",
    "corrected_pass_at_k",
    "corrected_pass_hat_k",
    "observed_powers",
    "power_weights",
]


def observed_powers(n: ArrayLike, c: ArrayLike, top: int) -> NDArray[np.float64]:
    """C(c, j) / C(n, j) for j = 0 … ``top`` (the unbiased estimates of q^j), on a last axis.

    Examples
    --------
    >>> observed_powers([5], [4], 2).tolist()
    [[1.0, 0.8, 0.6]]
    """
    n_a, c_a = np.broadcast_arrays(np.asarray(n, float), np.asarray(c, float))
    j = np.arange(top + 1, dtype=float)
    ratios = subset_ratio(c_a[..., None], n_a[..., None], np.maximum(j, 1.0))
    return np.where(j == 0, 1.0, ratios)


def power_weights(
    ks: Sequence[int], slope: ArrayLike, offset: ArrayLike, top: int
) -> NDArray[np.float64]:
    """Weights w[..., k, j] = a^{−k} C(k, j) (−b)^{k−j} (zero for j > k), for a = ``slope``
    and b = ``offset`` of any shape (the draws), k in ``ks`` and j = 0 … ``top``.

    Examples
    --------
    >>> power_weights([2], 1.0, 0.0, 2).tolist()
    [[0.0, 0.0, 1.0]]
    """
    a = np.asarray(slope, float)[..., None, None]
    b = np.asarray(offset, float)[..., None, None]
    k = np.asarray(ks, float)[:, None]
    j = np.arange(top + 1, dtype=float)[None, :]
    power = np.maximum(k - j, 0.0)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        w = comb(k, j) * np.power(-b, power) * np.power(a, -k)
    return np.where(j <= k, w, 0.0) + 0.0  # no -0.0


def _corrected(
    n: ArrayLike, hits: ArrayLike, k: ArrayLike, slope: float, offset: float
) -> NDArray[np.float64]:
    """a^{−k} Σ_j C(k, j) (−b)^{k−j} C(hits, j)/C(n, j), elementwise over n, hits and k."""
    n_a, h_a, k_a = np.broadcast_arrays(*(np.asarray(x, float) for x in (n, hits, k)))
    top = int(k_a.max(initial=0))
    ratios = observed_powers(n_a, h_a, top)
    j = np.arange(top + 1, dtype=float)
    kk = k_a[..., None]
    w = comb(kk, j) * np.power(-offset, np.maximum(kk - j, 0.0)) * np.power(slope, -kk)
    return np.asarray(np.sum(np.where(j <= kk, w * ratios, 0.0), axis=-1), dtype=float)[()]


def corrected_pass_hat_k(
    n: ArrayLike, c: ArrayLike, k: ArrayLike, *, sensitivity: float, specificity: float
) -> NDArray[np.float64]:
    """Unbiased pass^k of one task from c grader passes of n runs, for a grader of known
    ``sensitivity`` and ``specificity`` (non-differential error; k ≤ n; se + sp > 1).

    Examples
    --------
    >>> round(float(corrected_pass_hat_k(5, 4, 2, sensitivity=0.9, specificity=0.9)), 4)
    0.7031
    """
    a = sensitivity + specificity - 1.0
    return _corrected(n, c, k, a, 1.0 - specificity)


def corrected_pass_at_k(
    n: ArrayLike, c: ArrayLike, k: ArrayLike, *, sensitivity: float, specificity: float
) -> NDArray[np.float64]:
    """Unbiased pass@k = 1 − (1 − p)^k of one task, from the grader's n − c failures.

    Examples
    --------
    >>> float(corrected_pass_at_k(5, 4, 2, sensitivity=1.0, specificity=1.0))
    1.0
    """
    n_a, c_a = np.broadcast_arrays(np.asarray(n, float), np.asarray(c, float))
    a = sensitivity + specificity - 1.0
    return 1.0 - _corrected(n_a, n_a - c_a, k, a, 1.0 - sensitivity)


def corrected_mean(
    n: ArrayLike, c: ArrayLike, *, sensitivity: float, specificity: float
) -> NDArray[np.float64]:
    """The corrected pass rate (c/n − (1 − sp)) / (se + sp − 1) of one task (unbiased).

    Examples
    --------
    >>> float(corrected_mean(4, 2, sensitivity=1.0, specificity=1.0))
    0.5
    """
    return corrected_pass_hat_k(n, c, 1, sensitivity=sensitivity, specificity=specificity)
