"""The variance split of a population-scope metric by the law of total variance, given p.

Conditioning a population-scope metric θ (the expected value over tasks like
these) on p = (p_1, …, p_T), the success rates of *these* tasks,

    Var(θ | y) = Var(E[θ | p] | y) + E[Var(θ | p) | y]

(given p the runs y say nothing more about the hyperparameters). Unlimited
runs on these tasks would reveal p, so the first term is the part of the
posterior variance that more runs per task can remove: the **within-task
share** Var(E[θ | p] | y) / Var(θ | y) of :func:`variance_split`. The second
remains however many runs are added, because it comes from which tasks were
sampled: the **task-sampling share**. (:mod:`passhat.model.preposterior`
gives the expected interval width after a finite number of more runs.)

Computation, on a quadrature grid over (θ = logit μ, λ = log κ) that covers
the posterior draws with a margin (:func:`quad_grid`): under p_i ~ Beta(a, b),
(Σ log p_i, Σ log(1 − p_i)) are sufficient for (a, b) given p, so

    log π(a, b | p) = log prior + (a − 1) S₁ + (b − 1) S₂ − T ln B(a, b) + const

is one 4-column matrix product per draw of p. The draws of p come from the
posterior, one per hyperparameter draw (p_i ~ Beta(a + c_i, b + n_i − c_i),
sampled on the log scale so that rates near 0 or 1 keep their logarithms:
:func:`log_rate_sums`). The zero/one-inflated model adds the shares
(π₁, π₀, π_B) | p ~ Dirichlet(prior + the numbers of tasks at 1, at 0 and in
between), independent of (a, b) | p, and θ = π₁ + π_B h(a, b).

References
----------
.. [1] Gelman, A., Carlin, J. B., Stern, H. S., Dunson, D. B., Vehtari, A.
   and Rubin, D. B. (2013). *Bayesian Data Analysis*, 3rd ed. CRC Press,
   §2.2 (the law of total variance for posteriors, E[Var(θ | y)] ≤ Var(θ))
   and §5.3 (the Beta-Binomial hierarchy and its sufficient statistics).

Examples
--------
>>> import numpy as np
>>> from passhat.model.build import Priors
>>> from passhat.model.split import variance_split
>>> rng = np.random.default_rng(0)
>>> h = {"a": rng.gamma(20, 0.1, 800), "b": rng.gamma(20, 0.1, 800)}
>>> s = variance_split(np.array([4] * 15), np.array([0, 1, 2, 3, 4] * 3), h, [("mean", 1)],
...                    priors=Priors(), rng=rng)
>>> bool(0 < s[("mean", 1)]["within_task_share"] < 1)
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import special

from passhat.model.build import Priors, compress, log_prior
from passhat.model.metrics import component_probs, population_metrics

__all__ = [
    "QuadGrid",
    "beta_part",
    "log_rate_sums",
    "p_log_weights",
    "quad_grid",
    "ratio_split",
    "softmax_rows",
    "variance_split",
]

#: Tasks sharing (n, c) beyond this many have their log-rate sums drawn from the exact normal.
EXACT_SUM_MAX = 200
#: Rows of (draws × grid) processed at once.
_CHUNK_CELLS = 4_000_000


@dataclass(frozen=True)
class QuadGrid:
    """Flattened grid points over (θ = logit μ, λ = log κ) with their a, b and log prior.

    Attributes
    ----------
    theta, lam, a, b, log_prior, log_beta : ndarray
        One value per grid point (``log_beta`` = ln B(a, b)).
    size : int
        Points per axis.
    """

    theta: NDArray[np.float64]
    lam: NDArray[np.float64]
    a: NDArray[np.float64]
    b: NDArray[np.float64]
    log_prior: NDArray[np.float64]
    log_beta: NDArray[np.float64]
    size: int


def quad_grid(
    mu: NDArray[np.float64], kappa: NDArray[np.float64], priors: Priors, *, size: int = 64
) -> QuadGrid:
    """A grid over (logit μ, log κ) covering the posterior draws, widened by half their range.

    Every posterior given more data (or given p) concentrates inside the
    range of the current posterior, so this box holds its mass; ``size``
    points per axis put about ten of them in each posterior standard
    deviation.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.build import Priors
    >>> from passhat.model.split import quad_grid
    >>> g = quad_grid(np.array([0.4, 0.6]), np.array([1.0, 4.0]), Priors(), size=8)
    >>> g.theta.shape, bool(g.theta.min() < np.log(0.4 / 0.6))
    ((64,), True)
    """
    th = special.logit(np.clip(np.asarray(mu, dtype=float), 1e-12, 1 - 1e-12))
    la = np.log(np.asarray(kappa, dtype=float))
    axes = []
    for x, lo_lim, hi_lim in (
        (th, -30.0, 30.0),
        (
            la,
            priors.log_kappa_mean - 8.0 * priors.log_kappa_sd,
            priors.log_kappa_mean + 8.0 * priors.log_kappa_sd,
        ),
    ):
        lo, hi = float(np.min(x)), float(np.max(x))
        pad = max(0.5 * (hi - lo), 1e-3)
        axes.append(np.linspace(max(lo - pad, lo_lim), min(hi + pad, hi_lim), size))
    T, L = np.meshgrid(axes[0], axes[1], indexing="ij")
    theta, lam = T.ravel(), L.ravel()
    kap = np.exp(lam)
    m = special.expit(theta)
    a, b = m * kap, (1.0 - m) * kap
    return QuadGrid(
        theta=theta,
        lam=lam,
        a=a,
        b=b,
        log_prior=log_prior(theta, lam, priors),
        log_beta=special.betaln(a, b),
        size=size,
    )


def _log_gamma(shape: NDArray[np.float64], rng: np.random.Generator) -> NDArray[np.float64]:
    """log X for X ~ Gamma(shape), accurate for tiny shapes (X = Gamma(shape + 1) · U^(1/shape))."""
    small = shape < 1.0
    g = rng.standard_gamma(np.where(small, shape + 1.0, shape))
    u = 1.0 - rng.random(shape.shape)  # in (0, 1]
    with np.errstate(divide="ignore"):
        out = np.log(g)
    return np.where(small, out + np.log(u) / shape, out)


def _log_beta_draw(
    alpha: NDArray[np.float64], beta: NDArray[np.float64], rng: np.random.Generator
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(log p, log(1 − p)) for p ~ Beta(alpha, beta), without underflow near 0 or 1."""
    lx, ly = _log_gamma(alpha, rng), _log_gamma(beta, rng)
    lse = np.logaddexp(lx, ly)
    return lx - lse, ly - lse


def log_rate_sums(
    n: NDArray[Any],
    c: NDArray[Any],
    mult: NDArray[Any],
    hyper: Mapping[str, NDArray[np.float64]],
    *,
    rng: np.random.Generator,
) -> dict[str, NDArray[np.float64]]:
    """One draw of p per hyperparameter draw, reduced to its sufficient statistics.

    Returns ``s1`` = Σ log p_i and ``s2`` = Σ log(1 − p_i) over the tasks
    whose p_i is a Beta draw, ``nb`` their number and (inflated model)
    ``n1``, ``n0``: the tasks drawn into the always-pass / always-fail
    components. Groups of more than :data:`EXACT_SUM_MAX` tasks with the same
    (n, c) get their sums from the bivariate normal with the exact moments of
    (log p, log(1 − p)) under Beta(α, β) (digamma and trigamma).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.split import log_rate_sums
    >>> h = {"a": np.ones(3), "b": np.ones(3)}
    >>> s = log_rate_sums(np.array([2]), np.array([1]), np.array([5]), h,
    ...                   rng=np.random.default_rng(0))
    >>> s["nb"].tolist(), bool((s["s1"] < 0).all())
    ([5.0, 5.0, 5.0], True)
    """
    a, b = np.asarray(hyper["a"], float), np.asarray(hyper["b"], float)
    D = len(a)
    nn, cc = np.asarray(n, float), np.asarray(c, float)
    mm = np.asarray(mult, dtype=np.int64)
    mixed = "pi_pass" in hyper and "pi_fail" in hyper
    if mixed:
        r1, r0, rb = component_probs(nn, cc, a, b, hyper["pi_pass"], hyper["pi_fail"])
    out = {key: np.zeros(D) for key in ("s1", "s2", "nb", "n1", "n0")}
    exact = mm <= EXACT_SUM_MAX
    idx = np.repeat(np.flatnonzero(exact), mm[exact])
    step = max(1, _CHUNK_CELLS // max(len(idx), 1))
    for lo in range(0, D if len(idx) else 0, step):
        rows = slice(lo, min(D, lo + step))
        alpha = a[rows, None] + cc[None, idx]
        beta = b[rows, None] + (nn - cc)[None, idx]
        lp, l1p = _log_beta_draw(alpha, beta, rng)
        if mixed:
            u = rng.random(lp.shape)
            p1, p0 = r1[rows][:, idx], r0[rows][:, idx]
            is1, is0 = u < p1, (u >= p1) & (u < p1 + p0)
            inner = ~(is1 | is0)
            out["n1"][rows] += is1.sum(axis=1)
            out["n0"][rows] += is0.sum(axis=1)
            lp, l1p = np.where(inner, lp, 0.0), np.where(inner, l1p, 0.0)
            out["nb"][rows] += inner.sum(axis=1)
        else:
            out["nb"][rows] += len(idx)
        out["s1"][rows] += lp.sum(axis=1)
        out["s2"][rows] += l1p.sum(axis=1)
    for j in np.flatnonzero(~exact):  # large groups: one normal draw per group and draw
        alpha, beta = a + cc[j], b + (nn[j] - cc[j])
        if mixed:
            probs = np.stack([r1[:, j], r0[:, j], rb[:, j]], axis=1)
            probs /= probs.sum(axis=1, keepdims=True)
            counts = rng.multinomial(int(mm[j]), probs)
            out["n1"] += counts[:, 0]
            out["n0"] += counts[:, 1]
            m = counts[:, 2].astype(float)
        else:
            m = np.full(D, float(mm[j]))
        tot = special.polygamma(1, alpha + beta)
        mean1 = special.digamma(alpha) - special.digamma(alpha + beta)
        mean2 = special.digamma(beta) - special.digamma(alpha + beta)
        v1, v2, cov = special.polygamma(1, alpha) - tot, special.polygamma(1, beta) - tot, -tot
        z1, z2 = rng.standard_normal(D), rng.standard_normal(D)
        l11 = np.sqrt(np.maximum(v1, 0.0))
        l21 = np.divide(cov, l11, out=np.zeros(D), where=l11 > 0)
        l22 = np.sqrt(np.maximum(v2 - l21 * l21, 0.0))
        sm = np.sqrt(m)
        out["s1"] += m * mean1 + sm * l11 * z1
        out["s2"] += m * mean2 + sm * (l21 * z1 + l22 * z2)
        out["nb"] += m
    return out


def softmax_rows(logw: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each row of log weights normalised to weights summing to one (in place)."""
    logw -= logw.max(axis=1, keepdims=True)
    np.exp(logw, out=logw)
    logw /= logw.sum(axis=1, keepdims=True)
    return logw


def beta_part(grid: QuadGrid, requests: Sequence[tuple[str, int]]) -> NDArray[np.float64]:
    """(G, R) values of the Beta part h(a, b) of each requested population metric on the grid.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.build import Priors
    >>> from passhat.model.split import beta_part, quad_grid
    >>> g = quad_grid(np.array([0.5]), np.array([2.0]), Priors(), size=3)
    >>> h = beta_part(g, [("mean", 1)])
    >>> bool(np.allclose(h[:, 0], g.a / (g.a + g.b)))
    True
    """
    ks = sorted({int(k) for m, k in requests if m != "mean"} or {1})
    pop = population_metrics(grid.a, grid.b, ks)
    cols = [pop["mean"] if m == "mean" else pop[m][:, ks.index(int(k))] for m, k in requests]
    return np.stack(cols, axis=1)


def p_log_weights(grid: QuadGrid, sums: Mapping[str, NDArray[np.float64]]) -> NDArray[np.float64]:
    """Unnormalised log π(a, b | p) at every grid point, one row per draw of p (D, G).

    ``sums`` as returned by :func:`log_rate_sums` (its ``s1``, ``s2``, ``nb``).
    """
    D = len(sums["s1"])
    X = np.stack([sums["s1"], sums["s2"], -sums["nb"], np.ones(D)], axis=1)
    Y = np.stack([grid.a - 1.0, grid.b - 1.0, grid.log_beta, grid.log_prior], axis=0)
    return np.asarray(X @ Y)


def _conditional_on_p(
    grid: QuadGrid,
    sums: Mapping[str, NDArray[np.float64]],
    h: NDArray[np.float64],
    *,
    priors: Priors,
    mixed: bool,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """E[θ | p] and Var(θ | p) per draw of p, each (D, R)."""
    D = len(sums["s1"])
    R = h.shape[1]
    e1 = np.empty((D, R))
    e2 = np.empty((D, R))
    hh = np.concatenate([np.ones((len(grid.a), 1)), h, h * h], axis=1)
    step = max(1, _CHUNK_CELLS // len(grid.a))
    for lo in range(0, D, step):
        rows = slice(lo, min(D, lo + step))
        w = p_log_weights(grid, {key: v[rows] for key, v in sums.items()})
        w -= w.max(axis=1, keepdims=True)
        np.exp(w, out=w)
        tot = w @ hh
        e1[rows] = tot[:, 1 : R + 1] / tot[:, :1]
        e2[rows] = tot[:, R + 1 :] / tot[:, :1]
    if mixed:
        al = np.asarray(priors.mix_concentration, dtype=float)
        c1, c0, cb = al[0] + sums["n1"], al[1] + sums["n0"], al[2] + sums["nb"]
        tot_c = c1 + c0 + cb
        ep1, epb = c1 / tot_c, cb / tot_c
        q = tot_c * (tot_c + 1.0)
        ep11, epbb, ep1b = c1 * (c1 + 1.0) / q, cb * (cb + 1.0) / q, c1 * cb / q
        mean = ep1[:, None] + epb[:, None] * e1
        second = ep11[:, None] + 2.0 * ep1b[:, None] * e1 + epbb[:, None] * e2
    else:
        mean, second = e1, e2
    return mean, np.maximum(second - mean * mean, 0.0)


def variance_split(
    n: NDArray[Any],
    c: NDArray[Any],
    hyper: Mapping[str, NDArray[np.float64]],
    requests: Sequence[tuple[str, int]],
    *,
    priors: Priors,
    rng: np.random.Generator,
    max_draws: int = 1000,
    size: int = 64,
) -> dict[tuple[str, int], dict[str, float]]:
    """The within-task share Var(E[θ | p] | y) / Var(θ | y) of each population-scope metric.

    θ is the population value of a metric (the expected value over tasks
    like these); p are these tasks' rates. Var(E[θ | p] | y) is the part of
    the posterior variance that unlimited runs on these tasks would remove;
    E[Var(θ | p) | y] remains (task sampling). Both are computed from the
    same draws of p (at most ``max_draws``, evenly spaced over the posterior
    draws), E[θ | p] and Var(θ | p) by quadrature on :func:`quad_grid`, so
    the shares lie in [0, 1] and add to one.

    Parameters
    ----------
    n, c : ndarray
        One system's decided runs and successes per task.
    hyper : mapping
        Posterior draws ``a``, ``b`` (and ``pi_pass``, ``pi_fail``: the
        inflated model).
    requests : list of (metric, k)
        metric in mean / pass_at_k / pass_hat_k.
    priors : Priors
        The fit's priors (the posterior given p uses them).
    rng : numpy.random.Generator
        For the draws of p.

    Returns
    -------
    dict (metric, k) → dict
        ``within_task_share``, ``task_sampling_share``, ``var_total``
        (= Var(θ | y)), ``var_within`` (= Var(E[θ | p] | y)), ``var_task``
        (= E[Var(θ | p) | y]).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.build import Priors
    >>> from passhat.model.split import variance_split
    >>> rng = np.random.default_rng(1)
    >>> h = {"a": rng.gamma(30, 0.1, 500), "b": rng.gamma(30, 0.1, 500)}
    >>> s = variance_split(np.full(20, 3), np.arange(20) % 4, h, [("pass_hat_k", 2)],
    ...                    priors=Priors(), rng=rng)[("pass_hat_k", 2)]
    >>> round(s["within_task_share"] + s["task_sampling_share"], 12)
    1.0
    """
    a = np.asarray(hyper["a"], dtype=float)
    total = len(a)
    sel = np.unique(np.linspace(0, total - 1, min(max_draws, total)).round().astype(int))
    h_sel = {key: np.asarray(v, dtype=float)[sel] for key, v in hyper.items()}
    kappa = h_sel["a"] + h_sel["b"]
    grid = quad_grid(h_sel["a"] / kappa, kappa, priors, size=size)
    comp = compress(n, c)
    sums = log_rate_sums(comp.n, comp.c, comp.mult, h_sel, rng=rng)
    h = beta_part(grid, requests)
    reqs = list(requests)
    mixed = "pi_pass" in hyper and "pi_fail" in hyper
    mean, var = _conditional_on_p(grid, sums, h, priors=priors, mixed=mixed)
    out: dict[tuple[str, int], dict[str, float]] = {}
    for r, req in enumerate(reqs):
        v_within = float(np.var(mean[:, r]))
        v_task = float(np.mean(var[:, r]))
        v_total = v_within + v_task
        share = v_within / v_total if v_total > 0 else 1.0
        out[req] = {
            "within_task_share": share,
            "task_sampling_share": 1.0 - share,
            "var_total": v_total,
            "var_within": v_within,
            "var_task": v_task,
        }
    return out


def ratio_split(bench: NDArray[np.float64], pop: NDArray[np.float64]) -> dict[str, float]:
    """The variance split of a model without hyperparameters to condition on (the discrete
    mixing distribution, the stacked fit): E[θ | p] is taken to be the benchmark value — these
    tasks' mean g(p_i), which the Bayesian bootstrap of the discrete model resamples exactly —
    so the share more runs can remove is Var(benchmark) / Var(population), at most one.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> b = rng.normal(0.5, 0.01, 4000)
    >>> round(ratio_split(b, b + rng.normal(0, 0.02, 4000))["within_task_share"], 1)
    0.2
    """
    vp = float(np.var(pop))
    share = 1.0 if vp <= 0 else min(1.0, float(np.var(bench)) / vp)
    return {"within_task_share": share}
