"""Intervals from the hierarchical Beta-Binomial posterior: population, benchmark, predictive.

Where the task bootstrap and the normal interval fail — few tasks, most tasks
all-pass or all-fail — passhat uses the hierarchical model (tasks' rates
p_i ~ Beta(a, b), runs c_i ~ Binomial(n_i, p_i)) with its two hyperparameters
integrated exactly on a grid (:mod:`passhat.betabinom`). For a metric g
(g(p) = p, p^k or 1 − (1 − p)^k) and every grid node (a, b):

* **population** — the expected value over tasks like these, E g(p) under
  Beta(a, b): Π_{j<k} (a+j)/(a+b+j) for pass^k, 1 − Π_{j<k} (b+j)/(a+b+j)
  for pass@k, a/(a+b) for the mean. Its interval is the equal-tailed
  posterior interval, computed by weighted quantiles over the grid nodes
  (quadrature, no sampling): :func:`population_values`,
  :func:`weighted_quantiles`.
* **benchmark** — Σ w_i g(p_i) for these tasks, with
  p_i | a, b, data ~ Beta(a + c_i, b + n_i − c_i): :func:`latent_draws`
  draws the nodes with their posterior weights, then the tasks' rates.
  Categories of more than 30 identical tasks are summed by a normal
  approximation (their sum of bounded, independent terms).
* **a new benchmark of T′ tasks** — the mean of g over T′ new tasks drawn
  from Beta(a, b): :func:`predictive_draws`; the posterior mean of the
  task-to-task variance Var g(p) alone: :func:`population_spread`.

:func:`expected_task_variance` gives, per (n, c), the posterior expectation
of the exact variance of a task's unbiased estimator, Var(U | p): what the
normal benchmark interval uses where no unbiased estimate exists (n < 2k).

All functions work on the distinct (n, c, w) categories of the tasks, so
their cost follows the number of categories (and, for the benchmark draws,
at most 30 tasks per category), not the number of tasks.

References
----------
.. [1] Gelman, A. et al. (2013). *Bayesian Data Analysis*, 3rd ed. CRC Press,
   §5.3 (the hierarchical Beta-Binomial model; posterior of the rates of the
   observed units and of a new unit).

Examples
--------
>>> import numpy as np
>>> from passhat.betabinom import posterior_grid
>>> from passhat.hierarchical import population_values, weighted_quantiles
>>> nodes = posterior_grid([5] * 10, [5] * 10, size=128).nodes()   # ten all-pass tasks
>>> vals = population_values(nodes, [("pass_hat_k", 5)])
>>> lo, hi = weighted_quantiles(vals, nodes.weight, [0.05, 0.95])[:, 0]
>>> bool(0.5 < lo < hi < 1.0)   # not [1, 1]: ten all-pass tasks do not prove pass^5 = 1
True
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from passhat.betabinom import GridNodes, log_pmf, rising_moments
from passhat.estimators import mean_success, pass_at_k, pass_hat_k, subset_overlap_weights

__all__ = [
    "EXACT_GROUP_MAX",
    "EXACT_PREDICTIVE_MAX",
    "Column",
    "beta_moment_draws",
    "estimate_error_draws",
    "expected_task_variance",
    "latent_draws",
    "population_spread",
    "population_values",
    "predictive_draws",
    "weighted_quantiles",
]

#: A column of an interval table: (metric, k); the mean ignores k.
Column = tuple[str, int]

#: Categories with more identical tasks than this are summed by a normal approximation.
EXACT_GROUP_MAX = 30

#: New benchmarks up to this many tasks are drawn task by task; larger ones as a matched Beta.
EXACT_PREDICTIVE_MAX = 1000

#: Largest number of beta draws held at once (draws × tasks).
_CHUNK_CELLS = 2_000_000

#: Up to this many runs per task, the error draws invert the Beta-Binomial CDF of new runs.
_INVERSION_MAX_RUNS = 20
_TABLE_MAX_CELLS = 4_000_000  # tables of estimates at every c beyond this: computed per draw


def _g_moments(
    x: NDArray[np.float64], y: NDArray[np.float64], kappa: NDArray[np.float64], col: Column
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """E g and E g² of a metric for p ~ Beta(x, y) with κ = x + y (elementwise)."""
    metric, k = col
    if metric == "mean":
        m = rising_moments(x, kappa, 2)
        return m[..., 0], m[..., 1]
    kk = int(k)
    if metric == "pass_hat_k":
        m = rising_moments(x, kappa, 2 * kk)
        return m[..., kk - 1], m[..., 2 * kk - 1]
    q = rising_moments(y, kappa, 2 * kk)  # moments of 1 − p
    return 1.0 - q[..., kk - 1], 1.0 - 2.0 * q[..., kk - 1] + q[..., 2 * kk - 1]


def _g(p: NDArray[np.float64], col: Column) -> NDArray[np.float64]:
    metric, k = col
    if metric == "mean":
        return p
    if metric == "pass_hat_k":
        return np.asarray(p ** int(k))
    with np.errstate(divide="ignore"):
        return np.asarray(-np.expm1(int(k) * np.log1p(-p)))


def population_values(nodes: GridNodes, cols: Sequence[Column]) -> NDArray[np.float64]:
    """E g(p) under Beta(a, b) at every grid node: nodes × columns.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.betabinom import GridNodes
    >>> from passhat.hierarchical import population_values
    >>> one = np.ones(1)
    >>> nodes = GridNodes(a=one, b=one, mu=one / 2, kappa=2 * one, weight=one)
    >>> population_values(nodes, [("mean", 1), ("pass_hat_k", 2), ("pass_at_k", 2)]).round(4)
    array([[0.5   , 0.3333, 0.6667]])
    """
    kmax = max(1 if m == "mean" else int(k) for m, k in cols)
    ma = rising_moments(nodes.a, nodes.kappa, kmax)  # E p^j, j = 1..kmax
    mb = (
        rising_moments(nodes.b, nodes.kappa, kmax) if any(m == "pass_at_k" for m, _ in cols) else ma
    )
    out = np.empty((nodes.a.size, len(cols)))
    for j, (metric, k) in enumerate(cols):
        if metric == "mean":
            out[:, j] = ma[:, 0]
        elif metric == "pass_hat_k":
            out[:, j] = ma[:, int(k) - 1]
        else:
            out[:, j] = 1.0 - mb[:, int(k) - 1]
    return out


def population_spread(nodes: GridNodes, cols: Sequence[Column]) -> NDArray[np.float64]:
    """Posterior mean of the task-to-task variance Var g(p) under Beta(a, b), per column.

    E_{a, b | y}[E g(p)² − (E g(p))²] with the moments of Beta(a, b) exact at
    every grid node (for pass^k, E p^{2k} − (E p^k)²; for pass@k the same in
    1 − p), averaged over the nodes with their posterior weights. It is the
    spread a new benchmark's tasks will show: the model's answer where the
    tasks' own estimates cannot give it (n < 2k: E p^{2k} has no unbiased
    estimate).

    Returns
    -------
    ndarray, shape (len(cols),)

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.betabinom import GridNodes
    >>> from passhat.hierarchical import population_spread
    >>> one = np.ones(1)   # one node, a = b = 1: p uniform, Var p = 1/12, Var p² = 1/5 − 1/9
    >>> population_spread(nodes=GridNodes(a=one, b=one, mu=one / 2, kappa=2 * one, weight=one),
    ...                   cols=[("mean", 1), ("pass_hat_k", 2)]).round(4).tolist()
    [0.0833, 0.0889]
    """
    out = np.empty(len(cols))
    for j, col in enumerate(cols):
        m1, m2 = _g_moments(nodes.a, nodes.b, nodes.kappa, col)
        out[j] = float(nodes.weight @ np.maximum(m2 - m1 * m1, 0.0))
    return out


def weighted_quantiles(
    values: NDArray[np.float64], weights: NDArray[np.float64], probs: Sequence[float]
) -> NDArray[np.float64]:
    """Quantiles of each column of ``values`` under node ``weights`` (inverted CDF): probs × C.

    The smallest value whose cumulative weight reaches the probability; with
    equal weights this is numpy's ``method="inverted_cdf"``.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.hierarchical import weighted_quantiles
    >>> v = np.array([[3.0], [1.0], [2.0]])
    >>> weighted_quantiles(v, np.array([0.2, 0.5, 0.3]), [0.4, 0.6, 0.9]).ravel().tolist()
    [1.0, 2.0, 3.0]
    """
    vals = np.asarray(values, dtype=float)
    if vals.ndim == 1:
        vals = vals[:, None]
    w = np.asarray(weights, dtype=float)
    out = np.empty((len(probs), vals.shape[1]))
    for j in range(vals.shape[1]):
        order = np.argsort(vals[:, j], kind="stable")
        cum = np.cumsum(w[order])
        cum /= cum[-1]
        idx = np.searchsorted(cum, np.asarray(probs) - 1e-12, side="left")
        out[:, j] = vals[order[np.minimum(idx, len(order) - 1)], j]
    return out


def expected_task_variance(
    nodes: GridNodes, n: ArrayLike, c: ArrayLike, cols: Sequence[Column]
) -> NDArray[np.float64]:
    """Posterior expectation of Var(U | p) for each task's unbiased estimator U, per column.

    Var(U | p) = Σ_{j=1..k} h_j (p^{2k−j} − p^{2k}) with the subset-overlap
    weights h_j (:func:`passhat.estimators.subset_overlap_weights`; for the
    mean, p(1 − p)/n; for pass@k, the same in 1 − p); p ~ Beta(a + c,
    b + n − c) given a node and the task's runs, and the nodes are averaged
    with their posterior weights. It is never zero for a rate strictly inside
    (0, 1), so all-pass and all-fail tasks keep their share of the
    within-task variance. The moments E[p^m] are computed once up to the
    largest 2k and shared by every column.

    Parameters
    ----------
    nodes : GridNodes
        The posterior grid (:meth:`passhat.betabinom.Grid.nodes`).
    n, c : array_like
        Runs and successes per task (or per distinct category); n ≥ k.
    cols : sequence of (metric, k)

    Returns
    -------
    ndarray, shape (tasks, len(cols))

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.betabinom import GridNodes
    >>> from passhat.hierarchical import expected_task_variance
    >>> one = np.ones(1)   # one node, a = b = 1: p | (n=2, c=1) ~ Beta(2, 2)
    >>> nodes = GridNodes(a=one, b=one, mu=one / 2, kappa=2 * one, weight=one)
    >>> float(expected_task_variance(nodes, [2], [1], [("mean", 1)])[0, 0])   # E[p(1-p)]/2
    0.1
    """
    nn = np.asarray(n, dtype=float).ravel()
    cc = np.asarray(c, dtype=float).ravel()
    out = np.zeros((nn.size, len(cols)))
    for failures in (False, True):
        idx = [j for j, (m, _) in enumerate(cols) if (m == "pass_at_k") == failures]
        if not idx:
            continue
        kks = {j: 1 if cols[j][0] == "mean" else int(cols[j][1]) for j in idx}
        top = 2 * max(kks.values())
        succ = nn - cc if failures else cc
        ax = nodes.b if failures else nodes.a
        step = max(1, _CHUNK_CELLS // max(1, nodes.a.size * top))
        for start in range(0, nn.size, step):
            sl = slice(start, start + step)
            x = ax[None, :] + succ[sl, None]
            y = nodes.kappa[None, :] + nn[sl, None]
            mom = rising_moments(x, y, top)  # tasks × nodes × top: E[p^m | node], m = 1..top
            # the variance is linear in the moments: average them over the nodes first
            avg = np.einsum("tnm,n->tm", mom, nodes.weight)  # tasks × top
            for j in idx:
                kk = kks[j]
                h = subset_overlap_weights(nn[sl], kk)  # tasks × k
                m = np.arange(2 * kk - 1, kk - 1, -1) - 1  # 2k−j for j = 1..k (0-based)
                out[sl, j] = ((avg[:, m] - avg[:, [2 * kk - 1]]) * h).sum(axis=-1)
    return np.maximum(out, 0.0)


def _categories(
    n: ArrayLike, c: ArrayLike, weights: ArrayLike, freq: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    """Per category (flat arrays): runs, successes, weight of one task, number of tasks."""
    return (
        np.asarray(n, dtype=float).ravel(),
        np.asarray(c, dtype=float).ravel(),
        np.asarray(weights, dtype=float).ravel(),
        np.asarray(freq, dtype=np.int64).ravel(),
    )


def latent_draws(
    nodes: GridNodes,
    n: ArrayLike,
    c: ArrayLike,
    weights: ArrayLike,
    freq: ArrayLike,
    cols: Sequence[Column],
    *,
    n_draws: int,
    rng: np.random.Generator,
    resample_tasks: bool = False,
    pick: ArrayLike | None = None,
) -> NDArray[np.float64]:
    """Posterior draws of Σ w_i g(p_i) / Σ w_i over these tasks (draws × columns).

    Each draw picks a grid node (a, b) with its posterior weight, then every
    task's rate p_i ~ Beta(a + c_i, b + n_i − c_i). Categories holding more
    than :data:`EXACT_GROUP_MAX` identical tasks are summed by a normal
    approximation of their sum (exact mean and variance given the node).

    With ``resample_tasks`` the tasks also get Dirichlet(1, …, 1) weights (a
    Bayesian bootstrap over tasks): the draws then describe the weighted mean
    over tasks like these rather than over these tasks.

    Parameters
    ----------
    nodes : GridNodes
    n, c, weights, freq : array_like
        Per category: runs, successes, weight of one task, number of tasks.
    cols : sequence of (metric, k)
    n_draws : int
    rng : numpy.random.Generator
    resample_tasks : bool
    pick : array_like of int, shape (n_draws,), optional
        The grid node of every draw (indices into ``nodes``); drawn with the
        posterior weights when omitted. Two systems' draws under one shared
        posterior pass the same ``pick`` so that draw j of both uses the
        same (a, b).

    Returns
    -------
    ndarray, shape (n_draws, len(cols))

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.betabinom import posterior_grid
    >>> from passhat.hierarchical import latent_draws
    >>> nodes = posterior_grid([3, 3], [3, 0], [8, 2], size=64).nodes()
    >>> d = latent_draws(nodes, [3, 3], [3, 0], [1.0, 1.0], [8, 2], [("mean", 1)],
    ...                  n_draws=2000, rng=np.random.default_rng(0))
    >>> d.shape, bool(0.6 < d.mean() < 0.9)
    ((2000, 1), True)
    """
    nn, cc, ww, ff = _categories(n, c, weights, freq)
    idx = nodes.sample(n_draws, rng) if pick is None else np.asarray(pick, dtype=np.intp)
    if idx.shape != (n_draws,):
        raise ValueError(f"pick must hold one node per draw ({n_draws}), got shape {idx.shape}")
    a, b = nodes.a[idx], nodes.b[idx]
    small = ff <= EXACT_GROUP_MAX
    rep = np.repeat(np.flatnonzero(small), ff[small])  # one entry per task drawn exactly
    num = np.zeros((n_draws, len(cols)))
    den = np.zeros(n_draws)
    if rep.size:
        step = max(1, _CHUNK_CELLS // rep.size)
        xs, ys, wt = cc[rep], nn[rep] - cc[rep], ww[rep]
        for start in range(0, n_draws, step):
            sl = slice(start, min(n_draws, start + step))
            p = rng.beta(a[sl, None] + xs[None, :], b[sl, None] + ys[None, :])
            tw = wt[None, :] * (rng.exponential(size=p.shape) if resample_tasks else 1.0)
            den[sl] += tw.sum(axis=1) if resample_tasks else float(wt.sum())
            for j, col in enumerate(cols):
                num[sl, j] += (tw * _g(p, col)).sum(axis=1)
    for g in np.flatnonzero(~small):
        f = float(ff[g])
        x, y = a + cc[g], b + (nn[g] - cc[g])
        r = rng.gamma(f, size=n_draws) if resample_tasks else np.full(n_draws, f)
        den += ww[g] * r
        z = rng.standard_normal((n_draws, len(cols)))
        for j, col in enumerate(cols):
            m1, m2 = _g_moments(x, y, x + y, col)
            var = np.maximum(m2 - m1 * m1, 0.0)
            # given the group's Dirichlet total R, Σ G_i g_i has mean m1 R, variance 2R² var/(f+1)
            sd = r * np.sqrt(2.0 * var / (f + 1.0)) if resample_tasks else np.sqrt(f * var)
            num[:, j] += ww[g] * np.clip(m1 * r + sd * z[:, j], 0.0, r)
    return np.asarray(num / den[:, None], dtype=float)


def _estimate_at(n: NDArray[np.int64], c: NDArray[np.int64], col: Column) -> NDArray[np.float64]:
    """The unbiased estimate of ``col`` at n runs (per task) and c successes (draws × tasks)."""
    nn, cc = np.broadcast_to(n.astype(float), c.shape), c.astype(float)
    fn = {"mean": lambda a, b, k: mean_success(a, b), "pass_hat_k": pass_hat_k}.get(col[0])
    return np.asarray((fn or pass_at_k)(nn, cc, int(col[1])), dtype=float)


def _estimate_table(
    n: NDArray[np.float64], col: Column
) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    """The unbiased estimate at every success count 0..n of each category, flat, with offsets."""
    size = n.astype(np.int64) + 1
    offset = np.r_[0, np.cumsum(size)[:-1]].astype(np.intp)
    nn = np.repeat(n, size)
    cc = (np.arange(int(size.sum())) - np.repeat(offset, size)).astype(float)
    metric, k = col
    if metric == "mean":
        table = mean_success(nn, cc)
    elif metric == "pass_hat_k":
        table = pass_hat_k(nn, cc, int(k))
    else:
        table = pass_at_k(nn, cc, int(k))
    return np.asarray(table, dtype=float).ravel(), offset


def _predictive_cdf(
    a: NDArray[np.float64], b: NDArray[np.float64], n: NDArray[np.float64], c: NDArray[np.float64]
) -> NDArray[np.float64]:
    """P(c* ≤ m) of new runs c* ~ BetaBinomial(n, a + c, b + n − c): nodes × categories × max n.

    Entry m < n of a category is P(c* ≤ m); entries m ≥ n are 2 (never reached by a uniform),
    so c* = #{m : u ≥ entry m} for u ~ U(0, 1).
    """
    top = int(n.max())
    m = np.arange(top + 1, dtype=float)
    x = a[:, None, None] + c[None, :, None]  # nodes × categories × 1
    y = b[:, None, None] + (n - c)[None, :, None]
    nn = n[None, :, None]
    ok = m[None, None, :] <= nn
    mm = np.where(ok, m[None, None, :], 0.0)
    logpmf = log_pmf(mm, nn, x, y)
    cdf = np.cumsum(np.where(ok, np.exp(logpmf), 0.0), axis=2)[:, :, :top]
    return np.where(m[None, None, :top] < nn, cdf, 2.0)


def estimate_error_draws(
    nodes: GridNodes,
    n: ArrayLike,
    c: ArrayLike,
    weights: ArrayLike,
    freq: ArrayLike,
    cols: Sequence[Column],
    *,
    pick: ArrayLike,
    rng: np.random.Generator,
) -> NDArray[np.float64]:
    """Draws of the error of the weighted unbiased estimate over these tasks, under the posterior.

    Per draw j: the node ``pick[j]`` gives (a, b); every task's rate p_i and new
    runs c*_i are drawn from their joint posterior law — p_i ~ Beta(a + c_i,
    b + n_i − c_i), c*_i | p_i ~ Binomial(n_i, p_i) — and the draw is
    Σ w_i (U(c*_i) − g(p_i)) / Σ w_i with U the unbiased estimator: how far the
    estimate lands from these tasks' value when runs are repeated, with the rates
    as uncertain as the data leave them. Its mean is 0 (U is unbiased given p).
    Every column is read from the same (p, c*) of a draw. With at most
    :data:`_INVERSION_MAX_RUNS` runs per task c*_i is drawn first, from its
    Beta-Binomial(n_i, a + c_i, b + n_i − c_i) law by inversion of its CDF, and then
    p_i | c*_i ~ Beta(a + c_i + c*_i, b + 2n_i − c_i − c*_i): the same joint law at
    the cost of one uniform instead of a binomial draw. Categories holding more
    than :data:`EXACT_GROUP_MAX` identical tasks add a normal term with the
    posterior-mean variance of their sum (:func:`expected_task_variance`).

    Parameters
    ----------
    nodes : GridNodes
    n, c, weights, freq : array_like
        Per category: runs, successes, weight of one task, number of tasks.
    cols : sequence of (metric, k)
    pick : array_like of int
        The grid node of every draw (its length is the number of draws).
    rng : numpy.random.Generator

    Returns
    -------
    ndarray, shape (draws, len(cols))

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.betabinom import posterior_grid
    >>> from passhat.hierarchical import estimate_error_draws
    >>> nodes = posterior_grid([4, 4], [2, 4], [5, 5], size=64).nodes()
    >>> rng = np.random.default_rng(0)
    >>> e = estimate_error_draws(nodes, [4, 4], [2, 4], [1.0, 1.0], [5, 5], [("mean", 1)],
    ...                          pick=nodes.sample(4000, rng), rng=rng)[:, 0]
    >>> bool(abs(e.mean()) < 0.01), bool(0.02 < e.std() < 0.15)
    (True, True)
    """
    nn, cc, ww, ff = _categories(n, c, weights, freq)
    idx = np.asarray(pick, dtype=np.intp).ravel()
    m = idx.size
    out = np.zeros((m, len(cols)))
    small = np.flatnonzero(ff <= EXACT_GROUP_MAX)
    if small.size:
        cat = np.repeat(np.arange(small.size), ff[small])  # one entry per task drawn exactly
        rep = small[cat]
        runs = nn[rep].astype(np.int64)
        direct = float(np.sum(nn[rep] + 1.0)) > _TABLE_MAX_CELLS  # huge n: no table over c
        tables = [] if direct else [_estimate_table(nn[rep], col)[0] for col in cols]
        offset = 0 if direct else _estimate_table(nn[rep], ("mean", 1))[1][None, :]
        xs, ys, wt = cc[rep], nn[rep] - cc[rep], ww[rep]
        top = int(runs.max())
        invert = top <= _INVERSION_MAX_RUNS
        if invert:
            used, node_of = np.unique(idx, return_inverse=True)
            cdf = _predictive_cdf(nodes.a[used], nodes.b[used], nn[small], cc[small])
            flat = [np.ascontiguousarray(cdf[:, :, r]).ravel() for r in range(top)]
            node_of = node_of.ravel() * small.size
        step = max(1, _CHUNK_CELLS // rep.size)
        for start in range(0, m, step):
            sl = slice(start, min(m, start + step))
            a, b = nodes.a[idx[sl], None] + xs[None, :], nodes.b[idx[sl], None] + ys[None, :]
            if invert:
                u = rng.random(a.shape)
                cell = node_of[sl, None] + cat[None, :]
                new = np.zeros(a.shape, dtype=np.int64)
                for r in range(top):  # c* = #{r : u ≥ P(c* ≤ r)}
                    new += u >= flat[r].take(cell)
                p = rng.beta(a + new, b + (runs[None, :] - new))
            else:
                p = rng.beta(a, b)
                new = rng.binomial(runs[None, :], p)
            at = offset + new
            for j, g in _g_columns(p, cols):
                est = _estimate_at(runs, new, cols[j]) if direct else tables[j].take(at)
                out[sl, j] += (est - g) @ wt
    big = np.flatnonzero(ff > EXACT_GROUP_MAX)
    if big.size:
        var = expected_task_variance(nodes, nn[big], cc[big], cols)
        sd = np.sqrt((ff[big] * ww[big] ** 2) @ var)
        out += rng.standard_normal(m)[:, None] * sd[None, :]
    return np.asarray(out / float(np.sum(ww * ff)), dtype=float)


def _g_columns(
    p: NDArray[np.float64], cols: Sequence[Column]
) -> Iterator[tuple[int, NDArray[np.float64]]]:
    """(column index, g(p)) of every column; p^k and 1 − (1 − p)^k by repeated products."""
    for j, (metric, _) in enumerate(cols):
        if metric == "mean":
            yield j, p
    for metric in ("pass_hat_k", "pass_at_k"):
        want = {int(k) for m, k in cols if m == metric}
        x = 1.0 - p if metric == "pass_at_k" else p
        acc = x
        for kk in range(1, max(want, default=0) + 1):
            acc = acc if kk == 1 else acc * x
            for j, (m, k) in enumerate(cols):
                if m == metric and int(k) == kk:
                    yield j, (1.0 - acc if metric == "pass_at_k" else acc)


def predictive_draws(
    nodes: GridNodes,
    cols: Sequence[Column],
    new_tasks: int,
    *,
    n_draws: int,
    rng: np.random.Generator,
) -> NDArray[np.float64]:
    """Draws of a new benchmark's value: the mean of g over ``new_tasks`` new tasks.

    Per draw: a node (a, b) with its posterior weight, then T′ new rates
    p_j ~ Beta(a, b) and their mean g, exactly for T′ ≤
    :data:`EXACT_PREDICTIVE_MAX`; for larger T′ (where the mean is close to
    normal) a Beta with the same mean E g and variance Var g / T′. Near a
    boundary the mean of a few dozen skewed g(p_j) is far from a Beta in its
    tails: for pass^5 of 50 tasks near all-fail the moment-matched Beta put the
    5% quantile eight times lower than the exact draws.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.betabinom import posterior_grid
    >>> from passhat.hierarchical import predictive_draws
    >>> nodes = posterior_grid([4] * 20, [2] * 20, size=64).nodes()
    >>> d = predictive_draws(nodes, [("mean", 1)], 5, n_draws=4000, rng=np.random.default_rng(1))
    >>> bool(0.45 < d.mean() < 0.55), bool(d.std() > 0.05)
    (True, True)
    """
    pick = nodes.sample(n_draws, rng)
    a, b = nodes.a[pick], nodes.b[pick]
    out = np.empty((n_draws, len(cols)))
    if new_tasks <= EXACT_PREDICTIVE_MAX:
        acc = np.zeros_like(out)
        step = max(1, _CHUNK_CELLS // new_tasks)
        for start in range(0, n_draws, step):
            sl = slice(start, min(n_draws, start + step))
            p = rng.beta(a[sl, None], b[sl, None], size=(sl.stop - sl.start, new_tasks))
            for j, col in enumerate(cols):
                acc[sl, j] = _g(p, col).mean(axis=1)
        return acc
    for j, col in enumerate(cols):
        m1, m2 = _g_moments(a, b, a + b, col)
        var = np.maximum(m2 - m1 * m1, 0.0) / new_tasks
        out[:, j] = beta_moment_draws(m1, var, rng)
    return out


def beta_moment_draws(
    mean: NDArray[np.float64], var: NDArray[np.float64], rng: np.random.Generator
) -> NDArray[np.float64]:
    """One draw per element from the Beta with this mean and variance (the mean where var ≈ 0).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.hierarchical import beta_moment_draws
    >>> d = beta_moment_draws(np.full(20000, 0.8), np.full(20000, 0.01), np.random.default_rng(0))
    >>> round(float(d.mean()), 2), round(float(d.var()), 3)
    (0.8, 0.01)
    """
    m = np.clip(mean, 1e-12, 1 - 1e-12)
    limit = m * (1 - m)
    v = np.minimum(var, 0.999 * limit)
    ok = v > 1e-15
    s = np.where(ok, limit / np.where(ok, v, 1.0) - 1.0, 1.0)
    draw = rng.beta(np.where(ok, m * s, 1.0), np.where(ok, (1 - m) * s, 1.0))
    return np.where(ok, draw, mean)
