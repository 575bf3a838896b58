"""The zero/one-inflated model's posterior by quadrature on a 4-dimensional grid.

The inflated model (:func:`passhat.model.build_model`, ``model="inflated"``) has four
parameters per system: the Beta part's mean μ and excess concentration κ_e (κ = κ_min(μ) + κ_e
with κ_min(μ) = max(1/μ, 1/(1 − μ)), so a, b ≥ 1), the share π_B of Beta tasks and the share
s = π₁ / (π₁ + π₀) of always-pass among the others. Its posterior is evaluated on a grid over
the same unconstrained coordinates PyMC samples — θ = logit μ, λ = log κ_e, u = logit π_B,
v = logit s — with the same priors (Jacobians included), so both methods target one density.

The likelihood of a distinct (n, c) pair is the Beta-Binomial term ℓ_B(θ, λ) weighted by π_B,
plus π₁ when c = n and π₀ when c = 0. The pairs with 0 < c < n contribute m·(log π_B + ℓ_B):
they separate into a (θ, λ) part and a u part, and only the all-pass and all-fail pairs need
the four-dimensional sum. As for the plain model (:mod:`passhat.betabinom`), coarse grids find
the box that holds, along each axis, the points whose marginal log density is within
:data:`THRESHOLD` of its maximum (a criterion on the joint density would cut the tail of a
poorly identified axis, whose mass lies in many cells of low density), until no axis shrinks
by half; then
a final grid gives the cell probabilities; draws pick a cell with its probability and fall
uniformly inside it.

Examples
--------
>>> import numpy as np
>>> from passhat.model.inflated_grid import inflated_grid
>>> g = inflated_grid([5, 5, 5], [0, 3, 5], [10, 20, 30])
>>> d = g.draws(2000, np.random.default_rng(0))
>>> bool(0.3 < d["pi_pass"].mean() < 0.55), bool(0.1 < d["pi_fail"].mean() < 0.3)
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from passhat.errors import ModelError
from passhat.model.build import Priors
from passhat.model.grid import LooTerms, loo_terms

__all__ = ["SIZES", "THRESHOLD", "InflatedGrid", "inflated_grid"]

#: Along each axis, the box holds the points where the marginal log density (the grid summed
#: over the other axes) is within this of its maximum.
THRESHOLD = 20.0
#: Points per axis (θ, λ, u, v) of the final grid.
SIZES = (40, 40, 32, 32)
#: Points per axis of the coarse grids that find the box.
COARSE = (20, 20, 14, 14)


def _log_sigmoid(x: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.asarray(-np.logaddexp(0.0, -x))


def _logit_beta(x: NDArray[np.float64], alpha: float, beta: float) -> NDArray[np.float64]:
    """Log density of logit(Y) for Y ~ Beta(alpha, beta)."""
    return np.asarray(
        alpha * _log_sigmoid(x) + beta * _log_sigmoid(-x) - special.betaln(alpha, beta)
    )


def ab_of(theta: ArrayLike, lam: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The Beta part's (a, b) at (θ = logit μ, λ = log κ_e): κ = max(1/μ, 1/(1 − μ)) + e^λ.

    Examples
    --------
    >>> a, b = ab_of(0.0, 0.0)   # μ = ½: κ = 2 + 1
    >>> float(a), float(b)
    (1.5, 1.5)
    """
    th = np.asarray(theta, dtype=float)
    mu = special.expit(th)
    kappa = np.maximum(1.0 / mu, 1.0 / (1.0 - mu)) + np.exp(np.asarray(lam, dtype=float))
    return mu * kappa, (1.0 - mu) * kappa


def _bb(n: float, c: float, a: NDArray[np.float64], b: NDArray[np.float64]) -> Any:
    """log B(a + c, b + n − c) − log B(a, b) (the Beta-Binomial term without C(n, c))."""
    return special.betaln(a + c, b + (n - c)) - special.betaln(a, b)


@dataclass(frozen=True)
class _Pairs:
    n: NDArray[np.float64]
    c: NDArray[np.float64]
    m: NDArray[np.float64]


@dataclass(frozen=True)
class InflatedGrid:
    """The inflated model's posterior on a regular grid over (θ, λ, u, v).

    Attributes
    ----------
    axes : tuple of 4 ndarrays
        Grid points on θ = logit μ, λ = log κ_e, u = logit π_B, v = logit s.
    logpost : ndarray
        Unnormalised log posterior over the four axes.
    """

    axes: tuple[NDArray[np.float64], ...]
    logpost: NDArray[np.float64]

    def probabilities(self) -> NDArray[np.float64]:
        """Cell probabilities (summing to one), same shape as :attr:`logpost`."""
        e = np.exp(self.logpost - np.nanmax(self.logpost))
        e[~np.isfinite(e)] = 0.0
        return np.asarray(e / e.sum())

    def draws(self, size: int, rng: np.random.Generator) -> dict[str, NDArray[np.float64]]:
        """``size`` independent draws of μ, κ, π₁, π₀: a cell with its probability, uniform
        inside it."""
        prob = self.probabilities().ravel()
        idx = np.unravel_index(rng.choice(prob.size, size=size, p=prob), self.logpost.shape)
        x = []
        for ax, i in zip(self.axes, idx, strict=True):
            h = ax[1] - ax[0]
            x.append(ax[i] + (rng.random(size) - 0.5) * h)
        theta, lam, u, v = x
        a, b = ab_of(theta, lam)
        pi_b = special.expit(u)
        share = special.expit(v)
        return {
            "mu": a / (a + b),
            "kappa": a + b,
            "pi_pass": (1.0 - pi_b) * share,
            "pi_fail": (1.0 - pi_b) * (1.0 - share),
        }

    def loo(self, n: ArrayLike, c: ArrayLike) -> LooTerms:
        """Exact leave-one-task-out terms of each pair on the grid (:func:`loo_terms`)."""
        with np.errstate(divide="ignore"):
            logp = np.log(self.probabilities()).ravel()
        keep = np.isfinite(logp)
        parts = [loo_terms(logp[keep], ll.ravel()[keep][None, :]) for ll in self.pair_loglik(n, c)]
        return LooTerms(
            lpd=np.concatenate([t.lpd for t in parts]),
            lppd=np.concatenate([t.lppd for t in parts]),
        )

    def pair_loglik(self, n: ArrayLike, c: ArrayLike) -> Iterator[NDArray[np.float64]]:
        """log P(c | n) at every cell for each pair in turn (binomial coefficient included)."""
        th, la, u, v = np.meshgrid(*self.axes, indexing="ij", sparse=True)
        a, b = ab_of(th, la)
        lpb = _log_sigmoid(u)
        lpo = _log_sigmoid(-u)
        for nn, cc in zip(np.ravel(n), np.ravel(c), strict=True):
            coef = special.gammaln(nn + 1) - special.gammaln(cc + 1) - special.gammaln(nn - cc + 1)
            t = lpb + _bb(float(nn), float(cc), a, b)
            if cc == nn:
                t = np.logaddexp(t, lpo + _log_sigmoid(v))
            elif cc == 0:
                t = np.logaddexp(t, lpo + _log_sigmoid(-v))
            yield np.broadcast_to(t + coef, self.logpost.shape)


def _log_posterior(axes: list[NDArray[np.float64]], pairs: _Pairs, pri: Priors) -> Any:
    """The unnormalised log posterior on the grid spanned by ``axes``."""
    th, la, u, v = np.meshgrid(*axes, indexing="ij", sparse=True)
    a1, a0, ab = pri.mix_concentration
    z = (la - pri.log_kappa_mean) / pri.log_kappa_sd
    lp = (
        _logit_beta(th, pri.mu_alpha, pri.mu_beta)
        - 0.5 * z * z
        - np.log(pri.log_kappa_sd * np.sqrt(2.0 * np.pi))
        + _logit_beta(u, ab, a1 + a0)
        + _logit_beta(v, a1, a0)
    )
    a, b = ab_of(th, la)
    lpb, lpo = _log_sigmoid(u), _log_sigmoid(-u)
    mid = (pairs.c > 0) & (pairs.c < pairs.n)
    lp = lp + pairs.m[mid].sum() * lpb
    for nn, cc, mm in zip(pairs.n[mid], pairs.c[mid], pairs.m[mid], strict=True):
        lp = lp + mm * _bb(nn, cc, a, b)
    for nn, cc, mm in zip(pairs.n[~mid], pairs.c[~mid], pairs.m[~mid], strict=True):
        point = lpo + _log_sigmoid(v if cc == nn else -v)
        lp = lp + mm * np.logaddexp(point, lpb + _bb(nn, cc, a, b))
    return np.asarray(lp)


def inflated_grid(
    n: ArrayLike,
    c: ArrayLike,
    mult: ArrayLike | None = None,
    *,
    priors: Priors | None = None,
    sizes: tuple[int, int, int, int] = SIZES,
) -> InflatedGrid:
    """The inflated model's posterior on an adaptive grid over (logit μ, log κ_e, logit π_B,
    logit s).

    Parameters
    ----------
    n, c, mult : array_like
        Distinct (n, c) pairs and their multiplicities (or one row per task).
    priors : Priors, optional
        As for NUTS: μ ~ Beta(mu_alpha, mu_beta), log κ_e ~ Normal(log_kappa_mean,
        log_kappa_sd), (π₁, π₀, π_B) ~ Dirichlet(mix_concentration).
    sizes : 4 ints
        Points per axis of the final grid.

    Raises
    ------
    ModelError
        The log posterior is not finite anywhere on the grid.
    """
    pri = priors or Priors()
    nn = np.asarray(n, dtype=float).ravel()
    pairs = _Pairs(
        n=nn,
        c=np.asarray(c, dtype=float).ravel(),
        m=np.ones_like(nn) if mult is None else np.asarray(mult, dtype=float).ravel(),
    )
    spread = 8.0 * pri.log_kappa_sd
    box = [(-30.0, 30.0), (pri.log_kappa_mean - spread, pri.log_kappa_mean + spread)]
    box += [(-30.0, 30.0), (-30.0, 30.0)]
    for _ in range(12):
        axes = [np.linspace(lo, hi, m) for (lo, hi), m in zip(box, COARSE, strict=True)]
        lp = _log_posterior(axes, pairs, pri)
        if not np.isfinite(lp).any():
            raise ModelError("grid: the log posterior is not finite anywhere on the grid")
        lp = np.where(np.isfinite(lp), lp, -np.inf)
        new = []
        for d, ax in enumerate(axes):
            marginal = special.logsumexp(lp, axis=tuple(i for i in range(4) if i != d))
            inside = np.flatnonzero(marginal > marginal.max() - THRESHOLD)
            h = ax[1] - ax[0]
            lo, hi = box[d]
            new.append((max(lo, ax[inside[0]] - h), min(hi, ax[inside[-1]] + h)))
        shrink = min((h1 - l1) / (h0 - l0) for (l1, h1), (l0, h0) in zip(new, box, strict=True))
        box = new
        if shrink > 0.5:  # no axis shrank by half: the box holds the posterior
            break
    axes = [np.linspace(lo, hi, m) for (lo, hi), m in zip(box, sizes, strict=True)]
    return InflatedGrid(axes=tuple(axes), logpost=_log_posterior(axes, pairs, pri))
