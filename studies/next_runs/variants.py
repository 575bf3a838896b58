"""What-if variants of next_runs in the study's simulation (not shipped; not run by ``make study``).

Each variant swaps one piece of :func:`passhat.plan.next_runs` for the length of
one call of the study's ``compare`` (the planner's module attributes are
replaced and restored), so that its factor against the even spread is measured
on the same simulated benchmarks (same seed) as the shipped planner:

* ``shipped``: next_runs as shipped (for other truths than the study's regimes, below);
* ``unhedged``: the greedy batch (the posterior-averaged objective), no hedge;
* ``mean-hedge``: the hedge's candidates, chosen by the posterior mean of their
  ratio to the even spread instead of the worst one (a less conservative hedge);
* ``model-prior``: the (μ, κ) grid weighted by the hierarchical model's default
  prior (μ ~ Beta(1, 1), log κ ~ Normal(0, 2); :class:`passhat.model.Priors`)
  instead of flat in (logit μ, log κ); hedged as shipped;
* ``model-prior-unhedged``: both;
* ``oracle``: the true Beta(a, b) stated as ``prior=``, unhedged (the best case);
* ``earlier``: the prior fitted (:func:`passhat.plan.from_counts`) to an independent
  earlier evaluation simulated from the same truth (other tasks: ``EARLIER_TASKS`` ×
  ``EARLIER_RUNS``, a fresh one per benchmark from its own seed), passed as ``prior=`` to
  the shipped next_runs (as ``passhat plan next --prior-from`` uses it: a stated prior is
  one (μ, κ) point, no hedge against its uncertainty);
* ``earlier-large``: the same with a larger earlier evaluation (``LARGE_TASKS`` tasks);
* ``earlier-wrong``: the same, the earlier evaluation drawn from ``WRONG_TRUTH`` (a less
  reliable system than the pilot's) instead: what a wrong prior costs;
* ``model-estimate``: not next_runs' batch but a model-based design. The estimate after the
  batch is the hierarchical Beta-Binomial model's posterior mean of (1/T) Σ p_i^k (a grid
  posterior of (μ, κ), :func:`passhat.betabinom.posterior_grid`, ``MODEL_GRID`` points per
  axis; likelihood-based inference ignores a data-dependent allocation, so no selection-bias
  terms), and the batch is chosen greedily, run by run, by the expected posterior variance of
  that mean after the batch (per task given (μ, κ), averaged over the grid nodes of the
  pilot's posterior). Both arms, the batch and the even spread, use the model estimate; the
  even spread with the pooled unbiased estimate (the table's baseline) is printed too.

Run: ``.venv/bin/python studies/next_runs/variants.py VARIANT REGIME T REPS [SEED]``, e.g.
``... variants.py mean-hedge "near all-pass" 100 150 0``. REGIME is one of the study's
regimes or a truth "a,b" (Beta(a, b), e.g. ``... variants.py shipped 5,0.2 50 300 0``: its
benchmarks are drawn as for a fourth regime of the study). Results quoted in
``reports/next_runs/README.md``.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy: many small fits, threads contend
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from scipy import special

import passhat as ph
import passhat.planner.next_runs  # the module: passhat.plan.next_runs is the function
from passhat import betabinom
from passhat.betabinom import HyperPrior, posterior_grid, rising_moments
from passhat.planner import allocate

PLANNER = sys.modules["passhat.planner.next_runs"]
VARIANTS = (
    "shipped",
    "unhedged",
    "mean-hedge",
    "model-prior",
    "model-prior-unhedged",
    "oracle",
    "earlier",
    "earlier-large",
    "earlier-wrong",
    "model-estimate",
)

#: The earlier evaluation behind ``earlier``: tasks × runs per task, and its seed.
EARLIER_TASKS, EARLIER_RUNS, EARLIER_SEED = 200, 10, 12345
#: Tasks of the ``earlier-large`` evaluation (runs per task and seed as above).
LARGE_TASKS = 1000
#: The truth of the ``earlier-wrong`` evaluation: Beta(4, 1), μ = 0.80 (the near-all-pass
#: pilot's truth is Beta(12, 0.6), μ = 0.95).
WRONG_TRUTH = (4.0, 1.0)
#: ``model-estimate``: points per axis of the (μ, κ) grid posterior, the posterior mass its
#: nodes may leave out, and the most runs one task may get in the batch.
MODEL_GRID, MODEL_TAIL, MODEL_MAX_RUNS = 64, 1e-6, 40


def earlier_prior(
    a: float,
    b: float,
    rng: np.random.Generator,
    *,
    tasks: int = EARLIER_TASKS,
    runs: int = EARLIER_RUNS,
) -> Any:
    """``plan.from_counts`` of an earlier evaluation: ``tasks`` new rates from Beta(a, b),
    ``runs`` runs each."""
    p = rng.beta(a, b, tasks)
    c = rng.binomial(runs, p)
    return ph.plan.from_counts(ph.counts_from_arrays(np.full(tasks, runs), c))


@contextmanager
def with_earlier_prior(
    truth: tuple[float, float], *, seed: int = EARLIER_SEED, tasks: int = EARLIER_TASKS
) -> Iterator[list[Any]]:
    """Every ``ph.plan.next_runs`` call inside gets ``prior=`` fitted to a fresh earlier
    evaluation from Beta(``truth``) (its own random stream: the benchmarks stay the same);
    yields the list of (prior, z of the pilot under it: ``prior_check.z``) per call."""
    plain: Callable[..., Any] = ph.plan.next_runs
    rng = np.random.default_rng([seed, tasks])
    used: list[Any] = []

    def planned(data: Any, **kw: Any) -> Any:
        prior = earlier_prior(*truth, rng, tasks=tasks)
        table = plain(data, prior=prior, **kw)
        used.append((prior, table.prior_check.z))
        return table

    ph.plan.next_runs = planned
    try:
        yield used
    finally:
        ph.plan.next_runs = plain


def model_prior_points(n: np.ndarray, c: np.ndarray, system: str) -> Any:
    """:func:`passhat.planner.allocate.hyper_points` with the model's prior on the grid."""
    width = int(c.max()) + 1
    keys, mult = np.unique(np.asarray(n) * width + c, return_counts=True)
    nn, cc = (keys // width).astype(float), (keys % width).astype(float)
    centre = float(special.logit((c.sum() + 0.5) / (n.sum() + 1.0)))
    lm = centre + np.linspace(-3.0, 3.0, 61)
    lk = np.linspace(-3.0, 9.0, 49)
    mu = special.expit(lm)[:, None, None]
    a, b = mu * np.exp(lk)[None, :, None], (1 - mu) * np.exp(lk)[None, :, None]
    ll = (mult * (special.betaln(cc + a, nn - cc + b) - special.betaln(a, b))).sum(axis=-1)
    # μ ~ Beta(1, 1) is μ(1 − μ) per unit of logit μ; log κ ~ Normal(0, 2)
    ll = ll + np.log(mu[..., 0] * (1 - mu[..., 0])) - 0.5 * (lk[None, :] / 2.0) ** 2
    w = np.exp(ll - ll.max()).ravel()
    w /= w.sum()
    order = np.argsort(-w, kind="stable")
    points = allocate.HYPER_POINTS
    at = np.searchsorted(np.cumsum(w[order]), (np.arange(points) + 0.5) / points)
    pick = order[np.minimum(at, len(order) - 1)]
    ga = np.broadcast_to(a[..., 0], (len(lm), len(lk))).ravel()[pick]
    gb = np.broadcast_to(b[..., 0], (len(lm), len(lk))).ravel()[pick]
    _, point = allocate.hyper_points(n, c, system)
    return (ga, gb, np.full(points, 1.0 / points)), point


def _unhedged(groups: Any, extra: Any, uni: Any, free: int, T: int) -> Any:
    _, info = ORIGINAL_HEDGE(groups, extra, uni, free, T)
    return extra, {**info, "choice": "greedy", "even_runs": 0}


def _mean_hedge(groups: Any, greedy_extra: Any, uni: Any, free: int, T: int) -> Any:
    q_max = free // T
    evens = sorted({0, *(round(f * q_max) for f in (0.25, 0.5, 0.75)), q_max})
    cands = [greedy_extra] + [groups.allocate(free, even=q) for q in evens[1:]] + [uni]
    err = np.stack([groups.errors(x) for x in cands])
    ratio = err / err[-1]
    mean = ratio @ groups.weights
    best = int(np.argmin(mean))
    choice = "uniform" if np.array_equal(cands[best], uni) else "greedy" if best == 0 else "mixed"
    return cands[best], {
        "choice": choice,
        "even_runs": evens[best] if best < len(evens) else None,
        "worst_ratio_greedy": float(ratio[0].max()),
        "mean_ratio_greedy": float(mean[0]),
        "worst_ratio_chosen": float(ratio[best].max()),
    }


ORIGINAL_HEDGE = PLANNER.hedge


def _grouped(n: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any]:
    """Distinct (n, c) pairs, their multiplicities, and each task's pair."""
    pairs, inverse, mult = np.unique(
        np.stack([n, c], axis=1), axis=0, return_inverse=True, return_counts=True
    )
    return pairs[:, 0], pairs[:, 1], mult, inverse.ravel()


def model_nodes(n: np.ndarray, c: np.ndarray) -> Any:
    """Grid nodes of the hierarchical model's posterior of (μ, κ) (default priors)."""
    nn, cc, mult, _ = _grouped(n, c)
    grid = posterior_grid(nn, cc, mult, prior=HyperPrior(), size=MODEL_GRID)
    return grid.nodes(tail=MODEL_TAIL)


def model_estimate(n: np.ndarray, c: np.ndarray, *, k: int) -> float:
    """The posterior mean of (1/T) Σ p_i^k: Σ_nodes w E[p^k | Beta(a + c_i, b + n_i − c_i)]."""
    nd = model_nodes(n, c)
    nn, cc, mult, _ = _grouped(n, c)
    moment = rising_moments(nd.a[:, None] + cc, (nd.a + nd.b)[:, None] + nn, k)[..., -1]
    return float(nd.weight @ moment @ mult / mult.sum())


def expected_posterior_variance(
    nd: Any, n: np.ndarray, c: np.ndarray, *, k: int, m_max: int = MODEL_MAX_RUNS
) -> np.ndarray:
    """(pairs, m_max + 1): the expected posterior variance of p^k of a task with n runs and c
    successes after m more runs, given each node's (a, b), averaged over the nodes."""
    alpha = (nd.a[:, None] + c)[..., None]  # (nodes, pairs, 1)
    beta = (nd.b[:, None] + n - c)[..., None]
    out = np.empty((len(n), m_max + 1))
    for m in range(m_max + 1):
        y = np.arange(m + 1)
        # Beta-Binomial probability of y of m new successes, and the posterior moments after
        logp = betabinom.log_pmf(y, m, alpha, beta)
        mom = rising_moments(alpha + y, alpha + beta + m, 2 * k)
        var = mom[..., 2 * k - 1] - mom[..., k - 1] ** 2
        out[:, m] = nd.weight @ (np.exp(logp) * var).sum(axis=-1)
    return out


def model_batch(n: np.ndarray, c: np.ndarray, budget: int, *, k: int) -> np.ndarray:
    """More runs per task, greedy run by run on the expected posterior variance of the mean."""
    nn, cc, _, which = _grouped(n, c)
    ev = expected_posterior_variance(model_nodes(n, c), nn, cc, k=k)[which]
    extra = np.zeros(len(n), dtype=np.int64)
    rows = np.arange(len(n))
    for _ in range(budget):
        gain = ev[rows, extra] - ev[rows, np.minimum(extra + 1, MODEL_MAX_RUNS)]
        extra[int(np.argmax(gain))] += 1
    return extra


def compare_model(
    study: Any, regime: str, *, tasks: int, budget: int, k: int, reps: int, seed: int
) -> dict[str, Any]:
    """The study's ``compare`` with ``model-estimate``'s batch and estimate (the same simulated
    benchmarks: the same random draws per benchmark); adds ``mse_uniform_pooled``, the even
    spread with the pooled unbiased estimate. The batch counts as "uniform" where the greedy
    batch is the even spread."""
    pooled: list[float] = []

    def replicate(
        a: float, b: float, *, tasks: int, budget: int, k: int, rng: np.random.Generator
    ) -> tuple[float, float, str]:
        p = rng.beta(a, b, tasks)
        stream = rng.random((tasks, study.PILOT + budget)) < p[:, None]
        truth = float(np.mean(p**k))
        n0 = np.full(tasks, study.PILOT)
        c0 = stream[:, : study.PILOT].sum(axis=1)
        extra = model_batch(n0, c0, budget, k=k)
        uniform = np.full(tasks, budget // tasks) + (np.arange(tasks) < budget % tasks)
        cum, rows = np.cumsum(stream, axis=1), np.arange(tasks)
        n_a, n_u = n0 + extra, n0 + uniform
        c_a, c_u = cum[rows, n_a - 1], cum[rows, n_u - 1]
        pooled.append((float(np.mean(ph.pass_hat_k(n_u, c_u, k))) - truth) ** 2)
        return (
            (model_estimate(n_a, c_a, k=k) - truth) ** 2,
            (model_estimate(n_u, c_u, k=k) - truth) ** 2,
            "uniform" if np.array_equal(extra, uniform) else "greedy",
        )

    plain = study.replicate
    study.replicate = replicate
    try:
        r = study.compare(regime, tasks=tasks, budget=budget, k=k, reps=reps, seed=seed)
    finally:
        study.replicate = plain
    return {**r, "mse_uniform_pooled": float(np.mean(pooled))}


@contextmanager
def variant(name: str, regime: tuple[float, float]) -> Iterator[None]:
    """Swap the planner's pieces for ``name`` and restore them afterwards."""
    saved: dict[str, Any] = {
        "hyper_points": PLANNER.hyper_points,
        "hedge": PLANNER.hedge,
        "next_runs": ph.plan.next_runs,
    }
    if name in ("unhedged", "model-prior-unhedged", "oracle"):
        PLANNER.hedge = _unhedged
    if name == "mean-hedge":
        PLANNER.hedge = _mean_hedge
    if name.startswith("model-prior"):
        PLANNER.hyper_points = model_prior_points
    if name == "oracle":
        a, b = regime
        prior = ph.plan.Assumptions(mean=a / (a + b), kappa=a + b)
        plain: Callable[..., Any] = saved["next_runs"]
        ph.plan.next_runs = lambda data, **kw: plain(data, prior=prior, **kw)
    if name.startswith("earlier"):
        with with_earlier_prior(
            WRONG_TRUTH if name == "earlier-wrong" else regime,
            tasks=LARGE_TASKS if name == "earlier-large" else EARLIER_TASKS,
        ):
            yield
        return
    try:
        yield
    finally:
        PLANNER.hyper_points = saved["hyper_points"]
        PLANNER.hedge = saved["hedge"]
        ph.plan.next_runs = saved["next_runs"]


def main(argv: list[str]) -> int:
    name, regime, tasks, reps = argv[0], argv[1], int(argv[2]), int(argv[3])
    seed = int(argv[4]) if len(argv) > 4 else 0
    if name not in VARIANTS:
        print(f"unknown variant {name!r}; have {', '.join(VARIANTS)}", file=sys.stderr)
        return 2
    import next_runs as study  # beside this script, on sys.path when it is run

    if regime not in study.REGIMES:  # a truth "a,b": the benchmarks of a fourth regime
        a, b = (float(x) for x in regime.split(","))
        regime = f"Beta({a:g}, {b:g})"
        study.REGIMES[regime] = (a, b)
    if name == "model-estimate":
        r = compare_model(study, regime, tasks=tasks, budget=2 * tasks, k=3, reps=reps, seed=seed)
        print(
            f"{name} | {regime} | T={tasks} | MSE model batch {r['mse_adaptive']:.3e}, even "
            f"runs {r['mse_uniform']:.3e} (model estimate), {r['mse_uniform_pooled']:.3e} "
            f"(pooled unbiased estimate, the table's baseline) | factor {r['factor']:.3f} ± "
            f"{r['factor_se']:.3f}"
        )
    elif name.startswith("earlier"):
        truth = WRONG_TRUTH if name == "earlier-wrong" else study.REGIMES[regime]
        size = LARGE_TASKS if name == "earlier-large" else EARLIER_TASKS
        with with_earlier_prior(truth, tasks=size) as used:
            r = study.compare(regime, tasks=tasks, budget=2 * tasks, k=3, reps=reps, seed=seed)
        warned = sum(abs(z) > PLANNER.PRIOR_Z for _, z in used)
        print(f"{name} | {regime} | T={tasks} | prior warnings (|z| > 3) {warned}/{len(used)}")
    else:
        with variant(name, study.REGIMES[regime]):
            r = study.compare(regime, tasks=tasks, budget=2 * tasks, k=3, reps=reps, seed=seed)
    print(
        f"{name} | {regime} | T={tasks} | reps={reps} | seed={seed} | factor "
        f"{r['factor']:.2f} ± {r['factor_se']:.2f} | greedy/mixed/even "
        f"{r['choices']['greedy']}/{r['choices']['mixed']}/{r['choices']['uniform']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
