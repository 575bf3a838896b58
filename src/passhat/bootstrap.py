"""The task bootstrap over distinct (n, c, w) categories: draws, jackknife, percentile and BCa.

A task-level bootstrap resamples tasks with replacement, each carrying all its
runs (runs are never resampled within a task: that would count the within-task
variance twice). A task's estimate depends only on its key, e.g. its decided
runs and successes (n, c) and its weight w, so tasks with equal keys are one
*category*, and a resample is a multinomial draw of category counts with the
observed frequencies. Averaging the resampled tasks' values is then exactly
``(M·w) @ V / (M @ w)`` for the draw matrix M: the cost grows with the number
of categories, not of tasks, and one draw matrix serves every metric and k.

The engine, in the order a caller uses it:

* :func:`compress` groups tasks into :class:`Categories`;
* :func:`draw_stats` draws ``n_boot`` resampled weighted means (in chunks of
  bounded memory); :func:`bootstrap_draws` is the arithmetic of one chunk;
* :func:`interval_from_draws` turns them into percentile or BCa intervals
  (the acceleration from :func:`jackknife`), falling back to percentile per
  column where BCa degenerates, and says so;
* :func:`sign_flip_draws` draws the sign-flip permutation statistics of paired
  differences over the same categories;
* :func:`bayesian_bootstrap_draws` draws Dirichlet-weighted means over the
  categories with half a pseudo-task at 0 and at 1 (the boundary prior that
  keeps all-pass data from giving a zero-width interval);
* :func:`bound_bootstrap_draws` draws the same Dirichlet-weighted means with
  one whole pseudo-task at the lower bound (for the lower end) or at the upper
  bound (for the upper end): Clopper–Pearson on 0/1 values [4]_;
* :func:`task_bootstrap` does all of it for a tasks × columns array.

References
----------
.. [1] Efron, B. (1987). Better bootstrap confidence intervals. *Journal of the
   American Statistical Association*, 82(397), 171–185 (BCa).
.. [2] Efron, B. and Tibshirani, R. J. (1993). *An Introduction to the
   Bootstrap*. Chapman & Hall, ch. 13–14 (percentile, BCa, jackknife
   acceleration).
.. [3] Rubin, D. B. (1981). The Bayesian bootstrap. *The Annals of
   Statistics*, 9(1), 130–134.
.. [4] Learned-Miller, E. and Thomas, P. S. (2019). A new confidence interval
   for the mean of a bounded random variable. arXiv:1905.06208 (the bound of
   Gaffke, N. (2005), *Mathematical Methods of Statistics*, 14(4), 451–467).

Examples
--------
>>> import numpy as np
>>> from passhat.bootstrap import compress
>>> cats = compress(np.array([[5, 4], [5, 4], [5, 0]]), np.array([[0.8], [0.8], [0.0]]), np.ones(3))
>>> cats.freq.tolist(), cats.values.ravel().tolist()
([1, 2], [0.0, 0.8])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from passhat._validate import (
    DEFAULT_N_BOOT,
    DEFAULT_SEED,
    check_ci,
    check_method,
    check_n_boot,
    make_rng,
)
from passhat.clusters import FEW_CLUSTERS
from passhat.errors import ValidationError

__all__ = [
    "CI_METHODS",
    "FEW_CLUSTERS",
    "Categories",
    "bayesian_bootstrap_draws",
    "bootstrap_draws",
    "bound_bootstrap_draws",
    "cluster_categories",
    "compress",
    "draw_stats",
    "interval_from_draws",
    "jackknife",
    "sign_flip_draws",
    "task_bootstrap",
]

#: Bootstrap interval methods.
CI_METHODS = ("bca", "percentile")


#: Largest number of multinomial counts held at once (chunk × categories).
_CHUNK_CELLS = 4_000_000


@dataclass
class Categories:
    """Distinct task categories: frequencies, per-category values and weights, task → category.

    Attributes
    ----------
    freq : ndarray of int, shape (m,)
        How many tasks fall in each category.
    values : ndarray, shape (m, C)
        The values of one task of each category (all its tasks share them).
    weights : ndarray, shape (m,)
        The weight of one task of each category.
    inverse : ndarray of int, shape (T,)
        Each task's category.
    """

    freq: NDArray[np.int64]
    values: NDArray[np.float64]  # m × C
    weights: NDArray[np.float64]  # m
    inverse: NDArray[np.int64]  # T → category


def compress(
    keys: NDArray[Any], values: NDArray[np.float64], weights: NDArray[np.float64]
) -> Categories:
    """Group tasks by identical key rows and weights.

    A task's values must depend only on its key (e.g. its (n, c)); tasks with
    equal key rows and equal weights form one category. Categories are in
    sorted key order.

    Parameters
    ----------
    keys : ndarray, shape (T, d)
        What each task's values depend on.
    values : ndarray, shape (T, C)
        Per-task values.
    weights : ndarray, shape (T,)
        Per-task weights.

    Returns
    -------
    Categories

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.bootstrap import compress
    >>> n, c = np.array([5, 5, 5, 3]), np.array([4, 4, 0, 3])
    >>> cats = compress(np.column_stack([n, c]), (c / n)[:, None], np.ones(4))
    >>> cats.freq.tolist(), cats.inverse.tolist()
    ([1, 1, 2], [2, 2, 1, 0])
    """
    full = np.column_stack([keys.astype(float), weights.astype(float)])
    _uniq, first, inverse, freq = np.unique(
        full, axis=0, return_index=True, return_inverse=True, return_counts=True
    )
    return Categories(
        freq=freq.astype(np.int64),
        values=values[first],
        weights=weights[first].astype(float),
        inverse=inverse.ravel().astype(np.int64),
    )


def _mix64(x: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """SplitMix64's finaliser: a fixed, well-mixed 64-bit hash of each integer."""
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return np.asarray(z ^ (z >> np.uint64(31)), dtype=np.uint64)


def cluster_categories(cats: Categories, clusters: NDArray[np.int64]) -> Categories:
    """Task categories grouped into cluster categories, for the cluster bootstrap.

    A cluster's contribution to a resampled weighted mean is its total weight
    W_g and weighted sum S_g of its tasks, so clusters holding the same
    multiset of task categories are one cluster category with value S_g / W_g
    and weight W_g; :func:`draw_stats` on the result resamples clusters with
    replacement (all their tasks together) and :func:`jackknife` leaves one
    cluster out. Clusters of one task keep that task's category exactly, in
    the same order, so with one task per cluster the result equals ``cats``
    and the draws equal the task bootstrap's at the same seed. The multiset of
    a cluster is identified by two 64-bit sums of hashed category indices and
    its size (vectorised; two different multisets collide with probability
    about 2^-128).

    Parameters
    ----------
    cats : Categories
        The task categories (:func:`compress`).
    clusters : ndarray of int, shape (T,)
        Each task's cluster code.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.bootstrap import cluster_categories, compress
    >>> v = np.array([[0.0], [1.0], [1.0], [0.0]])
    >>> cats = compress(v, v, np.ones(4))
    >>> cc = cluster_categories(cats, np.array([0, 0, 1, 1]))   # two clusters {0, 1}
    >>> cc.freq.tolist(), cc.values.ravel().tolist(), cc.weights.tolist()
    ([2], [0.5], [2.0])
    """
    codes = np.unique(np.asarray(clusters).ravel(), return_inverse=True)[1].ravel()
    n_cl = int(codes.max()) + 1 if codes.size else 0
    j = cats.inverse.astype(np.uint64)
    sig = np.zeros((3, n_cl), dtype=np.uint64)
    with np.errstate(over="ignore"):
        np.add.at(sig[0], codes, _mix64(j))
        np.add.at(sig[1], codes, _mix64(j + np.uint64(1 << 40)))
    np.add.at(sig[2], codes, np.uint64(1))
    low = np.full(n_cl, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(low, codes, cats.inverse)
    # types ordered by (size, smallest category, signature): one-task clusters as in cats
    order = np.lexsort((sig[1], sig[0], low, sig[2]))
    key = sig[:, order]
    new = np.ones(n_cl, dtype=bool)
    new[1:] = (key[:, 1:] != key[:, :-1]).any(axis=0)
    type_of_sorted = np.cumsum(new) - 1
    ctype = np.empty(n_cl, dtype=np.int64)
    ctype[order] = type_of_sorted
    n_types = int(type_of_sorted[-1]) + 1 if n_cl else 0
    freq = np.bincount(ctype, minlength=n_types).astype(np.int64)
    rep = order[new]  # one cluster of each type
    task_w = cats.weights[cats.inverse]
    w_cl = np.bincount(codes, weights=task_w, minlength=n_cl)
    s_cl = np.zeros((n_cl, cats.values.shape[1]))
    np.add.at(s_cl, codes, task_w[:, None] * cats.values[cats.inverse])
    single = sig[2][rep] == 1
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = s_cl[rep] / w_cl[rep][:, None]
    one = cats.values[np.clip(low[rep], 0, None)]  # a one-task cluster's values, unrounded
    values = np.where(single[:, None], one, ratio)
    weights = np.where(single, cats.weights[np.clip(low[rep], 0, None)], w_cl[rep])
    return Categories(freq=freq, values=values, weights=weights, inverse=ctype[codes])


def bootstrap_draws(
    counts: NDArray[np.int64], values: NDArray[np.float64], weights: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Weighted means for given resample counts: ``(M·w) @ V / (M @ w)``.

    ``counts`` is draws × categories (how often each category was drawn),
    ``values`` categories × columns. Resampling tasks and then averaging
    their values gives exactly this number, because tasks of one category
    carry identical values.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.bootstrap import bootstrap_draws
    >>> bootstrap_draws(np.array([[3, 1], [0, 4]]), np.array([[1.0], [0.0]]), np.ones(2)).tolist()
    [[0.75], [0.0]]
    """
    mw = counts * weights[None, :]
    den = mw.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray((mw @ values) / den[:, None], dtype=float)


def draw_stats(cats: Categories, *, n_boot: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """``n_boot`` × C resampled weighted means, drawn in chunks of bounded memory.

    Each resample draws as many tasks as there are, multinomially over the
    categories with their observed frequencies.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.bootstrap import compress, draw_stats
    >>> cats = compress(np.arange(4.0)[:, None], np.arange(4.0)[:, None], np.ones(4))
    >>> draws = draw_stats(cats, n_boot=1000, rng=np.random.default_rng(0))
    >>> draws.shape, bool(abs(draws.mean() - 1.5) < 0.1)
    ((1000, 1), True)
    """
    total = int(cats.freq.sum())
    m = cats.freq.size
    pvals = cats.freq / total
    out = np.empty((n_boot, cats.values.shape[1]))
    chunk = max(1, min(n_boot, _CHUNK_CELLS // max(m, 1)))
    for start in range(0, n_boot, chunk):
        b = min(chunk, n_boot - start)
        draws = rng.multinomial(total, pvals, size=b)
        out[start : start + b] = bootstrap_draws(draws, cats.values, cats.weights)
    return out


def jackknife(cats: Categories) -> NDArray[np.float64]:
    """Leave-one-task-out weighted means, one row per category (m × C).

    Leaving out any task of a category gives the same mean, so one row per
    category is the whole jackknife (weighted by ``cats.freq``).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.bootstrap import compress, jackknife
    >>> v = np.array([[0.0], [1.0], [1.0]])
    >>> cats = compress(v, v, np.ones(3))
    >>> jackknife(cats).ravel().tolist()   # without the 0: mean 1; without a 1: mean 0.5
    [1.0, 0.5]
    """
    sw = float(np.sum(cats.freq * cats.weights))
    swv = (cats.freq * cats.weights) @ cats.values
    den = sw - cats.weights
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(
            (swv[None, :] - cats.weights[:, None] * cats.values) / den[:, None], dtype=float
        )


def interval_from_draws(
    theta_hat: NDArray[np.float64],
    draws: NDArray[np.float64],
    cats: Categories,
    *,
    ci: float,
    method: str,
) -> tuple[NDArray[np.float64], NDArray[np.float64], list[str]]:
    """Percentile or BCa interval per column; BCa falls back to percentile per column.

    BCa [1]_ corrects the percentile levels for the bias (the share of draws
    below the estimate) and the skewness (the acceleration, from the
    jackknife over tasks). Where that is undefined — no spread among the
    draws, the estimate outside them, no jackknife spread, or adjusted levels
    outside (0, 1) — the column keeps its percentile interval, and its label
    says why.

    Parameters
    ----------
    theta_hat : ndarray, shape (C,)
        The estimates from the observed tasks.
    draws : ndarray, shape (B, C)
        Resampled estimates (:func:`draw_stats`).
    cats : Categories
        The categories the draws came from (for the jackknife).
    ci : float
        Confidence level.
    method : {"bca", "percentile"}

    Returns
    -------
    lower, upper : ndarray
    labels : list of str
        "BCa", "percentile" or "percentile (BCa degenerate: <why>)" per column.

    References
    ----------
    .. [1] Efron, B. (1987). Better bootstrap confidence intervals. *JASA*, 82(397), 171–185.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.bootstrap import compress, draw_stats, interval_from_draws
    >>> cats = compress(np.ones((10, 1)), np.ones((10, 1)), np.ones(10))
    >>> draws = draw_stats(cats, n_boot=200, rng=np.random.default_rng(0))
    >>> interval_from_draws(np.array([1.0]), draws, cats, ci=0.95, method="bca")[2]
    ['percentile (BCa degenerate: no spread among resamples)']
    """
    alpha = 1.0 - ci
    n_cols = theta_hat.size
    lo = np.quantile(draws, alpha / 2, axis=0)
    hi = np.quantile(draws, 1 - alpha / 2, axis=0)
    labels = ["percentile"] * n_cols
    if method == "percentile":
        return lo, hi, labels
    from scipy import special  # here, not at the top: importing it costs ~0.25 s

    b = draws.shape[0]
    tol = 1e-12 * np.maximum(1.0, np.abs(theta_hat))
    below = (draws < theta_hat - tol).sum(axis=0)
    tie = (np.abs(draws - theta_hat) <= tol).sum(axis=0)
    prop = (below + 0.5 * tie) / b
    jack = jackknife(cats)
    f = cats.freq.astype(float)[:, None]
    total = f.sum()
    jbar = (f * jack).sum(axis=0) / total
    dev = jbar[None, :] - jack
    num = (f * dev**3).sum(axis=0)
    den = 6.0 * ((f * dev**2).sum(axis=0)) ** 1.5
    z_a = special.ndtri(alpha / 2)  # the normal quantile (scipy.stats.norm.ppf)
    for j in range(n_cols):
        spread = draws[:, j].max() - draws[:, j].min()
        if not np.isfinite(spread) or spread <= tol[j]:
            labels[j] = "percentile (BCa degenerate: no spread among resamples)"
            continue
        if prop[j] <= 0.0 or prop[j] >= 1.0:
            labels[j] = "percentile (BCa degenerate: estimate outside the resamples)"
            continue
        if not (np.isfinite(den[j]) and den[j] > 0):
            labels[j] = "percentile (BCa degenerate: jackknife has no spread)"
            continue
        z0 = special.ndtri(prop[j])
        acc = num[j] / den[j]
        q = []
        for zz in (z_a, -z_a):
            d = 1.0 - acc * (z0 + zz)
            q.append(special.ndtr(z0 + (z0 + zz) / d) if d > 0 else np.nan)
        if not all(np.isfinite(q)) or not (0.0 < q[0] < q[1] < 1.0):
            labels[j] = "percentile (BCa degenerate: adjusted levels invalid)"
            continue
        lo[j], hi[j] = np.quantile(draws[:, j], q)
        labels[j] = "BCa"
    return lo, hi, labels


def sign_flip_draws(
    cats: Categories, *, n_boot: int, rng: np.random.Generator
) -> NDArray[np.float64]:
    """``n_boot`` × C means of per-task differences with random signs (a permutation test).

    Under "the two systems are exchangeable within each task" every task's
    difference is as likely to be negated. Per category, the sum of f_j
    random signs is 2·Binomial(f_j, ½) − f_j, so a draw costs the number of
    categories, not tasks. Unweighted: the mean is over all tasks.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.bootstrap import compress, sign_flip_draws
    >>> d = np.array([[0.2], [0.2], [-0.4]])
    >>> cats = compress(d, d, np.ones(3))
    >>> flips = sign_flip_draws(cats, n_boot=500, rng=np.random.default_rng(1))
    >>> flips.shape, bool(abs(flips.mean()) < 0.05)
    ((500, 1), True)
    """
    t_n = int(cats.freq.sum())
    out = np.empty((n_boot, cats.values.shape[1]))
    chunk = max(1, min(n_boot, _CHUNK_CELLS // cats.freq.size))
    for start in range(0, n_boot, chunk):
        bsz = min(chunk, n_boot - start)
        signs = 2.0 * rng.binomial(cats.freq, 0.5, size=(bsz, cats.freq.size)) - cats.freq
        out[start : start + bsz] = (signs @ cats.values) / t_n
    return out


def bayesian_bootstrap_draws(
    cats: Categories, *, n_boot: int, rng: np.random.Generator, pseudo: float = 0.5
) -> NDArray[np.float64]:
    """``n_boot`` × C Bayesian-bootstrap means, with ``pseudo`` of a task at 0 and at 1.

    Each draw weights the tasks by Dirichlet(1, …, 1) (Rubin 1981 [3]_) — over
    categories, Gamma(f_j) totals — and adds two pseudo-tasks of the mean task
    weight with values 0 and 1 and Dirichlet weight ``pseudo`` each. Without
    them, tasks that all pass would give every draw the value 1; with them,
    a value known only from all-pass tasks gets the Jeffreys interval of a
    binomial proportion (Beta(T + ½, ½) for T such tasks), and for values
    strictly inside (0, 1) they matter less as tasks accumulate.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.bootstrap import bayesian_bootstrap_draws, compress
    >>> ones = np.ones((10, 1))
    >>> d = bayesian_bootstrap_draws(compress(ones, ones, np.ones(10)), n_boot=20000,
    ...                              rng=np.random.default_rng(0))
    >>> from scipy import stats
    >>> bool(abs(np.quantile(d, 0.05) - stats.beta.ppf(0.05, 10.5, 0.5)) < 0.01)
    True
    """
    f = cats.freq.astype(float)
    w = cats.weights
    w_bar = float(np.sum(f * w) / np.sum(f))
    out = np.empty((n_boot, cats.values.shape[1]))
    chunk = max(1, min(n_boot, _CHUNK_CELLS // max(cats.freq.size, 1)))
    for start in range(0, n_boot, chunk):
        b = min(chunk, n_boot - start)
        g = rng.gamma(f, size=(b, f.size)) * w[None, :]
        g0 = rng.gamma(pseudo, size=b) * w_bar
        g1 = rng.gamma(pseudo, size=b) * w_bar
        out[start : start + b] = (g @ cats.values + g1[:, None]) / (g.sum(axis=1) + g0 + g1)[
            :, None
        ]
    return out


def bound_bootstrap_draws(
    cats: Categories,
    *,
    n_boot: int,
    rng: np.random.Generator,
    low: ArrayLike = 0.0,
    high: ArrayLike = 1.0,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Dirichlet-weighted means with one whole pseudo-task at ``low`` and, apart, at ``high``.

    Each draw weights the tasks by Dirichlet(1, …, 1) (Rubin 1981 [3]_) and adds
    one pseudo-task of the mean task weight and Dirichlet weight 1, valued
    ``low`` in the first array and ``high`` in the second (the same weights in
    both; ``low`` and ``high`` may differ by column). The α/2 quantile of the
    first and the 1 − α/2 quantile of the second are the lower and upper ends
    of an interval for the mean of values known to lie in [low, high]. On 0/1
    values they are the Clopper–Pearson bounds, the Beta(x, T − x + 1) and
    Beta(x + 1, T − x) quantiles for x ones of T, so every task at 0 gives the
    lower end 0 exactly; on values in between, the bound of Gaffke (2005),
    conjectured by Learned-Miller and Thomas [4]_ to keep its level for every
    distribution on [low, high].

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from passhat.bootstrap import bound_bootstrap_draws, compress
    >>> v = np.r_[np.ones(3), np.zeros(27)][:, None]
    >>> lo, hi = bound_bootstrap_draws(compress(v, v, np.ones(30)), n_boot=20000,
    ...                                rng=np.random.default_rng(0))
    >>> bool(abs(np.quantile(hi, 0.95) - stats.beta.ppf(0.95, 4, 27)) < 0.01)
    True
    >>> z = np.zeros((30, 1))
    >>> lo, hi = bound_bootstrap_draws(compress(z, z, np.ones(30)), n_boot=100,
    ...                                rng=np.random.default_rng(0))
    >>> float(np.quantile(lo, 0.05))
    0.0
    """
    f = cats.freq.astype(float)
    w = cats.weights
    w_bar = float(np.sum(f * w) / np.sum(f))
    low_c = np.broadcast_to(np.asarray(low, dtype=float), cats.values.shape[1:])
    high_c = np.broadcast_to(np.asarray(high, dtype=float), cats.values.shape[1:])
    lo = np.empty((n_boot, cats.values.shape[1]))
    hi = np.empty_like(lo)
    chunk = max(1, min(n_boot, _CHUNK_CELLS // max(cats.freq.size, 1)))
    for start in range(0, n_boot, chunk):
        b = min(chunk, n_boot - start)
        g = rng.gamma(f, size=(b, f.size)) * w[None, :]
        g0 = rng.exponential(size=b) * w_bar
        tot = (g.sum(axis=1) + g0)[:, None]
        s = g @ cats.values
        lo[start : start + b] = (s + g0[:, None] * low_c[None, :]) / tot
        hi[start : start + b] = (s + g0[:, None] * high_c[None, :]) / tot
    return lo, hi


def task_bootstrap(
    values: ArrayLike,
    *,
    keys: ArrayLike | None = None,
    weights: ArrayLike | None = None,
    ci: float = 0.95,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | np.random.Generator | None = DEFAULT_SEED,
    method: Literal["bca", "percentile"] = "bca",
) -> pd.DataFrame:
    """Task-level bootstrap of weighted means of per-task values (all columns at once).

    Tasks are resampled with replacement (never runs within tasks). Tasks
    whose ``keys`` rows (and weights) are equal are one category; each
    resample is a multinomial draw over categories, and one draw matrix
    serves every column, so intervals across metrics and k are coherent.
    BCa [1]_ falls back to percentile per column where it degenerates.

    Parameters
    ----------
    values : array_like, tasks × columns
        Per-task values; must be a function of the task's key row.
    keys : array_like, tasks × d, optional
        What a task's values depend on, e.g. (n, c). Default: the values.
    weights : array_like, optional
        Per-task weights (the mean is Σ w v / Σ w in every resample).
    ci, n_boot, seed, method
        Level, resamples (≥ 100), random seed, "bca" or "percentile".

    Returns
    -------
    pandas.DataFrame
        One row per column: estimate, lower, upper, se (sd of the resamples),
        method.

    References
    ----------
    .. [1] Efron, B. (1987). Better bootstrap confidence intervals. *JASA*, 82(397), 171–185.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.bootstrap import task_bootstrap
    >>> v = np.r_[np.ones(30), np.zeros(20)][:, None]
    >>> r = task_bootstrap(v, n_boot=2000, seed=0, method="percentile")
    >>> round(float(r["estimate"][0]), 2), bool(r["lower"][0] < 0.6 < r["upper"][0])
    (0.6, True)
    """
    level = check_ci(ci)
    nb = check_n_boot(n_boot)
    meth = check_method(method, CI_METHODS, "ci_method")
    vals = np.asarray(values, dtype=float)
    if vals.ndim == 1:
        vals = vals[:, None]
    if vals.shape[0] == 0:
        raise ValidationError("no tasks to bootstrap")
    key_arr = vals if keys is None else np.asarray(keys)
    if key_arr.ndim == 1:
        key_arr = key_arr[:, None]
    w = np.ones(vals.shape[0]) if weights is None else np.asarray(weights, dtype=float)
    rng = make_rng(seed)
    cats = compress(key_arr, vals, w)
    theta = (cats.freq * cats.weights) @ cats.values / float(np.sum(cats.freq * cats.weights))
    draws = draw_stats(cats, n_boot=nb, rng=rng)
    lo, hi, labels = interval_from_draws(theta, draws, cats, ci=level, method=meth)
    return pd.DataFrame(
        {
            "estimate": theta,
            "lower": lo,
            "upper": hi,
            "se": draws.std(axis=0, ddof=1),
            "method": [f"task bootstrap {lab}, {nb} resamples" for lab in labels],
        }
    )
