"""The model-based spread of a paired difference: B shifted in μ, rates linked by a Gaussian copula.

System A has the prior's (μ, κ); system B the same κ and the μ whose
population metric is A's + δ; a task's rates under the two systems are linked
by a Gaussian copula with latent correlation ρ. The per-task difference of the
unbiased estimators with n runs each then has the exact SD

    σ_d(n) = √(Var U_A + Var U_B − 2 Cov(g(p_A), g(p_B)))

(Beta-Binomial moments, :mod:`passhat.planner.moments`; the covariance by
Gauss–Hermite quadrature). ρ is not identified from one system's runs: it is
measured from paired pilot runs (:mod:`passhat.planner.pilot`), supplied by a
joint model of both systems, or assumed — :data:`FALLBACK_CORRELATION`,
stated as an assumption with a sensitivity table over :data:`RHO_GRID`.

Examples
--------
>>> from passhat import plan
>>> from passhat.planner.copula import CopulaSpread
>>> s = CopulaSpread(plan.Assumptions(mean=0.6, icc=0.3), k=1, metric="mean", correlation=None)
>>> s.rho, round(s.sd(0.1, 5), 4) > round(s.sd(0.1, 5, rho=0.8), 4)
(0.5, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, special, stats

from passhat._format import fixed
from passhat._validate import make_rng
from passhat.errors import OptionError
from passhat.estimators import METRIC_LABELS as _LABEL
from passhat.planner._checks import MetricName, check_simulation
from passhat.planner._checks import whole as _whole
from passhat.planner.assumptions import Assumptions, _resolve_prior
from passhat.planner.moments import _estimator, _g, estimator_moments, population_value

__all__ = [
    "FALLBACK_CORRELATION",
    "RHO_GRID",
    "CopulaModel",
    "CopulaSpread",
    "analytic_power",
    "copula_model",
    "latent_to_rate",
    "sd_difference",
    "simulate_counts",
    "simulate_power",
]

#: The between-system correlation assumed when neither pilot runs nor a value are given.
FALLBACK_CORRELATION = 0.5
#: The correlations of the sensitivity table every power answer carries.
RHO_GRID = (0.0, 0.2, 0.4, 0.5, 0.6, 0.8, 0.9)


def _gh_nodes(m: int = 64) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    x, w = special.roots_hermitenorm(m)
    return x, w / w.sum()


def latent_to_rate(z: NDArray[np.float64], a: float, b: float) -> NDArray[np.float64]:
    """The Beta(a, b) rate at standard-normal quantile z (the copula's margin).

    SciPy's ``betaincinv`` is unreliable far in the lower tail (u below
    ~1e-15): NaN for some shapes near a = b = 1 (e.g. a = 1.002, b = 0.998:
    B of a power question with δ = 0.001 from μ = 0.5, κ = 2), a quantile
    off by half its CDF for others (a = 1.5, b = 0.7); the quadrature's outer
    nodes lie there. Those quantiles (NaN, or where ``betainc`` does not give
    u back) are solved by Newton's method on ``betainc`` from the leading term
    of its series, x ≈ (u a B(a, b))^(1/a); SciPy's answer is kept where it
    inverts (large shapes, whose density underflows far from the mode).
    """
    u = np.clip(special.ndtr(z), 1e-300, 1 - 1e-16)
    x = np.array(special.betaincinv(a, b, u), dtype=float)
    log_beta = float(special.betaln(a, b))
    start = np.exp(np.minimum((np.log(u) + math.log(a) + log_beta) / a, 0.0)) * 0.5
    with np.errstate(invalid="ignore", divide="ignore"):
        off = ~(np.abs(special.betainc(a, b, x) / u - 1.0) <= 1e-9)  # NaN or off: not inverted
    tail = (np.isnan(x) | ((u < 1e-15) & off)) & (start > 1e-280)
    if tail.any():
        x[tail] = _lower_tail_quantile(u[tail], a, b, start[tail], log_beta)
    return x


def _lower_tail_quantile(
    u: NDArray[np.float64], a: float, b: float, x: NDArray[np.float64], log_beta: float
) -> NDArray[np.float64]:
    """Beta(a, b) quantiles of small probabilities u, by Newton steps on the CDF from x."""
    for _ in range(50):
        dens = np.exp((a - 1) * np.log(x) + (b - 1) * np.log1p(-x) - log_beta)
        with np.errstate(divide="ignore", invalid="ignore"):  # dens underflows: clip bisects
            step = np.nan_to_num((special.betainc(a, b, x) - u) / dens, nan=0.0)
        x = np.clip(x - step, x / 10, (1 + x) / 2)
        if np.all(np.abs(step) <= 1e-15 * x):
            break
    return x


def _task_cov(
    ab_a: tuple[float, float], ab_b: tuple[float, float], rho: float, k: int, metric: str
) -> float:
    """Cov(g(p_A), g(p_B)) under a Gaussian copula with latent correlation rho."""
    if rho == 0:
        return 0.0
    x, w = _gh_nodes()
    z1 = x[:, None]
    z2 = rho * x[:, None] + math.sqrt(max(1 - rho * rho, 0.0)) * x[None, :]
    g1 = _g(latent_to_rate(np.broadcast_to(z1, z2.shape), *ab_a), k, metric)
    g2 = _g(latent_to_rate(z2, *ab_b), k, metric)
    ww = w[:, None] * w[None, :]
    e1, e2 = (ww * g1).sum(), (ww * g2).sum()
    return float((ww * g1 * g2).sum() - e1 * e2)


def _shift_mean(assumed: Assumptions, delta: float, k: int, metric: str) -> float:
    """The mean μ_B of system B (same κ) whose population metric is A's + delta."""
    kap = float(assumed.kappa)  # type: ignore[arg-type]
    target = population_value(assumed.a, assumed.b, k, metric) + delta

    def f(mu: float) -> float:
        return population_value(mu * kap, (1 - mu) * kap, k, metric) - target

    lo, hi = 1e-9, 1 - 1e-9
    if f(lo) > 0 or f(hi) < 0:
        raise OptionError(
            f"{{param}} {delta:g} moves {_LABEL[metric]} outside (0, 1) from "
            f"{fixed(target - delta)}; choose a smaller delta",
            param="delta",
        )
    return float(optimize.brentq(f, lo, hi, xtol=1e-12))


@dataclass(frozen=True)
class CopulaModel:
    """Both systems' Beta shapes, the metric and the latent correlation of one power question."""

    ab_a: tuple[float, float]
    ab_b: tuple[float, float]
    k: int
    metric: str
    rho: float
    delta: float


def copula_model(
    assumed: Assumptions, delta: float, k: int, metric: str, rho: float
) -> CopulaModel:
    """The two systems of a power question: B has A's κ and the μ that moves the metric by δ."""
    mu_b = _shift_mean(assumed, delta, k, metric)
    kap = float(assumed.kappa)  # type: ignore[arg-type]
    return CopulaModel(
        (assumed.a, assumed.b), (mu_b * kap, (1 - mu_b) * kap), k, metric, rho, delta
    )


def sd_difference(model: CopulaModel, n: int) -> float:
    """Exact SD of the per-task paired difference U_B − U_A with n runs each."""
    va = estimator_moments([n], *model.ab_a, model.k)[model.metric][1][0]
    vb = estimator_moments([n], *model.ab_b, model.k)[model.metric][1][0]
    cov = _task_cov(model.ab_a, model.ab_b, model.rho, model.k, model.metric)
    return math.sqrt(max(va + vb - 2 * cov, 1e-300))


@dataclass(frozen=True)
class CopulaSpread:
    """σ_d(n) of the paired difference from (μ, κ) and a latent correlation (stated or assumed).

    ``correlation=None`` uses :data:`FALLBACK_CORRELATION` and says so.
    """

    assumed: Assumptions
    k: int
    metric: str
    correlation: float | None

    @property
    def rho(self) -> float:
        """The latent correlation used when none is asked for."""
        return FALLBACK_CORRELATION if self.correlation is None else float(self.correlation)

    @property
    def baseline(self) -> float:
        """System A's population value of the metric."""
        return population_value(self.assumed.a, self.assumed.b, self.k, self.metric)

    #: What the sensitivity table's correlation is.
    correlation_kind = "latent correlation of a task's rates (Gaussian copula)"

    def sd(self, delta: float, n: int, rho: float | None = None) -> float:
        """σ_d with n runs per task per system, for B = A + delta, at correlation rho."""
        r = self.rho if rho is None else float(rho)
        return sd_difference(copula_model(self.assumed, delta, self.k, self.metric, r), n)

    def assumptions(self) -> tuple[str, ...]:
        """The assumptions of the answer, the correlation's source first."""
        source = (
            f"between-system correlation ρ = {FALLBACK_CORRELATION:g} ASSUMED (no pilot data: "
            "give paired pilot runs to measure it; the sensitivity table shows how the answer "
            "moves with ρ)"
            if self.correlation is None
            else f"between-system correlation ρ = {self.rho:g} (given)"
        )
        return (
            self.assumed.describe() + "; system B has the same κ",
            f"matched tasks; {source}; {self.correlation_kind}",
        )


def simulate_counts(
    model: CopulaModel, *, tasks: int, runs: int, replicates: int, rng: np.random.Generator
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Successes of A and B, (replicates, tasks) each, with ``runs`` runs per task and system.

    Rates through the Gaussian copula (latent correlation ``model.rho``), then
    c ~ Binomial(runs, p) per system.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat import plan
    >>> from passhat.planner.copula import copula_model, simulate_counts
    >>> m = copula_model(plan.Assumptions(mean=0.6, icc=0.3), 0.1, 1, "mean", 0.5)
    >>> ca, cb = simulate_counts(m, tasks=4, runs=3, replicates=2, rng=np.random.default_rng(0))
    >>> ca.shape, bool((cb <= 3).all())
    ((2, 4), True)
    """
    rho = model.rho
    z1 = rng.standard_normal((replicates, tasks))
    z2 = rho * z1 + math.sqrt(1 - rho**2) * rng.standard_normal((replicates, tasks))
    pa = latent_to_rate(z1, *model.ab_a)
    pb = latent_to_rate(z2, *model.ab_b)
    return rng.binomial(runs, pa).astype(float), rng.binomial(runs, pb).astype(float)


def analytic_power(delta: float, sd: float, tasks: int, alpha: float) -> float:
    """Power of the two-sided paired t-test: noncentral t with T − 1 degrees of freedom."""
    df = tasks - 1
    crit = stats.t.ppf(1 - alpha / 2, df)
    nc = abs(delta) * math.sqrt(tasks) / sd
    pw = float(stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc))
    if not math.isfinite(pw):  # scipy's nct breaks down for very large noncentrality
        pw = float(stats.norm.cdf(nc - crit) + stats.norm.cdf(-nc - crit))
    return min(max(pw, 0.0), 1.0)


def simulate_power(
    *,
    tasks: int,
    runs_per_task: int,
    delta: float,
    prior: Any,
    k: int = 1,
    metric: MetricName = "mean",
    correlation: float | None = None,
    alpha: float = 0.05,
    replicates: int = 2000,
    seed: int | None = 0,
) -> dict[str, float]:
    """Simulated power of the paired test: share of benchmarks where it rejects.

    Each replicate draws ``tasks`` matched tasks (rates of A and B through a
    Gaussian copula with latent correlation ``correlation``, 0.5 when None),
    runs each ``runs_per_task`` times per system, and applies the paired
    two-sided t-test on per-task differences of the unbiased estimator (SE
    from their sample standard deviation, t critical value with T − 1 degrees
    of freedom).

    Returns
    -------
    dict with power, mc_error (binomial standard error), replicates.

    Examples
    --------
    >>> from passhat import plan
    >>> r = simulate_power(tasks=50, runs_per_task=5, delta=0.1,
    ...     prior=plan.Assumptions(mean=0.6, icc=0.3), replicates=200, seed=1)
    >>> 0 <= r["power"] <= 1
    True
    """
    assumed, _ = _resolve_prior(prior)
    rho = FALLBACK_CORRELATION if correlation is None else float(correlation)
    model = copula_model(assumed, delta, k, metric, rho)
    t = _whole("tasks", tasks, minimum=2)
    n = _whole("runs_per_task", runs_per_task, minimum=k)
    replicates = _whole("replicates", replicates, minimum=1)
    check_simulation(replicates, t, arrays=2)
    ca, cb = simulate_counts(model, tasks=t, runs=n, replicates=replicates, rng=make_rng(seed))
    d = _estimator(cb, n, k, metric) - _estimator(ca, n, k, metric)
    sd = d.std(axis=1, ddof=1)
    se = sd / math.sqrt(t)
    zstat = np.divide(d.mean(axis=1), se, out=np.zeros(replicates), where=se > 0)
    zcrit = stats.t.ppf(1 - alpha / 2, t - 1)
    # a replicate where every difference is identical and non-zero rejects
    reject = np.where(se > 0, np.abs(zstat) > zcrit, d.mean(axis=1) != 0)
    pw = float(reject.mean())
    return {
        "tasks": t,
        "runs_per_task": n,
        "power": pw,
        "mc_error": math.sqrt(max(pw * (1 - pw), 1e-12) / replicates),
        "replicates": replicates,
    }
