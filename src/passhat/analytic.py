"""Analytic population-scope intervals of a weighted mean of per-task estimates (no resampling).

The population value E g(p) is estimated by the weighted mean θ̂ = Σ w_i v_i / Σ w_i of
the tasks' unbiased estimates v_i (mean, pass@k or pass^k of each task). Tasks are
independent draws from the population, so the v_i are independent and the linearised
(ratio-estimator) variance of θ̂ is

    SE² = T / (T − 1) · Σ_i (w_i / Σ w)² (v_i − θ̂)²

(s² / T with equal weights; the v_i carry the within-task noise of the runs, so the
population scope's two sources of uncertainty are both in it). Two intervals are built on
it, with the t quantile on ν = T_eff − 1 degrees of freedom, T_eff Kish's effective number
of tasks (T with equal weights):

* **logit-t** (:func:`logit_t_interval`): the t interval on the logit scale with the delta
  method, SE_logit = SE / (θ̂ (1 − θ̂)), mapped back: asymmetric, inside (0, 1);
* **Wilson-type** (:func:`wilson_type_interval`): the Wilson score interval of a proportion
  θ̂ with the effective sample size n* = θ̂ (1 − θ̂) / SE² (the number of Bernoulli trials
  that would give the same SE), with the t quantile in place of z.

Both need 0 < θ̂ < 1 and SE > 0; where either fails (every task's estimate the same)
the ends are NaN, and :mod:`passhat.scopes` uses them only where at least
:data:`passhat.scopes.MIN_SIDE` tasks lie on each side of the estimate. Cost: one pass
over the categories, no resampling (:func:`population_se`).

References
----------
.. [1] Cochran, W. G. (1977). *Sampling Techniques*, 3rd ed. Wiley, §6.4 (the variance of
   a ratio estimator).
.. [2] Wilson, E. B. (1927). Probable inference, the law of succession, and statistical
   inference. *JASA*, 22(158), 209–212.
.. [3] Kish, L. (1965). *Survey Sampling*. Wiley (the effective sample size).

Examples
--------
>>> import numpy as np
>>> from passhat.analytic import logit_t_interval, population_se
>>> v = np.array([0.0, 0.2, 0.4, 0.6, 1.0, 1.0])
>>> theta, se, df = population_se(v[:, None], np.ones(6, dtype=np.int64), np.ones(6))
>>> lo, hi = logit_t_interval(theta, se, df, ci=0.9)
>>> [round(float(x), 4) for x in (theta[0], se[0], lo[0], hi[0])]
[0.5333, 0.1687, 0.2258, 0.8174]
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "ANALYTIC_KINDS",
    "analytic_interval",
    "logit_t_interval",
    "population_se",
    "wilson_type_interval",
]

#: The analytic intervals this module builds.
ANALYTIC_KINDS = ("logit-t", "wilson")


def population_se(
    values: ArrayLike, freq: ArrayLike, weights: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    """The weighted mean of each column, its linearised standard error and the t's df.

    Parameters
    ----------
    values : array_like, shape (m, C)
        Per-category (or per-task) estimates, one column per metric.
    freq : array_like of int, shape (m,)
        Tasks in each category (ones for plain tasks).
    weights : array_like, shape (m,)
        One task's weight in each category (any positive scale).

    Returns
    -------
    theta : ndarray, shape (C,)
        Σ f w v / Σ f w.
    se : ndarray, shape (C,)
        sqrt(T / (T − 1) · Σ f (w / Σ f w)² (v − θ̂)²); NaN with one task.
    df : float
        Kish's effective number of tasks (Σ f w)² / Σ f w² less one.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.analytic import population_se
    >>> theta, se, df = population_se(np.array([[0.0], [1.0]]), np.array([3, 1]), np.ones(2))
    >>> round(float(theta[0]), 4), round(float(se[0]), 4), df   # s = 0.5, s / sqrt(4)
    (0.25, 0.25, 3.0)
    """
    v = np.asarray(values, dtype=float)
    v = v[:, None] if v.ndim == 1 else v
    f = np.asarray(freq, dtype=float).ravel()
    w = np.asarray(weights, dtype=float).ravel()
    fw = f * w
    total = float(fw.sum())
    theta = fw @ v / total
    tasks = float(f.sum())
    share = w / total
    with np.errstate(divide="ignore", invalid="ignore"):
        var = tasks / (tasks - 1.0) * ((f * share**2) @ (v - theta) ** 2)
    se = np.sqrt(np.maximum(var, 0.0)) if tasks > 1 else np.full(theta.shape, np.nan)
    df = total**2 / float(np.sum(f * w**2)) - 1.0
    return np.asarray(theta, dtype=float), np.asarray(se, dtype=float), df


def _t_quantile(ci: float, df: float) -> float:
    """The upper (1 − ci) / 2 point of Student's t (scipy.stats.t.isf, without its overhead)."""
    from scipy import special  # here, not at the top: importing scipy costs ~0.25 s

    return float(special.stdtrit(df, 0.5 + ci / 2.0))


def logit_t_interval(
    theta: ArrayLike, se: ArrayLike, df: float, *, ci: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The logit-t interval: expit(logit θ̂ ± t_{ν} · SE / (θ̂ (1 − θ̂))).

    NaN where θ̂ is 0 or 1 or SE is 0 or not finite (no spread to scale).

    Examples
    --------
    >>> from passhat.analytic import logit_t_interval
    >>> lo, hi = logit_t_interval([0.5], [0.1], 9.0, ci=0.95)   # t_9 = 2.262; ±0.905 on logit
    >>> round(float(lo[0]), 4), round(float(hi[0]), 4)
    (0.2881, 0.7119)
    """
    th = np.asarray(theta, dtype=float)
    s = np.asarray(se, dtype=float)
    ok = (th > 0.0) & (th < 1.0) & np.isfinite(s) & (s > 0.0)
    t = _t_quantile(ci, df)
    thc = np.where(ok, th, 0.5)
    half = t * np.where(ok, s, 0.0) / (thc * (1.0 - thc))
    centre = np.log(thc / (1.0 - thc))
    lo = 1.0 / (1.0 + np.exp(-(centre - half)))
    hi = 1.0 / (1.0 + np.exp(-(centre + half)))
    return np.where(ok, lo, np.nan), np.where(ok, hi, np.nan)


def wilson_type_interval(
    theta: ArrayLike, se: ArrayLike, df: float, *, ci: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The Wilson score interval of θ̂ with n* = θ̂ (1 − θ̂) / SE² trials and the t quantile.

    NaN where θ̂ is 0 or 1 or SE is 0 or not finite.

    Examples
    --------
    >>> from passhat.analytic import wilson_type_interval
    >>> lo, hi = wilson_type_interval([0.2], [0.04], 1e9, ci=0.95)   # n* = 100: Wilson 20/100
    >>> round(float(lo[0]), 4), round(float(hi[0]), 4)
    (0.1334, 0.2888)
    """
    th = np.asarray(theta, dtype=float)
    s = np.asarray(se, dtype=float)
    ok = (th > 0.0) & (th < 1.0) & np.isfinite(s) & (s > 0.0)
    t = _t_quantile(ci, df)
    thc = np.where(ok, th, 0.5)
    n_star = thc * (1.0 - thc) / np.where(ok, s, 1.0) ** 2
    t2 = t * t
    denom = 1.0 + t2 / n_star
    centre = (thc + t2 / (2.0 * n_star)) / denom
    dist = t * np.sqrt(thc * (1.0 - thc) / n_star + t2 / (4.0 * n_star**2)) / denom
    return np.where(ok, centre - dist, np.nan), np.where(ok, centre + dist, np.nan)


def analytic_interval(
    values: ArrayLike, freq: ArrayLike, weights: ArrayLike, *, ci: float, kind: str = "logit-t"
) -> tuple[NDArray[np.float64], NDArray[np.float64], str]:
    """The analytic population interval of every column, and the words that name it.

    Parameters
    ----------
    values, freq, weights
        As for :func:`population_se`.
    ci : float
        Confidence level in (0, 1).
    kind : {"logit-t", "wilson"}
        :func:`logit_t_interval` or :func:`wilson_type_interval`.

    Returns
    -------
    lower, upper : ndarray, shape (C,)
        NaN where θ̂ is 0 or 1 or the estimates do not vary.
    label : str
        E.g. "analytic logit-t interval (delta method, t on 49 df)".

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.analytic import analytic_interval
    >>> v = np.linspace(0.1, 0.9, 50)[:, None]
    >>> lo, hi, label = analytic_interval(v, np.ones(50, dtype=np.int64), np.ones(50), ci=0.95)
    >>> round(float(lo[0]), 3), round(float(hi[0]), 3), label
    (0.433, 0.567, 'analytic logit-t interval (delta method, t on 49 df)')
    """
    if kind not in ANALYTIC_KINDS:
        raise ValueError(f"kind must be one of {', '.join(ANALYTIC_KINDS)} (got {kind!r})")
    theta, se, df = population_se(values, freq, weights)
    if kind == "logit-t":
        lo, hi = logit_t_interval(theta, se, df, ci=ci)
        words = "delta method"
    else:
        lo, hi = wilson_type_interval(theta, se, df, ci=ci)
        words = "effective trials θ(1 − θ) / SE²"
    return lo, hi, f"analytic {kind} interval ({words}, t on {df:.4g} df)"
