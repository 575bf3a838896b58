"""The draws a leaderboard ranks from, by engine, and each system's value interval.

* ``"bootstrap"`` — the paired task bootstrap (:func:`passhat.rank.engine.paired_draws`);
  below :data:`passhat.scopes.MIN_TASKS` common tasks, each system's hierarchical posterior
  instead (the rule of :func:`passhat.estimate`: resampling so few tasks understates the
  spread);
* ``"joint"`` / ``"rasch"`` — the joint model's posterior draws, from a fit passed in (or
  made by the fit function passed in: this module never imports the model, a higher layer).

The value intervals are the draws' percentiles, the posterior's own, or, where every
bootstrap resample gave one value, :func:`passhat.estimate`'s population interval.

Examples
--------
>>> import passhat as ph
>>> from passhat.rank.inputs import ranked_data
>>> from passhat.rank.value_draws import value_draws
>>> d = ranked_data(ph.load_example("agents"), ks=[1], metrics=["mean"], weights=None,
...                 intersect=False, unscored_tasks="exclude")
>>> dr = value_draws(d, engine="bootstrap", ci=0.95, n_boot=200, fit=None, seed=0,
...                  rng=np.random.default_rng(0))
>>> dr.draws.shape, dr.draws_word
((200, 2, 1), 'resamples')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import xarray as xr
from numpy.typing import NDArray

from passhat.betabinom import posterior_grid
from passhat.compare.engine import TaskValues
from passhat.errors import ModelError
from passhat.estimators import WeightSpec
from passhat.hierarchical import Column, population_values, weighted_quantiles
from passhat.rank.engine import paired_draws
from passhat.rank.inputs import RankedData
from passhat.rank.result import engine_words, weights_note
from passhat.scopes import DEFAULT_PRIOR, GRID_SIZE, MIN_TASKS, weighted_multiplicities

__all__ = ["ValueDraws", "value_draws", "value_intervals"]


@dataclass(frozen=True)
class ValueDraws:
    """An engine's joint draws (draws × systems × columns), its own value intervals where
    they are not the draws' percentiles, and the words that say what they are."""

    draws: NDArray[np.float64]
    bounds: NDArray[np.float64] | None
    engine_label: str
    scope_label: str
    draws_word: str
    value_interval: str
    notes: list[str] = field(default_factory=list)


def value_draws(
    d: RankedData,
    *,
    engine: str,
    ci: float,
    n_boot: int,
    fit: Any,
    seed: int | None,
    rng: np.random.Generator,
    given: TaskValues | None = None,
) -> ValueDraws:
    """The joint draws of the engine: the paired task bootstrap; below ``MIN_TASKS`` tasks
    each system's hierarchical posterior (the rule of :func:`passhat.estimate`: resampling so
    few tasks understates the spread); or the joint model's posterior. ``given``: per-task
    values of the ranked columns (scores), resampled by the paired bootstrap."""
    if given is not None:
        draws = paired_draws(
            d.n, given.codes, d.w, d.cols, n_boot=n_boot, rng=rng, clusters=d.clusters,
            values=given.values,
        )  # fmt: skip
        words = engine_words("bootstrap" if d.clusters is None else "cluster bootstrap")
        return ValueDraws(draws, None, *words)
    if engine == "bootstrap" and d.tasks < MIN_TASKS:
        draws, bounds = _posterior_draws(d.n, d.c, d.w, d.cols, ci=ci, n_draws=n_boot, rng=rng)
        return ValueDraws(draws, bounds, *engine_words("posterior"), notes=weights_note(d.w))
    if engine == "bootstrap":
        draws = paired_draws(d.n, d.c, d.w, d.cols, n_boot=n_boot, rng=rng, clusters=d.clusters)
        words = engine_words("bootstrap" if d.clusters is None else "cluster bootstrap")
        return ValueDraws(draws, None, *words)
    draws, label = _joint_draws(d.ds, d.cols, fit, seed, engine)
    return ValueDraws(draws, None, label, *engine_words("joint")[1:])


def value_intervals(
    d: RankedData,
    dr: ValueDraws,
    *,
    engine: str,
    ci: float,
    n_boot: int,
    weights: WeightSpec,
    seed: int | None,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.object_]]:
    """Each value's marginal interval (systems × columns) and how it was made: the draws'
    percentiles, the posterior's own, or where the bootstrap collapsed to one value the
    interval :func:`passhat.estimate` gives."""
    alpha = round(1.0 - ci, 12)
    if dr.bounds is None:
        lows = np.quantile(dr.draws, alpha / 2, axis=0)
        highs = np.quantile(dr.draws, 1 - alpha / 2, axis=0)
    else:
        lows, highs = dr.bounds[:, 0, :], dr.bounds[:, 1, :]
    rule = np.full(lows.shape, "marginal", dtype=object)
    est = {"weights": weights, "ci": ci, "n_boot": n_boot, "seed": seed}
    if engine == "bootstrap" and dr.bounds is None:  # a degenerate bootstrap: estimate's
        flat = highs - lows <= 1e-12
        why = "every bootstrap resample gave one value"
        lows, highs, rule = _estimate_intervals(d, lows, highs, rule, est, flat, why)
    elif engine == "bootstrap":  # few tasks: where no task shows both outcomes, estimate's hull
        mixed: NDArray[np.bool_] = np.any((d.c > 0) & (d.c < d.n), axis=1)
        cells = np.broadcast_to(~mixed[:, None], lows.shape)
        why = "no task with both outcomes: the posterior's interval joined with the bound's"
        lows, highs, rule = _estimate_intervals(d, lows, highs, rule, est, cells, why)
    return lows, highs, rule


def _posterior_draws(
    n: NDArray[np.float64],
    c: NDArray[np.float64],
    w: NDArray[np.float64],
    cols: Sequence[Column],
    *,
    ci: float,
    n_draws: int,
    rng: np.random.Generator,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each system's hierarchical posterior of its population values (few common tasks).

    The rule of :func:`passhat.scopes.scope_intervals` below ``MIN_TASKS`` tasks: per
    system the Beta-Binomial posterior on the grid (with unequal task weights, the weighted
    population model, :func:`passhat.scopes.weighted_multiplicities`), its equal-tailed
    interval (the one :func:`passhat.estimate` prints) and ``n_draws`` draws of its nodes.
    Systems are drawn independently. Returns draws (draws × systems × columns) and
    intervals (systems × 2 × columns).
    """
    alpha = 1.0 - ci
    draws = np.empty((n_draws, n.shape[0], len(cols)))
    bounds = np.empty((n.shape[0], 2, len(cols)))
    for i in range(n.shape[0]):  # one small grid per system (a leaderboard's systems)
        cats, freq = np.unique(np.stack([n[i], c[i], w]), axis=1, return_counts=True)
        mult = weighted_multiplicities(cats[2], freq)
        nodes = posterior_grid(
            cats[0], cats[1], freq if mult is None else mult, prior=DEFAULT_PRIOR, size=GRID_SIZE
        ).nodes()
        pv = population_values(nodes, cols)
        bounds[i] = weighted_quantiles(pv, nodes.weight, [alpha / 2, 1 - alpha / 2])
        draws[:, i, :] = pv[nodes.sample(n_draws, rng)]
    return draws, bounds


def _joint_draws(
    ds: xr.Dataset, cols: Sequence[Column], fit: Any, seed: int | None, form: str
) -> tuple[NDArray[np.float64], str]:
    """Posterior draws (draws × systems × columns) of the joint model's population values.

    ``fit`` is a joint fit (``metric_draws`` and ``systems``), or a function that fits one
    (``passhat.fit``), called as ``fit(ds, model=form, seed=seed)`` on the ranked data:
    rank never imports the model itself (it is a higher layer).
    """
    if fit is not None and not callable(getattr(fit, "metric_draws", None)) and callable(fit):
        fit = fit(ds, model=form, seed=seed)  # its own errors name the rule broken
    if fit is None or not callable(getattr(fit, "metric_draws", None)):
        raise ModelError(
            f"engine={form!r} needs a joint model fit (got {type(fit).__name__}): pass "
            f"fit=passhat.fit(trials, model={form!r}), or fit=passhat.fit to fit it here with "
            "its defaults; or use engine='bootstrap'"
        )
    systems = [str(s) for s in ds["system"].values]
    parts = []
    for metric, kk in cols:
        out = fit.metric_draws(metric, kk, scope="population")
        # JointFit returns the (draws, systems) array with its column names in .systems
        draws, names = out if isinstance(out, tuple) else (out, fit.systems)
        names = [str(x) for x in names]
        missing = [x for x in systems if x not in names]
        if missing:
            raise ModelError(
                f"the joint fit has no draws for system(s) {missing}: fit it on the same data"
            )
        order = [names.index(x) for x in systems]
        parts.append(np.asarray(draws, dtype=float)[:, order])
    form = str(getattr(fit, "model", form))
    rasch = ", Rasch form (no system × task deviation)" if form == "rasch" else ""
    return np.stack(parts, axis=2), f"joint hierarchical model{rasch} (posterior draws)"


def _estimate_intervals(
    d: RankedData,
    lows: NDArray[np.float64],
    highs: NDArray[np.float64],
    rule: NDArray[np.object_],
    opts: dict[str, Any],
    cells: NDArray[np.bool_],
    why: str,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.object_]]:
    """The ``cells`` (systems × columns) take :func:`passhat.estimate`'s population interval.

    Two cases use it. When every resample of the tasks gives the same value (every task
    all-pass reads [1, 1]), the percentile interval claims the population value is known;
    it is not. And below :data:`passhat.scopes.MIN_TASKS` tasks, a system none of whose
    tasks shows both outcomes gets the hierarchical posterior's interval joined with the
    Clopper–Pearson-type one (the model cannot tell the spread of the rates from binomial
    noise there). Those cells take the interval the estimate's scope rule picks, and
    ``interval`` says so (``why``).
    """
    if not cells.any():
        return lows, highs, rule
    ds, cols = d.ds, d.cols
    from passhat.estimate import estimate  # same layer; only on this rare path

    ks = sorted({int(kk) for _, kk in cols})
    tables = {}  # each system on its own, as estimate gives it alone (twins get one interval)
    for i in np.flatnonzero(cells.any(axis=1)).tolist():
        t = estimate(ds.isel(system=[i]), k=ks, **opts).table
        tables[i] = t[t["scope"] == "population"].set_index(["metric", "k"])
    lows, highs, rule = lows.copy(), highs.copy(), rule.copy()
    for i, j in zip(*np.nonzero(cells), strict=True):  # the few degenerate cells
        row = tables[i].loc[(cols[j][0], int(cols[j][1]))]
        lows[i, j], highs[i, j] = float(row["lower"]), float(row["upper"])
        rule[i, j] = f"marginal: {row['method']} ({why})"
    return lows, highs, rule
