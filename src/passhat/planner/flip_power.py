"""The power of the test ``passhat compare`` runs, by simulating benchmarks from the copula model.

``compare`` tests a paired difference B − A in the population scope with the sign-flip
permutation test (:mod:`passhat.signflip`) where at least
:data:`~passhat.compare.engine.MIN_DISCORDANT` tasks differ — every sign pattern enumerated when
the tasks' categories allow it, else ``n_flips`` random sign flips, p = (1 + #)/(1 + n_flips) —
and with its fallback (:func:`passhat.compare.engine.paired_table`) where fewer differ. The
paired t-test (``plan.power(method="t-test")``) is another test: per-task differences of unbiased
estimators take few values (multiples of 1/C(n, k)), the permutation distribution of their sum
is coarse, and the sign-flip test rejects less often (30 tasks × 3 runs, μ = 0.6, ICC 0.3,
δ = 0.1: 0.235 for the t-test, 0.198 for the sign-flip test, 1,000 simulated benchmarks each).

Each simulated benchmark contributes compare's probability of rejecting **given its data**,
not a 0/1 draw. The exact sign-flip p-value p is computed from the per-task differences, which
are integers on the scale C(n, k) (the distribution of Σ sᵢDᵢ from its characteristic function
Πᵢ cos(Dᵢθ) by a discrete Fourier transform); then

* compare enumerates the sign patterns (Π (fⱼ + 1) ≤ :data:`passhat.signflip.EXACT_MAX` over
  the categories of equal counts): 1[p ≤ α];
* compare draws F random flips: P((1 + X)/(1 + F) ≤ α) for X ~ Binomial(F, p), the chance that
  its flips reject;
* fewer than MIN_DISCORDANT tasks differ: compare's engine itself on that benchmark, 1[p ≤ α].

Where the lattice of sums is too long to transform (C(n, k)·T above :data:`MAX_LATTICE`), the
random flips are drawn as compare draws them and the decision is 0 or 1. The power is the mean
over benchmarks; its Monte-Carlo error their standard deviation / √R.

The benchmarks are drawn by blocks of :data:`BLOCK` tasks from streams ``(seed, block)``, and
runs by inverting the binomial CDF at uniforms drawn once: the first T tasks of a longer draw
are a draw of T tasks, and δ, n or T can change with everything else held (common random
numbers), so the simulated power is a smooth function of the design for a search to solve.

Examples
--------
>>> import numpy as np
>>> from passhat.planner.flip_power import flip_pvalues
>>> flip_pvalues(np.array([[1, 1, 1, 1, 1, 1], [2, -1, 0, 1, 1, 1]]))  # 2/64, 20/64 (enumerated)
array([0.03125, 0.3125 ])
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import special

from passhat._validate import DEFAULT_N_BOOT, resolve_seed
from passhat.planner._checks import check_simulation, whole
from passhat.planner.assumptions import _resolve_prior
from passhat.planner.copula import FALLBACK_CORRELATION, CopulaModel, copula_model, latent_to_rate

__all__ = [
    "BLOCK",
    "FALLBACK_MAX",
    "MAX_LATTICE",
    "Draws",
    "FlipPower",
    "FlipSettings",
    "binomial_quantile",
    "compare_power",
    "flip_pvalues",
    "simulate_compare_power",
]

#: Tasks per block of the simulated benchmarks (each block its own random stream).
BLOCK = 32
#: Longest lattice of sums (2·Σ|Dᵢ| + 1 points) whose distribution is transformed exactly.
MAX_LATTICE = 1 << 21
#: Most benchmarks with fewer than MIN_DISCORDANT differing tasks run through compare's engine
#: (slow: it fits both systems' posteriors); more are represented by a random subset of this size.
FALLBACK_MAX = 300
#: Values held at once by the transform (replicates × lattice points).
_CHUNK_CELLS = 1 << 22


def binomial_quantile(u: NDArray[np.float64], n: int, p: NDArray[np.float64]) -> NDArray[np.int64]:
    """The smallest c with P(Binomial(n, p) ≤ c) ≥ u, elementwise (bisection on the CDF).

    Examples
    --------
    >>> import numpy as np
    >>> binomial_quantile(np.array([0.1, 0.5, 0.99]), 10, np.array([0.5, 0.5, 0.5])).tolist()
    [3, 5, 9]
    """
    lo = np.zeros(np.shape(u), dtype=np.int64)
    hi = np.full(np.shape(u), int(n), dtype=np.int64)
    while np.any(lo < hi):
        mid = (lo + hi) // 2
        ok = special.bdtr(mid, n, p) >= u
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid + 1)
    return lo


@dataclass
class Draws:
    """The random numbers of ``replicates`` simulated benchmarks, drawn by blocks of tasks.

    Per task: two independent standard normals (the copula's latent pair before correlating)
    and one uniform per system (its runs, by the binomial quantile).
    """

    seed: int
    replicates: int
    _blocks: list[NDArray[np.float64]] = field(default_factory=list, repr=False)

    def columns(self, tasks: int) -> NDArray[np.float64]:
        """The draws of the first ``tasks`` tasks: shape (4, replicates, tasks)."""
        while len(self._blocks) * BLOCK < tasks:
            b = len(self._blocks)
            rng = np.random.default_rng(np.random.SeedSequence(self.seed, spawn_key=(b,)))
            z = rng.standard_normal((2, self.replicates, BLOCK))
            u = rng.random((2, self.replicates, BLOCK))
            self._blocks.append(np.concatenate([z, u]))
        return np.concatenate(self._blocks, axis=2)[:, :, :tasks]


def simulated_counts(
    model: CopulaModel, draws: Draws, *, tasks: int, runs: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Successes of A and B (replicates × tasks) with ``runs`` runs per task and system."""
    z1, z2, ua, ub = draws.columns(tasks)
    rho = model.rho
    pa = latent_to_rate(z1, *model.ab_a)
    pb = latent_to_rate(rho * z1 + math.sqrt(max(1 - rho * rho, 0.0)) * z2, *model.ab_b)
    return binomial_quantile(ua, runs, pa), binomial_quantile(ub, runs, pb)


def _odd_length(points: int) -> int:
    """The smallest odd length ≥ ``points`` whose prime factors are 3, 5 and 7 (a fast DFT; odd,
    so that no frequency is a zero of cos(vθ) and every logarithm below is finite)."""
    best = None
    p3 = 1
    while p3 < 3 * points:
        p5 = p3
        while p5 < 3 * points:
            p7 = p5
            while p7 < 3 * points:
                if p7 >= points and (best is None or p7 < best):
                    best = p7
                p7 *= 7
            p5 *= 5
        p3 *= 3
    return int(best if best is not None else points | 1)


def flip_pvalues(d: NDArray[np.int64]) -> NDArray[np.float64]:
    """Exact two-sided sign-flip p-values P(|Σ sᵢDᵢ| ≥ |Σ Dᵢ|) of integer differences, per row.

    The distribution of Σ sᵢDᵢ over the 2^T equally likely sign vectors has the characteristic
    function Πᵥ cos(vθ)^{fᵥ} (fᵥ tasks with |Dᵢ| = v), read back on the lattice −M … M
    (M = Σ|Dᵢ|) by a discrete Fourier transform of odd length L > 2M; rows go in chunks.

    Parameters
    ----------
    d : ndarray of int, shape (R, T)
        Per-task differences of each row, as integers (the unbiased estimators' numerators).

    Returns
    -------
    ndarray, shape (R,)
        The p-values (1 where Σ Dᵢ = 0); exact to about 1e-12.
    """
    d = np.atleast_2d(np.asarray(d, dtype=np.int64))
    a = np.abs(d)
    out = np.ones(d.shape[0])
    obs = np.abs(d.sum(axis=1))
    length = _odd_length(2 * int(a.sum(axis=1).max(initial=0)) + 1)
    values = np.unique(a[a > 0])
    if values.size == 0:
        return out
    theta = 2.0 * np.pi * np.arange(length) / length
    cos = np.cos(np.outer(values, theta))  # V × L
    log_cos, negative = np.log(np.abs(cos)), (cos < 0).astype(float)
    where = {int(v): i for i, v in enumerate(values)}
    index = np.vectorize(where.get, otypes=[np.int64])
    step = max(1, _CHUNK_CELLS // length)
    for start in range(0, d.shape[0], step):
        rows = slice(start, start + step)
        part = a[rows]
        freq = np.zeros((part.shape[0], values.size))
        r, t = np.nonzero(part)
        np.add.at(freq, (r, index(part[r, t])), 1.0)
        sign = 1.0 - 2.0 * np.mod(freq @ negative, 2.0)
        phi = sign * np.exp(freq @ log_cos)  # R × L
        pmf = np.fft.fft(phi, axis=1).real / length  # pmf[s] of the sum s (mod L), symmetric
        below = np.cumsum(pmf[:, : length // 2 + 1], axis=1) * 2.0 - pmf[:, :1]  # P(|S| ≤ m)
        m = obs[rows]
        inside = np.take_along_axis(below, np.maximum(m - 1, 0)[:, None], axis=1)[:, 0]
        out[rows] = np.where(m > 0, 1.0 - inside, 1.0)
    return np.clip(out, 0.0, 1.0)


@dataclass(frozen=True)
class FlipPower:
    """The simulated power of compare's test at one design.

    Attributes
    ----------
    power : float
        Mean probability that compare's population-scope test rejects.
    mc_error : float
        Its Monte-Carlo standard error (SD of the per-benchmark probabilities / √R).
    shares : dict
        Share of the benchmarks tested by each of compare's branches: ``exact`` (sign
        patterns enumerated), ``random`` (random flips) and ``fallback`` (fewer than
        MIN_DISCORDANT tasks differ).
    """

    power: float
    mc_error: float
    shares: dict[str, float]


def _numerators(counts: NDArray[np.int64], runs: int, k: int, metric: str) -> Any:
    """The unbiased estimator's numerators on the scale C(runs, k) (integers), or None when
    that scale is too fine for exact integers."""
    if math.comb(runs, k) * counts.shape[-1] >= 2**53:
        return None
    if metric == "mean":
        table = np.arange(runs + 1, dtype=np.int64)
    elif metric == "pass_hat_k":
        table = np.array([math.comb(c, k) for c in range(runs + 1)], dtype=np.int64)
    else:  # pass@k: 1 − C(n − c, k)/C(n, k); the constant cancels in a difference
        table = -np.array([math.comb(runs - c, k) for c in range(runs + 1)], dtype=np.int64)
    return table[counts]


def _categories_enumerable(ca: NDArray[np.int64], cb: NDArray[np.int64], runs: int) -> Any:
    """Per benchmark: whether compare enumerates its sign patterns (categories of equal
    (c_A, c_B), equal n and weight; Π (fⱼ + 1) ≤ EXACT_MAX)."""
    from passhat.signflip import EXACT_MAX, enumerable

    key = np.sort(ca * (runs + 1) + cb, axis=1)
    distinct = 1 + np.count_nonzero(np.diff(key, axis=1), axis=1)
    out = np.zeros(ca.shape[0], dtype=bool)
    # f_j ≥ 1 each: 2^(categories) ≤ Π (f_j + 1), so only a few categories can be enumerated
    for r in np.flatnonzero(distinct < EXACT_MAX.bit_length()):
        out[r] = enumerable(np.unique(key[r], return_counts=True)[1])
    return out


def _unbiased_table(runs: int, k: int, metric: str) -> NDArray[np.float64]:
    """compare's value of a task with c = 0 … runs successes (``scopes.column_values``)."""
    from passhat.scopes import column_values

    c = np.arange(runs + 1, dtype=float)
    return column_values(np.full(runs + 1, float(runs)), c, [(metric, k)])[:, 0]


def _random_flip_decisions(
    d: NDArray[np.float64], *, n_flips: int, alpha: float, rng: np.random.Generator
) -> NDArray[np.float64]:
    """compare's random-flip test of each row: ``n_flips`` random sign vectors (drawn afresh for
    each chunk of rows), p = (1 + #{|Σ sᵢdᵢ| ≥ |Σ dᵢ|})/(1 + n_flips), rejecting at p ≤ α."""
    out = np.zeros(d.shape[0])
    step = max(1, _CHUNK_CELLS // n_flips)
    for start in range(0, d.shape[0], step):
        part = d[start : start + step]
        signs = 2.0 * rng.integers(0, 2, size=(n_flips, d.shape[1])) - 1.0
        obs = np.abs(part.sum(axis=1))
        tol = 1e-12 * (d.shape[1] + obs)  # compare's tolerance, on the scale of the sum
        count = np.count_nonzero(np.abs(signs @ part.T) >= obs - tol, axis=0)
        out[start : start + step] = (1.0 + count) / (1.0 + n_flips) <= alpha
    return out


def _enumerated_decisions(d: NDArray[np.float64], alpha: float) -> NDArray[np.float64]:
    """compare's enumerated sign-flip test of each row (its own functions), rejecting at p ≤ α."""
    from passhat.signflip import flip_sums, invert_flips

    out = np.zeros(d.shape[0])
    rng = np.random.default_rng(0)  # unused: the patterns are enumerated
    for r in range(d.shape[0]):
        values, freq = np.unique(d[r], return_counts=True)
        flips = flip_sums(freq, n_flips=1, rng=rng)
        _, _, p = invert_flips(values[:, None], np.ones(values.size), flips, ci=1.0 - alpha)
        out[r] = p[0] <= alpha
    return out


def _fallback_decisions(
    ca: NDArray[np.int64], cb: NDArray[np.int64], *, model: CopulaModel, runs: int, sim: Any
) -> NDArray[np.float64]:
    """compare's own population test of benchmarks where fewer than MIN_DISCORDANT tasks
    differ (:func:`passhat.compare.engine.paired_table`, every pair in one call)."""
    from passhat.compare.engine import paired_table

    pairs, tasks = ca.shape
    c = np.empty((2 * pairs, tasks))
    c[0::2], c[1::2] = ca, cb
    rng = np.random.default_rng(np.random.SeedSequence(sim.seed, spawn_key=(2**32 - 1,)))
    every = [(2 * i, 2 * i + 1) for i in range(pairs)]
    table = paired_table(
        np.full(c.shape, float(runs)), c, np.ones(tasks), every, [model.k],
        ci=1.0 - sim.alpha, n_boot=sim.n_flips, rng=rng,
    )  # fmt: skip
    rows = table[
        (table["scope"] == "population")
        & (table["metric"] == model.metric)
        & (table["k"] == model.k)
    ].sort_values("a")
    return (rows["p_value"].to_numpy() <= sim.alpha).astype(float)


@dataclass(frozen=True)
class FlipSettings:
    """compare's settings the simulated test uses: level, random flips, seed of the draws."""

    alpha: float
    n_flips: int
    seed: int


def _tested_probabilities(
    ca: NDArray[np.int64], cb: NDArray[np.int64], *, model: CopulaModel, runs: int, sim: Any
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """compare's chance of rejecting each benchmark by the sign-flip test (all of whose
    benchmarks have at least MIN_DISCORDANT differing tasks), and which it enumerates."""
    alpha = round(float(sim.alpha), 12)
    exact = _categories_enumerable(ca, cb, runs)
    prob = np.zeros(ca.shape[0])
    numer = _numerators(cb, runs, model.k, model.metric)
    if numer is not None:
        numer = numer - _numerators(ca, runs, model.k, model.metric)
    if numer is not None and 2 * int(np.abs(numer).sum(axis=1).max(initial=0)) < MAX_LATTICE:
        p = flip_pvalues(numer)
        prob[exact] = p[exact] <= alpha
        x_max = math.floor(alpha * (sim.n_flips + 1) + 1e-9) - 1  # (1 + X)/(1 + F) ≤ α
        prob[~exact] = special.bdtr(x_max, sim.n_flips, p[~exact]) if x_max >= 0 else 0.0
        return prob, exact
    table = _unbiased_table(runs, model.k, model.metric)
    d = table[cb] - table[ca]
    rng = np.random.default_rng(np.random.SeedSequence(sim.seed, spawn_key=(2**32 - 2,)))
    prob[exact] = _enumerated_decisions(d[exact], alpha)
    prob[~exact] = _random_flip_decisions(d[~exact], n_flips=sim.n_flips, alpha=alpha, rng=rng)
    return prob, exact


def compare_power(
    model: CopulaModel, draws: Draws, *, tasks: int, runs: int, sim: FlipSettings
) -> FlipPower:
    """The power of compare's population-scope test at one design (see the module's docstring).

    Benchmarks with fewer than MIN_DISCORDANT differing tasks go through compare's engine, at
    most :data:`FALLBACK_MAX` of them (a random subset standing for all: a stratified mean).

    Examples
    --------
    >>> from passhat import plan
    >>> from passhat.planner.copula import copula_model
    >>> m = copula_model(plan.Assumptions(mean=0.6, icc=0.3), 0.1, 1, "mean", 0.5)
    >>> r = compare_power(m, Draws(seed=1, replicates=400), tasks=60, runs=5,
    ...                   sim=FlipSettings(alpha=0.05, n_flips=10_000, seed=1))
    >>> 0.45 < r.power < 0.65, r.shares["random"]
    (True, 1.0)
    """
    from passhat.compare.engine import MIN_DISCORDANT

    ca, cb = simulated_counts(model, draws, tasks=tasks, runs=runs)
    table = _unbiased_table(runs, model.k, model.metric)
    differ = np.count_nonzero(np.abs(table[cb] - table[ca]) > 1e-12, axis=1)
    tested = differ >= MIN_DISCORDANT
    prob_t, exact = _tested_probabilities(ca[tested], cb[tested], model=model, runs=runs, sim=sim)
    parts = [(float(tested.mean()), prob_t)]
    fallback = np.flatnonzero(~tested)
    if fallback.size:
        rng = np.random.default_rng(np.random.SeedSequence(sim.seed, spawn_key=(2**32 - 3,)))
        if fallback.size > FALLBACK_MAX:
            fallback = np.sort(rng.choice(fallback, FALLBACK_MAX, replace=False))
        q_f = _fallback_decisions(ca[fallback], cb[fallback], model=model, runs=runs, sim=sim)
        parts.append((float((~tested).mean()), q_f))
    power = sum(w * float(q.mean()) for w, q in parts if q.size)
    var = sum(w * w * float(q.var(ddof=1)) / q.size for w, q in parts if q.size > 1)
    shares = {
        "exact": float(exact.sum()) / tested.size,
        "random": float((~exact).sum()) / tested.size,
        "fallback": float((~tested).mean()),
    }
    return FlipPower(power, math.sqrt(var), shares)


def simulate_compare_power(
    *,
    tasks: int,
    runs_per_task: int,
    delta: float,
    prior: Any,
    k: int = 1,
    metric: str = "mean",
    correlation: float | None = None,
    alpha: float = 0.05,
    replicates: int = 2000,
    seed: int | None = 0,
    n_flips: int | None = None,
) -> dict[str, Any]:
    """Simulated power of compare's test at one design (a point of a simulated grid).

    The same model as :func:`passhat.planner.copula.simulate_power` (which simulates the paired
    t-test): ``tasks`` matched tasks, rates through a Gaussian copula with latent correlation
    ``correlation`` (0.5 when None), ``runs_per_task`` runs per system; each benchmark tested
    as ``passhat compare`` tests it (:func:`compare_power`, ``n_flips`` random flips: compare's
    default resamples when None).

    Returns
    -------
    dict with tasks, runs_per_task, power, mc_error, replicates and the branch shares.

    Examples
    --------
    >>> from passhat import plan
    >>> r = simulate_compare_power(tasks=50, runs_per_task=5, delta=0.1,
    ...     prior=plan.Assumptions(mean=0.6, icc=0.3), replicates=200, seed=1)
    >>> 0 <= r["power"] <= 1, r["replicates"]
    (True, 200)
    """
    assumed, _ = _resolve_prior(prior)
    rho = FALLBACK_CORRELATION if correlation is None else float(correlation)
    model = copula_model(assumed, delta, k, metric, rho)
    t = whole("tasks", tasks, minimum=2)
    n = whole("runs_per_task", runs_per_task, minimum=k)
    r = whole("replicates", replicates, minimum=1)
    check_simulation(r, t, arrays=4)
    s = resolve_seed(seed)
    flips = DEFAULT_N_BOOT if n_flips is None else whole("n_flips", n_flips, minimum=1)
    res = compare_power(
        model, Draws(seed=s, replicates=r), tasks=t, runs=n,
        sim=FlipSettings(alpha=float(alpha), n_flips=flips, seed=s),
    )  # fmt: skip
    return {
        "tasks": t,
        "runs_per_task": n,
        "power": res.power,
        "mc_error": res.mc_error,
        "replicates": r,
        **{f"share_{key}": v for key, v in res.shares.items()},
    }
