"""Population-scope spread figures from the Beta-Binomial posterior, with the homogeneous case kept.

The sample figures of :func:`passhat.spread` (pass^k / mean^k, the share of
tasks carrying 80% of the gap) describe the tasks at hand, but as estimates
of the same figures for *tasks like these* they are noisy and biased at a
few runs per task: sorting noisy per-task gaps makes the gap look more
concentrated than it is (with T = 30 tasks × 5 runs from Beta(1.4, 0.6),
the sample share carrying 80% averages about 0.36 against a true 0.56), and
tasks whose few runs happen to agree contribute nothing.

Here the task rates are modelled as p ~ Beta(μκ, (1 − μ)κ), the posterior
of (μ, κ) is evaluated exactly on a grid (:func:`passhat.model.grid.grid_posterior`),
and per posterior draw every figure has a closed form:

* ratio E[p^k] / μ^k and consistency E[p^k] / μ (:func:`~passhat.spread.beta.beta_moment`);
* the share of tasks carrying a share of the gap
  (:func:`~passhat.spread.beta.beta_gap_concentration`);
* ICC = 1 / (κ + 1).

A Beta with finite κ always has *some* spread, so its posterior never
reaches the homogeneous case (ratio 1, ICC 0) even when the tasks are all
alike. The intervals are therefore the union of the Beta posterior's
interval and the homogeneous model's (p_i = μ for every task, μ | data ~
Beta(1 + S, 1 + F)) whenever the heterogeneity test does not reject at
level 1 − ci. Each part covers in its own case, so the union covers in
both; and the ratio's interval reaches 1 exactly when the test does not
reject, so interval and test never disagree.

Examples
--------
>>> import numpy as np
>>> from passhat.spread.posterior import posterior_spread
>>> post = posterior_spread([5] * 20, [5] * 10 + [0] * 10, ks=[5], ci=0.9, homogeneous=False,
...                         rng=np.random.default_rng(0))
>>> bool(post.per_k[5]["ratio_lower"] > 2)   # half always pass: far above the uniform reference
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from passhat.model.grid import grid_posterior
from passhat.spread.beta import beta_gap_concentration, beta_moment

__all__ = ["MODEL_LEVELS", "SpreadPosterior", "posterior_spread"]

#: Shares of the gap for which the model-based share of tasks is given.
MODEL_LEVELS = (0.8,)

#: Posterior draws used for the gap concentration (two nested bisections per draw).
_CONCENTRATION_DRAWS = 400


@dataclass
class SpreadPosterior:
    """Result of :func:`posterior_spread` for one system.

    Attributes
    ----------
    per_k : dict
        k → figures: ``ratio_lower``/``ratio_upper``, ``consistency_lower``/
        ``consistency_upper``, and per level x (:data:`MODEL_LEVELS`: 80%)
        ``tasks_for_{x}_model`` (posterior median) with ``_lower``/``_upper``.
    icc, icc_lower, icc_upper : float
        Posterior median and interval of 1 / (κ + 1).
    kappa : float
        Posterior median of κ.
    homogeneous : bool
        Whether the homogeneous model was joined to the intervals.
    """

    per_k: dict[int, dict[str, float]] = field(default_factory=dict)
    icc: float = float("nan")
    icc_lower: float = float("nan")
    icc_upper: float = float("nan")
    kappa: float = float("nan")
    homogeneous: bool = False


def _q(x: NDArray[np.float64], ci: float) -> tuple[float, float]:
    lo, hi = np.nanquantile(x, [(1 - ci) / 2, (1 + ci) / 2])
    return float(lo), float(hi)


def posterior_spread(
    n: ArrayLike,
    c: ArrayLike,
    *,
    ks: Sequence[int],
    ci: float,
    homogeneous: bool,
    rng: np.random.Generator,
    n_draws: int = 4000,
    levels: Sequence[float] = MODEL_LEVELS,
) -> SpreadPosterior:
    """Model-based population figures of the spread for one system's tasks.

    Parameters
    ----------
    n, c : array_like of int
        Decided runs and successes per task (tasks with n = 0 are ignored).
        With fewer than two such tasks every figure is NaN: how task rates
        spread across tasks is not identified by one task (the interval
        would be the prior's).
    ks : sequence of int
        k values (k = 1 gets ratio and consistency 1 and no concentration).
    ci : float
        Interval level.
    homogeneous : bool
        Join the homogeneous model's interval (pass True when the
        heterogeneity test does not reject at level 1 − ci).
    rng : numpy.random.Generator
    n_draws : int
        Posterior draws.
    levels : sequence of float
        Shares of the gap for the model-based concentration.

    Returns
    -------
    SpreadPosterior

    References
    ----------
    Coverage of these intervals under Beta truths and under a homogeneous
    truth is checked by simulation in ``tests/spread/test_spread_posterior.py``.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.spread.posterior import posterior_spread
    >>> post = posterior_spread([5] * 30, [3] * 30, ks=[2], ci=0.9, homogeneous=True,
    ...                         rng=np.random.default_rng(0))
    >>> post.per_k[2]["ratio_lower"], post.per_k[2]["tasks_for_80_model_upper"]  # all alike
    (1.0, 0.8)
    """
    nn = np.asarray(n, dtype=np.int64).ravel()
    cc = np.asarray(c, dtype=np.int64).ravel()
    keep = nn > 0
    nn, cc = nn[keep], cc[keep]
    out = SpreadPosterior(homogeneous=homogeneous)
    if nn.size < 2:
        keys = ["ratio", "consistency"] + [f"tasks_for_{round(x * 100)}_model" for x in levels]
        nan = float("nan")
        for k in ks:
            out.per_k[int(k)] = {
                f"{key}{end}": nan for key in keys for end in ("", "_lower", "_upper")
            }
        return out
    g = grid_posterior(nn, cc, None, n_draws=n_draws, rng=rng)
    mu, kap = g.mu, g.kappa
    icc = 1.0 / (kap + 1.0)
    out.icc = float(np.median(icc))
    out.icc_lower, out.icc_upper = _q(icc, ci)
    out.kappa = float(np.median(kap))
    if homogeneous:
        out.icc_lower = 0.0
        s, f = int(cc.sum()), int((nn - cc).sum())
        mu_h = rng.beta(1.0 + s, 1.0 + f, size=n_draws)
    sub = slice(0, min(_CONCENTRATION_DRAWS, n_draws))
    for k in ks:
        kk = int(k)
        row: dict[str, float] = {}
        mk = beta_moment(mu, kap, kk)
        ratio = mk / mu**kk
        cons = mk / mu
        row["ratio"] = float(np.median(ratio))
        row["consistency"] = float(np.median(cons))
        row["ratio_lower"], row["ratio_upper"] = _q(ratio, ci)
        row["consistency_lower"], row["consistency_upper"] = _q(cons, ci)
        if homogeneous:
            row["ratio_lower"] = 1.0
            h_lo, h_hi = _q(mu_h ** (kk - 1), ci)
            row["consistency_lower"] = min(row["consistency_lower"], h_lo)
            row["consistency_upper"] = max(row["consistency_upper"], h_hi)
        for level in levels:
            key = f"tasks_for_{round(level * 100)}_model"
            if kk < 2:
                row[key] = row[f"{key}_lower"] = row[f"{key}_upper"] = float("nan")
                continue
            share = beta_gap_concentration(mu[sub], kap[sub], kk, level)
            row[key] = float(np.nanmedian(share)) if np.isfinite(share).any() else float("nan")
            lo, hi = _q(share, ci) if np.isfinite(share).any() else (float("nan"),) * 2
            if homogeneous:
                hi = float(level)  # all tasks alike: x% of tasks carry x% of the gap
                lo = min(lo, float(level)) if np.isfinite(lo) else float(level)
            row[f"{key}_lower"], row[f"{key}_upper"] = lo, hi
        out.per_k[kk] = row
    return out
