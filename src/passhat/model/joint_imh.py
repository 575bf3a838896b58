"""Exact posterior draws of the joint model without NUTS: independence Metropolis–Hastings.

Once the task effects are integrated out (:mod:`passhat.model.joint_quad`),
the joint model's posterior has only S + 2 dimensions (θ_s, log σ_β, log κ)
and, with thousands of cells, is close to Gaussian. This module fits a
multivariate t to it at the mode (covariance: the inverse of the negative
Hessian, by central differences of the analytic gradient) and uses it as
the proposal of an independence Metropolis–Hastings sampler [1]_: each
chain proposes fresh t draws and accepts one with probability
min(1, w′/w), w = p/q. The chains are exact MCMC whatever the proposal;
a good proposal makes them nearly independent draws at the cost of one
log density per draw (a NUTS draw costs about seven gradients here).

Whether the proposal is good is read from the same weights: the Pareto
shape k̂ of the importance ratios (PSIS, [2]_) over all proposals. Below
:data:`KHAT_MAX` (0.7) the ratios have a finite variance in practice and the
chains mix; above it the caller falls back to NUTS. The fit records which
sampler ran, k̂ and the acceptance rate.

Each chain starts from a draw picked among extra proposals with probability
∝ w (sampling–importance resampling), close to the posterior, so no draw is
discarded as warm-up.

References
----------
.. [1] Tierney, L. (1994). Markov chains for exploring posterior distributions.
   *The Annals of Statistics* 22(4), 1701–1728 (independence chains).
.. [2] Vehtari, A., Simpson, D., Gelman, A., Yao, Y. and Gabry, J. (2024).
   Pareto smoothed importance sampling. *JMLR* 25(72), 1–58.

Examples
--------
>>> import numpy as np
>>> from passhat.model.joint_imh import imh_sample
>>> def logp(x):  # a standard normal in 2-D, the proposal slightly off
...     return -0.5 * (x ** 2).sum(axis=1)
>>> out = imh_sample(logp, np.full(2, 0.1), np.eye(2) * 1.2, chains=2, draws=500,
...                  rng=np.random.default_rng(0))
>>> out.draws.shape, out.khat < 0.7, out.acceptance > 0.5
((2, 500, 2), True, True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, special

__all__ = [
    "DF",
    "ESS_SHARE",
    "KHAT_MAX",
    "MIN_CELLS_PER_PARAMETER",
    "RHAT_MAX",
    "ImhDraws",
    "imh_sample",
    "joint_log_density",
    "joint_log_density_many",
    "laplace",
    "sample_joint_imh",
]

#: Above this Pareto k̂ of the importance ratios the proposal is not trusted: NUTS runs.
KHAT_MAX = 0.7
#: The chains must also mix: R-hat at most this, bulk and tail ESS of every parameter at least
#: this share of the draws (NUTS reaches 0.7-0.8 on the benchmark's 20 × 500 × 5 design).
RHAT_MAX, ESS_SHARE = 1.01, 0.25
#: Tried only with at least this many observed cells per sampled parameter (S + 2): with
#: fewer the posterior is skewed (σ_β, κ weakly identified) and a t proposal misses its tails.
MIN_CELLS_PER_PARAMETER = 50
#: Degrees of freedom of the multivariate-t proposal.
DF = 30.0
#: Proposals drawn to pick each chain's starting point (sampling–importance resampling).
START_POOL = 200
_LOG_2PI = float(np.log(2.0 * np.pi))


@dataclass(frozen=True)
class ImhDraws:
    """Independence Metropolis–Hastings draws and what the proposal's weights said.

    Attributes
    ----------
    draws : ndarray (chains, draws, d)
    khat : float
        Pareto k̂ of the importance ratios p/q over all proposals made.
    acceptance : float
        Share of proposals accepted.
    evaluations : int
        Log densities evaluated.
    """

    draws: NDArray[np.float64]
    khat: float
    acceptance: float
    evaluations: int


def laplace(
    fun: Callable[[NDArray[np.float64]], tuple[float, NDArray[np.float64]]],
    x0: NDArray[np.float64],
    *,
    step: float = 1e-4,
) -> tuple[NDArray[np.float64], NDArray[np.float64]] | None:
    """The mode of a log density and the inverse of its negative Hessian there.

    ``fun(x)`` returns (log p, gradient). The Hessian is central differences of the gradient
    (2d evaluations), symmetrised. None when the optimiser fails or the Hessian is not
    negative definite at the point found.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_imh import laplace
    >>> A = np.array([[2.0, 0.5], [0.5, 1.0]])
    >>> mode, cov = laplace(lambda x: (-0.5 * x @ A @ x + x[0], -A @ x + [1, 0]), np.zeros(2))
    >>> bool(np.allclose(mode, np.linalg.solve(A, [1, 0]), atol=1e-6))
    True
    >>> bool(np.allclose(cov, np.linalg.inv(A), atol=1e-6))
    True
    """

    def neg(x: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        v, g = fun(x)
        return -v, -np.asarray(g)

    res = optimize.minimize(neg, x0, jac=True, method="L-BFGS-B", options={"gtol": 1e-8})
    mode = np.asarray(res.x, dtype=float)
    if not np.all(np.isfinite(mode)):
        return None
    d = len(mode)
    hess = np.empty((d, d))
    for j in range(d):
        e = np.zeros(d)
        e[j] = step
        hess[j] = (np.asarray(fun(mode + e)[1]) - np.asarray(fun(mode - e)[1])) / (2 * step)
    hess = 0.5 * (hess + hess.T)
    try:
        chol = np.linalg.cholesky(-hess)
    except np.linalg.LinAlgError:
        return None
    inv = np.linalg.inv(chol)
    return mode, inv.T @ inv


def _t_draws(
    mode: NDArray[np.float64], cov: NDArray[np.float64], n: int, df: float, rng: np.random.Generator
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """n multivariate-t draws (location ``mode``, scale ``cov``) and their log densities."""
    d = len(mode)
    chol = np.linalg.cholesky(cov)
    z = rng.standard_normal((n, d))
    g = rng.chisquare(df, n) / df
    x = mode + (z @ chol.T) / np.sqrt(g)[:, None]
    delta = (z**2).sum(axis=1) / g  # Mahalanobis distance² of x
    logq = (
        special.gammaln((df + d) / 2)
        - special.gammaln(df / 2)
        - 0.5 * d * np.log(df * np.pi)
        - np.log(np.diag(chol)).sum()
        - 0.5 * (df + d) * np.log1p(delta / df)
    )
    return x, logq


def pareto_khat(log_ratios: NDArray[np.float64]) -> float:
    """PSIS's Pareto k̂ of importance ratios given on the log scale (ArviZ's ``psislw``).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_imh import pareto_khat
    >>> bool(pareto_khat(np.random.default_rng(0).normal(0, 0.1, 4000)) < 0.3)
    True
    """
    from passhat.model.diagnostics import import_arviz

    az = import_arviz()
    lw = np.asarray(log_ratios, dtype=float)
    _, khat = az.psislw(lw - lw.max(), reff=1.0)
    return float(khat)


def imh_sample(
    logp: Callable[[NDArray[np.float64]], NDArray[np.float64]],
    mode: NDArray[np.float64],
    cov: NDArray[np.float64],
    *,
    chains: int,
    draws: int,
    rng: np.random.Generator,
    df: float = DF,
) -> ImhDraws:
    """Independence Metropolis–Hastings with a multivariate-t proposal (see the module).

    ``logp`` maps an (n, d) array of points to their n log densities (any constant);
    ``mode`` and ``cov`` are the proposal's location and scale matrix.
    """
    n_start = START_POOL
    x, logq = _t_draws(mode, cov, n_start + chains * draws, df, rng)
    lw = np.asarray(logp(x), dtype=float) - logq
    lw = np.where(np.isfinite(lw), lw, -np.inf)
    khat = pareto_khat(lw[np.isfinite(lw)]) if np.isfinite(lw).sum() > 10 else np.inf
    w0 = np.exp(lw[:n_start] - lw[:n_start].max())
    starts = rng.choice(n_start, size=chains, p=w0 / w0.sum())
    u = np.log(rng.random((chains, draws)))
    out = np.empty((chains, draws, len(mode)))
    accepted = 0
    for c in range(chains):
        cur = int(starts[c])
        block = n_start + c * draws
        for t in range(draws):
            prop = block + t
            if u[c, t] < lw[prop] - lw[cur]:
                cur = prop
                accepted += 1
            out[c, t] = x[cur]
    return ImhDraws(
        draws=out,
        khat=float(khat),
        acceptance=accepted / (chains * draws),
        evaluations=len(lw),
    )


def joint_log_density(
    u: NDArray[np.float64], vals: dict[str, NDArray[Any]], priors: Any
) -> tuple[float, NDArray[np.float64]]:
    """Log posterior density (up to a constant) and gradient of the integrated joint model.

    ``u`` is (θ_1..θ_S, log σ_β, log κ), the unconstrained coordinates PyMC samples
    (log transforms, their Jacobians included); ``vals`` the model's data
    (:func:`passhat.model.joint_build.quad_model_data`); ``priors`` a ``JointPriors``.
    The same density as :func:`passhat.model.joint_build.build_joint_model`'s.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_build import JointData, JointPriors, quad_model_data
    >>> from passhat.model.joint_quad import design
    >>> from passhat.model.joint_imh import joint_log_density
    >>> d = JointData.from_arrays([[3, 3], [3, 3]], [[0, 3], [1, 2]], np.ones((2, 2), bool),
    ...                           ["A", "B"], ["x", "y"])
    >>> lp, g = joint_log_density(np.zeros(4), quad_model_data(design(d)), JointPriors())
    >>> g.shape
    (4,)
    """
    from passhat.model.joint_ops import quad_loglik

    S = len(u) - 2
    theta, z_sd, z_ka = u[:S], float(u[S]), float(u[S + 1])
    sd, ka = np.exp(z_sd), np.exp(z_ka)
    if not (np.isfinite(sd) and np.isfinite(ka) and sd > 0 and ka > 0):
        return -np.inf, np.zeros(len(u))
    grid = vals["grid"]
    ll, dth, dsd, dka = quad_loglik(
        theta, sd, ka, grid, vals["pair_n"], vals["pair_c"], vals["base"], vals["stride"],
        vals["log_step"], vals["mult"], len(vals["width"]),
    )  # fmt: skip
    m_total = float(vals["mult"].sum())
    zq = -0.5 * (grid / sd) ** 2
    top = zq.max()
    wq = np.exp(zq - top)
    lse = top + np.log(wq.sum())
    gln = lse - np.log(sd) - 0.5 * _LOG_2PI + np.log(grid[1] - grid[0])
    dgln = float((wq * grid**2).sum() / wq.sum()) / sd**3 - 1.0 / sd
    tsd, ssd = priors.theta_sd, priors.task_sd_scale
    mu_k, sd_k = priors.log_kappa_mean, priors.log_kappa_sd
    lp = (
        ll
        - m_total * gln
        - 0.5 * float((theta / tsd) ** 2 @ np.ones(S))
        - 0.5 * (sd / ssd) ** 2
        + z_sd  # log Jacobian of σ_β = exp(z)
        - 0.5 * ((z_ka - mu_k) / sd_k) ** 2  # log κ ~ Normal: the Jacobian cancels
    )
    grad = np.empty(len(u))
    grad[:S] = dth - theta / tsd**2
    grad[S] = sd * (dsd - m_total * dgln - sd / ssd**2) + 1.0
    grad[S + 1] = ka * dka - (z_ka - mu_k) / sd_k**2
    return float(lp), grad


def joint_log_density_many(
    points: NDArray[np.float64], vals: dict[str, NDArray[Any]], priors: Any
) -> NDArray[np.float64]:
    """:func:`joint_log_density`'s value (no gradient) at each row of ``points`` (n, S + 2):
    the likelihood kernel point by point, the priors and the grid's normaliser at once.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_build import JointData, JointPriors, quad_model_data
    >>> from passhat.model.joint_quad import design
    >>> from passhat.model.joint_imh import joint_log_density, joint_log_density_many
    >>> d = JointData.from_arrays([[3, 3], [3, 3]], [[0, 3], [1, 2]], np.ones((2, 2), bool),
    ...                           ["A", "B"], ["x", "y"])
    >>> vals, pri = quad_model_data(design(d)), JointPriors()
    >>> u = np.array([[0.1, -0.2, 0.3, 1.5], [0.0, 0.0, -1.0, 2.5]])
    >>> many = joint_log_density_many(u, vals, pri)
    >>> bool(np.allclose(many, [joint_log_density(x, vals, pri)[0] for x in u], atol=1e-12))
    True
    """
    from passhat.model.joint_ops import _quad_loglik

    n, S = points.shape[0], points.shape[1] - 2
    args = [np.ascontiguousarray(vals[k], dtype=t) for k, t in _KERNEL_INPUTS]
    grid, K = args[0], len(vals["width"])
    z_sd, z_ka = points[:, S], points[:, S + 1]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        sd, ka = np.exp(z_sd), np.exp(z_ka)
        ok = np.isfinite(sd) & np.isfinite(ka) & (sd > 0) & (ka > 0)
        ll = np.full(n, -np.inf)
        for i in np.flatnonzero(ok):
            theta = np.ascontiguousarray(points[i, :S])
            ll[i] = _quad_loglik(theta, float(sd[i]), float(ka[i]), grid, *args[1:], K)[0]
        zq = -0.5 * (grid[None, :] / sd[:, None]) ** 2
        gln = special.logsumexp(zq, axis=1) - z_sd - 0.5 * _LOG_2PI + np.log(grid[1] - grid[0])
        lp = (
            ll
            - float(vals["mult"].sum()) * gln
            - 0.5 * ((points[:, :S] / priors.theta_sd) ** 2).sum(axis=1)
            - 0.5 * (sd / priors.task_sd_scale) ** 2
            + z_sd
            - 0.5 * ((z_ka - priors.log_kappa_mean) / priors.log_kappa_sd) ** 2
        )
    return np.asarray(np.where(ok, lp, -np.inf))


#: The kernel's data inputs after (θ, σ_β, κ), with their dtypes (``width`` gives K).
_KERNEL_INPUTS = (
    ("grid", np.float64),
    ("pair_n", np.int64),
    ("pair_c", np.int64),
    ("base", np.int64),
    ("stride", np.int64),
    ("log_step", np.float64),
    ("mult", np.float64),
)


def sample_joint_imh(
    quad: Any, priors: Any, *, chains: int, draws: int, seed: int, df: float | None = None
) -> tuple[dict[str, NDArray[Any]] | None, dict[str, Any]]:
    """The joint model's posterior draws by independence MH, or None when the data have fewer
    than MIN_CELLS_PER_PARAMETER cells per parameter (then ``cells`` is recorded and nothing
    is sampled), k̂ > KHAT_MAX or the chains mix worse than RHAT_MAX / ESS_SHARE.

    Returns the draws as :func:`passhat.model.joint_fit` extracts NUTS's (``theta``,
    ``task_sd``, ``kappa``, ``diverging``: none) and what the proposal's check found
    (``khat``, ``acceptance``, ``evaluations``, ``df``, then ``r_hat_max`` and ``ess_min``
    when k̂ passed; ``khat`` is inf when no mode was found), and when the draws are refused
    why: ``refused`` is "cells", "mode", "khat" or "mixing".
    """
    from passhat.model.joint_build import quad_model_data

    vals = quad_model_data(quad)
    S = quad.rows.shape[1]
    df = DF if df is None else df
    info: dict[str, Any] = {"khat": float("inf"), "acceptance": 0.0, "df": df}
    cells = int(((quad.rows > 0) * quad.mult[:, None]).sum())  # pair 0: not run
    if cells < MIN_CELLS_PER_PARAMETER * (S + 2):
        return None, {**info, "cells": cells, "refused": "cells"}

    def fun(u: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        return joint_log_density(u, vals, priors)

    x0 = np.concatenate([np.zeros(S), [0.0, priors.log_kappa_mean]])
    fitted = laplace(fun, x0)
    if fitted is None:
        return None, {**info, "refused": "mode"}
    mode, cov = fitted

    def logp(x: NDArray[np.float64]) -> NDArray[np.float64]:
        return joint_log_density_many(x, vals, priors)

    rng = np.random.default_rng([seed, _IMH_SALT])
    out = imh_sample(logp, mode, cov, chains=chains, draws=draws, rng=rng, df=df)
    info.update(khat=out.khat, acceptance=out.acceptance, evaluations=out.evaluations)
    if not out.khat <= KHAT_MAX:
        return None, {**info, "refused": "khat"}
    info.update(_mixing(out.draws))
    if not (info["r_hat_max"] <= RHAT_MAX and info["ess_min"] >= ESS_SHARE * chains * draws):
        return None, {**info, "refused": "mixing"}
    d = out.draws
    res = {
        "theta": d[:, :, :S],
        "task_sd": np.exp(d[:, :, S]),
        "kappa": np.exp(d[:, :, S + 1]),
        "diverging": np.zeros(d.shape[:2], dtype=bool),
    }
    return res, info


def _mixing(draws: NDArray[np.float64]) -> dict[str, float]:
    """The largest R-hat and the smallest bulk or tail ESS over the sampled parameters."""
    from passhat.model.joint_mcmc import ess_bulk, ess_tail, rhat_rank

    ess = min(float(ess_bulk(draws).min()), float(ess_tail(draws).min()))
    return {"r_hat_max": float(np.nanmax(rhat_rank(draws))), "ess_min": ess}


#: Seed stream of the independence sampler.
_IMH_SALT = 9_241
