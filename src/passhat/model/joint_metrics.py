"""Metrics of the joint model per posterior draw: population, benchmark, correlation, ranks.

Per draw (θ_s, σ_β, κ) of :mod:`passhat.model.joint_build`:

* **population** (a new task from the same distribution, run by system s):
  E_β[g] with β ~ Normal(0, σ_β), where given β the rate is
  p ~ Beta(κμ, κ(1 − μ)), μ = logistic(θ_s + β), so E[p^k | β] =
  Π_{j<k} (κμ + j)/(κ + j) (and pass@k the same with the failures). The
  integral over β is a Gauss–Hermite rule (smooth integrand: 96 nodes are
  exact to ~1e-10 for σ_β up to 6);
* **benchmark** (these tasks): task i's rate under system s given the draw is
  Beta(κμ_si + c_si, κ(1 − μ_si) + n_si − c_si) (Beta(κμ_si, κ(1 − μ_si))
  for a task s did not run: predicted from the task's effect, estimated from
  the systems that ran it), drawn once per posterior draw; the value is the
  mean over the fitted tasks;
* **between-system correlation** of per-task values g(p) (g(p) = p for the
  mean, p^k for pass^k, 1 − (1 − p)^k for pass@k) across tasks:
  Cov(g_s, g_s') = Cov_β(E[g_s | β], E[g_s' | β]) (the deviations are
  independent given β), Var g_s = E_β[E[g_s² | β]] − (E_β E[g_s | β])²;
* **ranks**: per draw, rank 1 is the highest value; ties share the better rank.

κ = ∞ (the Rasch form, :mod:`passhat.model.joint_rasch`) means no deviation:
E[p^k | β] = μ^k and the benchmark scope's p_si = μ_si exactly.

Examples
--------
>>> import numpy as np
>>> from passhat.model.joint_metrics import population_draws
>>> out = population_draws(np.zeros((3, 2)), np.full(3, 1e-6), np.full(3, 1e6), "mean", 1)
>>> out.round(6).tolist()[0]    # σ_β → 0, κ → ∞: the rate is logistic(θ) = 0.5
[0.5, 0.5]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import special

from passhat._validate import check_k
from passhat.errors import OptionError
from passhat.estimators import subset_overlap_weights
from passhat.model.metrics import rising_ratio

__all__ = [
    "JOINT_METRICS",
    "benchmark_draws_joint",
    "correlation_draws",
    "dispersion_draws",
    "gh_rule",
    "moment_draws",
    "population_draws",
    "population_table",
    "rank_probabilities",
    "ranks",
    "spread_moments",
]

#: The metrics a joint fit gives per system.
JOINT_METRICS = ("mean", "pass_at_k", "pass_hat_k")
_NODES = 96
_CHUNK = 2_000_000
#: Moments E[p^m | β] of a whole order up to this are products, not lnΓ differences.
_PRODUCT_MAX = 64
#: The dispersion check of the crossed model uses at most this many evenly spaced draws (as
#: the Rasch form's conditional check): its p-value's Monte-Carlo s.e. is at most 0.025.
CHECK_DRAWS = 400


def gh_rule(nodes: int = _NODES) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Nodes and weights of the Gauss–Hermite rule for E over a standard normal.

    Examples
    --------
    >>> from passhat.model.joint_metrics import gh_rule
    >>> z, w = gh_rule(20)
    >>> round(float(w.sum()), 12), round(float((w * z**2).sum()), 12)
    (1.0, 1.0)
    """
    z, w = np.polynomial.hermite_e.hermegauss(nodes)
    return z, w / w.sum()


def check_metric(metric: str, k: int) -> tuple[str, int]:
    """Validate a metric name and k (k = 1 for the mean)."""
    if metric not in JOINT_METRICS:
        raise OptionError(f"metric must be one of {', '.join(JOINT_METRICS)} (got {metric!r})")
    return metric, 1 if metric == "mean" else check_k(k)


def moment_draws(
    theta: NDArray[np.float64],
    task_sd: NDArray[np.float64],
    kappa: NDArray[np.float64],
    m: float,
    *,
    failures: bool = False,
) -> NDArray[np.float64]:
    """E[p^m | β] (or E[(1 − p)^m | β]) at each Gauss–Hermite node: (draws, systems, nodes).

    ``theta`` is (draws, systems); ``task_sd``, ``kappa`` (draws,).
    """
    z, _ = gh_rule()
    x = theta[:, :, None] + task_sd[:, None, None] * z[None, None, :]
    kap = kappa[:, None, None]
    mu = special.expit(-x if failures else x)
    rasch = np.isinf(kap)  # κ = ∞ (the Rasch form): no deviation, p = μ
    finite = np.where(rasch, 1.0, kap)
    ratio = _rising_product if float(m).is_integer() and 0 <= m <= _PRODUCT_MAX else rising_ratio
    moments = ratio(finite * mu, finite, m)
    return moments if not rasch.any() else np.asarray(np.where(rasch, mu**m, moments))


def _rising_product(
    x: NDArray[np.float64], y: NDArray[np.float64], m: float
) -> NDArray[np.float64]:
    """Π_{j<m} (x + j)/(y + j) for a whole m ≥ 0 by products (what
    :func:`~passhat.model.metrics.rising_ratio` gives through lnΓ, several times faster).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.metrics import rising_ratio
    >>> x, y = np.array([0.3, 2.5]), np.array([1.0, 7.0])
    >>> bool(np.allclose(_rising_product(x, y, 3), rising_ratio(x, y, 3), rtol=1e-12))
    True
    """
    out = np.ones(np.broadcast_shapes(np.shape(x), np.shape(y)))
    for j in range(int(m)):
        out *= (x + j) / (y + j)
    return out


def population_draws(
    theta: NDArray[np.float64],
    task_sd: NDArray[np.float64],
    kappa: NDArray[np.float64],
    metric: str,
    k: int,
) -> NDArray[np.float64]:
    """Population-scope metric per draw and system: (draws, systems).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_metrics import population_draws
    >>> # κ → 0: every task always passes or always fails, so pass^k = mean for every k
    >>> th, sd, ka = np.array([[0.4]]), np.array([1.0]), np.array([1e-9])
    >>> bool(np.isclose(population_draws(th, sd, ka, "pass_hat_k", 5),
    ...                 population_draws(th, sd, ka, "mean", 1)))
    True
    """
    metric, k = check_metric(metric, k)
    _, w = gh_rule()
    if metric == "pass_at_k":
        return np.asarray(1.0 - moment_draws(theta, task_sd, kappa, k, failures=True) @ w)
    return np.asarray(moment_draws(theta, task_sd, kappa, k) @ w)


def population_table(
    theta: NDArray[np.float64],
    task_sd: NDArray[np.float64],
    kappa: NDArray[np.float64],
    requests: list[tuple[str, int]],
) -> dict[tuple[str, int], NDArray[np.float64]]:
    """:func:`population_draws` of several (metric, k) at once: (draws, systems) each.

    E[p^m | β] for m = 1..max k is one running product per Gauss–Hermite node (and the same
    for 1 − p when pass@k is asked), so the nodes are visited twice at most, whatever the
    number of requests (a numba kernel: :mod:`passhat.model.joint_moments`).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_metrics import population_draws, population_table
    >>> th, sd, ka = np.array([[0.3, -1.0]]), np.array([1.2]), np.array([6.0])
    >>> t = population_table(th, sd, ka, [("mean", 1), ("pass_at_k", 3), ("pass_hat_k", 3)])
    >>> bool(np.allclose(t[("pass_at_k", 3)], population_draws(th, sd, ka, "pass_at_k", 3)))
    True
    """
    from passhat.model.joint_moments import weighted_moments

    reqs = [check_metric(m, k) for m, k in requests]
    z, w = gh_rule()
    out: dict[tuple[str, int], NDArray[np.float64]] = {}
    for failures in (False, True):
        wanted = {k for m, k in reqs if (m == "pass_at_k") == failures}
        if not wanted:
            continue
        mom = weighted_moments(theta, task_sd, kappa, z, w, max(wanted), failures)
        for m, k in reqs:
            if (m == "pass_at_k") == failures:
                out[(m, k)] = np.asarray(1.0 - mom[:, :, k] if failures else mom[:, :, k])
    return out


def benchmark_draws_joint(
    theta: NDArray[np.float64],
    beta: NDArray[np.float64],
    kappa: NDArray[np.float64],
    n: NDArray[np.int64],
    c: NDArray[np.int64],
    observed: NDArray[np.bool_],
    requests: list[tuple[str, int]],
    *,
    rng: np.random.Generator,
) -> dict[tuple[str, int], NDArray[np.float64]]:
    """Benchmark-scope values per draw and system for each (metric, k): (draws, systems).

    ``beta`` is (draws, tasks); ``n``, ``c``, ``observed`` are (systems, tasks)
    over the fitted tasks. Every request uses the same p draws (one p_si per
    draw, system and task), so differences between metrics are coherent.
    """
    from passhat.model.joint_moments import power_means

    draws, systems = theta.shape
    tasks = beta.shape[1]
    out = {r: np.empty((draws, systems)) for r in requests}
    step = max(1, _CHUNK // max(tasks, 1))
    top = max(kk for _, kk in requests)
    for s in range(systems):
        nn = np.where(observed[s], n[s], 0).astype(float)
        cc = np.where(observed[s], c[s], 0).astype(float)
        for lo in range(0, draws, step):
            hi = min(draws, lo + step)
            kap = kappa[lo:hi, None]
            mu = special.expit(theta[lo:hi, s, None] + beta[lo:hi])
            # κ = ∞ (the Rasch form): p_si = μ_si exactly given β_i
            rasch = bool(np.isinf(kap).all())
            p = mu if rasch else rng.beta(kap * mu + cc, kap * (1.0 - mu) + (nn - cc))
            means = power_means(p, top)  # (hi − lo, top + 1, 2)
            for metric, kk in requests:
                if metric == "pass_at_k":
                    out[(metric, kk)][lo:hi, s] = 1.0 - means[:, kk, 1]
                else:
                    out[(metric, kk)][lo:hi, s] = means[:, 1 if metric == "mean" else kk, 0]
    return out


def dispersion_draws(
    theta: NDArray[np.float64],
    beta: NDArray[np.float64],
    kappa: NDArray[np.float64],
    n: NDArray[np.int64],
    c: NDArray[np.int64],
    observed: NDArray[np.bool_],
    *,
    rng: np.random.Generator,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Pearson X² of each system's cells per draw, observed and replicated: 2 × (draws, systems).

    Per draw, μ_si = logistic(θ_s + β_i) (β_i its conditional draw); X² = Σ_i
    (c_si − n_si μ_si)² / (n_si μ_si (1 − μ_si)) over the cells s ran, for the
    observed counts and for counts replicated from the model given the draw
    (Binomial(n, μ) when κ = ∞, else Binomial(n, p), p ~ Beta(κμ, κ(1 − μ))).
    A system × task deviation the model lacks makes the observed X² exceed
    the replicated one (a posterior predictive check [1]_; with one run per
    cell X² cannot see a deviation).

    References
    ----------
    .. [1] Gelman, A., Meng, X.-L. and Stern, H. (1996). Posterior predictive
       assessment of model fitness via realized discrepancies. *Statistica
       Sinica* 6, 733–807.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_metrics import dispersion_draws
    >>> n, c = np.full((1, 3), 4), np.array([[0, 4, 2]])
    >>> obs, rep = dispersion_draws(np.zeros((1, 1)), np.zeros((1, 3)), np.array([np.inf]), n,
    ...                             c, n > 0, rng=np.random.default_rng(0))
    >>> float(obs[0, 0])     # (0 − 2)² / 1 + (4 − 2)² / 1 + 0
    8.0
    """
    draws, systems = theta.shape
    tasks = beta.shape[1]
    obs, rep = np.empty((draws, systems)), np.empty((draws, systems))
    step = max(1, _CHUNK // max(tasks, 1))
    for s in range(systems):
        nn = np.where(observed[s], n[s], 0).astype(np.int64)
        cc = np.where(observed[s], c[s], 0).astype(float)
        for lo in range(0, draws, step):
            hi = min(draws, lo + step)
            kap = kappa[lo:hi, None]
            mu = np.clip(special.expit(theta[lo:hi, s, None] + beta[lo:hi]), 1e-9, 1 - 1e-9)
            p = mu if np.isinf(kap).all() else rng.beta(kap * mu, kap * (1.0 - mu))
            c_rep = rng.binomial(np.broadcast_to(nn, mu.shape), p)
            var = np.where(nn > 0, nn * mu * (1.0 - mu), 1.0)
            obs[lo:hi, s] = (((cc - nn * mu) ** 2) / var).sum(axis=1)
            rep[lo:hi, s] = (((c_rep - nn * mu) ** 2) / var).sum(axis=1)
    return obs, rep


def correlation_draws(
    theta: NDArray[np.float64],
    task_sd: NDArray[np.float64],
    kappa: NDArray[np.float64],
    metric: str = "mean",
    k: int = 1,
) -> NDArray[np.float64]:
    """Between-system correlation of per-task values g(p) per draw: (draws, systems, systems).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_metrics import correlation_draws
    >>> # κ → ∞ (no deviation) and equal levels: the two systems' rates are identical
    >>> r = correlation_draws(np.zeros((1, 2)), np.array([1.5]), np.array([1e9]))
    >>> round(float(r[0, 0, 1]), 6)
    1.0
    """
    from passhat.model.joint_moments import weighted_moments

    metric, k = check_metric(metric, k)
    z, w = gh_rule()
    fail = metric == "pass_at_k"
    m1 = moment_draws(theta, task_sd, kappa, k, failures=fail)  # at the nodes
    e = weighted_moments(theta, task_sd, kappa, z, w, 2 * k, fail)
    e1 = e[:, :, k]  # (draws, systems)
    var = e[:, :, 2 * k] - e1**2
    cross = np.einsum("dsq,dtq,q->dst", m1, m1, w)
    cov = cross - e1[:, :, None] * e1[:, None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = cov / np.sqrt(np.clip(var[:, :, None] * var[:, None, :], 1e-300, None))
    return np.clip(rho, -1.0, 1.0)


def spread_moments(
    theta: NDArray[np.float64],
    task_sd: NDArray[np.float64],
    kappa: NDArray[np.float64],
    pair: tuple[int, int],
    metric: str,
    k: int,
) -> dict[str, Any]:
    """Posterior-mean task spread of g for two systems and their moments E[h^m], m = k..2k.

    The model's counterpart of the pilot moments of
    :mod:`passhat.planner.pilot`: ``var_a``, ``var_b`` (Var g across tasks),
    ``cov`` and ``moments_a``/``moments_b`` (E h^m for m = k..2k, for the
    within-task variance of the unbiased estimator at any n).
    """
    metric, k = check_metric(metric, k)
    _, w = gh_rule()
    th = theta[:, list(pair)]
    fail = metric == "pass_at_k"
    ms = [moment_draws(th, task_sd, kappa, m, failures=fail) for m in range(k, 2 * k + 1)]
    e1 = ms[0] @ w
    var = ms[-1] @ w - e1**2 if k > 0 else None
    m2k = moment_draws(th, task_sd, kappa, 2 * k, failures=fail) @ w
    var = m2k - e1**2
    cov = np.einsum("dq,dq,q->d", ms[0][:, 0], ms[0][:, 1], w) - e1[:, 0] * e1[:, 1]
    mom = np.stack([m @ w for m in ms], axis=-1)  # (draws, 2, k + 1)
    value = 1.0 - e1 if fail else e1
    return {
        "var_a": float(var[:, 0].mean()),
        "var_b": float(var[:, 1].mean()),
        "cov": float(cov.mean()),
        "mean_a": float(value[:, 0].mean()),
        "mean_b": float(value[:, 1].mean()),
        "moments_a": mom[:, 0].mean(axis=0),
        "moments_b": mom[:, 1].mean(axis=0),
    }


def within_variance(moments: NDArray[np.float64], n: int, k: int) -> float:
    """E Var(U | p) of the unbiased estimator with n runs: Σ_j h_j(n) (E h^{2k−j} − E h^{2k}).

    ``moments`` holds E h^m for m = k..2k (the pilot's Û table, in expectation).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_metrics import within_variance
    >>> # k = 1: E p(1 − p)/n
    >>> round(within_variance(np.array([0.5, 0.3]), 4, 1), 6)
    0.05
    """
    h = subset_overlap_weights(np.array(float(n)), k)  # j = 1..k
    terms = moments[k - 1 :: -1][:k] - moments[-1]  # E h^{2k−j} − E h^{2k}, j = 1..k
    return float(terms @ h)


def ranks(values: NDArray[np.float64]) -> NDArray[np.int64]:
    """Rank per draw, 1 = highest, ties share the better rank: (draws, systems).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_metrics import ranks
    >>> ranks(np.array([[0.2, 0.5, 0.5]])).tolist()
    [[3, 1, 1]]
    """
    from scipy import stats

    return np.asarray(stats.rankdata(-np.asarray(values), method="min", axis=1), dtype=np.int64)


def rank_probabilities(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """P(rank = r) per system: (systems, ranks), from draws (draws, systems).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_metrics import rank_probabilities
    >>> rank_probabilities(np.array([[0.1, 0.9], [0.8, 0.2]])).tolist()
    [[0.5, 0.5], [0.5, 0.5]]
    """
    r = ranks(values)
    systems = r.shape[1]
    out = np.zeros((systems, systems))
    for s in range(systems):
        out[s] = np.bincount(r[:, s] - 1, minlength=systems)[:systems] / len(r)
    return out
