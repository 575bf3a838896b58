"""E-values and confidence sequences for a bounded mean from a mixture of constant bets.

The engine of the anytime-valid gates (:func:`passhat.plan.sequential`). Observations
x take values in a known range [lo, hi]; each carries a scale c ≥ 0 (a task's weight ×
number of tasks; 1 when tasks count equally). To test "the mean is ≤ m" a gambler starts
with wealth 1 and, on every observation, multiplies it by 1 + λ c (x − m) for a bet λ
fixed in advance; to test "the mean is ≥ m", by 1 + λ c (m − x). When the null holds,
the expected factor is ≤ 1, so the wealth is a nonnegative supermartingale and, by
Ville's inequality, it ever reaches 1/α with probability at most α — however often it is
looked at and whenever the looking stops [1]_ [2]_.

The e-value is the average wealth over :data:`GRID` constant bets λ_g = u_g λ_max,
u_g = sin²θ_g with θ_g evenly spaced on (0, π/2) (an arcsine prior: weight both near the
all-in bet, which certifies clean runs fastest, and near small bets, which detect small
effects over long streams); λ_max keeps every factor ≥ 0. An average of supermartingales
is one, so the guarantee holds exactly for this discrete mixture — it does not rest on a
quadrature being accurate. For binary x and equal scales the mixture is a discretised
one-sided Beta-Binomial mixture martingale [3]_. Because each bet is constant, the
wealth depends only on how many observations took each (value, scale): the cost is
``GRID`` × the number of distinct pairs, not the number of observations.

Why tasks that differ still give a valid test (the gate's rounds): if one round holds one
observation of each of T tasks with means μ_i and the bets are constant within the round,
the round's expected factor is Π_i (1 + λ c_i (μ_i − m)) ≤ (1 + λ (Σ_i c_i μ_i / T −
m))^T by the inequality of arithmetic and geometric means (every factor ≥ 0), which is ≤ 1
whenever the weighted mean Σ w_i μ_i (w_i = c_i / T) is ≤ m. So at the end of every complete
round the wealth is a supermartingale for the benchmark mean over these tasks, though the
tasks' own means differ and the runs of a task share its rate.

References
----------
.. [1] I. Waudby-Smith and A. Ramdas, "Estimating means of bounded random variables by
   betting", *J. R. Stat. Soc. B* 86(1), 1–27 (2024; arXiv 2010.09686, 2020).
.. [2] J. Ville, *Étude critique de la notion de collectif*, Gauthier-Villars (1939).
.. [3] H. Robbins, "Statistical methods related to the law of the iterated logarithm",
   *Ann. Math. Statist.* 41(5), 1397–1409 (1970).

Examples
--------
Thirty clean runs against "the failure rate is ≥ 20%" (x = 1 for a failure):

>>> import numpy as np
>>> e = log_evalue([0.0, 1.0], [30, 0], null=0.2, side="below")
>>> round(float(np.exp(e)), 1)
193.1
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import logsumexp

__all__ = [
    "GRID",
    "Side",
    "bounds",
    "failure_boundary",
    "further_steps",
    "log_evalue",
    "log_evalue_path",
]

#: Number of constant bets in the mixture.
GRID = 2000
_THETA = (np.arange(GRID) + 0.5) * (math.pi / 2) / GRID
#: The bets as fractions u of the largest allowed bet (arcsine-distributed on (0, 1)).
FRACTIONS: NDArray[np.float64] = np.sin(_THETA) ** 2

#: "above": evidence that the mean exceeds the null (the null says mean ≤ m);
#: "below": evidence that the mean lies under it (the null says mean ≥ m).
Side = Literal["above", "below"]


def _slopes(
    values: NDArray[np.float64],
    scale: NDArray[np.float64],
    null: float,
    side: Side,
    lo: float,
    hi: float,
) -> NDArray[np.float64]:
    """log(1 + u_g a_j) for every bet g and observation kind j: shape (J, GRID)."""
    cmax = float(scale.max()) if scale.size else 1.0
    if cmax <= 0:
        cmax = 1.0
    if side == "above":
        a = scale * (values - null) / (cmax * (null - lo))
    else:
        a = scale * (null - values) / (cmax * (hi - null))
    a = np.maximum(a, -1.0)  # rounding: a factor never goes below 0
    return np.log1p(np.outer(a, FRACTIONS))


def _check(
    values: ArrayLike, scale: ArrayLike | None, null: float, lo: float, hi: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    v = np.asarray(values, dtype=float).ravel()
    s = np.ones_like(v) if scale is None else np.asarray(scale, dtype=float).ravel()
    if s.shape != v.shape:
        raise ValueError("values and scale must have the same length")
    if not lo < null < hi:
        raise ValueError(f"the null mean must lie strictly inside ({lo}, {hi}) (got {null})")
    if v.size and (v.min() < lo or v.max() > hi):
        raise ValueError(f"values must lie in [{lo}, {hi}]")
    return v, s


def log_evalue(
    values: ArrayLike,
    counts: ArrayLike,
    *,
    null: float,
    side: Side,
    scale: ArrayLike | None = None,
    lo: float = 0.0,
    hi: float = 1.0,
) -> float:
    """Log e-value of the mixture of constant bets against a null mean.

    Parameters
    ----------
    values : array of J floats in [lo, hi]
        The kinds of observation (e.g. 0 = pass, 1 = fail).
    counts : array of J numbers ≥ 0
        How many observations of each kind (fractions allowed: projections).
    null : float in (lo, hi)
        The mean m the null is about.
    side : "above" or "below"
        ``"above"`` tests H0: mean ≤ m (a large e-value says the mean exceeds m);
        ``"below"`` tests H0: mean ≥ m.
    scale : array of J floats ≥ 0, optional
        Each kind's scale c (a task's weight × number of tasks); 1 by default.
    lo, hi : float
        The range every observation lies in.

    Returns
    -------
    float
        log of the e-value; the null is rejected at level α when it is ≥ log(1/α).

    Examples
    --------
    >>> import numpy as np
    >>> round(float(np.exp(log_evalue([0, 1], [10, 10], null=0.5, side="above"))), 3)
    0.339
    """
    v, s = _check(values, scale, null, lo, hi)
    n = np.asarray(counts, dtype=float).ravel()
    if n.shape != v.shape:
        raise ValueError("values and counts must have the same length")
    logs = n @ _slopes(v, s, null, side, lo, hi)
    return float(logsumexp(logs) - math.log(GRID))


def log_evalue_path(
    values: ArrayLike,
    counts: ArrayLike,
    *,
    null: float,
    side: Side,
    scale: ArrayLike | None = None,
    lo: float = 0.0,
    hi: float = 1.0,
    chunk: int = 2048,
) -> NDArray[np.float64]:
    """Log e-values of many count vectors at once (e.g. after every round of many paths).

    ``counts`` has shape (..., J); the result has shape (...). Used by the studies
    and tests that check the gate after every run.

    Examples
    --------
    >>> path = log_evalue_path([0, 1], [[10, 0], [20, 0], [30, 0]], null=0.2, side="below")
    >>> [round(float(x), 2) for x in path]
    [1.43, 3.26, 5.26]
    """
    v, s = _check(values, scale, null, lo, hi)
    n = np.asarray(counts, dtype=float)
    if n.shape[-1] != v.size:
        raise ValueError("the last axis of counts must match values")
    slopes = _slopes(v, s, null, side, lo, hi)
    flat = n.reshape(-1, v.size)
    out = np.empty(flat.shape[0])
    for i in range(0, flat.shape[0], chunk):
        out[i : i + chunk] = logsumexp(flat[i : i + chunk] @ slopes, axis=1)
    return (out - math.log(GRID)).reshape(n.shape[:-1])


def failure_boundary(
    n_max: int | ArrayLike, *, null: float, side: Side, alpha: float
) -> NDArray[np.int64]:
    """For binary observations (1 = failure), the failure counts that decide after n of them.

    ``side="below"`` (evidence that the failure rate is under ``null``): for every n in
    0 … n_max (or every n of an array), the most failures s whose e-value still reaches
    1/α (−1 when none does); the e-value falls as s grows, so "pass" ⇔ failures ≤
    boundary. ``side="above"``: the fewest failures that reach 1/α (n + 1 when none
    does). Equal scales. Found by a bisection over s, vectorised over n.

    Examples
    --------
    >>> failure_boundary(100, null=0.05, side="below", alpha=0.05)[[81, 82, 100]].tolist()
    [-1, 0, 0]
    """
    if np.ndim(n_max) == 0:
        n = np.arange(int(n_max) + 1)  # type: ignore[arg-type]
    else:
        n = np.asarray(n_max, dtype=np.int64)
    target = math.log(1 / alpha)
    lo = np.full(n.size, -1)  # "below": ok at lo (virtually), not ok at hi
    hi = n + 1
    while np.any(hi - lo > 1):
        mid = (lo + hi) // 2
        mid_c = np.clip(mid, 0, n)
        le = log_evalue_path([0.0, 1.0], np.stack([n - mid_c, mid_c], axis=1), null=null, side=side)
        active = hi - lo > 1
        up = active & ((le >= target) == (side == "below"))  # move lo up to mid
        lo = np.where(up, mid, lo)
        hi = np.where(active & ~up, mid, hi)
    return (lo if side == "below" else hi).astype(np.int64)


def bounds(
    values: ArrayLike,
    counts: ArrayLike,
    *,
    alpha: float,
    scale: ArrayLike | None = None,
    lo: float = 0.0,
    hi: float = 1.0,
    tol: float = 1e-7,
) -> tuple[float, float]:
    """The confidence sequence's bounds on the mean: each side holds with probability ≥ 1 − α.

    ``upper`` is the smallest m whose "below" e-value reaches 1/α (every larger mean is
    rejected), ``lower`` the largest m whose "above" e-value reaches 1/α. Both e-values
    are monotone in m (each bet's factor is), so bisection finds the crossing; the
    bounds are rounded outwards to ``tol``.

    Examples
    --------
    >>> lower, upper = bounds([0, 1], [30, 0], alpha=0.05)
    >>> round(lower, 4), round(upper, 3)
    (0.0, 0.13)
    """
    v, s = _check(values, scale, 0.5 * (lo + hi), lo, hi)
    n = np.asarray(counts, dtype=float).ravel()
    target = math.log(1 / alpha)

    def crossing(side: Side) -> float:
        # "below": e rises with m; "above": e falls with m.
        a, b = lo, hi
        while b - a > tol * (hi - lo):
            m = 0.5 * (a + b)
            rejected = log_evalue(v, n, null=m, side=side, scale=s, lo=lo, hi=hi) >= target
            if side == "below":
                a, b = (a, m) if rejected else (m, b)
            else:
                a, b = (m, b) if rejected else (a, m)
        return b if side == "below" else a

    return crossing("above"), crossing("below")


def further_steps(
    values: ArrayLike,
    counts: ArrayLike,
    per_step: ArrayLike,
    *,
    null: float,
    sides: Sequence[Side] = ("above", "below"),
    alpha: float,
    scale: ArrayLike | None = None,
    lo: float = 0.0,
    hi: float = 1.0,
    cap: float = 1e9,
) -> tuple[int | None, Side | None]:
    """Steps until an e-value reaches 1/α if every step adds ``per_step`` observations.

    The projection "if the data keep arriving at the current rates": each further step
    (a round) adds ``per_step[j]`` observations of kind j. As a function of the number of
    steps r, each bet's log wealth is linear, so the log e-value (a log-sum-exp of them)
    is convex in r and crosses 1/α upwards at most once after a point below it; bisection
    finds that r. Returns the smallest whole r and the side that reaches 1/α first, or
    ``(None, None)`` when neither does within ``cap`` steps (the current estimate sits on
    the null, or drifts away from both sides).

    Examples
    --------
    >>> further_steps([0, 1], [0, 0], [1, 0], null=0.05, alpha=0.05)   # clean runs
    (82, 'below')
    """
    v, s = _check(values, scale, null, lo, hi)
    n0 = np.asarray(counts, dtype=float).ravel()
    d = np.asarray(per_step, dtype=float).ravel()
    target = math.log(1 / alpha)
    best: tuple[int | None, Side | None] = (None, None)
    for side in sides:
        slopes = _slopes(v, s, null, side, lo, hi)
        base, drift = n0 @ slopes, d @ slopes
        if drift.max() <= 0:
            continue

        def le(
            r: float, base: NDArray[np.float64] = base, drift: NDArray[np.float64] = drift
        ) -> float:
            return float(logsumexp(base + r * drift) - math.log(GRID))

        if le(0.0) >= target:
            return 0, side
        hi_r = 1.0
        while le(hi_r) < target:
            hi_r *= 2
            if hi_r > cap:
                break
        if hi_r > cap:
            continue
        lo_r = 0.0 if hi_r == 1.0 else hi_r / 2
        while hi_r - lo_r > 0.5:
            mid = 0.5 * (lo_r + hi_r)
            lo_r, hi_r = (lo_r, mid) if le(mid) >= target else (mid, hi_r)
        r = math.floor(lo_r)
        while le(float(r)) < target:
            r += 1
        if best[0] is None or r < best[0]:
            best = (r, side)
    return best
