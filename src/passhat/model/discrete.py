"""The discrete mixing distribution: task rates on a fixed grid of p, weighted by the data.

A model that bends to the data. The rates p_i of a system's tasks are drawn from a
distribution G on a fixed grid of J nodes 0 = p_1 < … < p_J = 1 (denser near 0 and 1, where
p^k moves fastest), with weights w_j ≥ 0 summing to one; c_i | p_i ~ Binomial(n_i, p_i). No
shape is imposed: G may be two-point, U-shaped, a Beta, anything on [0, 1]. Its uncertainty is
the **Bayesian bootstrap** over tasks [1]_ of the **nonparametric maximum-likelihood** estimate
of G [2]_ (NPMLE): each posterior draw gives the tasks Dirichlet(1, …, 1) weights (over the
distinct (n, c) pairs: Gamma(multiplicity) totals), adds half a pseudo-task at p = 0 and half
at p = 1 with Gamma(½) weights (the boundary prior of
:func:`passhat.bootstrap.bayesian_bootstrap_draws`, so that tasks which all pass do not prove
a rate of exactly 1), and maximises the
weighted log-likelihood Σ_c v_c log Σ_j w_j L_cj over w exactly, through its dual
(:func:`npmle`; the numba kernel is :mod:`passhat.model.discrete_ops`). Draws are independent.

Population pass^k is Σ_j w_j p_j^k and pass@k is 1 − Σ_j w_j (1 − p_j)^k. For k up to the
runs per task these are fixed by the histogram of successes (the NPMLE reproduces it when it
can), so they agree with the unbiased estimates; above the runs per task nothing in the data
fixes them and the values are the model's extrapolation (the fit marks them).

References
----------
.. [1] Rubin, D. B. (1981). The Bayesian bootstrap. *The Annals of Statistics* 9(1), 130–134.
.. [2] Lindsay, B. G. (1983). The geometry of mixture likelihoods: a general theory. *The
   Annals of Statistics* 11(1), 86–94; Böhning, D. (1999). *Computer-Assisted Analysis of
   Mixtures and Applications*. Chapman & Hall, ch. 2 (the gradient bound on the gap).
.. [3] Koenker, R. and Mizera, I. (2014). Convex optimization, shape constraints, compound
   decisions, and empirical Bayes rules. *Journal of the American Statistical Association*
   109(506), 674–685 (the NPMLE on a grid through its dual, by an interior-point method).

Examples
--------
>>> import numpy as np
>>> from passhat.model.discrete import discrete_posterior
>>> d = discrete_posterior([5] * 4, [0, 2, 5, 5], [10, 20, 30, 40], n_draws=200,
...                        rng=np.random.default_rng(0))
>>> d.weight.shape, bool(np.allclose(d.weight.sum(axis=1), 1.0))
((200, 101), True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

__all__ = [
    "NODES",
    "DiscretePosterior",
    "discrete_loo",
    "discrete_posterior",
    "log_node_lik",
    "node_grid",
    "npmle",
]

#: Nodes of the grid of p (0 and 1 included).
NODES = 101


def node_grid(size: int = NODES) -> NDArray[np.float64]:
    """The nodes p_j = (1 − cos(π j / (J − 1))) / 2: 0 and 1 included, denser near both.

    Examples
    --------
    >>> from passhat.model.discrete import node_grid
    >>> g = node_grid(5)
    >>> g.round(4).tolist()
    [0.0, 0.1464, 0.5, 0.8536, 1.0]
    """
    j = np.arange(size, dtype=float)
    p = (1.0 - np.cos(np.pi * j / (size - 1))) / 2.0
    p[0], p[-1] = 0.0, 1.0
    return p


def log_node_lik(n: ArrayLike, c: ArrayLike, p: ArrayLike) -> NDArray[np.float64]:
    """log p^c (1 − p)^(n − c) for each (n, c) row and node column (no binomial coefficient).

    0 · log 0 is 0 (a task with c = n has likelihood 1 at p = 1).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.discrete import log_node_lik
    >>> np.exp(log_node_lik([2, 2], [2, 0], [0.0, 0.5, 1.0])).tolist()
    [[0.0, 0.25, 1.0], [1.0, 0.25, 0.0]]
    """
    nn = np.asarray(n, dtype=float).ravel()[:, None]
    cc = np.asarray(c, dtype=float).ravel()[:, None]
    pp = np.asarray(p, dtype=float).ravel()[None, :]
    return np.asarray(special.xlogy(cc, pp) + special.xlog1py(nn - cc, -pp))


def _gradient(
    w: NDArray[np.float64], lik: NDArray[np.float64], v: NDArray[np.float64]
) -> NDArray[np.float64]:
    """D_j = Σ_c v_c L_cj / f_c with f = L w, per row: D_j ≤ 1 for every j at the NPMLE."""
    f = w @ lik.T
    return np.asarray((v / np.maximum(f, 1e-300)) @ lik)


def npmle(
    lik: NDArray[np.float64], v: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The weights w maximising Σ_c v_c log Σ_j w_j L_cj, one row per row of ``v``.

    ``lik`` (rows: data points, columns: nodes) holds the likelihood of each data point at
    each node, scaled to at most one per row (the maximiser does not depend on a row's scale);
    ``v`` (draws × rows) their weights, each row summing to one. Solved through the dual [2]_
    (maximise Σ_c v_c log ν_c subject to Σ_c ν_c L_cj ≤ 1 for every node j; at the optimum
    ν_c = v_c / f_c) by a log-barrier method [3]_: damped Newton steps on the P-dimensional ν
    for a barrier weight μ = 10⁻¹ … 10⁻⁸, after which w_j = μ / (1 − Σ_c ν_c L_cj), normalised. The
    cost per draw is about (steps) × nodes × P² for P data points, whatever the number of
    tasks; compiled with numba.

    Returns
    -------
    w : ndarray (draws, nodes)
    gap : ndarray (draws,)
        The duality gap max_j log D_j (the log-likelihood per unit weight still to gain).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from passhat.model.discrete import log_node_lik, node_grid, npmle
    >>> p = node_grid(21)
    >>> lik = np.exp(log_node_lik([4] * 5, [0, 1, 2, 3, 4], p))
    >>> c = np.arange(5)
    >>> v = (stats.binom.pmf(c, 4, 0.25) + stats.binom.pmf(c, 4, 0.75)) / 2  # half at ¼, half ¾
    >>> w, gap = npmle(lik, v[None, :])
    >>> fitted = w @ lik.T * np.array([1, 4, 6, 4, 1])   # back to probabilities of c
    >>> bool(np.abs(fitted - v).max() < 0.005), bool(gap[0] < 1e-5)
    (True, True)
    """
    from passhat.model.discrete_ops import npmle_rows

    lik = np.ascontiguousarray(lik, dtype=np.float64)
    v = np.ascontiguousarray(v, dtype=np.float64)
    out = np.empty((v.shape[0], lik.shape[1]))
    npmle_rows(lik, v, out)
    gap = np.log(np.maximum(_gradient(out, lik, v).max(axis=1), 1e-300))
    return out, np.asarray(gap)


@dataclass(frozen=True)
class DiscretePosterior:
    """Result of :func:`discrete_posterior`.

    Attributes
    ----------
    p : ndarray (nodes,)
        The grid of p.
    weight : ndarray (draws, nodes)
        Independent draws of the mixing weights (each row sums to one).
    gap : float
        The largest duality gap over the draws (the log-likelihood per task still to gain).
    """

    p: NDArray[np.float64]
    weight: NDArray[np.float64]
    gap: float


def _design(
    n: ArrayLike, c: ArrayLike, p: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The likelihood rows of the pairs, then of the two pseudo-tasks at p = 0 and p = 1, each
    row scaled to a maximum of one (the NPMLE does not depend on a row's scale)."""
    ll = log_node_lik(n, c, p)
    lik = np.exp(ll - ll.max(axis=1, keepdims=True))
    ends = np.zeros((2, len(p)))
    ends[0, 0] = ends[1, -1] = 1.0
    return np.vstack([lik, ends]), ll


def discrete_posterior(
    n: ArrayLike,
    c: ArrayLike,
    mult: ArrayLike | None = None,
    *,
    n_draws: int,
    rng: np.random.Generator,
    nodes: int = NODES,
    pseudo: float = 0.5,
) -> DiscretePosterior:
    """Draws of the mixing weights: the Bayesian bootstrap of the NPMLE on the grid of p.

    Parameters
    ----------
    n, c, mult : array_like
        Distinct (n, c) pairs and their multiplicities (or one row per task).
    n_draws : int
    rng : numpy.random.Generator
    nodes : int
        Nodes of the grid (:func:`node_grid`).
    pseudo : float
        The Dirichlet weight of the pseudo-task at 0 and of the one at 1.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.discrete import discrete_posterior
    >>> d = discrete_posterior([5], [5], [40], n_draws=4000, rng=np.random.default_rng(1))
    >>> hat5 = d.weight @ d.p**5     # every task 5/5: pass^5 near 1, never exactly
    >>> bool(0.9 < np.quantile(hat5, 0.05) < hat5.max() < 1.0)
    True
    """
    p = node_grid(nodes)
    m = np.ones(np.size(n)) if mult is None else np.asarray(mult, dtype=float).ravel()
    lik, _ = _design(n, c, p)
    g = np.hstack([rng.gamma(m, size=(n_draws, len(m))), rng.gamma(pseudo, size=(n_draws, 2))])
    w, gaps = npmle(lik, g / g.sum(axis=1, keepdims=True))
    return DiscretePosterior(p=p, weight=w, gap=float(gaps.max(initial=0.0)))


def discrete_loo(
    n: ArrayLike,
    c: ArrayLike,
    mult: ArrayLike,
    *,
    nodes: int = NODES,
    pseudo: float = 0.5,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Exact leave-one-task-out log predictive density of each distinct pair, by refitting;
    and the same with every task (lppd).

    A task left out lowers its pair's multiplicity by one; the NPMLE is refitted on the rest
    (with the pseudo-tasks at 0 and 1 at their prior weight ``pseudo``: the centre of the
    Bayesian bootstrap) and gives the left-out task's probability of its c (binomial
    coefficient included). Tasks sharing a pair share the value, so there is one refit per
    distinct pair (all at once), not per task.

    Returns
    -------
    lpd, lppd : ndarray (pairs,)

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.discrete import discrete_loo
    >>> lpd, lppd = discrete_loo([3, 3], [0, 3], [10, 10])
    >>> bool(np.all(lpd < lppd) and abs(lpd[0] - lpd[1]) < 1e-6)   # symmetric data
    True
    """
    p = node_grid(nodes)
    nn = np.asarray(n, dtype=float).ravel()
    cc = np.asarray(c, dtype=float).ravel()
    m = np.asarray(mult, dtype=float).ravel()
    lik, ll = _design(nn, cc, p)
    pairs = len(nn)
    left = np.broadcast_to(m, (pairs, pairs)) - np.eye(pairs)
    v = np.hstack([np.vstack([left, m[None, :]]), np.full((pairs + 1, 2), pseudo)])
    w, _ = npmle(lik, v / v.sum(axis=1, keepdims=True))
    top = ll.max(axis=1)
    logc = special.gammaln(nn + 1) - special.gammaln(cc + 1) - special.gammaln(nn - cc + 1)
    pred = np.einsum("ij,ij->i", w[:pairs], lik[:pairs])
    full = w[pairs] @ lik[:pairs].T
    lpd = np.log(np.maximum(pred, 1e-300)) + top + logc
    lppd = np.log(np.maximum(full, 1e-300)) + top + logc
    return np.asarray(lpd), np.asarray(lppd)
