"""Stacking the single-system models by exact leave-one-task-out: ``fit(model="auto")``.

Three models of how task rates spread are fitted to a system's distinct (n, c) pairs, each on a
grid and each with independent draws: the plain Beta (:mod:`passhat.model.grid`), the
zero/one-inflated Beta (:mod:`passhat.model.inflated_grid`) and the discrete mixing
distribution (:mod:`passhat.model.discrete`). For every task, each model's predictive density
of its c given the *other* tasks is exact and cheap — on a grid, leaving a task out reweights
the cells by the inverse of its likelihood; the discrete model is refitted without it — and
tasks sharing a pair share it, so the cost follows the pairs.

Stacking [1]_ picks the weights ω (on the simplex) that maximise Σ_i log Σ_m ω_m p_m(c_i | the
other tasks): the mixture of the models' predictive distributions that best predicts a left-out
task. The stacked posterior draws each draw from one model, a share ω_m of them from model m.
It is not a Bayesian model average (which would pick the model with the highest marginal
likelihood, and trust it when all three are wrong): stacking asks only which predictions hold
up on tasks the fit did not see.

References
----------
.. [1] Yao, Y., Vehtari, A., Simpson, D. and Gelman, A. (2018). Using stacking to average
   Bayesian predictive distributions. *Bayesian Analysis* 13(3), 917–1007.
.. [2] Vehtari, A., Gelman, A. and Gabry, J. (2017). Practical Bayesian model evaluation using
   leave-one-out cross-validation and WAIC. *Statistics and Computing* 27, 1413–1432 (elpd,
   its standard error, p_loo).

Examples
--------
>>> import numpy as np
>>> from passhat.model.stacking import stacking_weights
>>> lpd = np.log(np.array([[0.5, 0.1], [0.1, 0.5]]))   # each model predicts one pair well
>>> stacking_weights(lpd, np.array([10.0, 10.0])).round(3).tolist()
[0.5, 0.5]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from passhat.model.build import Compressed, Priors
from passhat.model.discrete import NODES, discrete_loo, discrete_posterior
from passhat.model.grid import LooTerms, grid_posterior
from passhat.model.inflated_grid import inflated_grid
from passhat.model.parts import COMPONENTS

__all__ = [
    "COMPONENTS",
    "DISCRETE_MIN_TASKS",
    "STACK_MIN_TASKS",
    "WEIGHT_RULES",
    "Component",
    "comparison_rows",
    "fit_component",
    "stack_system",
    "stacking_weights",
]


#: The discrete model enters the stack only for a system with at least this many tasks: its
#: mixing distribution has at most one atom per distinct (n, c) pair, and on a handful of tasks
#: the Bayesian bootstrap of the NPMLE pins each task's rate to an atom (one task failing 9 of 9
#: runs: benchmark mean 0.000 [0.000, 0.000]), while leaving a task out of so few makes the
#: pseudo-tasks at 0 and 1 predict it best. Below it, ``auto`` stacks the Beta and inflated
#: models (the discrete model keeps its row in the comparison, with weight 0).
DISCRETE_MIN_TASKS = 20

#: Stacking needs at least this many tasks: leaving out the only task of a one-task system leaves
#: no data, so each model's "leave-one-out" density is its prior predictive and the weights would
#: say which prior guessed one count best, not which model predicts tasks. Below it, ``auto``
#: uses the Beta model alone and says so (``weight_rule`` of the comparison rows).
STACK_MIN_TASKS = 2

#: The ``weight_rule`` of the comparison rows: how the weights were chosen.
WEIGHT_RULES = {
    "stacking": "stacking by exact leave-one-task-out",
    "one_task": "no stacking: one task (leaving it out leaves no data), the Beta model alone",
}


@dataclass(frozen=True)
class Component:
    """One model fitted to a system: its draws (flat, one row per draw) and exact LOO terms."""

    name: str
    draws: dict[str, NDArray[np.float64]]
    loo: LooTerms


def fit_component(
    name: str,
    comp: Compressed,
    *,
    priors: Priors,
    n_draws: int,
    seed: int,
    grid_size: int,
) -> Component:
    """Fit one model on the grid: ``n_draws`` draws (``discrete``: as many as asked, possibly
    0) and its exact leave-one-task-out terms. Each model's draws come from
    ``numpy.random.default_rng(seed)``, as a single-model fit with the same seed."""
    rng = np.random.default_rng(seed)
    if name == "beta":
        g = grid_posterior(
            comp.n, comp.c, comp.mult, priors=priors, n_draws=n_draws, rng=rng, size=grid_size,
            loo=True,
        )  # fmt: skip
        if g.loo is None:  # grid_posterior(loo=True) always gives the terms
            raise RuntimeError("grid_posterior(loo=True) returned no leave-one-out terms")
        return Component(name, {"mu": g.mu, "kappa": g.kappa}, g.loo)
    if name == "inflated":
        ig = inflated_grid(comp.n, comp.c, comp.mult, priors=priors)
        return Component(name, ig.draws(n_draws, rng), ig.loo(comp.n, comp.c))
    d = discrete_posterior(comp.n, comp.c, comp.mult, n_draws=n_draws, rng=rng)
    lpd, lppd = discrete_loo(comp.n, comp.c, comp.mult)
    return Component(name, {"node_weight": d.weight}, LooTerms(lpd=lpd, lppd=lppd))


def stacking_weights(lpd: NDArray[np.float64], mult: NDArray[np.float64]) -> NDArray[np.float64]:
    """The stacking weights: argmax over the simplex of Σ_pairs mult · log Σ_m ω_m e^{lpd_m}.

    ``lpd`` (models, pairs): each model's leave-one-out log predictive density of each pair.
    A concave problem, solved by the EM fixed point ω_m ← ω_m · mean_i r_im (r: each model's
    share of the mixture density at task i), which increases the objective at every step.

    Examples
    --------
    >>> import numpy as np
    >>> w = stacking_weights(np.log(np.array([[0.5, 0.5], [0.2, 0.2]])), np.array([1.0, 3.0]))
    >>> w.round(3).tolist()   # the second model is worse everywhere
    [1.0, 0.0]
    """
    m = np.asarray(mult, dtype=float)
    w = np.full(lpd.shape[0], 1.0 / lpd.shape[0])
    dens = np.exp(lpd - lpd.max(axis=0, keepdims=True))
    for _ in range(5000):
        mix = w @ dens
        new = w * ((dens / mix) @ m) / m.sum()
        if np.abs(new - w).max() < 1e-10:
            w = new
            break
        w = new
    w[w < 1e-6] = 0.0
    return np.asarray(w / w.sum())


def comparison_rows(
    components: Sequence[Component], weights: NDArray[np.float64], mult: NDArray[np.float64]
) -> list[dict[str, Any]]:
    """One row per model, best first, in the columns of ArviZ's ``compare``: rank, elpd_loo
    (Σ over tasks of the exact LOO log predictive density), p_loo (lppd − elpd_loo; for the
    discrete model: from its NPMLE on every task), elpd_diff and its standard error dse (from the
    paired pointwise differences), se, the stacking weight, warning (False: exact, no Pareto k),
    scale ("log") and weight_rule (:data:`WEIGHT_RULES`: on one task, no stacking)."""
    m = np.asarray(mult, dtype=float)
    t = m.sum()
    rule = WEIGHT_RULES["stacking" if t >= STACK_MIN_TASKS else "one_task"]
    elpd = np.array([float(m @ c.loo.lpd) for c in components])
    best = int(np.argmax(elpd))
    rows = []
    for rank, i in enumerate(np.argsort(-elpd, kind="stable")):
        c = components[i]
        diff = c.loo.lpd - components[best].loo.lpd
        rows.append(
            {
                "model": c.name,
                "rank": rank,
                "elpd_loo": float(elpd[i]),
                "p_loo": float(m @ (c.loo.lppd - c.loo.lpd)),
                "elpd_diff": float(-(m @ diff)) + 0.0,
                "weight": float(weights[i]),
                "se": float(np.sqrt(t * _weighted_var(c.loo.lpd, m))),
                "dse": float(np.sqrt(t * _weighted_var(diff, m))),
                "warning": False,
                "scale": "log",
                "weight_rule": rule,
            }
        )
    return rows


def _weighted_var(x: NDArray[np.float64], m: NDArray[np.float64]) -> float:
    """The variance over tasks of a pointwise value given per pair (n − 1 denominator)."""
    t = m.sum()
    if t < 2:
        return 0.0
    mean = (m @ x) / t
    return float((m @ (x - mean) ** 2) / (t - 1))


def stack_system(
    comp: Compressed,
    *,
    priors: Priors,
    chains: int,
    draws: int,
    seed: int,
    grid_size: int,
) -> tuple[dict[str, NDArray[Any]], list[dict[str, Any]]]:
    """One system's stacked posterior: the three models, their stacking weights, and
    chains × draws draws of which a share ω_m comes from model m (largest remainders; which
    draw from which model is a seeded permutation). Returns the draws (shaped (chains, draws),
    ``node_weight`` (chains, draws, nodes)) and the comparison rows (:func:`comparison_rows`).

    The draws: ``mu``, ``kappa`` (the Beta model's, every draw), ``inflated_mu``,
    ``inflated_kappa``, ``pi_pass``, ``pi_fail`` (the inflated model's, every draw),
    ``node_weight`` (the discrete model's where a draw comes from it, else zeros),
    ``component`` (0, 1, 2: the model of each draw) and ``diverging`` (all False).
    """
    total = chains * draws
    fitted = [
        fit_component(name, comp, priors=priors, n_draws=total if name != "discrete" else 0,
                      seed=seed, grid_size=grid_size)
        for name in COMPONENTS
    ]  # fmt: skip
    weights = _weights(fitted, comp.mult)
    counts = _allocate(weights, total)
    code = np.random.default_rng([seed, 7]).permutation(np.repeat(np.arange(3), counts))
    node_w = np.zeros((total, NODES))
    if counts[2]:  # the discrete model's draws only where they are used
        rng = np.random.default_rng(seed)
        d = discrete_posterior(comp.n, comp.c, comp.mult, n_draws=int(counts[2]), rng=rng)
        node_w[code == 2] = d.weight
    beta, infl = fitted[0].draws, fitted[1].draws
    flat: dict[str, NDArray[Any]] = {
        "mu": beta["mu"],
        "kappa": beta["kappa"],
        "inflated_mu": infl["mu"],
        "inflated_kappa": infl["kappa"],
        "pi_pass": infl["pi_pass"],
        "pi_fail": infl["pi_fail"],
        "component": code.astype(np.int8),
    }
    out: dict[str, NDArray[Any]] = {k: v.reshape(chains, draws) for k, v in flat.items()}
    out["node_weight"] = node_w.reshape(chains, draws, -1)
    out["diverging"] = np.zeros((chains, draws), dtype=bool)
    return out, comparison_rows(fitted, weights, comp.mult.astype(float))


def _weights(fitted: Sequence[Component], mult: NDArray[Any]) -> NDArray[np.float64]:
    """The stacking weights of the fitted models; the discrete model (last) gets weight 0 on
    fewer than :data:`DISCRETE_MIN_TASKS` tasks; below :data:`STACK_MIN_TASKS` tasks, no
    stacking: the Beta model (first) alone."""
    lpd = np.vstack([c.loo.lpd for c in fitted])
    if float(np.sum(mult)) < STACK_MIN_TASKS:
        return np.eye(len(fitted))[0]
    if float(np.sum(mult)) >= DISCRETE_MIN_TASKS:
        return stacking_weights(lpd, mult)
    return np.append(stacking_weights(lpd[:-1], mult), 0.0)


def _allocate(weights: NDArray[np.float64], total: int) -> NDArray[np.int64]:
    """Whole numbers of draws in proportion to ``weights`` summing to ``total`` (largest
    remainders).

    Examples
    --------
    >>> _allocate(np.array([0.5, 0.25, 0.25]), 10).tolist()
    [5, 3, 2]
    """
    raw = weights * total
    base = np.floor(raw).astype(np.int64)
    rest = total - int(base.sum())
    order = np.argsort(-(raw - base), kind="stable")
    base[order[:rest]] += 1
    return base
