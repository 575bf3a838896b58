"""Exact evaluation of the two-parameter posterior by quadrature on (logit μ, log κ).

The plain Beta-Binomial model has only two hyperparameters, so its posterior
can be evaluated on a grid instead of sampled. The log-likelihood separates
over distinct values of c, n − c and n:

    Σ_i log BB(c_i | n_i, a, b) = Σ_c W_c [lnΓ(a+c) − lnΓ(a)]
                                 + Σ_f W_f [lnΓ(b+f) − lnΓ(b)]
                                 − Σ_n W_n [lnΓ(κ+n) − lnΓ(κ)] + const,

where W_c counts tasks with c successes (W_f: with f failures, W_n: with
n runs). The cost per grid point is the number of distinct values, not the
number of tasks.

Adaptive bounds: a coarse 48 × 48 grid starts on θ ∈ [−30, 30] (prior mass
outside is below e^−30) and λ within ±8 prior standard deviations; the box
is shrunk to the cells whose log density is within 30 of the maximum (plus
one cell of margin) and the step repeats until the box stops shrinking by
more than half. A final grid (default 256 × 256) on that box gives the
normalised density; draws pick a cell with its probability and are jittered
uniformly inside it.

Examples
--------
>>> import numpy as np
>>> from passhat.model.grid import grid_posterior
>>> from passhat.model import Priors
>>> g = grid_posterior([5, 5, 5], [5, 0, 3], [10, 5, 3], priors=Priors(),
...                    n_draws=1000, rng=np.random.default_rng(0))
>>> g.mu.shape, bool(0.4 < g.mu.mean() < 0.8)
((1000,), True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import special

from passhat.errors import ModelError
from passhat.model.build import Priors, log_prior

__all__ = ["GridPosterior", "grid_log_posterior", "grid_posterior"]

THRESHOLD = 30.0
COARSE = 48


@dataclass(frozen=True)
class _Stats:
    c_vals: NDArray[np.float64]
    c_w: NDArray[np.float64]
    f_vals: NDArray[np.float64]
    f_w: NDArray[np.float64]
    n_vals: NDArray[np.float64]
    n_w: NDArray[np.float64]


def _stats(n: Any, c: Any, mult: Any) -> _Stats:
    nn = np.asarray(n, dtype=np.int64).ravel()
    cc = np.asarray(c, dtype=np.int64).ravel()
    mm = np.asarray(mult, dtype=float).ravel() if mult is not None else np.ones(len(nn))

    def agg(vals: NDArray[np.int64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        keep = vals > 0
        u, inv = np.unique(vals[keep], return_inverse=True)
        w = np.bincount(inv.ravel(), weights=mm[keep], minlength=len(u))
        return u.astype(float), np.asarray(w, dtype=float)

    cv, cw = agg(cc)
    fv, fw = agg(nn - cc)
    nv, nw = agg(nn)
    return _Stats(cv, cw, fv, fw, nv, nw)


def _loglik(
    theta: NDArray[np.float64], lam: NDArray[np.float64], st: _Stats
) -> NDArray[np.float64]:
    kappa = np.exp(lam)
    mu = special.expit(theta)
    a = mu * kappa
    b = (1.0 - mu) * kappa

    def part(x: NDArray[np.float64], vals: NDArray[np.float64], w: NDArray[np.float64]) -> Any:
        if len(vals) == 0:
            return 0.0
        xe = x[..., None]
        return (special.gammaln(xe + vals) - special.gammaln(xe)) @ w

    return np.asarray(
        part(a, st.c_vals, st.c_w) + part(b, st.f_vals, st.f_w) - part(kappa, st.n_vals, st.n_w)
    )


def grid_log_posterior(
    theta: Any, lam: Any, n: Any, c: Any, mult: Any = None, *, priors: Priors | None = None
) -> NDArray[np.float64]:
    """Unnormalised log posterior of the beta model at (θ = logit μ, λ = log κ).

    Equals the log density PyMC samples (``loglik`` potential plus the
    transformed priors) exactly, constants included.

    Examples
    --------
    >>> from passhat.model.grid import grid_log_posterior
    >>> round(float(grid_log_posterior(0.0, 0.0, [5, 5], [5, 0])), 4)
    -5.8025
    """
    th = np.asarray(theta, dtype=float)
    la = np.asarray(lam, dtype=float)
    return np.asarray(_loglik(th, la, _stats(n, c, mult)) + log_prior(th, la, priors or Priors()))


@dataclass(frozen=True)
class GridPosterior:
    """Result of :func:`grid_posterior`.

    Attributes
    ----------
    mu, kappa : ndarray
        Independent posterior draws.
    theta_bounds, lam_bounds : tuple of float
        Final box on (logit μ, log κ).
    size : int
        Points per axis of the final grid.
    log_evidence : float
        log ∫ p(data | θ, λ) p(θ, λ) dθ dλ (binomial coefficients omitted).
    """

    mu: NDArray[np.float64]
    kappa: NDArray[np.float64]
    theta_bounds: tuple[float, float]
    lam_bounds: tuple[float, float]
    size: int
    log_evidence: float


def grid_posterior(
    n: Any,
    c: Any,
    mult: Any = None,
    *,
    priors: Priors | None = None,
    n_draws: int = 4000,
    rng: np.random.Generator,
    size: int = 256,
) -> GridPosterior:
    """Posterior of (μ, κ) by quadrature, returned as independent draws.

    Parameters
    ----------
    n, c, mult : array_like
        Distinct (n, c) pairs and their multiplicities (or one row per task).
    priors : Priors, optional
    n_draws : int
        Number of draws to return.
    rng : numpy.random.Generator
    size : int
        Points per axis of the final grid.

    Returns
    -------
    GridPosterior

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.grid import grid_posterior
    >>> g = grid_posterior([4, 4], [4, 0], [5, 5], n_draws=2000, rng=np.random.default_rng(0))
    >>> bool(abs(g.mu.mean() - 0.5) < 0.05)   # symmetric data: μ centred on 1/2
    True
    """
    pri = priors or Priors()
    st = _stats(n, c, mult)
    th_lo, th_hi = -30.0, 30.0
    la_lo = pri.log_kappa_mean - 8.0 * pri.log_kappa_sd
    la_hi = pri.log_kappa_mean + 8.0 * pri.log_kappa_sd

    def evaluate(
        tl: float, th: float, ll: float, lh: float, m: int
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        tg = np.linspace(tl, th, m)
        lg = np.linspace(ll, lh, m)
        T, L = np.meshgrid(tg, lg, indexing="ij")
        lp = _loglik(T, L, st) + log_prior(T, L, pri)
        return tg, lg, lp

    for _ in range(12):
        tg, lg, lp = evaluate(th_lo, th_hi, la_lo, la_hi, COARSE)
        if not np.isfinite(lp).any():
            raise ModelError("grid: the log posterior is not finite anywhere on the grid")
        keep = lp > np.nanmax(lp) - THRESHOLD
        ti = np.flatnonzero(keep.any(axis=1))
        li = np.flatnonzero(keep.any(axis=0))
        ht, hl = tg[1] - tg[0], lg[1] - lg[0]
        nt_lo, nt_hi = max(th_lo, tg[ti[0]] - ht), min(th_hi, tg[ti[-1]] + ht)
        nl_lo, nl_hi = max(la_lo, lg[li[0]] - hl), min(la_hi, lg[li[-1]] + hl)
        shrink = max((nt_hi - nt_lo) / (th_hi - th_lo), (nl_hi - nl_lo) / (la_hi - la_lo))
        th_lo, th_hi, la_lo, la_hi = nt_lo, nt_hi, nl_lo, nl_hi
        if shrink > 0.5:
            break
    tg, lg, lp = evaluate(th_lo, th_hi, la_lo, la_hi, size)
    top = float(np.nanmax(lp))
    dens = np.exp(lp - top)
    dens[~np.isfinite(dens)] = 0.0
    total = dens.sum()
    ht, hl = tg[1] - tg[0], lg[1] - lg[0]
    log_evidence = top + float(np.log(total * ht * hl))
    idx = rng.choice(dens.size, size=n_draws, p=(dens / total).ravel())
    i, j = np.unravel_index(idx, dens.shape)
    theta = tg[i] + (rng.random(n_draws) - 0.5) * ht
    lam = lg[j] + (rng.random(n_draws) - 0.5) * hl
    return GridPosterior(
        mu=special.expit(theta),
        kappa=np.exp(lam),
        theta_bounds=(float(th_lo), float(th_hi)),
        lam_bounds=(float(la_lo), float(la_hi)),
        size=size,
        log_evidence=log_evidence,
    )
