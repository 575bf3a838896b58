"""The compiled kernel of :func:`passhat.model.discrete.npmle`: the NPMLE of a mixing
distribution on a grid, one Bayesian-bootstrap draw at a time.

For weights v_c (c = 1..P data points, Σ v_c = 1) and likelihoods L_cj at nodes j, the NPMLE
maximises Σ_c v_c log Σ_j w_j L_cj over the simplex; its dual (Lindsay 1983) maximises
Σ_c v_c log ν_c subject to s_j = 1 − Σ_c ν_c L_cj ≥ 0 for every node, with ν_c = v_c / f_c at
the optimum. A log barrier μ Σ_j log s_j turns the dual into a smooth problem in P unknowns;
damped Newton steps (Hessian diag(v/ν²) + μ L diag(1/s²) Lᵀ, solved by Cholesky; the step
kept inside ν > 0, s > 0) follow it for μ = 10⁻¹ … 10⁻⁸, and the primal weights are
w_j = μ / s_j, normalised. A data point of weight 0 has no term: its ν is left out. Each draw
costs about (Newton steps) × nodes × P², so it suits few data points (distinct (n, c) pairs)
and many draws. Compiled once with numba and cached on disk (:mod:`passhat.model._numba`).

Examples
--------
>>> import numpy as np
>>> from passhat.model.discrete_ops import npmle_rows
>>> lik = np.array([[1.0, 0.25, 0.0], [0.0, 0.25, 1.0]])   # two data points, three nodes
>>> out = np.empty((1, 3))
>>> npmle_rows(lik, np.array([[0.5, 0.5]]), out)
>>> out.round(4).tolist()    # half the mass at each end explains both points best
[[0.5, 0.0, 0.5]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from passhat.model._numba import njit_cached

__all__ = ["MU_START", "NEWTON_MAX", "SHRINK", "STAGES", "npmle_rows"]

#: The barrier weights μ = MU_START · SHRINK^s for s < STAGES (10⁻¹ down to 10⁻⁸), at most
#: NEWTON_MAX Newton steps each (a stage ends when the squared Newton decrement is below 1e-10).
MU_START = 0.1
SHRINK = 0.04
STAGES = 6
NEWTON_MAX = 12


@njit_cached
def _cholesky_solve(h: Any, g: Any, d: Any, q: int) -> None:  # pragma: no cover (compiled)
    """d = −h⁻¹ g for the leading q × q block of a symmetric positive definite h (h is
    overwritten by its Cholesky factor)."""
    for a in range(q):
        for e in range(a + 1):
            t = h[a, e]
            for f in range(e):
                t -= h[a, f] * h[e, f]
            if a == e:
                h[a, a] = np.sqrt(max(t, 1e-300))
            else:
                h[a, e] = t / h[e, e]
    for a in range(q):
        t = -g[a]
        for e in range(a):
            t -= h[a, e] * d[e]
        d[a] = t / h[a, a]
    for a in range(q - 1, -1, -1):
        t = d[a]
        for e in range(a + 1, q):
            t -= h[e, a] * d[e]
        d[a] = t / h[a, a]


@njit_cached
def _newton_step(
    ls: Any, vv: Any, nu: Any, mu: float, s: Any, inv: Any, g: Any, h: Any, d: Any
) -> float:  # pragma: no cover (compiled)
    """One damped Newton step of the barrier problem on ν (in place); the squared Newton
    decrement."""
    q, nodes = ls.shape
    for j in range(nodes):
        t = 1.0
        for a in range(q):
            t -= nu[a] * ls[a, j]
        s[j] = t
        inv[j] = 1.0 / t
    for a in range(q):
        t = 0.0
        for j in range(nodes):
            t += ls[a, j] * inv[j]
        g[a] = -vv[a] / nu[a] + mu * t
        for e in range(a + 1):
            t = 0.0
            for j in range(nodes):
                t += ls[a, j] * ls[e, j] * inv[j] * inv[j]
            h[a, e] = mu * t
        h[a, a] += vv[a] / (nu[a] * nu[a])
    _cholesky_solve(h, g, d, q)
    lam2 = 0.0
    for a in range(q):
        lam2 -= g[a] * d[a]
    top = np.inf  # the longest step that keeps ν > 0 and s > 0
    for a in range(q):
        if d[a] < 0.0:
            top = min(top, -nu[a] / d[a])
    for j in range(nodes):
        t = 0.0
        for a in range(q):
            t -= d[a] * ls[a, j]
        if t < 0.0:
            top = min(top, -s[j] / t)
    step = min(1.0, 0.95 * top)
    if lam2 > 0.25:
        step = min(step, 1.0 / (1.0 + np.sqrt(lam2)))
    for a in range(q):
        nu[a] += step * d[a]
    return lam2


@njit_cached
def npmle_rows(lik: Any, v: Any, out: Any) -> None:  # pragma: no cover (compiled)
    """The NPMLE weights for each row of ``v`` (draws × data points) into ``out`` (draws ×
    nodes); ``lik`` (data points × nodes) with entries in [0, 1]."""
    rows, nodes = v.shape[0], lik.shape[1]
    colmax = 1.0
    for j in range(nodes):
        colmax = max(colmax, lik[:, j].sum())
    s, inv = np.empty(nodes), np.empty(nodes)
    for b in range(rows):
        keep = np.flatnonzero(v[b] > 0.0)
        q = keep.size
        ls = np.empty((q, nodes))
        vv = np.empty(q)
        for a in range(q):
            ls[a] = lik[keep[a]]
            vv[a] = v[b, keep[a]]
        nu = np.full(q, 0.5 / colmax)
        g, h, d = np.empty(q), np.empty((q, q)), np.empty(q)
        mu = MU_START
        for stage in range(STAGES):
            for _ in range(NEWTON_MAX):
                if _newton_step(ls, vv, nu, mu, s, inv, g, h, d) < 1e-10:
                    break
            if stage < STAGES - 1:
                mu *= SHRINK
        total = 0.0
        for j in range(nodes):
            t = 1.0
            for a in range(q):
                t -= nu[a] * ls[a, j]
            out[b, j] = mu / t
            total += out[b, j]
        for j in range(nodes):
            out[b, j] /= total
