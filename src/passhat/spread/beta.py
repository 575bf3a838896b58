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

from passhat._validate import check_k
from passhat.errors import OptionError

__all__ = [
    "beta_gap_concentration",
    "beta_mixed_share",
    "beta_moment",
    "impossible",
    "solve_beta_kappa",
    "unexplained_reason",
]


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
    # one run is never mixed: exactly 0, not the 1e-16 the subtraction leaves (printed as
    # 0.000000000000% by pct, which widens a share in (0, 1) until it is not 0)
    share = np.where(np.asarray(n) <= 1, 0.0, share)
    return np.asarray(np.clip(share, 0.0, 1.0), dtype=float)


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
        with np.errstate(divide="ignore"):  # E[p^k] underflows to 0 at huge k: log -inf
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


def impossible(mean: float, pass_hat_k: float, k: int) -> bool:
    """Whether no set of tasks can have this (mean, pass^k) pair.

    pass^k ≤ mean for every task (p^k ≤ p), so pass^k > mean is impossible;
    at k = 1, pass^1 is the mean, so any other value is impossible.

    Examples
    --------
    >>> from passhat.spread.beta import impossible
    >>> impossible(0.5, 0.9, 5), impossible(0.5, 0.01, 5), impossible(0.5, 0.4, 1)
    (True, False, True)
    """
    if pass_hat_k > mean * (1 + 1e-12) + 1e-15:
        return True
    return k == 1 and not math.isclose(pass_hat_k, mean, rel_tol=1e-12, abs_tol=1e-15)


def unexplained_reason(mean: float, pass_hat_k: float, k: int) -> str:
    """Why no Beta spread of task rates explains the pair, or "" when one does."""
    if not 0.0 < mean < 1.0:
        return f"mean {mean:g} is not strictly between 0 and 1: no spread to explain"
    if k < 2:
        if impossible(mean, pass_hat_k, k):
            return (
                f"k = 1: pass^1 is the mean, so pass^1 = {pass_hat_k:.4g} against mean = "
                f"{mean:.4g} is impossible; check the pair"
            )
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


#: Bisection, then regula-falsi steps of :func:`beta_gap_concentration`.
_BISECTION_STEPS = 8
_ILLINOIS_STEPS = 10


def beta_gap_concentration(
    mean: ArrayLike, kappa: ArrayLike, k: int, level: ArrayLike
) -> NDArray[np.float64]:
    """Share of tasks, ranked by their gap p − p^k, that carry ``level`` of E[p − p^k].

    For task rates p ~ Beta(a, b) (a = μκ, b = (1 − μ)κ) a task's share of
    the gap mean − pass^k is g(p) = p − p^k. g rises from 0 at p = 0 to its
    peak at p* = k^(−1/(k−1)) and falls back to 0 at p = 1, so the tasks
    with the largest gaps are those with p in an interval [l, u] around p*
    with g(l) = g(u). Their share of the gap is
    [G(u) − G(l)] / E g(p) with G(x) = μ I_x(a + 1, b) − E[p^k] I_x(a + k, b)
    (I the regularised incomplete beta function), and their share of tasks
    is I_u(a, b) − I_l(a, b). ``l`` is found by bisection then regula falsi (Illinois), ``u``
    from ``l`` by Newton's method on the falling side of g (concave, so the
    steps from u = 1 approach the root monotonically).

    The limits: κ = inf (every task at μ, all gaps equal) gives ``level``
    itself, the largest possible value (tasks sorted by gap carry at least
    their share of it); κ = 0 or μ ∈ {0, 1} (no gap) gives NaN.

    Parameters
    ----------
    mean, kappa : array_like
        μ and κ (broadcast together, e.g. posterior draws).
    k : int
        k ≥ 2.
    level : array_like
        Share of the gap, in (0, 1].

    Returns
    -------
    ndarray
        Share of tasks, in (0, level].

    References
    ----------
    Checked against brute force (sorting g(p) of 2·10⁶ Beta draws) in
    ``tests/spread/test_spread_beta.py``.

    Examples
    --------
    >>> from passhat.spread import beta_gap_concentration
    >>> round(float(beta_gap_concentration(0.7, 2.0, 5, 0.8)), 3)   # 56% of tasks carry 80%
    0.561
    >>> float(beta_gap_concentration(0.7, float("inf"), 5, 0.8))    # all tasks alike
    0.8
    """
    kk = check_k(k, minimum=2)
    mu, kap, lev = np.broadcast_arrays(
        np.asarray(mean, float), np.asarray(kappa, float), np.asarray(level, float)
    )
    if np.any((lev <= 0) | (lev > 1)):
        raise OptionError("level must lie in (0, 1]")
    out = np.full(mu.shape, np.nan)
    homog = np.isinf(kap) & (mu > 0) & (mu < 1)
    out[homog] = lev[homog]
    ok = np.isfinite(kap) & (kap > 0) & (mu > 0) & (mu < 1)
    if not np.any(ok):
        return out
    m, kp, lv = mu[ok], kap[ok], lev[ok]
    a, b = m * kp, (1.0 - m) * kp
    mk = beta_moment(m, kp, kk)
    eg = m - mk
    pstar = kk ** (-1.0 / (kk - 1))

    def gap(p: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.asarray(p - p**kk, dtype=float)

    def upper_of(lo_pt: NDArray[np.float64]) -> NDArray[np.float64]:
        # g is concave and falls on [p*, 1]: Newton from u = 1 stays right of the root and
        # converges to it monotonically
        target = gap(lo_pt)
        u = np.ones(lo_pt.shape)
        for _ in range(30):
            slope = 1.0 - kk * u ** (kk - 1)
            step = np.where(slope < 0, (gap(u) - target) / np.where(slope < 0, slope, -1.0), 0.0)
            u = np.clip(u - step, pstar, 1.0)
        return u

    def cum_gap(x: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.asarray(m * special.betainc(a + 1, b, x) - mk * special.betainc(a + kk, b, x))

    def excess(x: NDArray[np.float64]) -> NDArray[np.float64]:
        # share of the gap on [x, u(x)] minus the level: falls from 1 − level at x = 0 to
        # −level at x = p*
        return np.asarray((cum_gap(upper_of(x)) - cum_gap(x)) / eg - lv)

    lo = np.zeros(m.shape)
    hi = np.full(m.shape, pstar)
    f_lo, f_hi = 1.0 - lv, -lv
    side = np.zeros(m.shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        for _ in range(_BISECTION_STEPS):  # narrow the bracket first: robust at any level
            x = 0.5 * (lo + hi)
            fx = excess(x)
            up = fx > 0
            lo, f_lo = np.where(up, x, lo), np.where(up, fx, f_lo)
            hi, f_hi = np.where(up, hi, x), np.where(up, f_hi, fx)
        for _ in range(_ILLINOIS_STEPS):  # regula falsi, Illinois variant: brackets the root
            x = np.where(f_hi != f_lo, (lo * f_hi - hi * f_lo) / (f_hi - f_lo), lo)
            fx = excess(x)
            up = fx > 0  # [x, u(x)] still holds more than the level: raise the lower end
            lo, f_lo = np.where(up, x, lo), np.where(up, fx, f_lo)
            hi, f_hi = np.where(up, hi, x), np.where(up, f_hi, fx)
            f_hi = np.where(up & (side > 0), 0.5 * f_hi, f_hi)
            f_lo = np.where(~up & (side < 0), 0.5 * f_lo, f_lo)
            side = np.where(up, 1.0, -1.0)
        l_pt = np.where(np.abs(f_lo) < np.abs(f_hi), lo, hi)
        u_pt = upper_of(l_pt)
        got = special.betainc(a, b, u_pt) - special.betainc(a, b, l_pt)
    out[ok] = np.where(eg > 0, np.minimum(got, lv), np.nan)
    return out
