"""Intervals and tests read from draws, made to agree: the interval excludes 0 exactly when
the two-sided test rejects at the same level (p ≤ 1 − ci).

Both take the interval's ends at order statistics of the M draws chosen by one rule (the
largest r with 2r / M ≤ 1 − ci) and count the same tails for the p-value:

* :func:`draw_interval` — draws of a difference itself (the two systems' posteriors, the
  population scope of :mod:`passhat.compare.engine` when few tasks differ);
* :func:`error_interval` — draws of an estimate's error (the simulated error of the unbiased
  difference, the benchmark scope when few tasks or few show both outcomes), with an
  optional continuity step for an estimate that moves in steps.

Examples
--------
>>> import numpy as np
>>> lo, hi, p = draw_interval(np.linspace(-0.1, 0.3, 401), ci=0.9)
>>> bool(lo < 0 < hi), p > 0.1
(True, True)
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["draw_interval", "error_interval"]


def _rank(m: int, ci: float) -> int:
    """The largest r with 2r / m ≤ 1 − ci: order statistics d[r], d[m − 1 − r] end an interval."""
    alpha = round(1.0 - float(ci), 12)  # 1 − 0.9 is 0.09999…98 in floating point; use 0.1
    r = int(np.floor(alpha * m / 2.0))
    while r + 1 < m and 2.0 * (r + 1) / m <= alpha:
        r += 1
    while r > 0 and 2.0 * r / m > alpha:
        r -= 1
    return r


def draw_interval(draws: ArrayLike, *, ci: float) -> tuple[float, float, float]:
    """Equal-tailed interval and two-sided tail probability of posterior draws of a difference.

    p = 2 · min(#{Δ ≤ 0}, #{Δ ≥ 0}) / M (capped at 1); the interval's ends are
    order statistics chosen so that it excludes 0 exactly when p ≤ 1 − ci.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.compare.draw_tests import draw_interval
    >>> lo, hi, p = draw_interval(np.arange(1, 101) / 100 - 0.03, ci=0.9)   # 3 of 100 ≤ 0
    >>> round(p, 2), bool(lo > 0)
    (0.06, True)
    """
    d = np.sort(np.asarray(draws, dtype=float))
    m = d.size
    r = _rank(m, ci)
    below = int(np.sum(d <= 0.0))
    above = int(np.sum(d >= 0.0))
    p = min(1.0, 2.0 * min(below, above) / m)
    return float(d[r]), float(d[m - 1 - r]), p


def error_interval(
    estimate: float, errors: ArrayLike, *, ci: float, step: float = 0.0
) -> tuple[float, float, float]:
    """Interval and two-sided p-value of a quantity from draws of its estimate's error.

    With errors e = estimate − value, the interval is [θ̂ − e_hi − s, θ̂ − e_lo + s]
    (e_lo, e_hi the order statistics of :func:`draw_interval`, s = ``step``, a
    continuity correction for an estimate that moves in steps) and
    p = 2 · min(#{e ≥ θ̂ − s}, #{e ≤ θ̂ + s}) / M (capped at 1): the interval
    excludes 0 exactly when p ≤ 1 − ci.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.compare.draw_tests import error_interval
    >>> e = np.random.default_rng(0).normal(0, 0.05, 4000)
    >>> lo, hi, p = error_interval(0.2, e, ci=0.9)
    >>> bool(lo > 0), round(hi - lo, 2), p
    (True, 0.16, 0.0)
    """
    d = np.sort(np.asarray(errors, dtype=float))
    m = d.size
    r = _rank(m, ci)
    above = int(np.sum(d >= estimate - step))
    below = int(np.sum(d <= estimate + step))
    p = min(1.0, 2.0 * min(below, above) / m)
    lo = max(-1.0, float(estimate - d[m - 1 - r] - step))
    hi = min(1.0, float(estimate - d[r] + step))
    return lo, hi, p
