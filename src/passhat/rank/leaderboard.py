"""``rank``: a leaderboard of many systems on the same tasks, with rank uncertainty.

Per system, metric (mean, pass@k, pass^k) and k: the value and its interval,
the rank (ties share a rank), the **rank interval**, the **share of draws
ranked first** and the **group letters** (systems that share a letter are
not separated), plus the pairwise matrix of differences. The engines:

* ``"bootstrap"`` — the paired task bootstrap (:mod:`passhat.rank.engine`):
  one multinomial draw of the tasks per resample serves every system, metric
  and k, so the correlation between systems is kept;
* ``"joint"`` — the posterior draws of the joint hierarchical model with
  crossed task effects, through a fit result's
  ``metric_draws(metric, k, *, scope)`` (draws × systems, named by ``.systems``),
  passed in as ``fit=`` (or the function that fits it, ``fit=passhat.fit``: rank never
  imports the model, a higher layer).

Where the draws come from and the value intervals are :mod:`passhat.rank.value_draws`; the
tasks ranked on, :mod:`passhat.rank.inputs`; the result and its display,
:mod:`passhat.rank.result`. Here: the options, the leaderboard of each metric and k, the
tiers, the settings.

The rank statistics are a pure function of the draw matrix
(:func:`passhat.rank.draws.rank_from_draws`), so both engines share them. The
pairwise tests always use the paired rule of :func:`passhat.compare`, Holm
across the pairs (:mod:`passhat.rank.pairs`); the pairs that need random sign
flips share one set of them (:mod:`passhat.signflip_shared`: the same test per
pair, at a cost nearly flat in the number of pairs). The group letters are a
compact letter display of those tests (:mod:`passhat.rank.tiers`). Below
:data:`passhat.scopes.MIN_TASKS` common tasks, where the bootstrap engine's
draws are each system's own posterior (independent, so they ignore the
pairing), the rank intervals come from the same paired tests instead
(:func:`passhat.rank.pairs.paired_rank_sets`).

Examples
--------
>>> import passhat as ph
>>> r = ph.rank(ph.load_example("agents"), k=[1, 2], n_boot=500, seed=0)
>>> r.table.loc[r.table["metric"] == "pass_hat_k", "system"].unique().tolist()
['guided', 'baseline']
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np
import pandas as pd
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
    resolve_seed,
)
from passhat.clusters import RANK_CLUSTERS, cluster_notes
from passhat.compare.engine import TaskValues
from passhat.compare.paired import SCORE_NAMES
from passhat.compare.scores import score_task_values, score_trials
from passhat.errors import OptionError
from passhat.estimators import METRICS, WeightSpec
from passhat.hierarchical import Column
from passhat.rank.categories import category_rankings
from passhat.rank.categories_result import CategoryRanking
from passhat.rank.draws import RANK_METHODS, rank_from_draws, simultaneous_band
from passhat.rank.engine import point_values
from passhat.rank.inputs import Input, RankedData, combine_systems, inputs_of, ranked_data
from passhat.rank.pairs import paired_rank_sets, pairwise
from passhat.rank.result import Ranking, flat_note, outside_note
from passhat.rank.tiers import letter_display
from passhat.rank.value_draws import ValueDraws, value_draws, value_intervals
from passhat.scopes import MIN_TASKS, columns
from passhat.trials import provenance

__all__ = ["ENGINES", "combine_systems", "rank"]

#: The engines of :func:`rank`.
ENGINES = ("bootstrap", "joint", "rasch")


@dataclass(frozen=True)
class _Options:
    """The options of :func:`rank`, validated."""

    level: float
    n_boot: int
    engine: str
    rank_method: str
    intersect: bool
    metrics: list[str]
    ks: list[int] | None
    weights: WeightSpec
    unscored_tasks: str


def rank(
    data: Input | Sequence[Input],
    *,
    k: int | Sequence[int] | None = None,
    metrics: Sequence[str] = METRICS,
    ci: float = 0.95,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = DEFAULT_SEED,
    engine: Literal["bootstrap", "joint", "rasch"] = "bootstrap",
    weights: WeightSpec = None,
    intersect: bool = False,
    unscored_tasks: Literal["exclude", "error"] = "exclude",
    rank_method: Literal["pairwise", "percentile"] = "pairwise",
    tier_rule: str | None = None,
    fit: Any = None,
    scores: bool = False,
    by: str | None = None,
) -> Ranking:
    """Leaderboard of several systems on the same tasks: ranks, rank intervals, tiers.

    Parameters
    ----------
    data : Trials, count table, or a sequence of them
        Several systems (one input with a system column, or one input per
        system; a system may not appear twice).
    k : int or sequence of int, optional
        The k grid (every system needs n ≥ max k on every common task).
        Default: passhat's one default k, :func:`passhat.exclusions.default_ks`
        (1, 2 and 5, capped at the fewest decided runs).
    metrics : sequence of {"mean", "pass_at_k", "pass_hat_k"}
    ci : float
        Level of every interval, the rank intervals and the tiers' tests.
    n_boot : int
        Bootstrap resamples (shared by every system, metric and k), also the
        pairwise tests' random sign flips and posterior draws — at least
        2 · pairs / (1 − ci) flips, so that a permutation p-value can pass
        Holm's first step (1225 pairs at 95%: 49,000); with ``by``, also the
        category test's random relabellings (exact enumeration when fewer
        suffice; fewer, never below 999, on very many tasks).
    seed : int, optional
    engine : {"bootstrap", "joint", "rasch"}
        ``"joint"`` uses the joint model's posterior draws (``fit``);
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
        Rank-interval construction from the draws (:mod:`passhat.rank.draws`),
        with 30 common tasks or more or another engine; below 30 tasks the
        bootstrap engine's rank intervals come from the paired tests
        (:func:`passhat.rank.pairs.paired_rank_sets`).
    tier_rule : optional
        Deprecated, no effect: tiers gave way to the group letters (a compact
        letter display of the paired tests, :mod:`passhat.rank.tiers`).
    fit : optional
        For ``engine="joint"`` / ``"rasch"``: a :class:`passhat.JointFit` (or any
        result with ``metric_draws(metric, k, *, scope)`` → draws × systems and
        ``.systems``), or the function that fits one, e.g. ``fit=passhat.fit``:
        called as ``fit(data, model=engine, seed=seed)`` on the ranked data with
        the model's defaults (what ``passhat rank --engine joint`` does).

    scores : bool
        Rank each run's score in [0, 1] (partial credit) instead of pass/fail: the metrics
        ``mean``, ``pass_at_k`` and ``pass_hat_k`` become the mean score and the expected
        best / worst of k (named ``mean_score``, ``best_of_k``, ``worst_of_k`` in the
        tables; those names are accepted in ``metrics`` too), per task as
        :func:`passhat.compare_scores`; the paired bootstrap draws them and the pairwise
        tests are :func:`passhat.compare_scores`'. Needs runs with scores, the bootstrap
        engine and at least 30 common tasks.
    by : {"category"}, optional
        Also the leaderboard of each category of tasks (``by_category``: every row equal to
        ``rank`` of that category's tasks with these options and seed) and, per metric and k,
        a permutation test of whether the systems' differences depend on the category, Holm
        over the metrics and k (:mod:`passhat.rank.categories`). The bootstrap engine only
        (the joint model fits every task at once); with ``scores``, at least 30 tasks per
        category.

    Returns
    -------
    Ranking

    Examples
    --------
    >>> import passhat as ph
    >>> r = ph.rank(ph.load_example("agents"), k=1, n_boot=500, seed=0)
    >>> r.table[["system", "rank", "group"]].head(2).values.tolist()
    [['guided', 1, 'a'], ['baseline', 2, 'b']]
    """
    if tier_rule is not None:
        warnings.warn(
            "rank(tier_rule=...) has no effect: the tiers gave way to group letters (systems "
            "that share a letter are not separated); it will be removed in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
    if scores:  # the score metrics by their own names, or by the 0/1 metric they generalise
        back = {v: key for key, v in SCORE_NAMES.items()}
        metrics = [back.get(m, m) for m in metrics]
    opts = _options(
        k=k,
        metrics=metrics,
        ci=ci,
        n_boot=n_boot,
        engine=engine,
        rank_method=rank_method,
        intersect=intersect,
        weights=weights,
        unscored_tasks=unscored_tasks,
    )
    d = ranked_data(
        data,
        ks=opts.ks,
        metrics=opts.metrics,
        weights=weights,
        intersect=opts.intersect,
        unscored_tasks=unscored_tasks,
    )
    given = _score_values(data, d, opts) if scores else None
    by_cat = None
    if by is not None:
        by_cat = _by_category(data, d, opts, seed, given=given, by=by)
    return _ranking(data, d, opts, seed, fit=fit, given=given, by_category=by_cat)


def _by_category(
    data: Input | Sequence[Input],
    d: RankedData,
    opts: _Options,
    seed: int | None,
    *,
    given: TaskValues | None,
    by: str,
) -> CategoryRanking:
    """The leaderboard of each category and the test across them (``by``)."""
    if opts.engine != "bootstrap":
        raise OptionError(
            "{param} ranks each category with the paired bootstrap; {engine} "
            f"{opts.engine!r} fits one model of every task (leave out one of them, or rank "
            "each category's runs on their own)",
            param="by",
            also=("engine",),
        )
    score_values = None
    if given is not None:
        trials = score_trials(inputs_of(data), d.systems)

        def score_values(sub: RankedData) -> TaskValues:
            return score_task_values(trials, sub.ds, sub.ks)

    def rank_one(
        sub: RankedData, values: TaskValues | None
    ) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
        r = _ranking(data, sub, opts, seed, fit=None, given=values)
        return r.table.assign(method=r.settings["value_interval"]), r.pairs, r.notes

    return category_rankings(
        d, given, rank_one, by=by, n_perm=opts.n_boot, seed=resolve_seed(seed),
        score_values=score_values, sources=tuple(provenance(x) for x in inputs_of(data)),
        ci=opts.level,
    )  # fmt: skip


def _score_values(data: Input | Sequence[Input], d: RankedData, opts: _Options) -> TaskValues:
    """Every ranked task's score values (scores=True), checked: the paired bootstrap on at
    least :data:`passhat.scopes.MIN_TASKS` tasks is the engine that resamples them."""
    if opts.engine != "bootstrap" or d.tasks < MIN_TASKS:
        raise OptionError(
            "{param} ranks with the paired bootstrap on at least "
            f"{MIN_TASKS} common tasks (here: engine {opts.engine!r}, {d.tasks} tasks); "
            "scores have no hierarchical model",
            param="scores",
        )
    trials = score_trials(inputs_of(data), d.systems)
    return score_task_values(trials, d.ds, d.ks)


def _ranking(
    data: Input | Sequence[Input],
    d: RankedData,
    opts: _Options,
    seed: int | None,
    *,
    fit: Any,
    given: TaskValues | None,
    by_category: CategoryRanking | None = None,
) -> Ranking:
    """The leaderboard of the ranked data: draws, values, pairwise tests, letters, bands."""
    rng = make_rng(seed)
    idx = [columns(d.ks).index(col) for col in d.cols]
    sub = None if given is None else replace(given, values=given.values[:, :, idx])
    dr = value_draws(
        d, engine=opts.engine, ci=opts.level, n_boot=opts.n_boot, fit=fit, seed=seed, rng=rng,
        given=sub,
    )  # fmt: skip
    # the point values: the unbiased estimates (bootstrap), the posterior means (joint model)
    if sub is not None:
        point = np.einsum("t,stc->sc", d.w / d.w.sum(), sub.values)
    elif opts.engine == "bootstrap":
        point = point_values(d.n, d.c, d.w, d.cols)
    else:
        point = dr.draws.mean(axis=0)
    lows, highs, rule = value_intervals(
        d,
        dr,
        engine=opts.engine if sub is None else "scores",  # no 0/1 fallback for scores
        ci=opts.level,
        n_boot=opts.n_boot,
        weights=opts.weights,
        seed=seed,
    )
    # ---- pairwise matrix and tiers: the compare rule for every pair
    pt, n_pairs, n_flips = pairwise(
        d.n, d.c, d.w, dr.draws, d.systems, d.cols, d.ks, opts.metrics, level=opts.level,
        n_boot=opts.n_boot, seed=seed, clusters=d.clusters, task_values=given,
    )  # fmt: skip
    table = _leaderboard(d, dr.draws, point, pt, (lows, highs, rule), opts)
    settings = _settings(d, dr, opts, seed, n_pairs=n_pairs, n_flips=n_flips)
    bands = _bands(dr.draws, point, d.cols, d.systems, opts.level)
    cols = d.cols
    if given is not None:  # the score metrics' names
        table, pt, bands = (_named(x) for x in (table, pt, bands))
        cols = [(SCORE_NAMES[m], kk) for m, kk in d.cols]
        settings["headline"] = (SCORE_NAMES[settings["headline"][0]], settings["headline"][1])
        settings["scores"] = True
    return Ranking(
        table=table,
        pairs=pt.drop(columns=["a", "b"]),
        bands=bands,
        draws=dr.draws,
        columns=cols,
        systems=d.systems,
        dropped=d.dropped,
        settings=settings,
        notes=[
            *d.notes,
            *dr.notes,
            *outside_note(table),
            *flat_note(table),
            *_cluster_notes(d, opts.engine),
        ],
        sources=tuple(provenance(x) for x in inputs_of(data)),
        by_category=by_category,
    )


def _named(frame: pd.DataFrame) -> pd.DataFrame:
    """A table's 0/1 metric names as the score metrics they hold (mean_score, best_of_k,
    worst_of_k)."""
    return frame.assign(metric=frame["metric"].map(SCORE_NAMES))


def _options(
    *,
    k: int | Sequence[int] | None,
    metrics: Sequence[str],
    ci: float,
    n_boot: int,
    engine: str,
    rank_method: str,
    intersect: bool,
    weights: WeightSpec,
    unscored_tasks: str,
) -> _Options:
    """The options of :func:`rank`, checked (an error names the one broken)."""
    level = check_ci(ci)
    nb = check_n_boot(n_boot)
    engine = check_method(engine, ENGINES, "engine")
    rank_method = check_method(rank_method, RANK_METHODS, "rank_method")
    intersect = check_flag(intersect, "intersect")
    ks = None if k is None else norm_k(k)
    mets = [check_method(m, METRICS, "metric") for m in metrics]
    if not mets:
        raise OptionError("metrics: give at least one of mean, pass_at_k, pass_hat_k")
    return _Options(level, nb, engine, rank_method, intersect, mets, ks, weights, unscored_tasks)


def _leaderboard(
    d: RankedData,
    draws: NDArray[np.float64],
    point: NDArray[np.float64],
    pt: pd.DataFrame,
    intervals: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.object_]],
    opts: _Options,
) -> pd.DataFrame:
    """One block per column (metric, k), best first: the rank statistics of the draws (the
    rank intervals of the paired tests where the draws ignore the pairing), the group letters
    of the Holm-adjusted pairwise tests, the value interval."""
    lows, highs, rule = intervals
    # systems with identical counts share their rank statistics
    twins = _twins(np.concatenate([d.n, d.c], axis=1))
    alpha = round(1.0 - opts.level, 12)
    unpaired = opts.engine == "bootstrap" and d.tasks < MIN_TASKS
    rows: list[pd.DataFrame] = []
    for j, (metric, kk) in enumerate(d.cols):
        r = rank_from_draws(
            draws[:, :, j],
            d.systems,
            point[:, j],
            ci=opts.level,
            rank_method=opts.rank_method,  # type: ignore[arg-type]
            groups=twins,
        )
        pop = pt[(pt["metric"] == metric) & (pt["k"] == kk) & (pt["scope"] == "population")]
        if unpaired:  # each system's own posterior: rank intervals from the paired tests
            lo, hi = paired_rank_sets(pop, point[:, j], len(d.systems), alpha=alpha)
            r["rank_lower"], r["rank_upper"] = lo, hi
            r["rank_method"] = "paired tests"
        adj = _adjusted(pop, len(d.systems))
        r["group"] = letter_display(point[:, j], adj, alpha=alpha)
        r.insert(1, "metric", metric)
        r.insert(2, "k", kk)
        r["lower"] = np.clip(lows[:, j], 0.0, 1.0)
        r["upper"] = np.clip(highs[:, j], 0.0, 1.0)
        r["scope"] = "population"
        r["interval"] = rule[:, j]
        r["tasks"] = d.tasks
        r["engine"] = "posterior" if unpaired else opts.engine  # what drew the values
        rows.append(r.sort_values(["rank", "system"], kind="stable"))
    return pd.concat(rows, ignore_index=True)


def _twins(rows: NDArray[np.float64]) -> NDArray[np.int64]:
    """A label per row, equal for equal rows (a dictionary of the rows, not a sort of them).

    >>> _twins(np.array([[1.0, 2.0], [0.0, 1.0], [1.0, 2.0]])).tolist()
    [0, 1, 0]
    """
    seen: dict[tuple[float, ...], int] = {}
    return np.array([seen.setdefault(tuple(r), len(seen)) for r in rows.tolist()], dtype=np.int64)


def _adjusted(pop: pd.DataFrame, n_sys: int) -> NDArray[np.float64]:
    """The symmetric matrix of one column's Holm-adjusted population-scope p-values."""
    adj = np.full((n_sys, n_sys), np.nan)
    adj[pop["a"].to_numpy(int), pop["b"].to_numpy(int)] = pop["p_holm"].to_numpy(float)
    adj[pop["b"].to_numpy(int), pop["a"].to_numpy(int)] = pop["p_holm"].to_numpy(float)
    return adj


def _settings(
    d: RankedData, dr: ValueDraws, opts: _Options, seed: int | None, *, n_pairs: int, n_flips: int
) -> dict[str, Any]:
    """The options a ranking used and the words of its engine (``Ranking.settings``)."""
    return {
        "k": d.ks,
        "metrics": opts.metrics,
        "ci": opts.level,
        "n_boot": opts.n_boot,
        "seed": seed,
        "engine": opts.engine,
        "engine_label": dr.engine_label,
        "scope_label": dr.scope_label,
        "draws_word": dr.draws_word,
        "value_interval": dr.value_interval,
        "rank_method": opts.rank_method,
        "group_scope": "population",
        "grouping": "compact letter display of the pairs separated after Holm (Piepho 2004)",
        "pairs_tested": n_pairs,
        "pair_flips": n_flips,
        "tasks": d.tasks,
        "intersect": opts.intersect,
        "weights": opts.weights if isinstance(opts.weights, str | None) else "mapping",
        "headline": ("pass_hat_k", max(d.ks)) if "pass_hat_k" in opts.metrics else d.cols[-1],
        "cluster": d.clusters is not None,
        "clusters": None if d.clusters is None else int(d.clusters.max()) + 1,
    }


def _cluster_notes(d: RankedData, engine: str) -> list[str]:
    """The clusters' notes: how many, what resamples and flips them, and what does not (few
    tasks' posteriors, the joint model)."""
    if d.clusters is None:
        return []
    g_n = int(d.clusters.max()) + 1
    notes = cluster_notes(
        {"ranked tasks": g_n}, ci=True, how=RANK_CLUSTERS, method="paired cluster bootstrap"
    )
    if engine != "bootstrap":
        notes.append(
            f"the {engine} model's draws treat the tasks as independent (it has no cluster "
            "level); the pairwise tests and group letters flip whole clusters"
        )
    elif d.tasks < MIN_TASKS:
        notes.append(
            f"below {MIN_TASKS} tasks the value intervals are each system's posterior, which "
            "treats the tasks as independent; the pairwise tests, rank intervals and group "
            "letters flip whole clusters"
        )
    return notes


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
