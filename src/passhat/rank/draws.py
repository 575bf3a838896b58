"""Rank statistics as pure functions of a draw matrix (draws × systems).

Any engine that produces joint draws of the systems' values — the paired
task bootstrap (:mod:`passhat.rank.engine`), or the posterior of a joint
model — gets the same rank statistics from these functions:

* :func:`point_ranks` — competition ranks of the point values (higher is
  better; equal values share the smaller rank: 1, 1, 3);
* :func:`rank_from_draws` — per system the rank, the **rank interval**, the
  **share of draws ranked first** (``share_first``, a draw's tie at the top
  split evenly among the tied systems) and the mean rank. It is a share of
  resamples (or posterior draws), not the probability that the system is
  truly first: with two equal leaders it falls near 0.5 on average, but it is
  spread over (0, 1) — one of the two gets at least 0.8 in about one
  replicate in five (``studies/rank_calibration``), as any share computed
  around the observed difference does when the truth is a tie;
* :func:`simultaneous_band` — a max-type band over several columns of one
  draw matrix (e.g. the whole k grid): every column covered at once.

Holm's adjustment of the pairwise tests is :func:`passhat.compare.multiplicity.holm`.

Rank intervals (``rank_method``):

* ``"pairwise"`` (default) — the rank set of Mogstad, Romano, Shaikh and
  Wilhelm (2024): for system s, simultaneous intervals of the differences
  θ_j − θ_s over every other j (studentised max-type critical value from the
  same draws); the rank interval is [1 + #{j surely better}, S − #{j surely
  worse}]. It covers the true rank — for systems with equal truth, every rank
  they share — with probability ≥ the level (asymptotically), ties included.
* ``"percentile"`` — equal-tailed percentiles of each system's rank in the
  draws (the simple bootstrap rank interval; it can miss the truth when
  systems are close, because a draw's rank moves with every neighbour).

References
----------
.. [1] Mogstad, M., Romano, J. P., Shaikh, A. M. and Wilhelm, D. (2024).
   Inference for ranks with applications to mobility across neighbourhoods
   and academic achievement across countries. *Review of Economic Studies*,
   91(1), 476–518.

Examples
--------
>>> import numpy as np
>>> from passhat.rank.draws import rank_from_draws
>>> rng = np.random.default_rng(0)
>>> draws = np.column_stack([rng.normal(0.8, 0.02, 4000), rng.normal(0.5, 0.02, 4000),
...                          rng.normal(0.5, 0.02, 4000)])
>>> r = rank_from_draws(draws, ["a", "b", "c"], [0.8, 0.5, 0.5], ci=0.9)
>>> r[["system", "rank", "rank_lower", "rank_upper"]].values.tolist()
[['a', 1, 1, 1], ['b', 2, 2, 3], ['c', 2, 2, 3]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from passhat._validate import check_ci, check_method
from passhat.errors import ValidationError

__all__ = [
    "RANK_METHODS",
    "TIE_DECIMALS",
    "point_ranks",
    "rank_from_draws",
    "simultaneous_band",
]

#: Rank-interval constructions.
RANK_METHODS = ("pairwise", "percentile")

#: Largest number of cells (draws × systems × systems) held at once.
_CHUNK_CELLS = 8_000_000

#: Draws × systems² from which the compiled maxima pay for loading numba.
_COMPILED_CELLS = 5_000_000

#: Values equal to this many decimals are ties (absorbs floating-point noise of sums).
TIE_DECIMALS = 12


def _as_draws(draws: ArrayLike, n_sys: int | None = None) -> NDArray[np.float64]:
    d = np.asarray(draws, dtype=float)
    if d.ndim != 2 or d.shape[0] < 2 or d.shape[1] < 1:
        raise ValidationError("draws must be a 2-d array (draws × systems) with ≥ 2 draws")
    if n_sys is not None and d.shape[1] != n_sys:
        raise ValidationError(f"draws have {d.shape[1]} columns for {n_sys} systems")
    if not np.all(np.isfinite(d)):
        raise ValidationError("draws must be finite")
    return d


def point_ranks(values: ArrayLike) -> NDArray[np.int64]:
    """Competition ranks, higher value = rank 1; equal values (to 12 decimals) share a rank.

    Examples
    --------
    >>> from passhat.rank.draws import point_ranks
    >>> point_ranks([0.5, 0.7, 0.5, 0.1]).tolist()
    [2, 1, 2, 4]
    """
    v = np.round(np.asarray(values, dtype=float), TIE_DECIMALS)
    return (1 + np.sum(v[None, :] > v[:, None], axis=1)).astype(np.int64)


def _draw_ranks(d: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """Per draw: competition rank of each system, and its share of rank 1 (ties split)."""
    v = np.round(d, TIE_DECIMALS)
    ranks = np.asarray(stats.rankdata(-v, method="min", axis=1), dtype=np.int64)
    top = ranks == 1
    share = top / top.sum(axis=1, keepdims=True)
    return ranks, share


def _order_stat(x: NDArray[np.float64], q: float, axis: int = 0) -> NDArray[np.float64]:
    """The ⌈q·M⌉-th smallest value along ``axis`` (conservative empirical quantile)."""
    m = x.shape[axis]
    r = min(m - 1, max(0, int(np.ceil(q * m - 1e-9)) - 1))
    return np.asarray(np.partition(x, r, axis=axis).take(r, axis=axis), dtype=float)


def _max_scaled_gaps(u32: NDArray[np.float32], inv32: NDArray[np.float32]) -> NDArray[np.float32]:
    """Per draw b and system i, max_j |u_bj − u_bi| · inv_ij in float32: compiled
    (:func:`passhat._kernels.max_scaled_gaps`) on large inputs, else the same float32
    operations in numpy, a chunk of draws × systems × systems at a time."""
    n_draws, s = u32.shape
    if n_draws * s * s >= _COMPILED_CELLS:
        from passhat._kernels import max_scaled_gaps  # numba is slow to import: when needed

        return max_scaled_gaps(u32, inv32)
    top = np.empty((n_draws, s), dtype=np.float32)
    chunk = max(1, _CHUNK_CELLS // (s * s))
    buf = np.empty((min(chunk, n_draws), s, s), dtype=np.float32)
    for a in range(0, n_draws, chunk):  # vectorised over systems and pairs, chunked over draws
        part = u32[a : a + chunk]
        z = buf[: part.shape[0]]
        np.subtract(part[:, None, :], part[:, :, None], out=z)  # [b, i, j] = u_j − u_i
        np.abs(z, out=z)
        z *= inv32[None, :, :]
        z.max(axis=2, out=top[a : a + chunk])
    return top


def _pairwise_counts(
    d: NDArray[np.float64], point: NDArray[np.float64], alpha: float
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Per system: how many others are surely better / surely worse (simultaneous over j).

    For system i the studentised deviations |(θ*_j − θ*_i) − (θ̂_j − θ̂_i)| / se_ij
    are maximised over j ≠ i within each draw; the (1 − α)-quantile c_i of the
    maximum gives simultaneous intervals (θ̂_j − θ̂_i) ± c_i·se_ij.
    """
    s = d.shape[1]
    better = np.zeros(s, dtype=np.int64)
    worse = np.zeros(s, dtype=np.int64)
    if s == 1:
        return better, worse
    u = d - point[None, :]  # deviations from the point values
    cov = np.atleast_2d(np.cov(d, rowvar=False, bias=True))
    var = np.diag(cov)[:, None] + np.diag(cov)[None, :] - 2.0 * cov
    se = np.sqrt(np.maximum(var, 0.0))
    floor = 1e-9 * max(float(np.sqrt(np.diag(cov).max())), 1e-12)
    inv = np.where(se > floor, 1.0 / np.maximum(se, floor), 0.0)  # equal draws: never separated
    np.fill_diagonal(inv, 0.0)
    top = _max_scaled_gaps(u.astype(np.float32), inv.astype(np.float32))
    crit = _order_stat(top.astype(np.float64), 1.0 - alpha, axis=0)  # per system i
    est = point[None, :] - point[:, None]  # [i, j] = θ̂_j − θ̂_i
    half = crit[:, None] * se
    live = inv > 0
    # a difference that no draw moves (se = 0) is known: separated when it is not 0
    fixed = ~live & ~np.eye(s, dtype=bool)
    est_r = np.round(est, TIE_DECIMALS)
    better = np.sum((live & (est - half > 0)) | (fixed & (est_r > 0)), axis=1).astype(np.int64)
    worse = np.sum((live & (est + half < 0)) | (fixed & (est_r < 0)), axis=1).astype(np.int64)
    return better, worse


def rank_from_draws(
    draws: ArrayLike,
    systems: Sequence[str],
    point: ArrayLike,
    *,
    ci: float = 0.95,
    rank_method: Literal["pairwise", "percentile"] = "pairwise",
    groups: ArrayLike | None = None,
) -> pd.DataFrame:
    """Rank, rank interval, share of draws ranked first and mean rank of each system.

    Parameters
    ----------
    draws : array_like, shape (draws, systems)
        Joint draws of the systems' values (bootstrap resamples or posterior
        draws); higher is better. The systems' columns must come from the
        *same* draws, so their correlation is kept.
    systems : sequence of str
        Names of the columns.
    point : array_like, shape (systems,)
        Point values; their competition ranks are the reported ranks (ties
        share a rank).
    ci : float
        Level of the rank interval.
    rank_method : {"pairwise", "percentile"}
        See the module docstring.
    groups : array_like of int, shape (systems,), optional
        Systems with the same label have identical data (the same counts on
        every task), so their exact rank distributions are the same; where
        the draws are independent per system (posterior draws) Monte Carlo
        noise alone would set them apart. Each group gets the union of its
        members' rank intervals and their mean share ranked first and mean rank.

    Returns
    -------
    pandas.DataFrame
        One row per system in input order: system, value, rank, rank_lower,
        rank_upper, share_first (share of draws where it ranks first, ties split),
        mean_rank (in the draws), rank_method.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.rank.draws import rank_from_draws
    >>> d = np.tile([[0.6, 0.6]], (100, 1))          # two identical systems
    >>> rank_from_draws(d, ["x", "y"], [0.6, 0.6])["share_first"].tolist()
    [0.5, 0.5]
    """
    level = check_ci(ci)
    check_method(rank_method, RANK_METHODS, "rank_method")
    names = [str(s) for s in systems]
    d = _as_draws(draws, len(names))
    pt = np.asarray(point, dtype=float).ravel()
    if pt.size != len(names):
        raise ValidationError(f"point has {pt.size} values for {len(names)} systems")
    alpha = round(1.0 - level, 12)
    ranks, share = _draw_ranks(d)
    s = len(names)
    if rank_method == "pairwise":
        better, worse = _pairwise_counts(d, pt, alpha)
        lower, upper = 1 + better, s - worse
    else:
        lower = np.floor(np.quantile(ranks, alpha / 2, axis=0, method="inverted_cdf"))
        upper = np.ceil(np.quantile(ranks, 1 - alpha / 2, axis=0, method="inverted_cdf"))
    rk = point_ranks(pt)
    # the reported rank always lies in its interval (ties share the smaller rank)
    lower = np.minimum(lower, rk)
    upper = np.maximum(upper, rk)
    share_first, mean_rank = share.mean(axis=0), ranks.mean(axis=0)
    if groups is not None:
        g = np.asarray(groups).ravel()
        if g.size != s:
            raise ValidationError(f"groups has {g.size} labels for {s} systems")
        for label in np.unique(g):
            m = g == label
            lower[m], upper[m] = lower[m].min(), upper[m].max()
            share_first[m], mean_rank[m] = share_first[m].mean(), mean_rank[m].mean()
    return pd.DataFrame(
        {
            "system": names,
            "value": pt,
            "rank": rk,
            "rank_lower": np.asarray(lower, dtype=np.int64),
            "rank_upper": np.asarray(upper, dtype=np.int64),
            "share_first": share_first,
            "mean_rank": mean_rank,
            "rank_method": rank_method,
        }
    )


def simultaneous_band(
    draws: ArrayLike, point: ArrayLike, *, ci: float = 0.95
) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    """Max-type band over the columns of one draw matrix: all columns covered at once.

    The studentised deviations abs(draw − point) / sd of every column are
    maximised within each draw; the (ci)-quantile c of that maximum gives
    point ± c·sd for every column, so the band holds for every column
    simultaneously at the level (e.g. pass^k for every k of the grid). With
    one column it is the marginal normal-bootstrap interval.

    Parameters
    ----------
    draws : array_like, shape (draws, columns)
    point : array_like, shape (columns,)
    ci : float

    Returns
    -------
    lower, upper : ndarray, shape (columns,)
        Clipped to [−1, 1] (differences) — values in [0, 1] stay in range
        because the caller clips to the metric's range.
    crit : float
        The critical value c (≥ the marginal z).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.rank.draws import simultaneous_band
    >>> rng = np.random.default_rng(0)
    >>> d = rng.normal(0.0, 1.0, size=(20000, 5))
    >>> lo, hi, c = simultaneous_band(d, np.zeros(5), ci=0.9)
    >>> round(c, 1)   # max of 5 independent |N(0, 1)|: the 90% point is 2.3 (> 1.64)
    2.3
    """
    level = check_ci(ci)
    d = _as_draws(draws)
    pt = np.asarray(point, dtype=float).ravel()
    if pt.size != d.shape[1]:
        raise ValidationError(f"point has {pt.size} values for {d.shape[1]} columns")
    sd = d.std(axis=0)
    live = sd > 0
    if not live.any():
        return pt.copy(), pt.copy(), 0.0
    z = np.abs(d[:, live] - pt[None, live]) / sd[None, live]
    crit = float(_order_stat(z.max(axis=1), level))
    half = np.where(live, crit * sd, 0.0)
    return pt - half, pt + half, crit
