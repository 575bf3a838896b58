"""The Beta-Binomial posterior of (μ, κ) by quadrature: the numpy core below the model.

For one system with tasks i = 1..T,

    c_i | p_i ~ Binomial(n_i, p_i),   p_i ~ Beta(μκ, (1 − μ)κ),
    μ ~ Beta(α_μ, β_μ),   log κ ~ Normal(m_κ, s_κ),

with p_i integrated out. The posterior of the two hyperparameters is
evaluated on a grid over (θ = logit μ, λ = log κ); the log-likelihood
separates over distinct values of c, n − c and n:

    Σ_i log BB(c_i | n_i, a, b) = Σ_c W_c [lnΓ(a+c) − lnΓ(a)]
                                 + Σ_f W_f [lnΓ(b+f) − lnΓ(b)]
                                 − Σ_n W_n [lnΓ(κ+n) − lnΓ(κ)] + const,

where W_c counts tasks with c successes (W_f: with f failures, W_n: with n
runs), so a grid point costs the number of distinct values, not of tasks.

Adaptive bounds: a coarse 48 × 48 grid starts on θ ∈ [−30, 30] (prior mass
outside is below e^−30) and λ within ±8 prior standard deviations; the box
is shrunk to the cells whose log density is within 30 of the maximum (plus
one cell of margin) and the step repeats until the box stops shrinking by
more than half. A final grid (default 256 × 256) on that box gives the
normalised density (:class:`Grid`).

This module is what both the estimator-level intervals
(:mod:`passhat.hierarchical`) and the model package
(:mod:`passhat.model.grid`) build on: the numbers are the same.

References
----------
.. [1] Gelman, A., Carlin, J. B., Stern, H. S., Dunson, D. B., Vehtari, A. and
   Rubin, D. B. (2013). *Bayesian Data Analysis*, 3rd ed. CRC Press, ch. 5 (the
   hierarchical Beta-Binomial model; its posterior evaluated on a grid).
.. [2] Kruschke, J. K. (2015). *Doing Bayesian Data Analysis*, 2nd ed.
   Academic Press, §6.2.1 (a Beta by its mean and concentration).

Examples
--------
>>> import numpy as np
>>> from passhat.betabinom import HyperPrior, posterior_grid
>>> g = posterior_grid([5, 5, 5], [5, 0, 3], [10, 5, 3], prior=HyperPrior())
>>> nodes = g.nodes()
>>> bool(abs(nodes.weight.sum() - 1.0) < 1e-12), bool(0.4 < nodes.weight @ nodes.mu < 0.8)
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from passhat.errors import ModelError

__all__ = [
    "Grid",
    "GridNodes",
    "HyperPrior",
    "SuffStats",
    "log_pmf",
    "log_prior",
    "loglik",
    "posterior_grid",
    "rising_moments",
    "suff_stats",
]

#: Cells whose log density is within this of the maximum define the box.
THRESHOLD = 30.0
#: Points per axis of the coarse grids that find the box.
COARSE = 48


class PriorLike(Protocol):
    """Anything with the four hyperprior fields (:class:`HyperPrior`, ``passhat.model.Priors``)."""

    @property
    def mu_alpha(self) -> float: ...
    @property
    def mu_beta(self) -> float: ...
    @property
    def log_kappa_mean(self) -> float: ...
    @property
    def log_kappa_sd(self) -> float: ...


@dataclass(frozen=True)
class HyperPrior:
    """Proper priors of the hyperparameters: μ ~ Beta(mu_alpha, mu_beta), log κ ~ Normal.

    The defaults are those of :class:`passhat.model.Priors`: μ uniform, and
    log κ ~ Normal(0, 2), which puts 95% prior mass on κ ∈ [0.02, 50], i.e. a
    run-to-run correlation 1/(κ + 1) between 0.02 and 0.98. A proper prior on
    κ keeps the posterior proper when every task is all-pass or all-fail.

    Examples
    --------
    >>> from passhat.betabinom import HyperPrior
    >>> HyperPrior().log_kappa_sd
    2.0
    """

    mu_alpha: float = 1.0
    mu_beta: float = 1.0
    log_kappa_mean: float = 0.0
    log_kappa_sd: float = 2.0


@dataclass(frozen=True)
class SuffStats:
    """Distinct successes, failures and run counts with their task multiplicities."""

    c_vals: NDArray[np.float64]
    c_w: NDArray[np.float64]
    f_vals: NDArray[np.float64]
    f_w: NDArray[np.float64]
    n_vals: NDArray[np.float64]
    n_w: NDArray[np.float64]


def suff_stats(n: ArrayLike, c: ArrayLike, mult: ArrayLike | None = None) -> SuffStats:
    """What the likelihood needs: multiplicities of each c > 0, n − c > 0 and n > 0.

    Examples
    --------
    >>> from passhat.betabinom import suff_stats
    >>> st = suff_stats([5, 5, 3], [5, 2, 0])
    >>> st.c_vals.tolist(), st.c_w.tolist(), st.n_vals.tolist(), st.n_w.tolist()
    ([2.0, 5.0], [1.0, 1.0], [3.0, 5.0], [1.0, 2.0])
    """
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
    return SuffStats(cv, cw, fv, fw, nv, nw)


def loglik(
    theta: NDArray[np.float64], lam: NDArray[np.float64], st: SuffStats
) -> NDArray[np.float64]:
    """Beta-Binomial log-likelihood at (θ = logit μ, λ = log κ), binomial coefficients omitted.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.betabinom import loglik, suff_stats
    >>> # one task, 1 run, 1 success: log P(c = 1) = log μ = log ½ at θ = 0
    >>> round(float(loglik(np.array(0.0), np.array(0.0), suff_stats([1], [1]))), 6)
    -0.693147
    """
    kappa = np.exp(lam)
    mu = special.expit(theta)
    a = mu * kappa
    b = (1.0 - mu) * kappa

    def part(x: NDArray[np.float64], vals: NDArray[np.float64], w: NDArray[np.float64]) -> Any:
        if len(vals) == 0:
            return 0.0
        xe = x[..., None]
        top = int(vals[-1])
        if top <= 4 * len(vals) + 16:
            # lnΓ(x+v) − lnΓ(x) = Σ_{i<v} ln(x+i): one log per run count up to the largest v,
            # weighted by how many tasks have more than i (cheaper than two lnΓ per value)
            tail = np.zeros(top)
            np.add.at(tail, vals.astype(np.int64) - 1, w)
            tail = np.cumsum(tail[::-1])[::-1]
            return np.log(xe + np.arange(top, dtype=float)) @ tail
        return (special.gammaln(xe + vals) - special.gammaln(xe)) @ w

    return np.asarray(
        part(a, st.c_vals, st.c_w) + part(b, st.f_vals, st.f_w) - part(kappa, st.n_vals, st.n_w)
    )


def log_prior(
    theta: NDArray[np.float64], lam: NDArray[np.float64], prior: PriorLike
) -> NDArray[np.float64]:
    """Log prior density on (θ = logit μ, λ = log κ), Jacobians included.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.betabinom import HyperPrior, log_prior
    >>> # at μ = 1/2, κ = 1: log(μ(1 − μ)) from Beta(1, 1) + the Normal(0, 2) density at 0
    >>> bool(np.isclose(log_prior(np.array(0.0), np.array(0.0), HyperPrior()),
    ...                 np.log(0.25) - 0.5 * np.log(2 * np.pi * 4)))
    True
    """
    lmu, l1mu = -np.logaddexp(0.0, -theta), -np.logaddexp(0.0, theta)
    lp_theta = (
        prior.mu_alpha * lmu + prior.mu_beta * l1mu - special.betaln(prior.mu_alpha, prior.mu_beta)
    )
    z = (lam - prior.log_kappa_mean) / prior.log_kappa_sd
    lp_lam = -0.5 * z * z - np.log(prior.log_kappa_sd) - 0.5 * np.log(2.0 * np.pi)
    return np.asarray(lp_theta + lp_lam)


@dataclass(frozen=True)
class GridNodes:
    """Grid cells with non-negligible posterior mass: a, b, μ, κ and normalised weights."""

    a: NDArray[np.float64]
    b: NDArray[np.float64]
    mu: NDArray[np.float64]
    kappa: NDArray[np.float64]
    weight: NDArray[np.float64]

    def sample(self, size: int, rng: np.random.Generator) -> NDArray[np.intp]:
        """Indices of ``size`` nodes drawn with their posterior weights."""
        return np.asarray(rng.choice(self.weight.size, size=size, p=self.weight), dtype=np.intp)


@dataclass(frozen=True)
class Grid:
    """The posterior of (θ, λ) on a regular grid.

    Attributes
    ----------
    theta, lam : ndarray, shape (m,)
        Grid points on θ = logit μ and λ = log κ.
    logpost : ndarray, shape (m, m)
        Unnormalised log posterior (θ along the first axis).
    theta_bounds, lam_bounds : tuple of float
        The final box.
    """

    theta: NDArray[np.float64]
    lam: NDArray[np.float64]
    logpost: NDArray[np.float64]
    theta_bounds: tuple[float, float]
    lam_bounds: tuple[float, float]

    @property
    def size(self) -> int:
        """Points per axis."""
        return int(self.theta.size)

    def density(self) -> tuple[NDArray[np.float64], float]:
        """Cell probabilities (summing to one) and log of the normalising integral."""
        top = float(np.nanmax(self.logpost))
        dens = np.exp(self.logpost - top)
        dens[~np.isfinite(dens)] = 0.0
        total = float(dens.sum())
        ht, hl = self.theta[1] - self.theta[0], self.lam[1] - self.lam[0]
        return dens / total, top + float(np.log(total * ht * hl))

    def draws(
        self, n_draws: int, rng: np.random.Generator
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``n_draws`` independent (θ, λ): a cell with its probability, uniform inside it."""
        prob, _ = self.density()
        ht, hl = self.theta[1] - self.theta[0], self.lam[1] - self.lam[0]
        idx = rng.choice(prob.size, size=n_draws, p=prob.ravel())
        i, j = np.unravel_index(idx, prob.shape)
        theta = self.theta[i] + (rng.random(n_draws) - 0.5) * ht
        lam = self.lam[j] + (rng.random(n_draws) - 0.5) * hl
        return theta, lam

    def coarsened(self, factor: int) -> GridNodes:
        """Nodes of blocks of factor × factor cells: summed probability, block-centre (a, b).

        Examples
        --------
        >>> from passhat.betabinom import posterior_grid
        >>> g = posterior_grid([4, 4], [4, 0], [5, 5], size=64)
        >>> c = g.coarsened(4)
        >>> c.weight.size, round(float(c.weight.sum()), 12)
        (256, 1.0)
        """
        prob, _ = self.density()
        m = self.size // factor
        p = prob[: m * factor, : m * factor].reshape(m, factor, m, factor).sum(axis=(1, 3))
        th = self.theta[: m * factor].reshape(m, factor).mean(axis=1)
        la = self.lam[: m * factor].reshape(m, factor).mean(axis=1)
        tt, ll = np.meshgrid(th, la, indexing="ij")
        mu = special.expit(tt.ravel())
        kappa = np.exp(ll.ravel())
        w = p.ravel() / p.sum()
        return GridNodes(a=mu * kappa, b=(1.0 - mu) * kappa, mu=mu, kappa=kappa, weight=w)

    def nodes(self, *, tail: float = 1e-10) -> GridNodes:
        """Cell centres holding all but ``tail`` of the posterior mass, with their weights."""
        prob, _ = self.density()
        flat = prob.ravel()
        order = np.argsort(flat)
        drop = np.cumsum(flat[order]) <= tail
        keep = np.ones(flat.size, dtype=bool)
        keep[order[drop]] = False
        i, j = np.unravel_index(np.flatnonzero(keep), prob.shape)
        mu = special.expit(self.theta[i])
        kappa = np.exp(self.lam[j])
        w = flat[keep]
        return GridNodes(a=mu * kappa, b=(1.0 - mu) * kappa, mu=mu, kappa=kappa, weight=w / w.sum())


def posterior_grid(
    n: ArrayLike,
    c: ArrayLike,
    mult: ArrayLike | None = None,
    *,
    prior: PriorLike | None = None,
    size: int = 256,
    threshold: float = THRESHOLD,
) -> Grid:
    """The posterior of (θ = logit μ, λ = log κ) on an adaptive grid.

    Parameters
    ----------
    n, c, mult : array_like
        Distinct (n, c) pairs and their multiplicities (or one row per task).
    prior : HyperPrior or passhat.model.Priors, optional
    size : int
        Points per axis of the final grid.
    threshold : float
        The box holds the cells whose log density is within this of the
        maximum (30 by default: everything but e^−30 of the peak).

    Returns
    -------
    Grid

    Examples
    --------
    >>> from passhat.betabinom import posterior_grid
    >>> g = posterior_grid([4, 4], [4, 0], [5, 5], size=64)
    >>> nodes = g.nodes()
    >>> bool(abs(nodes.weight @ nodes.mu - 0.5) < 0.01)   # symmetric data: μ centred on ½
    True
    """
    pri = prior or HyperPrior()
    st = suff_stats(n, c, mult)
    th_lo, th_hi = -30.0, 30.0
    la_lo = pri.log_kappa_mean - 8.0 * pri.log_kappa_sd
    la_hi = pri.log_kappa_mean + 8.0 * pri.log_kappa_sd

    def evaluate(
        tl: float, th: float, ll: float, lh: float, m: int
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        tg = np.linspace(tl, th, m)
        lg = np.linspace(ll, lh, m)
        tt, ll_ = np.meshgrid(tg, lg, indexing="ij")
        lp = np.asarray(loglik(tt, ll_, st)) + np.asarray(log_prior(tt, ll_, pri))
        return tg, lg, lp

    for _ in range(12):
        tg, lg, lp = evaluate(th_lo, th_hi, la_lo, la_hi, COARSE)
        if not np.isfinite(lp).any():
            raise ModelError("grid: the log posterior is not finite anywhere on the grid")
        keep = lp > np.nanmax(lp) - threshold
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
    return Grid(
        theta=tg,
        lam=lg,
        logpost=lp,
        theta_bounds=(float(th_lo), float(th_hi)),
        lam_bounds=(float(la_lo), float(la_hi)),
    )


def rising_moments(x: ArrayLike, y: ArrayLike, m: int) -> NDArray[np.float64]:
    """E[p^j] for p ~ Beta(x, y − x), j = 1..m: Π_{i<j} (x+i)/(y+i), as a trailing axis.

    Cumulative products of ratios (no log-gamma), vectorised over x and y.

    Examples
    --------
    >>> from passhat.betabinom import rising_moments
    >>> rising_moments(1.0, 2.0, 3).round(4).tolist()   # uniform p: 1/2, 1/3, 1/4
    [0.5, 0.3333, 0.25]
    """
    xa = np.asarray(x, dtype=float)[..., None]
    ya = np.asarray(y, dtype=float)[..., None]
    j = np.arange(m, dtype=float)
    return np.asarray(np.cumprod((xa + j) / (ya + j), axis=-1))


def log_pmf(y: ArrayLike, n: ArrayLike, alpha: ArrayLike, beta: ArrayLike) -> NDArray[np.float64]:
    """log P(Y = y) for Y ~ BetaBinomial(n, α, β), broadcasting over all four arguments.

    log C(n, y) + log B(α + y, β + n − y) − log B(α, β); the caller keeps
    0 ≤ y ≤ n (outside it the value is not a log probability). The failures
    n − y are formed before β is added, so a tiny β (an all-pass posterior)
    is not lost to rounding when y = n.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.betabinom import log_pmf
    >>> np.exp(log_pmf(np.arange(3), 2, 1.0, 1.0)).round(4).tolist()   # uniform p: 1/3 each
    [0.3333, 0.3333, 0.3333]
    """
    ya, na = np.asarray(y, dtype=float), np.asarray(n, dtype=float)
    aa, ba = np.asarray(alpha, dtype=float), np.asarray(beta, dtype=float)
    return np.asarray(
        special.gammaln(na + 1.0)
        - special.gammaln(ya + 1.0)
        - special.gammaln(na - ya + 1.0)
        + special.betaln(aa + ya, ba + (na - ya))
        - special.betaln(aa, ba)
    )
