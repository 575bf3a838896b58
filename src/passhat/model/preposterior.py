"""What m more runs per task would buy: the expected posterior interval width (preposterior).

Before anyone spends the runs, the posterior they would give is uncertain;
its expected width is what a budget owner acts on. For m more runs on every
task (plain Beta-Binomial model), :func:`more_runs_rows` draws new runs from
the posterior predictive — a draw of (a, b) from the current posterior,
then c'_i ~ BetaBinomial(m, a + c_i, b + n_i − c_i) — and evaluates the
posterior of the combined data exactly on a quadrature grid over
(logit μ, log κ) (:func:`passhat.model.split.quad_grid`): the current grid
density times Π_i BB(c'_i | m, a + c_i, b + n_i − c_i). Tasks with the same
(n, c) draw their new runs together (a multinomial over c' = 0..m), so the
cost follows the distinct pairs, not the tasks.

Per metric and scope it reports the expected posterior sd and interval
width after m runs and their ratio to today's:

* population scope (a new task like these): the equal-tailed interval from
  the grid's cdf; m = ∞ (p known) is the floor that more runs cannot go
  below, the task-sampling part of :func:`passhat.model.split.variance_split`;
* benchmark scope (these tasks): the exact posterior variance of
  Σ w_i f(p_i) on the grid (mixture over (a, b) of the Beta posteriors of the
  p_i) and a normal interval ±z·sd; its floor is 0.

Checks (tests): E[Var(θ | y, y')] + Var(E[θ | y, y']) = Var(θ | y) (the
posterior is a martingale), and a brute-force enumeration of every new
outcome with an independent quadrature on two tasks.

References
----------
.. [1] Raiffa, H. and Schlaifer, R. (1961). *Applied Statistical Decision
   Theory*. Harvard University: preposterior analysis (the distribution of
   the posterior before the data are taken).

Examples
--------
>>> import numpy as np
>>> from passhat.model.build import Priors
>>> from passhat.model.preposterior import more_runs_rows
>>> rng = np.random.default_rng(2)
>>> h = {"a": rng.gamma(40, 0.05, 400), "b": rng.gamma(40, 0.05, 400)}
>>> rows = more_runs_rows(np.full(10, 3), np.arange(10) % 4, np.ones(10), h, [("mean", 1)],
...                       runs=[5], priors=Priors(), ci=0.9, simulations=50, rng=rng)
>>> [(r["scope"], r["runs_added"]) for r in rows]
[('population', 0.0), ('population', 5.0), ('population', inf), ('benchmark', 0.0), \
('benchmark', 5.0), ('benchmark', inf)]
>>> bool(rows[1]["width_ratio"] < 1)
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from passhat.betabinom import log_pmf
from passhat.errors import ModelError, OptionError
from passhat.model.build import Priors, compress
from passhat.model.grid import grid_log_posterior
from passhat.model.metrics import Groups, _cond_moments
from passhat.model.split import (
    QuadGrid,
    beta_part,
    log_rate_sums,
    p_log_weights,
    quad_grid,
    softmax_rows,
)

__all__ = ["AfterRuns", "after_runs", "more_runs_rows", "weighted_interval"]

#: Cells of (simulations × grid points) held in memory at once.
_CHUNK_CELLS = 4_000_000

#: The most simulated sets of new runs :func:`more_runs_rows` accepts per m (200 by default;
#: the CLI's --simulations has the same bound; 10^12 ran without end).
MAX_SIMULATIONS = 1_000_000


@dataclass(frozen=True)
class AfterRuns:
    """Simulated posteriors after m more runs per task, as weights on the grid.

    Attributes
    ----------
    weights : ndarray
        (simulations, G): each row the posterior of (a, b) on the grid given
        the current data and one simulated set of new runs (sums to one).
    counts : ndarray
        (simulations, groups, m + 1): how many tasks of each group got c' new
        successes.
    m : int
    """

    weights: NDArray[np.float64]
    counts: NDArray[np.float64]
    m: int


def _bb_log_table(m: int, c: Any, f: Any, a: Any, b: Any) -> NDArray[np.float64]:
    """log BB(c' | m, a + c, b + f) for c' = 0..m, shape (len(a), m + 1)."""
    cp = np.arange(m + 1, dtype=float)[None, :]
    aa, bb = np.asarray(a, float)[:, None], np.asarray(b, float)[:, None]
    return log_pmf(cp, m, aa + c, bb + f)


def after_runs(
    grid: QuadGrid,
    log_post: NDArray[np.float64],
    groups: Groups,
    m: int,
    *,
    simulations: int,
    rng: np.random.Generator,
) -> AfterRuns:
    """Posteriors on the grid after m more runs per task, one per simulated set of runs.

    ``log_post`` is the current unnormalised log posterior at the grid
    points. Each simulation draws a grid point from the current posterior,
    then every group's new successes from the Beta-Binomial predictive
    (multinomial over c' = 0..m for the group's tasks), and reweights the
    grid by the new runs' likelihood.
    """
    w0 = softmax_rows(log_post[None, :].copy())[0]
    pick = rng.choice(len(grid.a), size=simulations, p=w0)
    counts = np.zeros((simulations, len(groups.n), m + 1))
    logw = np.tile(log_post, (simulations, 1))
    for j in range(len(groups.n)):  # distinct (n, c, w) groups, not tasks
        cj, fj = groups.c[j], groups.n[j] - groups.c[j]
        pmf = np.exp(_bb_log_table(m, cj, fj, grid.a[pick], grid.b[pick]))
        pmf /= pmf.sum(axis=1, keepdims=True)
        counts[:, j, :] = rng.multinomial(int(groups.mult[j]), pmf)
        logw += counts[:, j, :] @ _bb_log_table(m, cj, fj, grid.a, grid.b).T
    return AfterRuns(weights=softmax_rows(logw), counts=counts, m=m)


def _whole_runs(x: Any, runs: Any) -> int:
    if isinstance(x, bool) or not isinstance(x, int | np.integer) or x < 1:
        raise OptionError(f"runs must be whole numbers ≥ 1 (got {runs!r})")
    return int(x)


def weighted_interval(
    w: NDArray[np.float64], values: NDArray[np.float64], ci: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Equal-tailed interval of ``values`` for each row of grid weights ``w`` (rows sum to one).

    Each grid point's mass sits at its value; the cdf is interpolated
    linearly between the midpoints of the sorted masses.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.preposterior import weighted_interval
    >>> lo, hi = weighted_interval(np.full((1, 100), 0.01), np.arange(100.0), 0.9)
    >>> round(float(lo[0]), 6), round(float(hi[0]), 6)
    (4.5, 94.5)
    """
    order = np.argsort(values, kind="stable")
    v = values[order]
    ws = w[:, order]
    mid = np.cumsum(ws, axis=1)
    mid -= 0.5 * ws
    out = []
    rows = np.arange(len(w))
    for q in ((1 - ci) / 2, 1 - (1 - ci) / 2):
        hi = np.clip((mid < q).sum(axis=1), 1, len(v) - 1)  # first midpoint ≥ q
        lo = hi - 1
        x0, x1 = mid[rows, lo], mid[rows, hi]
        t = np.clip(np.divide(q - x0, x1 - x0, out=np.zeros(len(w)), where=x1 > x0), 0.0, 1.0)
        out.append(v[lo] + t * (v[hi] - v[lo]))
    return out[0], out[1]


def _bench_var(
    grid: QuadGrid,
    groups: Groups,
    w: NDArray[np.float64],
    counts: NDArray[np.float64] | None,
    m: int,
    requests: Sequence[tuple[str, int]],
) -> NDArray[np.float64]:
    """(S, R) posterior variance of Σ w_i f(p_i) given grid weights (and new counts c').

    Per grid point, the benchmark value's conditional mean and variance are
    sums over the groups and their new successes c' of the Beta moments of
    f(p): one matrix product of the counts (S, groups · (m + 1)) with the
    moment tables (groups · (m + 1), G).
    """
    S = len(w)
    kmat = (
        counts.reshape(S, -1) if counts is not None else np.tile(groups.mult.astype(float), (S, 1))
    )
    cp = np.arange(m + 1, dtype=float)
    cj = np.repeat(groups.c, m + 1) + np.tile(cp, len(groups.n))
    fj = np.repeat(groups.n - groups.c, m + 1) + np.tile(m - cp, len(groups.n))
    wj = np.repeat(groups.weight, m + 1)[:, None]
    out = np.empty((S, len(requests)))
    for r, (metric, k) in enumerate(requests):
        e1, e2 = _cond_moments(
            metric, float(k), grid.a[None, :] + cj[:, None], grid.b[None, :] + fj[:, None]
        )
        mean_g = kmat @ (wj * e1)
        var_g = kmat @ (wj * wj * np.maximum(e2 - e1 * e1, 0.0))
        mean = (w * mean_g).sum(axis=1)
        var_g += mean_g * mean_g
        out[:, r] = (w * var_g).sum(axis=1) - mean * mean
    return np.maximum(out, 0.0)


def _pop_stats(
    w: NDArray[np.float64], h: NDArray[np.float64], ci: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(S, R) posterior sd and interval width of each population metric per row of weights."""
    e1, e2 = w @ h, w @ (h * h)
    sd = np.sqrt(np.maximum(e2 - e1 * e1, 0.0))
    width = np.empty_like(sd)
    for r in range(h.shape[1]):
        lo, hi = weighted_interval(w, h[:, r], ci)
        width[:, r] = hi - lo
    return sd, width


def more_runs_rows(
    n: NDArray[Any],
    c: NDArray[Any],
    weight: NDArray[Any],
    hyper: Mapping[str, NDArray[np.float64]],
    requests: Sequence[tuple[str, int]],
    *,
    runs: Sequence[int],
    priors: Priors,
    ci: float,
    simulations: int,
    rng: np.random.Generator,
    size: int = 64,
) -> list[dict[str, Any]]:
    """Expected posterior sd and interval width after m more runs on each task (beta model).

    Parameters
    ----------
    n, c, weight : ndarray
        One system's decided runs, successes and weights per task.
    hyper : mapping
        Posterior draws ``a``, ``b`` (they set the grid's box).
    requests : list of (metric, k)
    runs : list of int
        The numbers m of more runs per task to evaluate.
    priors : Priors
    ci : float
        Interval level.
    simulations : int
        Simulated sets of new runs per m (and draws of p for the floor).
    rng : numpy.random.Generator
    size : int
        Grid points per axis.

    Returns
    -------
    list of dict
        metric, k, scope, runs_added (0 = now, each m, inf = the floor),
        expected_sd, expected_width, width_ratio (to now), interval
        ("quantile": population; "normal": benchmark, ±z·sd).

    Raises
    ------
    OptionError
        ``runs`` not whole numbers ≥ 1, or ``simulations`` below 10.
    ModelError
        For the zero/one-inflated model (no grid density).
    """
    ms = sorted({_whole_runs(x, runs) for x in runs})
    if not ms:
        raise OptionError("runs: give at least one number of more runs per task (e.g. 1, 5, 10)")
    if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 10:
        raise OptionError(f"simulations must be a whole number ≥ 10 (got {simulations!r})")
    if simulations > MAX_SIMULATIONS:
        raise OptionError(
            f"simulations must be at most {MAX_SIMULATIONS:,} (got {simulations!r}); each "
            "simulates a new set of runs for every task"
        )
    if "pi_pass" in hyper or "pi_fail" in hyper:
        raise ModelError(
            "more runs: the expected width is computed for the plain Beta-Binomial model only "
            "(refit with model='beta')"
        )
    a = np.asarray(hyper["a"], dtype=float)
    kap = a + np.asarray(hyper["b"], dtype=float)
    grid = quad_grid(a / kap, kap, priors, size=size)
    groups = Groups.from_tasks(n, c, weight)
    lpy = grid_log_posterior(grid.theta, grid.lam, groups.n, groups.c, groups.mult, priors=priors)
    # at k = 1, pass^k and pass@k are the mean: evaluate each distinct quantity once
    canon = [("mean", 1) if m == "mean" or int(k) == 1 else (m, int(k)) for m, k in requests]
    uniq = list(dict.fromkeys(canon))
    h = beta_part(grid, uniq)
    z = float(stats.norm.ppf(1 - (1 - ci) / 2))
    w0 = softmax_rows(lpy[None, :].copy())
    found: list[tuple[str, float, NDArray[np.float64], NDArray[np.float64]]] = []
    sd, width = _pop_stats(w0, h, ci)
    found.append(("population", 0.0, sd, width))
    bsd = np.sqrt(_bench_var(grid, groups, w0, None, 0, uniq))
    found.append(("benchmark", 0.0, bsd, 2 * z * bsd))
    step = max(1, _CHUNK_CELLS // len(grid.a))  # simulations per chunk: bounded memory
    comp = compress(n, c)
    for m in ms:
        parts = []
        for lo in range(0, simulations, step):
            sim = after_runs(grid, lpy, groups, m, simulations=min(step, simulations - lo), rng=rng)
            bvar = _bench_var(grid, groups, sim.weights, sim.counts, m, uniq)
            parts.append((*_pop_stats(sim.weights, h, ci), np.sqrt(bvar)))
        sd, width, bsd = (np.concatenate(x) for x in zip(*parts, strict=True))
        found.append(("population", float(m), sd, width))
        found.append(("benchmark", float(m), bsd, 2 * z * bsd))
    # the floor: p known (unlimited runs on every task)
    floor = []
    for lo in range(0, simulations, step):
        pick = rng.choice(len(grid.a), size=min(step, simulations - lo), p=w0[0])
        draws = {"a": grid.a[pick], "b": grid.b[pick]}
        sums = log_rate_sums(comp.n, comp.c, comp.mult, draws, rng=rng)
        floor.append(_pop_stats(softmax_rows(p_log_weights(grid, sums)), h, ci))
    sd, width = (np.concatenate(x) for x in zip(*floor, strict=True))
    found.append(("population", np.inf, sd, width))
    zeros = np.zeros((1, len(uniq)))
    found.append(("benchmark", np.inf, zeros, zeros))
    rows: list[dict[str, Any]] = []
    now: dict[tuple[str, str, int], float] = {}
    for scope in ("population", "benchmark"):
        for sc, added, sd, width in found:
            if sc != scope:
                continue
            for (metric, k), key in zip(requests, canon, strict=True):
                r = uniq.index(key)
                w_mean = float(np.mean(width[:, r]))
                if added == 0:
                    now[(scope, metric, int(k))] = w_mean
                w_now = now[(scope, metric, int(k))]
                rows.append(
                    {
                        "metric": metric,
                        "k": int(k),
                        "scope": scope,
                        "runs_added": added,
                        "expected_sd": float(np.mean(sd[:, r])),
                        "expected_width": w_mean,
                        "width_ratio": w_mean / w_now if w_now > 0 else float("nan"),
                        "interval": "quantile" if scope == "population" else "normal",
                    }
                )
    return rows
