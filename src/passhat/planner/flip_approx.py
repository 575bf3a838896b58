"""The power of compare's sign-flip test, computed (no simulation): a normal approximation with
the test's own conditional variance, a lattice correction and Edgeworth terms.

``passhat compare`` tests the paired difference in the population scope by sign flips of the
per-task differences Dᵢ (:mod:`passhat.signflip`): given the data, Σ sᵢDᵢ has variance
Q = Σ Dᵢ² and fourth cumulant −2 Σ Dᵢ⁴, and takes values two lattice steps apart (the
estimator's step h = 1/C(n, k)). Its two-sided p-value is therefore close to
2·(1 − Φ((|S| − h)/√Q)) with S = Σ Dᵢ (continuity correction), at the critical value corrected
for the kurtosis (Cornish–Fisher): the test rejects when

    G₊ = S − c√Q − h > 0   or   G₋ = −S − c√Q − h > 0,   c = z + κ(z³ − 3z)/24,
    κ = −2 E[D⁴] / (T E[D²]²).

Over the T tasks drawn from the model, P(G₊ > 0) is computed from the first six moments of D:
the mean and variance of G₊ by the delta method (√Q linearised around √(T E[D²]), the mean with
its second-order term) and the skewness of the linearised sum Σ (Dᵢ − βDᵢ²), β = c/(2√(T E D²)),
by a one-term Edgeworth expansion. The paired t-test (:func:`passhat.planner.copula.analytic_power`)
ignores the lattice and the shape of D: its power is 1–3 points higher than the sign-flip test's
at the designs plans ask for (a few runs per task); this approximation is within about half a
point of compare's simulated power there (``reports/planned_power``).

The moments of D come from the copula model (:func:`difference_moments`, Gauss–Hermite
quadrature of the two systems' binomial runs) or, with only a measured SD (pilot runs), from a
normal D with that SD (:func:`normal_moments`: the lattice correction kept, skewness and
kurtosis those of a normal; :func:`passhat.plan.power` does the same with the model's exact SD
above :data:`EXACT_MAX_RUNS` runs per task, where the lattice is fine and the quadrature's
arrays would be large). Benchmarks in which fewer than
:data:`~passhat.compare.engine.MIN_DISCORDANT` tasks differ are tested by compare's fallback,
which this approximation does not model; :func:`fallback_share` says how often that happens.

Examples
--------
>>> from passhat import plan
>>> from passhat.planner.copula import copula_model
>>> m = copula_model(plan.Assumptions(mean=0.6, icc=0.3), 0.1, 1, "mean", 0.5)
>>> d = difference_moments(m, runs=5)
>>> round(flip_power(d, tasks=100, alpha=0.05), 3)   # simulated: 0.755 ± 0.003
0.755
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import special, stats

from passhat.errors import OptionError
from passhat.planner.copula import CopulaModel, latent_to_rate
from passhat.planner.moments import _estimator

__all__ = [
    "EXACT_MAX_RUNS",
    "DifferenceMoments",
    "difference_moments",
    "fallback_share",
    "flip_power",
    "normal_moments",
]

#: Gauss–Hermite nodes per latent dimension.
_NODES = 64
#: Most runs per task whose moments come from the quadrature (its arrays hold 64² × (n + 1)
#: values); above, a normal D with the model's exact SD.
EXACT_MAX_RUNS = 1000
#: Highest raw moment of D used (the Edgeworth term of the linearised sum needs E[D⁶]).
_ORDER = 6


@dataclass(frozen=True)
class DifferenceMoments:
    """The per-task difference D = U_B − U_A of one design, as the approximation needs it.

    Attributes
    ----------
    raw : tuple of float
        E[Dʲ] for j = 0 … 6 (estimator units).
    step : float
        The lattice step of the unbiased estimator, 1/C(n, k) (the continuity correction).
    p_zero : float
        P(D = 0) (NaN when unknown: a normal D from a measured SD).
    """

    raw: tuple[float, ...]
    step: float
    p_zero: float


def _step(runs: int, k: int, metric: str) -> float:
    return 1.0 / (runs if metric == "mean" else math.comb(runs, k))


def _binomial_pmf(runs: int, p: NDArray[np.float64]) -> NDArray[np.float64]:
    """P(c | p) for c = 0 … runs, on a new last axis (log-space, p at 0 or 1 exact)."""
    c = np.arange(runs + 1, dtype=float)
    log_choose = special.gammaln(runs + 1.0) - special.gammaln(c + 1.0)
    log_choose = log_choose - special.gammaln(runs - c + 1.0)
    q = p[..., None]
    return np.exp(log_choose + special.xlogy(c, q) + special.xlog1py(runs - c, -q))


def difference_moments(model: CopulaModel, *, runs: int) -> DifferenceMoments:
    """Moments of D with ``runs`` runs per task and system under the copula model.

    Given the latent pair (z₁, z₂) the two systems' successes are independent binomials;
    E[Dʲ | z] = Σᵢ C(j, i) E[U_Bⁱ | z₂] E[(−U_A)^{j−i} | z₁], averaged over a 64 × 64
    Gauss–Hermite grid of the Gaussian copula (latent correlation ``model.rho``).

    Raises
    ------
    OptionError
        Above :data:`EXACT_MAX_RUNS` runs per task.

    Examples
    --------
    >>> from passhat import plan
    >>> from passhat.planner.copula import copula_model, sd_difference
    >>> m = copula_model(plan.Assumptions(mean=0.6, icc=0.3), 0.1, 1, "mean", 0.5)
    >>> d = difference_moments(m, runs=5)
    >>> round(d.raw[1], 6), round((d.raw[2] - d.raw[1] ** 2) ** 0.5 - sd_difference(m, 5), 6)
    (0.1, 0.0)
    """
    if runs > EXACT_MAX_RUNS:
        raise OptionError(
            f"{{param}}: the exact moments take at most {EXACT_MAX_RUNS:,} runs per task "
            f"(got {runs:,})",
            param="runs",
        )
    x, w = special.roots_hermitenorm(_NODES)
    w = w / w.sum()
    rho = model.rho
    z2 = rho * x[:, None] + math.sqrt(max(1.0 - rho * rho, 0.0)) * x[None, :]
    pa = latent_to_rate(x, *model.ab_a)
    pb = latent_to_rate(z2, *model.ab_b)
    c = np.arange(runs + 1)
    u = _estimator(c.astype(float), runs, model.k, model.metric)
    fa = _binomial_pmf(runs, pa)  # nodes × (n + 1)
    fb = _binomial_pmf(runs, pb)  # nodes × nodes × (n + 1)
    powers = u[None, :] ** np.arange(_ORDER + 1)[:, None]
    ma = fa @ powers.T  # E[U_A^i | z1]
    mb = fb @ powers.T  # E[U_B^i | z1, z2]
    ww = w[:, None] * w[None, :]
    raw = []
    for j in range(_ORDER + 1):
        terms = sum(
            math.comb(j, i) * (-1.0) ** (j - i) * mb[:, :, i] * ma[:, None, j - i]
            for i in range(j + 1)
        )
        raw.append(float((ww * terms).sum()))
    # tasks with equal estimates differ by 0; u never decreases in c, so equal values are runs
    starts = np.flatnonzero(np.r_[True, np.diff(np.round(u, 12)) != 0])
    ga, gb = np.add.reduceat(fa, starts, axis=-1), np.add.reduceat(fb, starts, axis=-1)
    p_zero = float((ww * np.einsum("iv,ijv->ij", ga, gb)).sum())
    return DifferenceMoments(tuple(raw), _step(runs, model.k, model.metric), p_zero)


def normal_moments(delta: float, sd: float, *, runs: int, k: int, metric: str) -> DifferenceMoments:
    """Moments of a normal D with mean ``delta`` and SD ``sd`` (a measured spread), with the
    estimator's lattice step for the continuity correction.

    Examples
    --------
    >>> d = normal_moments(0.1, 0.3, runs=5, k=1, metric="mean")
    >>> round(d.raw[2], 4), d.step
    (0.1, 0.2)
    """
    mu, s2 = float(delta), float(sd) ** 2
    raw = [1.0, mu]
    for j in range(2, _ORDER + 1):  # E[D^j] = μE[D^{j−1}] + (j − 1)σ²E[D^{j−2}]
        raw.append(mu * raw[j - 1] + (j - 1) * s2 * raw[j - 2])
    return DifferenceMoments(tuple(raw), _step(runs, k, metric), math.nan)


def _tail(m: tuple[float, ...], tasks: int, crit: float, step: float) -> float:
    """P(S − c√Q − h > 0) over ``tasks`` tasks whose D has raw moments ``m`` (see module)."""
    t = float(tasks)
    m1, m2, m3, m4 = m[1], m[2], m[3], m[4]
    q0 = t * m2
    var_q, cov_sq, var_s = t * (m4 - m2 * m2), t * (m3 - m1 * m2), t * (m2 - m1 * m1)
    mean_g = t * m1 - crit * (math.sqrt(q0) - var_q / (8.0 * q0**1.5)) - step
    beta = crit / (2.0 * math.sqrt(q0))
    var_g = var_s - 2.0 * beta * cov_sq + beta * beta * var_q
    if not var_g > 1e-300:
        return 1.0 if mean_g > 0 else 0.0
    x = -mean_g / math.sqrt(var_g)

    def y(r: int) -> float:  # E[(D − βD²)^r]
        return sum(math.comb(r, i) * (-beta) ** i * m[r + i] for i in range(r + 1))

    y1, y2, y3 = y(1), y(2), y(3)
    k2, k3 = y2 - y1 * y1, y3 - 3.0 * y1 * y2 + 2.0 * y1**3
    skew = k3 / (math.sqrt(t) * k2**1.5) if k2 > 0 else 0.0
    p = float(stats.norm.sf(x) + stats.norm.pdf(x) * skew * (x * x - 1.0) / 6.0)
    return min(max(p, 0.0), 1.0)


def flip_power(d: DifferenceMoments, *, tasks: int, alpha: float) -> float:
    """The power of compare's two-sided sign-flip test at level ``alpha`` on ``tasks`` tasks.

    Parameters
    ----------
    d : DifferenceMoments
        The per-task difference at the design's runs per task.
    tasks : int
        Matched tasks T.
    alpha : float
        Level of the test.

    Returns
    -------
    float
        P(reject), both tails (see the module's docstring); 0 when D is 0 almost surely.

    Examples
    --------
    >>> d = normal_moments(0.0, 0.3, runs=5, k=1, metric="mean")
    >>> 0.04 < flip_power(d, tasks=200, alpha=0.05) < 0.05   # the lattice makes it conservative
    True
    """
    m = d.raw
    if not m[2] > 1e-300:
        return 0.0
    z = float(stats.norm.isf(alpha / 2.0))
    kurt = -2.0 * m[4] / (tasks * m[2] * m[2])
    crit = z + kurt * (z**3 - 3.0 * z) / 24.0
    flipped = tuple(v * (-1.0) ** j for j, v in enumerate(m))
    return min(_tail(m, tasks, crit, d.step) + _tail(flipped, tasks, crit, d.step), 1.0)


def fallback_share(d: DifferenceMoments, *, tasks: int) -> float:
    """P(fewer than MIN_DISCORDANT of ``tasks`` tasks differ): the share of benchmarks compare
    tests by its fallback instead of sign flips (NaN when P(D = 0) is unknown).

    Examples
    --------
    >>> from passhat import plan
    >>> from passhat.planner.copula import copula_model
    >>> m = copula_model(plan.Assumptions(mean=0.6, icc=0.3), 0.3, 1, "mean", 0.5)
    >>> round(fallback_share(difference_moments(m, runs=3), tasks=20), 2)  # simulated: 0.064
    0.07
    """
    from passhat.compare.engine import MIN_DISCORDANT

    if not math.isfinite(d.p_zero):
        return math.nan
    return float(stats.binom.cdf(MIN_DISCORDANT - 1, int(tasks), 1.0 - d.p_zero))
