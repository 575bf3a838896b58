"""The joint likelihood kernel as it was before issue 32's speed work (main at 2e120e6):
the oracle the optimised kernel of ``passhat.model.joint_ops`` is tested against (kept on
purpose, a copy; not used by the library)."""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

_HALF_LOG_2PI = 0.5 * np.log(2.0 * np.pi)


@numba.njit(cache=False)  # type: ignore[misc]
def _table(
    theta: Any,
    kappa: float,
    grid: Any,
    pair_n: Any,
    pair_c: Any,
    tab: Any,
    dth: Any,
    dka: Any,
    grad: bool,
) -> None:
    """Fill the (S, P, Q) table of cell terms (flat) and, with ``grad``, its derivatives."""
    S, Q, P = theta.shape[0], grid.shape[0], pair_n.shape[0]
    top = 0
    for p in range(P):
        top = max(top, pair_n[p])
    ga = np.zeros(top + 1)
    gb = np.zeros(top + 1)
    pa = np.zeros(top + 1)
    pb = np.zeros(top + 1)
    kn = np.zeros(top + 1)
    kd = np.zeros(top + 1)
    for j in range(top):
        kn[j + 1] = kn[j] + np.log(kappa + j)
        kd[j + 1] = kd[j] + 1.0 / (kappa + j)
    for s in range(S):
        for q in range(Q):
            x = theta[s] + grid[q]
            if x >= 0:
                e = np.exp(-x)
                mu = 1.0 / (1.0 + e)
                nu = e / (1.0 + e)
            else:
                e = np.exp(x)
                mu = e / (1.0 + e)
                nu = 1.0 / (1.0 + e)
            a = kappa * mu
            b = kappa * nu
            for j in range(top):
                ga[j + 1] = ga[j] + np.log(a + j)
                gb[j + 1] = gb[j] + np.log(b + j)
                if grad:
                    pa[j + 1] = pa[j] + 1.0 / (a + j)
                    pb[j + 1] = pb[j] + 1.0 / (b + j)
            for p in range(P):
                n = pair_n[p]
                c = pair_c[p]
                i = (s * P + p) * Q + q
                tab[i] = ga[c] + gb[n - c] - kn[n]
                if grad:
                    dth[i] = pa[c] * a * nu - pb[n - c] * b * mu
                    dka[i] = pa[c] * mu + pb[n - c] * nu - kd[n]


@numba.njit(cache=False)  # type: ignore[misc]
def _row_weights(
    tab: Any, base: Any, stride: Any, log_step: Any, grid: Any, r: int, sd: float, lw: Any
) -> tuple[float, float]:
    """Row r's terms at its window nodes into ``lw`` as exp(L_rk − peak); (peak, Σ)."""
    K, S, Q = lw.shape[0], base.shape[1], grid.shape[0]
    m = stride[r]
    first = base[r, 0] % Q
    lsd = np.log(sd)
    for k in range(K):
        lw[k] = log_step[r] - 0.5 * (grid[first + m * k] / sd) ** 2 - lsd - _HALF_LOG_2PI
    for s in range(S):
        b0 = base[r, s]
        for k in range(K):
            lw[k] += tab[b0 + m * k]
    peak = lw[0]
    for k in range(1, K):
        peak = max(peak, lw[k])
    total = 0.0
    for k in range(K):
        lw[k] = np.exp(lw[k] - peak)
        total += lw[k]
    return peak, total


@numba.njit(cache=False)  # type: ignore[misc]
def _quad_loglik(
    theta: Any,
    sd: float,
    kappa: float,
    grid: Any,
    pair_n: Any,
    pair_c: Any,
    base: Any,
    stride: Any,
    log_step: Any,
    mult: Any,
    K: int,
) -> Any:
    S, Q, P = theta.shape[0], grid.shape[0], pair_n.shape[0]
    R = base.shape[0]
    # K: nodes per window (given by the length of the ``width`` input of the Op)
    size = S * P * Q
    tab = np.empty(size)
    dth = np.empty(size)
    dka = np.empty(size)
    _table(theta, kappa, grid, pair_n, pair_c, tab, dth, dka, True)
    G = np.zeros(size)
    lw = np.empty(K)
    ll = 0.0
    dsd = 0.0
    for r in range(R):
        m = stride[r]
        first = base[r, 0] % Q
        peak, total = _row_weights(tab, base, stride, log_step, grid, r, sd, lw)
        ll += mult[r] * (peak + np.log(total))
        for k in range(K):
            g = mult[r] * lw[k] / total
            beta = grid[first + m * k]
            dsd += g * (beta * beta / (sd * sd * sd) - 1.0 / sd)
            lw[k] = g
        for s in range(S):
            b0 = base[r, s]
            for k in range(K):
                G[b0 + m * k] += lw[k]
    dtheta = np.zeros(S)
    dkappa = 0.0
    for s in range(S):
        acc = 0.0
        for i in range(s * P * Q, (s + 1) * P * Q):
            acc += G[i] * dth[i]
            dkappa += G[i] * dka[i]
        dtheta[s] = acc
    return ll, dtheta, dsd, dkappa
