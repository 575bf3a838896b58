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

The grid itself (adaptive box, final 256 × 256 grid, cell probabilities)
is :func:`passhat.betabinom.posterior_grid`, the numpy core that the
estimator-level intervals (:mod:`passhat.hierarchical`) use too; this module
turns it into the model's posterior draws: a cell is picked with its
probability and the draw is jittered uniformly inside it.

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

from passhat.betabinom import log_pmf, posterior_grid
from passhat.betabinom import loglik as _loglik
from passhat.betabinom import suff_stats as _stats
from passhat.model.build import Priors, log_prior

__all__ = [
    "GridPosterior",
    "LooTerms",
    "grid_log_posterior",
    "grid_posterior",
    "log_sum_exp",
    "loo_terms",
]


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
    loo: LooTerms | None = None


@dataclass(frozen=True)
class LooTerms:
    """Exact leave-one-task-out terms of each distinct (n, c) pair (binomial coefficient
    included): ``lpd`` = log p(c_i | the other tasks), ``lppd`` = log p(c_i | all tasks)."""

    lpd: NDArray[np.float64]
    lppd: NDArray[np.float64]


def loo_terms(log_prob: NDArray[np.float64], pair_ll: NDArray[np.float64]) -> LooTerms:
    """Exact leave-one-out from a posterior on a grid: with cell probabilities P_g and the pair's
    log-likelihood ℓ_g at each cell, leaving one task of the pair out gives the posterior
    P_g e^{−ℓ_g} / Σ P e^{−ℓ}, so p(c_i | the others) = 1 / Σ_g P_g e^{−ℓ_g} — exact on the grid,
    no importance sampling. ``log_prob`` (cells,), ``pair_ll`` (pairs, cells).

    Examples
    --------
    >>> import numpy as np
    >>> t = loo_terms(np.log(np.array([0.5, 0.5])), np.log(np.array([[0.2, 0.8]])))
    >>> round(float(np.exp(t.lpd[0])), 4), round(float(np.exp(t.lppd[0])), 4)   # 1/(2.5 + 0.625)
    (0.32, 0.5)
    """
    lpd = -log_sum_exp(log_prob[None, :] - pair_ll, axis=1)
    lppd = log_sum_exp(log_prob[None, :] + pair_ll, axis=1)
    return LooTerms(lpd=np.asarray(lpd), lppd=np.asarray(lppd))


def log_sum_exp(x: NDArray[np.float64], axis: int) -> NDArray[np.float64]:
    """log Σ e^x along ``axis`` (−inf entries allowed; a plain numpy form of scipy's, which
    converts its input several times).

    Examples
    --------
    >>> import numpy as np
    >>> float(log_sum_exp(np.log(np.array([[1.0, 3.0]])), axis=1)[0]) == float(np.log(4.0))
    True
    """
    top = np.max(x, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    out = np.log(np.sum(np.exp(x - top), axis=axis)) + np.squeeze(top, axis=axis)
    return np.asarray(out)


def grid_posterior(
    n: Any,
    c: Any,
    mult: Any = None,
    *,
    priors: Priors | None = None,
    n_draws: int = 4000,
    rng: np.random.Generator,
    size: int = 256,
    loo: bool = False,
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
    loo : bool
        Also the exact leave-one-task-out terms of each pair (:func:`loo_terms`, on the grid
        coarsened to blocks of 4 × 4 cells).

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
    grid = posterior_grid(n, c, mult, prior=pri, size=size)
    _, log_evidence = grid.density()
    theta, lam = grid.draws(n_draws, rng)
    terms = None
    if loo:
        nodes = grid.coarsened(4) if size >= 64 else grid.coarsened(1)
        nn = np.asarray(n, dtype=float).ravel()
        cc = np.asarray(c, dtype=float).ravel()
        ll = log_pmf(cc[:, None], nn[:, None], nodes.a[None, :], nodes.b[None, :])
        with np.errstate(divide="ignore"):
            terms = loo_terms(np.log(nodes.weight), ll)
    return GridPosterior(
        mu=special.expit(theta),
        kappa=np.exp(lam),
        theta_bounds=grid.theta_bounds,
        lam_bounds=grid.lam_bounds,
        size=size,
        log_evidence=log_evidence,
        loo=terms,
    )
