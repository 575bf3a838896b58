"""Beta algebra of task rates: moments E[p^k], the share of mixed tasks, κ from (mean, pass^k).

Examples
--------
>>> from passhat.spread.beta import beta_moment
>>> round(float(beta_moment(0.5, 2.0, 2)), 4)   # a = b = 1: E p² = 1/3
0.3333
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize, special

from passhat.errors import OptionError

__all__ = ["beta_mixed_share", "beta_moment", "solve_beta_kappa", "unexplained_reason"]


def beta_moment(mean: ArrayLike, kappa: ArrayLike, k: ArrayLike) -> NDArray[np.float64]:
    """E[p^k] for p ~ Beta(μκ, (1 − μ)κ): Π_{j<k} (μκ + j)/(κ + j).

    Computed as B(a + k, b)/B(a, b) in log space; κ = inf gives μ^k and
    κ = 0 gives μ (the limits).

    Examples
    --------
    >>> from passhat.spread import beta_moment
    >>> round(float(beta_moment(0.5, 2.0, 2)), 4)   # a = b = 1: E[p²] = 1/3
    0.3333
    """
    mu, kap, kk = np.broadcast_arrays(
        np.asarray(mean, float), np.asarray(kappa, float), np.asarray(k, float)
    )
    out = np.empty(mu.shape)
    inf = np.isinf(kap)
    zero = kap == 0
    mid = ~inf & ~zero
    out[inf] = np.power(mu[inf], kk[inf])
    out[zero] = np.where(kk[zero] == 0, 1.0, mu[zero])
    if np.any(mid):
        a = mu[mid] * kap[mid]
        b = (1.0 - mu[mid]) * kap[mid]
        with np.errstate(divide="ignore", invalid="ignore"):
            lm = (
                special.gammaln(a + kk[mid])
                - special.gammaln(a)
                + special.gammaln(kap[mid])
                - special.gammaln(kap[mid] + kk[mid])
            )
        val = np.exp(lm)
        val = np.where(a == 0, np.where(kk[mid] == 0, 1.0, 0.0), val)
        out[mid] = np.where(b == 0, 1.0, val)
    return out


def beta_mixed_share(mean: ArrayLike, kappa: ArrayLike, n: ArrayLike) -> NDArray[np.float64]:
    """Expected share of tasks with mixed outcomes in n runs: 1 − E[p^n] − E[(1 − p)^n].

    Examples
    --------
    >>> from passhat.spread import beta_mixed_share
    >>> round(float(beta_mixed_share(0.5, float("inf"), 5)), 4)   # every task at 0.5
    0.9375
    """
    mu = np.asarray(mean, float)
    share = 1.0 - beta_moment(mu, kappa, n) - beta_moment(1.0 - mu, kappa, n)
    return np.clip(share, 0.0, 1.0)  # n = 1 gives 0 up to rounding


def solve_beta_kappa(mean: float, pass_hat_k: float, k: int) -> float:
    """The κ with E[p^k] = pass^k for p ~ Beta(μκ, (1 − μ)κ), μ = mean.

    E[p^k] falls strictly in κ, so the root is unique when μ^k < pass^k < μ;
    it is found by Brent's method on log κ. The end points are the limits:
    pass^k = μ gives κ = 0 (every task all-pass or all-fail, ICC 1) and
    pass^k = μ^k gives κ = inf (every task at μ, ICC 0).

    Raises
    ------
    OptionError
        When the pair lies outside (μ^k, μ) or k < 2 (no Beta explains it).

    Examples
    --------
    >>> from passhat.spread import solve_beta_kappa
    >>> round(solve_beta_kappa(0.5, 1 / 3, 2), 6)   # Beta(1, 1)
    2.0
    """
    reason = unexplained_reason(mean, pass_hat_k, k)
    if reason:
        raise OptionError(reason)
    if math.isclose(pass_hat_k, mean, rel_tol=1e-12, abs_tol=1e-15):
        return 0.0
    if math.isclose(pass_hat_k, mean**k, rel_tol=1e-12, abs_tol=1e-15):
        return math.inf

    def f(logk: float) -> float:
        return float(np.log(beta_moment(mean, math.exp(logk), k)) - math.log(pass_hat_k))

    lo, hi = -10.0, 10.0
    while f(lo) < 0:
        lo -= 10.0
        if lo < -700:
            raise OptionError("pass^k is too close to the mean to solve for κ")
    while f(hi) > 0:
        hi += 10.0
        if hi > 700:
            raise OptionError("pass^k is too close to mean^k to solve for κ")
    return math.exp(optimize.brentq(f, lo, hi, xtol=1e-12, rtol=1e-12))


def unexplained_reason(mean: float, pass_hat_k: float, k: int) -> str:
    if not 0.0 < mean < 1.0:
        return f"mean {mean:g} is not strictly between 0 and 1: no spread to explain"
    if k < 2:
        return "k = 1: pass^1 equals the mean, so the pair says nothing about the spread"
    if pass_hat_k > mean * (1 + 1e-12):
        return (
            f"pass^{k} = {pass_hat_k:.4g} > mean = {mean:.4g}: impossible for any tasks "
            "(pass^k ≤ mean always); check the pair"
        )
    if pass_hat_k < mean**k * (1 - 1e-12):
        return (
            f"pass^{k} = {pass_hat_k:.4g} ≤ mean^{k} = {mean**k:.4g}: below the uniform "
            "reference, which no Beta spread of task rates gives (runs within a task would "
            "have to be negatively dependent, or the pair is inconsistent)"
        )
    return ""
