"""Expected best and worst of k runs for scores in [0, 1]: unbiased order-statistic estimators.

A task whose runs score x₁ … xₙ in [0, 1] (a partial-credit grade, a fractional reward) has,
for a random k-subset of its runs, a best score max and a worst score min. Their expectations
over the task's score law are the natural generalisations of pass@k and pass^k: for 0/1
scores E[max of k] = 1 − (1 − p)^k = pass@k and E[min of k] = p^k = pass^k. The mean over
all C(n, k) subsets of the observed runs is the U-statistic, unbiased for them (Hoeffding
1948 [1]_); with the scores sorted x₍₁₎ ≤ … ≤ x₍ₙ₎ it is a weighted sum:

* worst of k: Σᵢ x₍ᵢ₎ C(n − i, k − 1) / C(n, k)   (x₍ᵢ₎ is the minimum of the subsets that
  hold it and k − 1 of the n − i runs above it);
* best of k:  Σᵢ x₍ᵢ₎ C(i − 1, k − 1) / C(n, k).

On 0/1 scores they are C(c, k)/C(n, k) and 1 − C(n − c, k)/C(n, k), today's estimators.
The weights are computed in log space (``gammaln``), so n may be large; tasks with the same
n form one matrix, so nothing loops over tasks.

Within-task variance (the benchmark scope's uncertainty), per task:

* **unbiased** where n ≥ 2k: Var U = E U² − θ², and θ² has the unbiased estimate Q, the mean
  of min(S₁)·min(S₂) over ordered pairs of disjoint k-subsets; so U² − Q is unbiased. With
  the scores sorted, the pairs whose minima sit at positions i < j number
  2·C(n − j, k − 1)·C(n − i − k, k − 1) among C(n, k)·C(n − k, k) — a product of a factor of
  i and a factor of j, so Q is a cumulative sum (O(n) per task). On 0/1 scores it is
  U² − C(c, 2k)/C(n, 2k), the estimate :func:`passhat.pass_hat_k_variance_estimate` gives.
* **jackknife** where k < n < 2k (no unbiased estimate exists there): (n − 1)/n Σⱼ (U₋ⱼ − Ū)²
  over the leave-one-run-out statistics, which is conservative in expectation (Efron and
  Stein 1981 [2]_: it overestimates the variance of the statistic on n − 1 runs, which is at
  least that on n runs for a U-statistic).
* **bound** where n = k (a single subset; nothing to estimate a spread from): 1/4, the largest
  variance of a score in [0, 1].

The best of k is 1 − (worst of k of 1 − x), so its variance is that of the worst of the
complements.

References
----------
.. [1] Hoeffding, W. (1948). A class of statistics with asymptotically normal distribution.
   *Annals of Mathematical Statistics*, 19(3), 293–325.
.. [2] Efron, B. and Stein, C. (1981). The jackknife estimate of variance. *Annals of
   Statistics*, 9(3), 586–596.

Examples
--------
>>> import numpy as np
>>> x = np.array([[0.2, 1.0, 0.5, 0.5]])
>>> round(float(worst_of_k(x, 2)[0]), 6), round(float(best_of_k(x, 2)[0]), 6)  # over 6 pairs
(0.35, 0.75)
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import gammaln

__all__ = [
    "VARIANCE_KINDS",
    "best_of_k",
    "order_weights",
    "variance_kind",
    "worst_of_k",
    "worst_of_k_variance",
]

#: How each task's within-task variance is estimated, by n against k (see the module docstring).
VARIANCE_KINDS = ("unbiased", "jackknife", "bound")


def _log_comb(a: NDArray[np.float64], b: int) -> NDArray[np.float64]:
    """log C(a, b) elementwise; −inf where a < b (an empty choice)."""
    ok = a >= b
    out = np.full(a.shape, -np.inf)
    aa = a[ok]
    out[ok] = gammaln(aa + 1) - gammaln(b + 1) - gammaln(aa - b + 1)
    return out


def order_weights(n: int, k: int, kind: Literal["worst", "best"]) -> NDArray[np.float64]:
    """The weights of the ascending scores x₍₁₎ … x₍ₙ₎ in the worst (or best) of k.

    worst: C(n − i, k − 1)/C(n, k); best: C(i − 1, k − 1)/C(n, k) (i = 1 … n). They sum to 1.

    Examples
    --------
    >>> order_weights(4, 2, "worst").round(6).tolist()
    [0.5, 0.333333, 0.166667, 0.0]
    >>> bool(np.allclose(order_weights(4, 2, "best")[::-1], order_weights(4, 2, "worst")))
    True
    """
    if not 1 <= k <= n:
        raise ValueError(f"k must lie in 1 … n (got k = {k}, n = {n})")
    i = np.arange(1, n + 1, dtype=float)
    above = n - i if kind == "worst" else i - 1
    total = gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)
    return np.exp(_log_comb(above, k - 1) - total)


def worst_of_k(x: ArrayLike, k: int) -> NDArray[np.float64]:
    """Unbiased expected worst (minimum) of k runs per row of scores (tasks × n runs).

    Examples
    --------
    >>> worst_of_k([[1.0, 0.0, 1.0, 1.0]], 2).round(12).tolist()  # 0/1: C(3, 2)/C(4, 2)
    [0.5]
    """
    xs = np.sort(np.asarray(x, dtype=float), axis=-1)
    return np.asarray(xs @ order_weights(xs.shape[-1], k, "worst"), dtype=float)


def best_of_k(x: ArrayLike, k: int) -> NDArray[np.float64]:
    """Unbiased expected best (maximum) of k runs per row of scores (tasks × n runs).

    Examples
    --------
    >>> best_of_k([[1.0, 0.0, 0.0, 0.0]], 2).round(12).tolist()  # 0/1: 1 − C(3, 2)/C(4, 2)
    [0.5]
    """
    xs = np.sort(np.asarray(x, dtype=float), axis=-1)
    return np.asarray(xs @ order_weights(xs.shape[-1], k, "best"), dtype=float)


def variance_kind(n: int, k: int) -> str:
    """Which within-task variance estimate a task with n runs gets at this k.

    Examples
    --------
    >>> [variance_kind(n, 3) for n in (3, 5, 6)]
    ['bound', 'jackknife', 'unbiased']
    """
    return "unbiased" if n >= 2 * k else ("jackknife" if n > k else "bound")


def _pair_mean_of_minima(xs: NDArray[np.float64], k: int) -> NDArray[np.float64]:
    """Q: the mean of min(S₁)·min(S₂) over ordered pairs of disjoint k-subsets (n ≥ 2k),
    from ascending rows. Unbiased for θ², θ the expected minimum of k."""
    n = xs.shape[-1]
    i = np.arange(1, n + 1, dtype=float)
    log_total = (gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)) + (
        gammaln(n - k + 1) - gammaln(k + 1) - gammaln(n - 2 * k + 1)
    )
    # 2·C(n − j, k − 1)·C(n − i − k, k − 1) / total, split as a(j)·b(i) with half the total each
    a = np.exp(_log_comb(n - i, k - 1) - log_total / 2)
    b = np.exp(_log_comb(n - i - k, k - 1) - log_total / 2)
    below = np.cumsum(xs * b, axis=-1) - xs * b  # Σ_{i<j} b_i x_i
    return np.asarray(2.0 * np.sum(xs * a * below, axis=-1), dtype=float)


def _jackknife_variance(xs: NDArray[np.float64], k: int) -> NDArray[np.float64]:
    """The jackknife variance of the worst of k from ascending rows (n > k): leaving out run j
    shifts the ranks above it down by one, so U₋ⱼ = Σ_{i<j} x₍ᵢ₎ C(n−1−i, k−1)/C(n−1, k) +
    Σ_{i>j} x₍ᵢ₎ C(n−i, k−1)/C(n−1, k), two cumulative sums."""
    n = xs.shape[-1]
    i = np.arange(1, n + 1, dtype=float)
    log_total = gammaln(n) - gammaln(k + 1) - gammaln(n - k)
    below_w = np.exp(_log_comb(n - 1 - i, k - 1) - log_total)
    above_w = np.exp(_log_comb(n - i, k - 1) - log_total)
    lo = np.cumsum(xs * below_w, axis=-1) - xs * below_w
    hi = np.cumsum((xs * above_w)[..., ::-1], axis=-1)[..., ::-1] - xs * above_w
    loo = lo + hi
    dev = loo - loo.mean(axis=-1, keepdims=True)
    return np.asarray((n - 1) / n * np.sum(dev**2, axis=-1), dtype=float)


def worst_of_k_variance(x: ArrayLike, k: int) -> NDArray[np.float64]:
    """Estimated within-task variance of :func:`worst_of_k` per row (see the module docstring:
    unbiased where n ≥ 2k, the jackknife where k < n < 2k, 1/4 where n = k). For the best of
    k pass 1 − x.

    Examples
    --------
    >>> import passhat as ph
    >>> x = np.array([[1.0] * 7 + [0.0] * 3])  # 0/1: today's unbiased estimate
    >>> bool(np.isclose(worst_of_k_variance(x, 2)[0], ph.pass_hat_k_variance_estimate(10, 7, 2)))
    True
    """
    xs = np.sort(np.asarray(x, dtype=float), axis=-1)
    n = xs.shape[-1]
    kind = variance_kind(n, k)
    if kind == "unbiased":
        u = xs @ order_weights(n, k, "worst")
        return np.asarray(u * u - _pair_mean_of_minima(xs, k), dtype=float)
    if kind == "jackknife":
        return _jackknife_variance(xs, k)
    return np.full(xs.shape[:-1], 0.25)
