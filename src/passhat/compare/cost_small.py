"""The small-sample interval of ``compare --cost``: below
:data:`passhat.compare.cost_result.FEW_TASKS` units (matched tasks, or clusters with a
cluster coordinate) a symmetric bootstrap-t on the leave-one-out (jackknife) standard error
replaces the percentile bootstrap.

Each compared value θ (a difference of two systems' cost figures, or the log of their ratio)
is a smooth function of the two systems' sums over tasks. With G units (tasks, or clusters
with all their tasks) its jackknife standard error is

    SE_J² = (G − 1) / G · Σ_g (θ̂_(g) − θ̂)²,

θ̂_(g) the value without unit g (CV3 in MacKinnon, Nielsen and Webb's terms with clusters).
The interval is θ̂ ± q · SE_J where q is the ``ci`` quantile of |θ*_b − θ̂| / SE*_J,b over
``n_boot`` paired resamples b of the units, each with its own jackknife standard error (the
symmetric studentised bootstrap, Hall 1988); ratios are computed on the log scale and
exponentiated, so the ratio's interval is ≥ 0 and the pass^k per cost ratio's is the inverse of
the cost per all-k-pass ratio's. A value undefined without one unit, or in a resample (a
division by no all-k-pass: ∞ − ∞, 0 / 0), makes the interval unbounded and is counted, never
dropped; so does an infinite leave-one-out value of the sample (SE_J = ∞). A resample that
cannot be studentised — its value or its SE* infinite, or its value off θ̂ with no spread
between its units (SE* 0) — counts as |t| = ∞ (the interval is unbounded when more than
1 − ``ci`` of them are); a resample whose studentised value is 0 / 0 (no spread between its
units, as for two identical systems) counts as 0, and a value no unit moves (jackknife SE 0)
gets the interval [θ̂, θ̂].

The study studies/compare_cost_coverage compares this rule with the percentile bootstrap, the
jackknife t on G − 1 degrees of freedom and the equal-tailed bootstrap-t.

References
----------
.. [1] Hall, P. (1988). Theoretical comparison of bootstrap confidence intervals. *Annals of
   Statistics*, 16(3), 927–953 (the symmetric bootstrap-t).
.. [2] MacKinnon, J. G., Nielsen, M. Ø., & Webb, M. D. (2023). Cluster-robust inference: a
   guide to empirical practice. *Journal of Econometrics*, 232(2), 272–299 (CV3).

Examples
--------
>>> import numpy as np
>>> x = np.array([[1.0, 1.0, 0.5, 0.5], [1.0, 2.0, 1.0, 1.0], [1.0, 3.0, 0.5, 0.5]])
>>> theta, se, undefined = pair_jackknife(x, x * [1, 2, 1, 1], np.arange(3), [1])
>>> theta[1].round(4).tolist(), se[1].round(4).tolist()   # cost / success: 6 − 3, log(6 / 3)
([3.0, 0.6931], [1.1863, 0.0])
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from passhat.compare.cost_ratios import compare_values, metric_values

__all__ = ["pair_bootstrap_t", "pair_jackknife", "to_interval", "working_values"]

#: Most resampled unit values held at once (resamples × units × columns) in the bootstrap-t.
_CHUNK = 2_000_000


def working_values(sums: NDArray[np.float64], ks: Sequence[int]) -> NDArray[np.float64]:
    """The compared values on the interval's scale from both systems' sums over units (last
    axis: the baseline's columns, then the candidate's): … × metrics × (difference, log
    ratio); NaN where undefined, ±∞ where a ratio is 0 or ∞."""
    q = sums.shape[-1] // 2
    out = compare_values(metric_values(sums[..., :q], ks), metric_values(sums[..., q:], ks))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.stack([out[..., 0], np.log(out[..., 1])], axis=-1)


def _unit_sums(
    base: NDArray[np.float64], cand: NDArray[np.float64], groups: NDArray[np.int64]
) -> NDArray[np.float64]:
    """Units × both systems' columns: each unit's (cluster's) sums of its tasks' rows."""
    g = int(groups.max()) + 1
    per = np.zeros((g, 2 * base.shape[1]))
    np.add.at(per, groups, np.hstack([base, cand]))
    return per


def _jackknife(per: NDArray[np.float64], ks: Sequence[int]) -> tuple[NDArray, NDArray, NDArray]:
    """Value, jackknife SE (∞ where a leave-one-out value is not finite) and the count of
    undefined (NaN) leave-one-out values of units ``per`` (… × G × cols): each over the
    leading axes × metrics × 2."""
    n_units = per.shape[-2]
    total = per.sum(axis=-2)
    theta = working_values(total, ks)
    loo = working_values(total[..., None, :] - per, ks)  # … × G × metrics × 2
    bad = ~np.isfinite(loo)
    with np.errstate(invalid="ignore", over="ignore"):
        dev = np.where(bad, 0.0, loo - theta[..., None, :, :])
        se = np.sqrt((n_units - 1) / n_units * np.sum(dev**2, axis=-3))
    se = np.where(bad.any(axis=-3) | ~np.isfinite(theta), np.inf, se)
    return theta, se, np.isnan(loo).sum(axis=-3)


def pair_jackknife(
    base: NDArray[np.float64],
    cand: NDArray[np.float64],
    groups: NDArray[np.int64],
    ks: Sequence[int],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    """The compared values (metrics × (difference, log ratio)), their leave-one-unit-out
    jackknife standard errors (∞ where a value is undefined without some unit) and how many
    leave-one-out values are undefined (NaN: ∞ − ∞, 0 / 0).

    ``base`` and ``cand`` are tasks × (1, cost per run, mean success, pass^k per k) as for
    :func:`passhat.compare.cost.pair_bootstrap`; ``groups`` each task's unit 0 … G − 1.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[1.0, 1.0, 1.0, 1.0], [1.0, 3.0, 1.0, 1.0]])
    >>> theta, se, undefined = pair_jackknife(x, x, np.arange(2), [1])
    >>> theta[0].tolist(), se[0].tolist(), undefined.sum().item()
    ([0.0, 0.0], [0.0, 0.0], 0)
    """
    theta, se, undefined = _jackknife(_unit_sums(base, cand, groups), ks)
    return theta, se, undefined.astype(np.int64)


def to_interval(
    theta: NDArray[np.float64], lo: NDArray[np.float64], hi: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Ends on the working scale (metrics × (difference, log ratio)) to the reported scale:
    the ratio's exponentiated; an end that is not finite (or a value that is not) unbounded
    (−∞ / ∞ for a difference, 0 / ∞ for a ratio)."""
    with np.errstate(invalid="ignore", over="ignore"):
        bounded = np.isfinite(theta) & np.isfinite(lo) & np.isfinite(hi)
        lo = np.where(bounded, lo, -np.inf)
        hi = np.where(bounded, hi, np.inf)
        lo[:, 1], hi[:, 1] = np.exp(lo[:, 1]), np.exp(hi[:, 1])
    return lo, hi


def pair_bootstrap_t(
    base: NDArray[np.float64],
    cand: NDArray[np.float64],
    groups: NDArray[np.int64],
    ks: Sequence[int],
    *,
    ci: float,
    n_boot: int,
    rng: np.random.Generator,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    """The symmetric bootstrap-t interval on the jackknife SE of each compared value: lower
    and upper ends (metrics × (difference, ratio)) and the undefined (NaN) count:
    leave-one-out values of the sample plus resampled values, any of which makes the interval
    unbounded (as the percentile bootstrap's undefined resamples do).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[1.0, 1.0, 0.5, 0.5], [1.0, 2.0, 1.0, 1.0], [1.0, 3.0, 0.5, 0.5]])
    >>> lo, hi, und = pair_bootstrap_t(x, x, np.arange(3), [1], ci=0.9, n_boot=100,
    ...                                rng=np.random.default_rng(0))
    >>> lo[1].tolist(), hi[1].tolist(), int(und.sum())   # identical systems: exactly 0 and 1
    ([0.0, 1.0], [0.0, 1.0], 0)
    """
    per = _unit_sums(base, cand, groups)
    theta, se, undefined = _jackknife(per, ks)
    g = per.shape[0]
    stats = np.empty((n_boot, *theta.shape))
    step = max(1, _CHUNK // (g * per.shape[1]))
    for start in range(0, n_boot, step):
        m = min(step, n_boot - start)
        th_b, se_b, _ = _jackknife(per[rng.integers(0, g, size=(m, g))], ks)
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.abs(th_b - theta) / se_b
        t = np.where(np.isfinite(th_b) & (th_b == theta) & (se_b == 0), 0.0, t)
        # not studentisable (θ* or SE* not finite): as far out as can be
        stats[start : start + m] = np.where(np.isfinite(th_b) & np.isfinite(se_b), t, np.inf)
        undefined = undefined + np.isnan(th_b).sum(axis=0)
    stats = np.where(np.isnan(stats), np.inf, stats)
    q = np.quantile(stats, ci, axis=0, method="inverted_cdf")
    with np.errstate(invalid="ignore"):
        half = np.where((se == 0) & np.isfinite(q), 0.0, q * se)
        lo, hi = to_interval(theta, theta - half, theta + half)
    lo = np.where(undefined > 0, -np.inf, lo)
    hi = np.where(undefined > 0, np.inf, hi)
    return lo, hi, undefined.astype(np.int64)
