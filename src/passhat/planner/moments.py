"""Exact moments of the planner's two-level model: metric values, task spread, estimator variance.

Under p ~ Beta(a, b) and c | p ~ Binomial(n, p), the unbiased per-task
estimator U of the mean, pass@k or pass^k has Var U = E Var(U | p) (within
the task) + Var g(p) (spread between tasks), both in closed form from the Beta
moments E p^m = B(a + m, b) / B(a, b). :func:`~passhat.planner.design` and
:func:`~passhat.planner.power` build on these; the simulations use the same
metric g(p) and estimator U(c).

Examples
--------
>>> from passhat.planner import estimator_moments, population_value
>>> round(population_value(2.0, 2.0, 2, "pass_hat_k"), 4)
0.3
>>> m, v = estimator_moments([4], 2.0, 2.0, 2)["pass_hat_k"]
>>> round(float(m[0]), 4), bool(v[0] > 0)
(0.3, True)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from scipy import special

from passhat._validate import check_k
from passhat.estimators import subset_overlap_weights, subset_ratio

__all__ = ["estimator_moments", "population_value"]


def _beta_moment(a: float, b: float, m: NDArray[np.float64] | float) -> NDArray[np.float64]:
    """E[p^m] for p ~ Beta(a, b)."""
    return np.exp(special.betaln(a + np.asarray(m, float), b) - special.betaln(a, b))


def population_value(a: float, b: float, k: int, metric: str) -> float:
    """E[g(p)] for p ~ Beta(a, b): the population mean, pass@k or pass^k.

    Examples
    --------
    >>> from passhat.planner import population_value
    >>> round(population_value(1.0, 1.0, 3, "pass_hat_k"), 4)  # E p^3 for p ~ Uniform(0, 1)
    0.25
    """
    k = check_k(k)
    if metric == "mean":
        return a / (a + b)
    if metric == "pass_hat_k":
        return float(_beta_moment(a, b, k))
    return float(1 - _beta_moment(b, a, k))


def _task_spread_var(a: float, b: float, k: int, metric: str) -> float:
    """Var[g(p)] for p ~ Beta(a, b) (the between-task variance)."""
    if metric == "mean":
        s = a + b
        return a * b / (s * s * (s + 1))
    x, y = (a, b) if metric == "pass_hat_k" else (b, a)
    return float(_beta_moment(x, y, 2 * k) - _beta_moment(x, y, k) ** 2)


def estimator_moments(
    ns: Sequence[int] | NDArray[np.int64], a: float, b: float, k: int
) -> dict[str, tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """Mean and variance of the unbiased per-task estimators over c ~ BetaBinomial(n, a, b).

    Exact, in closed form: the estimator U is unbiased given p, so
    Var U = E Var(U | p) + Var g(p), with
    Var(U | p) = Σ_{j=1..k} h_j(n) (p^{2k−j} − p^{2k}) (h_j: the chance that two
    random k-subsets of n runs share j, :func:`passhat.pass_hat_k_variance`) and
    the Beta moments E p^m = B(a + m, b) / B(a, b). pass@k is pass^k of the
    failures (a and b swapped); the mean is k = 1. The cost is O(k) per n,
    so designs with thousands of runs per task stay cheap. (The tests check it
    against enumerating the BetaBinomial pmf with scipy.)

    References
    ----------
    .. [1] W. Hoeffding, "A class of statistics with asymptotically normal distribution",
       *Annals of Mathematical Statistics* 19(3), 293–325 (1948): the variance of a
       U-statistic as a sum over the overlap j of two kernel subsets.

    Returns
    -------
    dict metric -> (mean, variance), arrays over ``ns``.

    Examples
    --------
    >>> from passhat.planner import estimator_moments
    >>> m, v = estimator_moments([4], 2.0, 2.0, 1)["mean"]
    >>> round(float(m[0]), 6)
    0.5
    """
    k = check_k(k)
    n_arr = np.asarray(ns, dtype=float)
    out: dict[str, tuple[NDArray[np.float64], NDArray[np.float64]]] = {}
    for name, kk, (x, y) in (
        ("mean", 1, (a, b)),
        ("pass_hat_k", k, (a, b)),
        ("pass_at_k", k, (b, a)),
    ):
        h = subset_overlap_weights(n_arr, kk)  # (len(ns), kk)
        j = np.arange(1, kk + 1, dtype=float)
        m2k = _beta_moment(x, y, 2 * kk)
        within = h @ (_beta_moment(x, y, 2 * kk - j) - m2k)
        spread = float(m2k - _beta_moment(x, y, kk) ** 2)
        mean = float(_beta_moment(x, y, kk))
        if name == "pass_at_k":
            mean = 1.0 - mean
        out[name] = (np.full(n_arr.shape, mean), np.maximum(within, 0.0) + spread)
    return out


def _g(p: NDArray[np.float64], k: int, metric: str) -> NDArray[np.float64]:
    """The metric of a task with success rate p: p, 1 − (1 − p)^k or p^k."""
    if metric == "mean":
        return p
    if metric == "pass_hat_k":
        return np.power(p, k)
    return 1 - np.power(1 - p, k)


def _estimator(c: NDArray[np.float64], n: int, k: int, metric: str) -> NDArray[np.float64]:
    """The unbiased per-task estimator of the metric from c successes in n runs."""
    if metric == "mean":
        return c / n
    if metric == "pass_hat_k":
        return subset_ratio(c, float(n), k)
    return 1.0 - subset_ratio(n - c, float(n), k)
