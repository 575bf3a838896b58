"""``rank``: a leaderboard of many systems on the same tasks, with rank uncertainty.

Per system, metric (mean, pass@k, pass^k) and k: the value and its interval,
the rank (ties share a rank), the **rank interval**, **P(rank = 1)** and the
**significance tier**, plus the pairwise matrix of differences. The engines:

* ``"bootstrap"`` — the paired task bootstrap (:mod:`passhat.rank.engine`):
  one multinomial draw of the tasks per resample serves every system, metric
  and k, so the correlation between systems is kept;
* ``"joint"`` — the posterior draws of the joint hierarchical model with
  crossed task effects, through a fit result's
  ``metric_draws(metric, k, *, scope)`` (draws × systems, named by ``.systems``).

The rank statistics are a pure function of the draw matrix
(:func:`passhat.rank.draws.rank_from_draws`), so both engines share them. The
pairwise tests always use the paired rule of :func:`passhat.compare`, Holm
across the pairs (:mod:`passhat.rank.pairs`); the pairs that need random sign
flips share one set of them (:mod:`passhat.signflip_shared`: the same test per
pair, at a cost nearly flat in the number of pairs). The tiers are cut from
those tests (:mod:`passhat.rank.tiers`).

Examples
--------
>>> import passhat as ph
>>> r = ph.rank(ph.load_example("agents"), k=[1, 2], n_boot=500, seed=0)
>>> r.table.loc[r.table["metric"] == "pass_hat_k", "system"].unique().tolist()
['guided', 'baseline']
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat._validate import (
    DEFAULT_N_BOOT,
    DEFAULT_SEED,
    check_ci,
    check_flag,
    check_method,
    check_n_boot,
    make_rng,
    norm_k,
)
from passhat.betabinom import posterior_grid
from passhat.errors import ModelError, OptionError, ShortTaskError, ValidationError
from passhat.estimators import METRICS, WeightSpec, task_weights
from passhat.exclusions import unscored_runs_note, unscored_task_rule, weight_zero_notes
from passhat.hierarchical import Column, population_values, weighted_quantiles
from passhat.intervals import outside_mask
from passhat.rank.draws import RANK_METHODS, rank_from_draws, simultaneous_band
from passhat.rank.engine import paired_draws, point_values
from passhat.rank.inputs import Input, combine_systems
from passhat.rank.pairs import pairwise
from passhat.rank.result import Ranking
from passhat.rank.tiers import TIER_RULES, assign_tiers, leaders
from passhat.scopes import DEFAULT_PRIOR, GRID_SIZE, MIN_TASKS, columns

__all__ = ["ENGINES", "combine_systems", "rank"]

#: The engines of :func:`rank`.
ENGINES = ("bootstrap", "joint", "rasch")


def _common_tasks(
    ds: xr.Dataset, *, intersect: bool, empty: NDArray[np.bool_]
) -> tuple[NDArray[np.bool_], pd.DataFrame]:
    """The tasks every system ran, and the dropped ones (or an error naming them).

    A task with no decided run for some system (``empty``) is left out for every system
    and listed, whatever ``intersect`` says.
    """
    systems = [str(s) for s in ds["system"].values]
    tasks = np.asarray(ds["task"].values, dtype=object).astype(str)
    present = np.asarray(ds["present"].values, dtype=bool)
    for i, s in enumerate(systems):
        others = present[np.arange(len(systems)) != i].any(axis=0)
        if not (present[i] & others).any():
            raise ValidationError(
                f"system {s!r} has no task in common with the others "
                f"({int(present[i].sum())} task(s) of its own, e.g. "
                f"{', '.join(tasks[present[i]][:3]) or 'none'}); a leaderboard compares "
                "systems on the same tasks"
            )
    no_decided = np.asarray(empty, dtype=bool).any(axis=0)
    common = np.asarray(present.all(axis=0), dtype=bool) & ~no_decided
    if not common.any():
        raise ValidationError(
            f"no task was run by all {len(systems)} systems; a leaderboard compares systems "
            "on the same tasks (rank subsets of systems that share tasks)"
        )
    partial = present.any(axis=0) & ~present.all(axis=0)
    rows = [
        {
            "task": tasks[t],
            "reason": "not run by "
            + ", ".join(s for s, p in zip(systems, present[:, t], strict=True) if not p),
        }
        for t in np.flatnonzero(partial)
    ]
    if rows and not intersect:
        shown = "; ".join(f"{r['task']} ({r['reason']})" for r in rows[:5])
        more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
        raise ValidationError(
            f"{len(rows)} task(s) not run by every system: {shown}{more}; pass "
            "intersect=True / --intersect to rank on the tasks all systems ran"
        )
    for t in np.flatnonzero(no_decided & present.all(axis=0)):
        who = [s for s, e in zip(systems, empty[:, t], strict=True) if e]
        rows.append({"task": tasks[t], "reason": f"no decided run for {', '.join(who)}"})
    return common, pd.DataFrame(rows, columns=["task", "reason"])


def _shared_weights(ds: xr.Dataset, spec: WeightSpec, known: Any = None) -> NDArray[np.float64]:
    """One weight per task, the same for every system; ``known``: every task of the input."""
    t_n = ds.sizes["task"]
    if spec is None or spec == "equal":
        return np.ones(t_n)
    w = np.asarray(task_weights(ds, spec, tasks=known).values, dtype=float)
    same = np.isclose(w, w[:1], rtol=1e-9, atol=0.0).all(axis=0)
    if not same.all():
        t = int(np.flatnonzero(~same)[0])
        task = str(ds["task"].values[t])
        raise ValidationError(
            f"task {task!r} has different weights across systems "
            f"({', '.join(f'{x:g}' for x in w[:, t])}); a leaderboard needs one weight per task"
        )
    if w[0].sum() <= 0:
        raise ValidationError("every common task has weight 0")
    return w[0]


def _posterior_draws(
    n: NDArray[np.float64],
    c: NDArray[np.float64],
    cols: Sequence[Column],
    *,
    ci: float,
    n_draws: int,
    rng: np.random.Generator,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each system's hierarchical posterior of its population values (few common tasks).

    The rule of :func:`passhat.scopes.scope_intervals` below ``MIN_TASKS`` tasks: per
    system the Beta-Binomial posterior on the grid, its equal-tailed interval (the one
    :func:`passhat.estimate` prints) and ``n_draws`` draws of its nodes. Systems are drawn
    independently. Returns draws (draws × systems × columns) and intervals
    (systems × 2 × columns).
    """
    alpha = 1.0 - ci
    draws = np.empty((n_draws, n.shape[0], len(cols)))
    bounds = np.empty((n.shape[0], 2, len(cols)))
    for i in range(n.shape[0]):  # one small grid per system (a leaderboard's systems)
        pairs, freq = np.unique(np.stack([n[i], c[i]]), axis=1, return_counts=True)
        nodes = posterior_grid(
            pairs[0], pairs[1], freq, prior=DEFAULT_PRIOR, size=GRID_SIZE
        ).nodes()
        pv = population_values(nodes, cols)
        bounds[i] = weighted_quantiles(pv, nodes.weight, [alpha / 2, 1 - alpha / 2])
        draws[:, i, :] = pv[nodes.sample(n_draws, rng)]
    return draws, bounds


def _joint_draws(
    ds: xr.Dataset, cols: Sequence[Column], fit: Any, seed: int | None, form: str
) -> tuple[NDArray[np.float64], str]:
    """Posterior draws (draws × systems × columns) of the joint model's population values."""
    if fit is None:
        # passhat.model is a higher layer: never import it from here; the package's
        # public ``fit`` (loaded on first use) is looked up when the joint engine is asked for
        fit_fn = getattr(sys.modules.get("passhat"), "fit", None)
        if fit_fn is not None:
            fit = fit_fn(ds, model=form, seed=seed)  # its own errors name the rule broken
    if fit is None or not callable(getattr(fit, "metric_draws", None)):
        raise ModelError(
            "engine='joint' needs a joint model fit (passhat.fit(trials, model='joint'), "
            f"got {type(fit).__name__}); use engine='bootstrap' or pass fit=JointFit"
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


def rank(
    data: Input | Sequence[Input],
    *,
    k: int | Sequence[int] = (1, 4),
    metrics: Sequence[str] = METRICS,
    ci: float = 0.95,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = DEFAULT_SEED,
    engine: Literal["bootstrap", "joint", "rasch"] = "bootstrap",
    weights: WeightSpec = None,
    intersect: bool = False,
    unscored_tasks: Literal["exclude", "error"] = "exclude",
    rank_method: Literal["pairwise", "percentile"] = "pairwise",
    tier_rule: Literal["chain", "leader"] = "chain",
    fit: Any = None,
) -> Ranking:
    """Leaderboard of several systems on the same tasks: ranks, rank intervals, tiers.

    Parameters
    ----------
    data : Trials, count table, or a sequence of them
        Several systems (one input with a system column, or one input per
        system; a system may not appear twice).
    k : int or sequence of int
        The k grid (every system needs n ≥ max k on every common task).
    metrics : sequence of {"mean", "pass_at_k", "pass_hat_k"}
    ci : float
        Level of every interval, the rank intervals and the tiers' tests.
    n_boot : int
        Bootstrap resamples (shared by every system, metric and k), also the
        pairwise tests' random sign flips and posterior draws — at least
        2 · pairs / (1 − ci) flips, so that a permutation p-value can pass
        Holm's first step (1225 pairs at 95%: 49,000).
    seed : int, optional
    engine : {"bootstrap", "joint", "rasch"}
        ``"joint"`` uses the joint model's posterior draws (``fit``, or
        ``passhat.fit(data, model="joint")`` when the model offers it);
        ``"rasch"`` the same model without the system × task deviation
        (``model="rasch"``: cost nearly flat in the tasks).
    weights : None, "equal", "declared", "category" or mapping
        Task weights as in :func:`passhat.estimate`; one weight per task,
        shared by the systems.
    intersect : bool
        Rank on the tasks every system ran (the others listed in
        ``dropped``) instead of raising an error naming them.
    unscored_tasks : {"exclude", "error"}
        A task with no decided run for some system (every run unscored) is
        left out for every system and listed in ``dropped`` (the rule of
        :mod:`passhat.exclusions`), or refused.
    rank_method : {"pairwise", "percentile"}
        Rank-interval construction (:mod:`passhat.rank.draws`).
    tier_rule : {"chain", "leader"}
        How tiers are cut (:func:`passhat.rank.tiers.assign_tiers`).
    fit : optional
        A :class:`passhat.JointFit` (or any result with ``metric_draws(metric, k, *,
        scope)`` → draws × systems and ``.systems``) for ``engine="joint"``; without
        it the joint model is fitted with its defaults.

    Returns
    -------
    Ranking

    Examples
    --------
    >>> import passhat as ph
    >>> r = ph.rank(ph.load_example("agents"), k=1, n_boot=500, seed=0)
    >>> r.table[["system", "rank", "tier"]].head(2).values.tolist()
    [['guided', 1, 1], ['baseline', 2, 2]]
    """
    level = check_ci(ci)
    nb = check_n_boot(n_boot)
    check_method(engine, ENGINES, "engine")
    check_method(rank_method, RANK_METHODS, "rank_method")
    check_method(tier_rule, TIER_RULES, "tier_rule")
    intersect = check_flag(intersect, "intersect")
    ks = norm_k(k)
    mets = [check_method(m, METRICS, "metric") for m in metrics]
    if not mets:
        raise OptionError("metrics: give at least one of mean, pass_at_k, pass_hat_k")
    ds_all = combine_systems(data)
    systems = [str(s) for s in ds_all["system"].values]
    if len(systems) < 2:
        raise ValidationError(
            f"a leaderboard needs at least two systems; the input holds one ({systems[0]!r})"
            if systems
            else "a leaderboard needs at least two systems; the input holds none"
        )
    empty, _ = unscored_task_rule(ds_all, unscored_tasks)
    common, dropped = _common_tasks(ds_all, intersect=intersect, empty=empty)
    ds = ds_all.isel(task=np.flatnonzero(common))
    n = np.asarray(ds["n"].values, dtype=float)
    c = np.asarray(ds["c"].values, dtype=float)
    kmax = max(ks)
    for i, s in enumerate(systems):
        short = n[i] < kmax
        if short.any():
            bad = np.asarray(ds["task"].values, dtype=object).astype(str)[short]
            raise ShortTaskError(
                f"system {s!r}: k = {kmax} exceeds its n = {int(n[i].min())} decided runs on "
                f"{len(bad)} task(s), e.g. {', '.join(bad[:3])}; lower k or run more trials"
            )
    w_all = _shared_weights(ds, weights, ds_all["task"].values)
    keep = w_all > 0
    n, c, w = n[:, keep], c[:, keep], w_all[keep]
    t_n = int(keep.sum())
    cols = [col for col in columns(ks) if col[0] in mets]
    rng = make_rng(seed)
    bounds = None
    notes = unscored_runs_note(ds_all) + ds_all.attrs.get("across_inputs_notes", [])
    notes += weight_zero_notes(ds["task"].values[~keep])
    if engine == "bootstrap" and t_n < MIN_TASKS:
        # resampling fewer than MIN_TASKS tasks understates the spread (one task: no spread
        # at all); the rule of `estimate` takes each system's hierarchical posterior
        draws, bounds = _posterior_draws(n, c, cols, ci=level, n_draws=nb, rng=rng)
        engine_label = (
            "hierarchical Beta-Binomial posterior of each system, grid quadrature, drawn "
            f"independently (rule: fewer than {MIN_TASKS} common tasks, too few to resample; "
            "the task effects the systems share are not modelled: --engine joint does)"
        )
        scope_label = (
            "population scope (expected value over tasks like these), posterior equal-tailed "
            "(the interval passhat estimate gives)"
        )
        # what a draw is, and the value interval, in the words the outputs print
        draws_word, value_interval = (
            "draws",
            (
                "posterior interval of each system's hierarchical model (the interval passhat "
                f"estimate gives below {MIN_TASKS} tasks)"
            ),
        )
        if np.ptp(w) > 1e-12 * np.max(w):
            notes = [*notes, "the posterior values ignore task weights: tasks exchangeable"]
    elif engine == "bootstrap":
        draws = paired_draws(n, c, w, cols, n_boot=nb, rng=rng)
        engine_label = "paired task bootstrap (one draw of tasks shared by every system and k)"
        scope_label = "population scope (expected value over tasks like these), percentile"
        draws_word, value_interval = "resamples", "percentile interval of the paired task bootstrap"
    else:
        sub = ds.isel(task=np.flatnonzero(keep))
        draws, engine_label = _joint_draws(sub, cols, fit, seed, engine)
        scope_label = (
            "population scope (expected value over tasks like these), posterior equal-tailed"
        )
        draws_word = "draws"
        value_interval = "posterior interval (joint model; the value is the posterior mean)"
    # the point values: the unbiased estimates (bootstrap), the posterior means (joint model)
    point = point_values(n, c, w, cols) if engine == "bootstrap" else draws.mean(axis=0)
    alpha = round(1.0 - level, 12)
    if bounds is None:
        lows = np.quantile(draws, alpha / 2, axis=0)
        highs = np.quantile(draws, 1 - alpha / 2, axis=0)
    else:
        lows, highs = bounds[:, 0, :], bounds[:, 1, :]
    rule = np.full(lows.shape, "marginal", dtype=object)
    if engine == "bootstrap" and bounds is None:  # a degenerate bootstrap: estimate's rule
        opts = {"weights": weights, "ci": level, "n_boot": nb, "seed": seed}
        ds_kept = ds.isel(task=np.flatnonzero(keep))
        lows, highs, rule = _flat_intervals(ds_kept, cols, systems, lows, highs, rule, opts)
    # ---- pairwise matrix and tiers: the compare rule for every pair
    pt, n_pairs, n_flips = pairwise(
        n, c, w, draws, systems, cols, ks, mets, level=level, n_boot=nb, seed=seed
    )
    rows: list[pd.DataFrame] = []  # systems with identical counts share their rank statistics
    twins = np.unique(np.concatenate([n, c], axis=1), axis=0, return_inverse=True)[1].ravel()
    for j, (metric, kk) in enumerate(cols):
        r = rank_from_draws(
            draws[:, :, j], systems, point[:, j], ci=level, rank_method=rank_method, groups=twins
        )
        pop = pt[(pt["metric"] == metric) & (pt["k"] == kk) & (pt["scope"] == "population")]
        adj = np.full((len(systems), len(systems)), np.nan)
        adj[pop["a"].to_numpy(int), pop["b"].to_numpy(int)] = pop["p_holm"].to_numpy(float)
        adj[pop["b"].to_numpy(int), pop["a"].to_numpy(int)] = pop["p_holm"].to_numpy(float)
        r["tier"] = assign_tiers(point[:, j], adj, alpha=alpha, rule=tier_rule)
        lead = leaders(point[:, j], r["tier"].to_numpy())
        r["tier_leader"] = [systems[i] for i in lead]
        r["separated_from_leader"] = [
            bool(adj[i, lead[i]] <= alpha) if i != lead[i] else False for i in range(len(systems))
        ]
        r.insert(1, "metric", metric)
        r.insert(2, "k", kk)
        r["lower"] = np.clip(lows[:, j], 0.0, 1.0)
        r["upper"] = np.clip(highs[:, j], 0.0, 1.0)
        r["scope"] = "population"
        r["interval"] = rule[:, j]
        r["tasks"] = t_n
        r["engine"] = engine
        rows.append(r.sort_values(["rank", "system"], kind="stable"))
    table = pd.concat(rows, ignore_index=True)
    outside = int(outside_mask(table["value"], table["lower"], table["upper"], tol=0.0).sum())
    if outside:
        notes = [
            *notes,
            f"{outside} value(s) lie outside their interval: the value is the unbiased "
            "estimate on these tasks; the interval follows passhat estimate's rule where "
            "resampling fails (a hierarchical posterior, or a Bayesian bootstrap with half a "
            "pseudo-task at 0 and at 1), which pulls toward the middle",
        ]
    bands = _bands(draws, point, cols, systems, level)
    headline = ("pass_hat_k", kmax) if "pass_hat_k" in mets else cols[-1]
    settings = {
        "k": ks,
        "metrics": mets,
        "ci": level,
        "n_boot": nb,
        "seed": seed,
        "engine": engine,
        "engine_label": engine_label,
        "scope_label": scope_label,
        "draws_word": draws_word,
        "value_interval": value_interval,
        "rank_method": rank_method,
        "tier_scope": "population",
        "tier_rule": tier_rule,
        "pairs_tested": n_pairs,
        "pair_flips": n_flips,
        "tasks": t_n,
        "intersect": intersect,
        "weights": weights if isinstance(weights, str | None) else "mapping",
        "headline": headline,
    }
    return Ranking(
        table=table,
        pairs=pt.drop(columns=["a", "b"]),
        bands=bands,
        draws=draws,
        columns=cols,
        systems=systems,
        dropped=dropped,
        settings=settings,
        notes=[*notes, *_flat_note(table)],
    )


def _flat_note(table: pd.DataFrame) -> list[str]:
    """Which value intervals are not the percentile bootstrap's (:func:`_flat_intervals`)."""
    odd = table[table["interval"] != "marginal"]
    if odd.empty:
        return []
    r = odd.iloc[0]
    return [
        f"{len(odd)} value interval(s) are not the bootstrap's percentile interval, e.g. "
        f"{r['system']} {r['metric']} k = {int(r['k'])}: every task resample gave the same "
        "value (a zero-width interval), so they are passhat.estimate's population intervals "
        "(the method is in the interval column)."
    ]


def _flat_intervals(
    ds: xr.Dataset,
    cols: list[Column],
    systems: list[str],
    lows: NDArray[np.float64],
    highs: NDArray[np.float64],
    rule: NDArray[np.object_],
    opts: dict[str, Any],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.object_]]:
    """Zero-width percentile intervals replaced by :func:`passhat.estimate`'s population ones.

    When every resample of the tasks gives the same value (every task all-pass reads
    [1, 1]), the percentile interval claims the population value is known; it is not. Those
    cells take the interval the estimate's scope rule picks (with few tasks the hierarchical
    model's, :mod:`passhat.intervals`), and ``interval`` says so.
    """
    flat = highs - lows <= 1e-12
    if not flat.any():
        return lows, highs, rule
    from passhat.estimate import estimate  # same layer; only on this rare path

    ks = sorted({int(kk) for _, kk in cols})
    t = estimate(ds, k=ks, **opts).table
    t = t[t["scope"] == "population"].set_index(["system", "metric", "k"])
    lows, highs, rule = lows.copy(), highs.copy(), rule.copy()
    for i, j in zip(*np.nonzero(flat), strict=True):  # the few degenerate cells
        row = t.loc[(systems[i], cols[j][0], int(cols[j][1]))]
        lows[i, j], highs[i, j] = float(row["lower"]), float(row["upper"])
        rule[i, j] = f"marginal: {row['method']} (every bootstrap resample gave one value)"
    return lows, highs, rule


def _bands(
    draws: NDArray[np.float64],
    point: NDArray[np.float64],
    cols: Sequence[Column],
    systems: Sequence[str],
    level: float,
) -> pd.DataFrame:
    """Simultaneous bands over the k grid, per system, for pass@k and pass^k."""
    parts = []
    for metric in ("pass_at_k", "pass_hat_k"):
        idx = [j for j, (m, _) in enumerate(cols) if m == metric]
        if not idx:
            continue
        grid = ", ".join(str(cols[j][1]) for j in idx)
        for s, name in enumerate(systems):
            lo, hi, crit = simultaneous_band(draws[:, s, idx], point[s, idx], ci=level)
            parts.append(
                pd.DataFrame(
                    {
                        "system": name,
                        "metric": metric,
                        "k": [cols[j][1] for j in idx],
                        "value": point[s, idx],
                        "lower": np.clip(lo, 0.0, 1.0),
                        "upper": np.clip(hi, 0.0, 1.0),
                        "crit": crit,
                        "interval": f"simultaneous over k = {grid}",
                    }
                )
            )
    cols_out = ["system", "metric", "k", "value", "lower", "upper", "crit", "interval"]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols_out)
