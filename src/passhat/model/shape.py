"""A posterior predictive check that sees shape: the histogram of successes per task.

For each number of runs n, the tasks with n decided runs give a histogram O_c (c = 0..n: how
many tasks had c successes). A model predicts it: E_c = T_n · P(c | n), with P the posterior
predictive probability of c successes for a task like these. The G statistic

    G = 2 Σ_n Σ_c O_c log(O_c / E_c)

is small when the model reproduces the histogram's shape (two clusters of tasks, a pile at
0 / n, a dip in the middle) and large when it cannot: a Beta spreads rates smoothly, so two
kinds of task (half near 0.4, half near 0.95) leave a bump it misses.

The p-value is **calibrated** by simulation: R data sets are drawn from the model (a posterior
draw of its parameters, then every task's c given its n), each is **refitted** — the model's
posterior recomputed on its grid for the replicate (the Beta and inflated models: the grid's
cells reweighted by the replicate's likelihood, which is exact on the grid; the discrete model:
its NPMLE refitted) — and G is computed against the refitted prediction, as for the data. So
the replicates' G has the distribution G has when the model is right, estimation included
(a parametric bootstrap of the statistic [1]_; the plain posterior predictive p-value, which
compares against the data's own fit, is conservative [2]_). p = (1 + #{G_rep ≥ G}) / (R + 1).

References
----------
.. [1] Hjort, N. L., Dahl, F. A. and Steinbakk, G. H. (2006). Post-processing posterior
   predictive p values. *Journal of the American Statistical Association* 101(475), 1157–1174.
.. [2] Gelman, A., Carlin, J. B., Stern, H. S., Dunson, D. B., Vehtari, A. and Rubin, D. B.
   (2013). *Bayesian Data Analysis*, 3rd ed. CRC Press, ch. 6.

Examples
--------
>>> import numpy as np
>>> from passhat.model.shape import g_statistic
>>> float(g_statistic(np.array([[10.0, 10.0]]), np.array([[0.5, 0.5]]), [np.arange(2)])[0, 0])
0.0
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import special

from passhat.betabinom import log_pmf, posterior_grid
from passhat.model.build import Compressed, Priors
from passhat.model.discrete import _design, log_node_lik, node_grid, npmle
from passhat.model.inflated_grid import inflated_grid

__all__ = ["REPLICATES", "SHAPE_COLUMNS", "ShapeCheck", "g_statistic", "shape_check", "shape_rows"]

#: The columns of :attr:`passhat.Fit.shape`.
SHAPE_COLUMNS = ("system", "model", "weight", "runs", "tasks", "g", "p_value", "replicates")
#: Replicate data sets of the calibration.
REPLICATES = 200
#: Cells whose posterior log density given the data is more than this below the largest are
#: left out of the refits (a replicate drawn from the posterior predictive does not reach them).
_CELL_RANGE = 40.0
#: Tasks with more runs than this are left out of the check: the histogram of successes of
#: n runs has n + 1 cells, far more than there are tasks (and 2^32 cells do not fit in memory).
MAX_RUNS = 2000
#: The inflated model's grid for the check (coarser than the fit's: the check needs the
#: predictive probabilities, not quantiles).
_INFLATED_SIZES = (20, 20, 14, 14)


@dataclass(frozen=True)
class _Types:
    """Every possible (n, c) for the n in the data: ``n``, ``c``, per distinct n the columns
    of its c = 0..n (``groups``), and the observed histogram (``observed``, one count per
    type)."""

    n: NDArray[np.float64]
    c: NDArray[np.float64]
    groups: list[NDArray[np.intp]]
    observed: NDArray[np.float64]

    @classmethod
    def of(cls, comp: Compressed) -> _Types:
        ns = np.unique(comp.n[comp.n > 0])
        n = np.concatenate([np.full(int(v) + 1, float(v)) for v in ns])
        c = np.concatenate([np.arange(int(v) + 1, dtype=float) for v in ns])
        starts = np.cumsum([0] + [int(v) + 1 for v in ns])
        groups = [np.arange(starts[i], starts[i + 1]) for i in range(len(ns))]
        observed = np.zeros(len(n))
        for nn, cc, m in zip(comp.n, comp.c, comp.mult, strict=True):
            if nn > 0:
                observed[(n == nn) & (c == cc)] += m
        return cls(n=n, c=c, groups=groups, observed=observed)


def g_statistic(
    counts: NDArray[np.float64], pmf: NDArray[np.float64], groups: Sequence[NDArray[np.intp]]
) -> NDArray[np.float64]:
    """G = 2 Σ O log(O / E) per row and group of columns, E = (tasks of the group) × pmf
    (renormalised within the group); shape (rows, groups)."""
    out = np.zeros((counts.shape[0], len(groups)))
    for i, cols in enumerate(groups):
        o = counts[:, cols]
        p = pmf[:, cols] / pmf[:, cols].sum(axis=1, keepdims=True)
        e = o.sum(axis=1, keepdims=True) * p
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(o > 0, o * np.log(o / np.maximum(e, 1e-300)), 0.0)
        out[:, i] = 2.0 * terms.sum(axis=1)
    return out


class _GridModel:
    """A model on a fixed grid of parameter cells: log P(type | cell) and the cells' log prior
    (up to a constant), from the data's posterior weights and likelihood."""

    def __init__(self, ll: NDArray[np.float64], log_post: NDArray[np.float64], obs: Any) -> None:
        keep = log_post > log_post.max() - _CELL_RANGE  # the cells a replicate can reach
        self.ll = ll[keep]  # (cells, types)
        self.log_prior = log_post[keep] - self.ll @ obs

    def predictive(self, counts: NDArray[np.float64]) -> NDArray[np.float64]:
        """The posterior predictive pmf of every type given each row's histogram."""
        lw = self.log_prior[None, :] + counts @ self.ll.T
        lw -= lw.max(axis=1, keepdims=True)
        w = np.exp(lw)
        w /= w.sum(axis=1, keepdims=True)
        return np.asarray(w @ np.exp(self.ll))

    def simulate(self, types: _Types, tasks: NDArray[np.float64], rng: Any) -> Any:
        """Replicate histograms: a cell drawn from the data's posterior, then the tasks of each
        n spread over c = 0..n."""
        lw = self.log_prior + self.ll @ types.observed
        p = np.exp(lw - lw.max())
        cells = rng.choice(len(p), size=REPLICATES, p=p / p.sum())
        out = np.zeros((REPLICATES, len(types.n)))
        for cols, t in zip(types.groups, tasks, strict=True):
            pmf = np.exp(self.ll[np.ix_(cells, cols)])
            out[:, cols] = rng.multinomial(int(t), pmf / pmf.sum(axis=1, keepdims=True))
        return out


def _beta_model(comp: Compressed, types: _Types, obs: Any, priors: Priors) -> _GridModel:
    nodes = posterior_grid(comp.n, comp.c, comp.mult, prior=priors, size=128).coarsened(2)
    ll = log_pmf(types.c[None, :], types.n[None, :], nodes.a[:, None], nodes.b[:, None])
    keep = nodes.weight > 0
    return _GridModel(ll[keep], np.log(nodes.weight[keep]), obs)


def _inflated_model(comp: Compressed, types: _Types, obs: Any, priors: Priors) -> _GridModel:
    g = inflated_grid(comp.n, comp.c, comp.mult, priors=priors, sizes=_INFLATED_SIZES)
    prob = g.probabilities().ravel()
    keep = prob > 0
    ll = np.stack([t.ravel()[keep] for t in g.pair_loglik(types.n, types.c)], axis=1)
    return _GridModel(ll, np.log(prob[keep]), obs)


class _DiscreteModel:
    """The discrete model: its NPMLE refitted to each histogram (the pseudo-tasks at 0 and 1
    at their prior weight)."""

    def __init__(self, types: _Types) -> None:
        p = node_grid()
        self.lik, _ = _design(types.n, types.c, p)
        ll = log_node_lik(types.n, types.c, p)
        coef = (
            special.gammaln(types.n + 1)
            - special.gammaln(types.c + 1)
            - special.gammaln(types.n - types.c + 1)
        )
        self.pmf_nodes = np.exp(ll + coef[:, None])  # (types, nodes)

    def fit(self, counts: NDArray[np.float64]) -> NDArray[np.float64]:
        v = np.hstack([counts, np.full((counts.shape[0], 2), 0.5)])
        w, _ = npmle(self.lik, v / v.sum(axis=1, keepdims=True))
        return w

    def predictive(self, counts: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.asarray(self.fit(counts) @ self.pmf_nodes.T)

    def simulate(self, types: _Types, tasks: NDArray[np.float64], rng: Any) -> Any:
        w = self.fit(types.observed[None, :])[0]
        pmf = w @ self.pmf_nodes.T
        out = np.zeros((REPLICATES, len(types.n)))
        for cols, t in zip(types.groups, tasks, strict=True):
            q = pmf[cols] / pmf[cols].sum()
            out[:, cols] = rng.multinomial(int(t), q, size=REPLICATES)
        return out


@dataclass(frozen=True)
class ShapeCheck:
    """One model's check of one system: G and its calibrated p-value, per number of runs and
    over all tasks."""

    model: str
    runs: list[int]
    tasks: list[int]
    g: list[float]
    p_value: list[float]
    g_total: float
    p_total: float
    replicates: int


def shape_check(
    comp: Compressed, *, model: str, priors: Priors, rng: np.random.Generator
) -> ShapeCheck:
    """The shape check of one model ("beta", "inflated" or "discrete") on one system's pairs."""
    types = _Types.of(comp)
    obs = types.observed
    fitted: Any
    if model == "beta":
        fitted = _beta_model(comp, types, obs, priors)
    elif model == "inflated":
        fitted = _inflated_model(comp, types, obs, priors)
    else:
        fitted = _DiscreteModel(types)
    tasks = np.array([obs[cols].sum() for cols in types.groups])
    g_obs = g_statistic(obs[None, :], fitted.predictive(obs[None, :]), types.groups)[0]
    reps = fitted.simulate(types, tasks, rng)
    g_rep = g_statistic(reps, fitted.predictive(reps), types.groups)
    p = (1.0 + (g_rep >= g_obs[None, :] - 1e-9).sum(axis=0)) / (REPLICATES + 1.0)
    tot = g_rep.sum(axis=1)
    p_tot = (1.0 + float((tot >= g_obs.sum() - 1e-9).sum())) / (REPLICATES + 1.0)
    return ShapeCheck(
        model=model,
        runs=[int(types.n[cols[0]]) for cols in types.groups],
        tasks=[int(t) for t in tasks],
        g=[float(x) for x in g_obs],
        p_value=[float(x) for x in p],
        g_total=float(g_obs.sum()),
        p_total=float(p_tot),
        replicates=REPLICATES,
    )


def shape_rows(system: str, chk: ShapeCheck, weight: float) -> list[dict[str, Any]]:
    """The rows of :attr:`passhat.Fit.shape` for one system and model: one per number of runs
    (only when the tasks ran different numbers of times), then all tasks (``runs`` 0)."""
    base = {"system": system, "model": chk.model, "weight": weight, "replicates": chk.replicates}
    rows = []
    if len(chk.runs) > 1:
        rows = [
            {**base, "runs": r, "tasks": t, "g": g, "p_value": p}
            for r, t, g, p in zip(chk.runs, chk.tasks, chk.g, chk.p_value, strict=True)
        ]
    total = {"runs": chk.runs[0] if len(chk.runs) == 1 else 0, "tasks": sum(chk.tasks)}
    return [*rows, {**base, **total, "g": chk.g_total, "p_value": chk.p_total}]
