"""Resampled benchmark values of the grader-corrected estimators, in the two scopes.

Both scopes draw the grader's (se, sp) from their Beta posteriors jointly with the data
(a measurement-error correction with posterior draws; constant draws when se and sp were
stated, so that the interval then ignores their uncertainty):

* **population** (tasks like these): the task bootstrap. Each resample's mean of the tasks'
  unbiased estimates of q^j (:func:`~passhat.graders.estimators.observed_powers`) is mapped
  through the drawn (se, sp); the corrected values are linear in those means, so a resample
  costs one matrix product, not a loop over tasks. With task weights the means are weighted
  (a resample's mean is Σ m_i w_i x_i / Σ m_i w_i); with clusters the units resampled are the
  clusters, each with all its tasks (a cluster bootstrap, as :func:`passhat.estimate`'s):
  a cluster enters as its tasks' weighted mean with their total weight, and a cluster of one
  task as that task itself, so one task per cluster gives the task bootstrap's draws exactly.
* **benchmark** (these tasks): a parametric bootstrap of the runs. Each task's grader passes
  are redrawn c* ~ Binomial(n, q̃) at q̃ = (c + ½) / (n + 1) (never 0 or 1, so all-pass and
  all-fail tasks vary too), the corrected estimate recomputed with the drawn (se, sp); the
  interval is the draws' percentile interval shifted to centre on the estimate.

Draws whose (se, sp) have se + sp ≤ 1 have no correction; they are counted and left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from passhat.graders.estimators import observed_powers, power_weights
from passhat.graders.spec import GraderSpec

__all__ = [
    "CHUNK_CELLS",
    "Draws",
    "benchmark_draws",
    "population_draws",
    "resample_units",
    "values_from_powers",
    "weighted_mean",
]

#: Cells (draws × tasks) of one chunk of resamples (bounded memory for large benchmarks).
CHUNK_CELLS = 2_000_000


@dataclass(frozen=True)
class Draws:
    """Resampled benchmark values: mean (B), pass@k and pass^k (B × K); NaN where invalid."""

    mean: NDArray[np.float64]
    pass_at_k: NDArray[np.float64]
    pass_hat_k: NDArray[np.float64]
    invalid: int


def values_from_powers(
    hits: NDArray[np.float64],
    misses: NDArray[np.float64],
    ks: Sequence[int],
    se: NDArray[np.float64],
    sp: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Corrected mean (…), pass@k and pass^k (… × K) from the (averaged) unbiased estimates
    of q^j (``hits``, … × J) and (1 − q)^j (``misses``) for each draw's (se, sp) (…)."""
    top = hits.shape[-1] - 1
    a = se + sp - 1.0
    ok = a > 0
    a_safe = np.where(ok, a, 1.0)
    w_hat = power_weights(ks, a_safe, 1.0 - sp, top)
    w_at = power_weights(ks, a_safe, 1.0 - se, top)
    hat = np.einsum("...kj,...j->...k", w_hat, hits)
    at = 1.0 - np.einsum("...kj,...j->...k", w_at, misses)
    mean = (hits[..., 1] - (1.0 - sp)) / a_safe
    bad = ~ok
    return (
        np.where(bad, np.nan, mean),
        np.where(bad[..., None], np.nan, at),
        np.where(bad[..., None], np.nan, hat),
    )


def weighted_mean(
    x: NDArray[np.float64], weights: NDArray[np.float64] | None, *, axis: int = 0
) -> NDArray[np.float64]:
    """The mean of ``x`` along ``axis``, weighted by ``weights`` (None: equal weights, the
    plain mean, so that equal weights give the unweighted numbers bit for bit).

    Examples
    --------
    >>> import numpy as np
    >>> weighted_mean(np.array([[1.0], [0.0]]), np.array([3.0, 1.0])).tolist()
    [0.75]
    """
    if weights is None:
        return np.asarray(x.mean(axis=axis), dtype=float)
    w = weights / weights.sum()
    return np.asarray(np.tensordot(np.moveaxis(x, axis, -1), w, axes=([-1], [0])), dtype=float)


def resample_units(
    hits: NDArray[np.float64],
    misses: NDArray[np.float64],
    weights: NDArray[np.float64] | None,
    clusters: NDArray[np.int64] | None,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64] | None]:
    """What the population bootstrap draws: the tasks (``clusters`` None), or the clusters
    (codes 0 … G − 1), each as its tasks' weighted mean of ``hits`` and ``misses`` with their
    total weight; a one-task cluster keeps its task's values and weight exactly. The weights
    come back None when every unit weighs the same (equal weights).

    Examples
    --------
    >>> import numpy as np
    >>> h = np.array([[1.0, 1.0], [1.0, 0.0], [1.0, 0.5]])
    >>> u, _, w = resample_units(h, h, None, np.array([0, 0, 1]))
    >>> u.tolist(), w.tolist()
    ([[1.0, 0.5], [1.0, 0.5]], [2.0, 1.0])
    """
    if clusters is None:
        return hits, misses, weights
    g = int(clusters.max()) + 1
    w = np.ones(clusters.size) if weights is None else weights
    size = np.bincount(clusters, minlength=g)
    total = np.bincount(clusters, weights=w, minlength=g)
    first = np.full(g, clusters.size, dtype=np.int64)
    np.minimum.at(first, clusters, np.arange(clusters.size))
    single = size == 1
    out = []
    for x in (hits, misses):
        s = np.zeros((g, x.shape[1]))
        np.add.at(s, clusters, w[:, None] * x)
        out.append(np.where(single[:, None], x[np.minimum(first, clusters.size - 1)],
                            s / total[:, None]))  # fmt: skip
    unit_w = np.where(single, w[np.minimum(first, clusters.size - 1)], total)
    return out[0], out[1], None if np.ptp(unit_w) == 0 else unit_w


def population_draws(
    n: NDArray[np.float64],
    c: NDArray[np.float64],
    ks: Sequence[int],
    grader: GraderSpec,
    *,
    n_boot: int,
    rng: np.random.Generator,
    weights: NDArray[np.float64] | None = None,
    clusters: NDArray[np.int64] | None = None,
) -> Draws:
    """Task (or cluster) bootstrap × posterior (se, sp) draws of the benchmark values, with
    the tasks' ``weights`` (None: equal) and ``clusters`` (codes; None: tasks independent)."""
    top = max(ks)
    hits, misses, unit_w = resample_units(
        observed_powers(n, c, top), observed_powers(n, n - c, top), weights, clusters
    )
    t = hits.shape[0]
    se, sp = grader.draws(n_boot, rng)
    mean_h = np.empty((n_boot, top + 1))
    mean_m = np.empty((n_boot, top + 1))
    step = max(1, CHUNK_CELLS // max(t, 1))
    for start in range(0, n_boot, step):  # chunks of resamples, not tasks
        stop = min(n_boot, start + step)
        m = rng.multinomial(t, np.full(t, 1.0 / t), size=stop - start)
        if unit_w is None:
            f = m / t
        else:
            mw = m * unit_w[None, :]
            f = mw / mw.sum(axis=1, keepdims=True)
        mean_h[start:stop] = f @ hits
        mean_m[start:stop] = f @ misses
    mean, at, hat = values_from_powers(mean_h, mean_m, ks, se, sp)
    return Draws(mean, at, hat, int(np.sum(se + sp <= 1.0)))


def _power_table(
    n: NDArray[np.float64], top: int
) -> tuple[NDArray[np.float64], NDArray[np.intp]] | None:
    """C(c, j)/C(n, j) for every distinct n, c = 0 … max n and j = 0 … top, and each task's
    row, so that redrawn counts are looked up; None when the table would be large."""
    distinct, row = np.unique(n, return_inverse=True)
    most = int(distinct.max(initial=0))
    if distinct.size * (most + 1) * (top + 1) > CHUNK_CELLS:
        return None
    c = np.minimum(np.arange(most + 1, dtype=float)[None, :], distinct[:, None])
    return observed_powers(distinct[:, None], c, top), row.astype(np.intp)


def benchmark_draws(
    n: NDArray[np.float64],
    c: NDArray[np.float64],
    ks: Sequence[int],
    grader: GraderSpec,
    *,
    n_boot: int,
    rng: np.random.Generator,
    weights: NDArray[np.float64] | None = None,
) -> Draws:
    """Parametric run bootstrap (c* ~ Binomial(n, (c + ½)/(n + 1))) × posterior (se, sp),
    the tasks averaged with ``weights`` (None: equal); clusters do not enter (these tasks)."""
    top = max(ks)
    t = n.size
    q = (c + 0.5) / (n + 1.0)
    se, sp = grader.draws(n_boot, rng)
    mean_h = np.empty((n_boot, top + 1))
    mean_m = np.empty((n_boot, top + 1))
    step = max(1, CHUNK_CELLS // max(t * (top + 1), 1))
    table = _power_table(n, top)
    for start in range(0, n_boot, step):  # chunks of resamples, not tasks
        stop = min(n_boot, start + step)
        cs = rng.binomial(n.astype(np.int64), q, size=(stop - start, t))
        if table is None:
            csf = cs.astype(float)
            h = observed_powers(n, csf, top)
            mi = observed_powers(n, n - csf, top)
        else:
            tab, row = table
            h = tab[row[None, :], cs]
            mi = tab[row[None, :], n.astype(np.int64)[None, :] - cs]
        mean_h[start:stop] = weighted_mean(h, weights, axis=1)
        mean_m[start:stop] = weighted_mean(mi, weights, axis=1)
    mean, at, hat = values_from_powers(mean_h, mean_m, ks, se, sp)
    return Draws(mean, at, hat, int(np.sum(se + sp <= 1.0)))
