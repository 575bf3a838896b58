"""Benchmark- and population-scope intervals of one system's tasks: the rule that picks each method.

Every interval passhat prints names its scope and the method that made it.
The method is chosen by a fixed, documented rule — the user does not need to
know which interval is valid where:

**Population scope** (the expected value over tasks like these, E g(p)):

* the **task bootstrap** (BCa, falling back to percentile where BCa
  degenerates; :mod:`passhat.bootstrap`; or, with ``ci_method="analytic"``,
  the logit-t interval of :mod:`passhat.analytic`, no resampling; studies/analytic_interval
  compares the two) when there are at least
  :data:`MIN_TASKS` tasks and at least :data:`MIN_SIDE` of them lie on each
  side of the estimate (their own per-task estimates strictly below and
  strictly above it) — then the resampled means have room to vary and the
  bootstrap's normal-theory justification holds;
* with at least :data:`MIN_TASKS` tasks but most of them at one end (fewer
  than :data:`MIN_SIDE` on a side — typically most tasks all-pass or
  all-fail), a **Bayesian bootstrap**: the task bootstrap would collapse
  (all resamples alike, a zero-width interval). Where every task's value is
  0 or 1 it has **one pseudo-task at the bound** — at 0 for the lower end, at
  1 for the upper (:func:`passhat.bootstrap.bound_bootstrap_draws`): the
  Clopper–Pearson interval of the share of tasks at 1, which reaches 0 when
  no task is at 1; otherwise **half a pseudo-task at 0 and at 1**
  (:func:`passhat.bootstrap.bayesian_bootstrap_draws`). The half pseudo-tasks
  give the Jeffreys interval on 0/1 values, which covered 0.82 at 90% for a
  share of 0.04 of 50 tasks and 0.00 for pass^10 of 30 tasks near 0, where
  every task's value is 0 and its lower end stays above the truth
  (reports/extremes). Both stay nonparametric, so no model can bias them
  however many tasks there are;
* with fewer than :data:`MIN_TASKS` tasks, the **hierarchical Beta-Binomial
  posterior** evaluated exactly on a grid (:mod:`passhat.hierarchical`): it
  pools what the tasks share, so ten all-pass tasks do not prove a rate of
  1, and with few tasks its model error is small next to its width. Where no
  task shows both outcomes (one run per task, say) the model cannot tell the
  spread of the rates from binomial noise and its interval never reaches 0:
  there it is joined (the hull) with the Clopper–Pearson-type interval above.

**Benchmark scope** (these tasks, Σ w_i g(p_i)):

* a **normal interval** around the unbiased estimate when there are at least
  :data:`MIN_TASKS` tasks and at least :data:`MIN_FLAKY` of them show both
  outcomes among their runs (so the variance estimate rests on many tasks):
  SE² = Σ w_i² V_i with V_i the unbiased variance estimate of the task's
  estimator where n_i ≥ 2k, and where n_i < 2k (no unbiased estimate
  exists) the posterior expectation of its exact variance under the
  hierarchical model;
* otherwise the **hierarchical posterior of these tasks' rates**
  (p_i | data ~ Beta(a + c_i, b + n_i − c_i), the hyperparameters on the
  grid), which never gives zero width to an all-pass task.

**A new benchmark of T′ tasks** (optional): the equal-tailed interval of
draws of the mean of g over T′ new tasks. Where the population interval is
the model's (fewer than 30 tasks), or every task's estimate is the same
(typically all 0 or all 1), the hierarchical posterior predictive: T′ new
rates drawn from the fitted Beta population. Such estimates say nothing
about the task-to-task spread or the skewed shape of the new benchmark's
value against the boundary, and the model gives both. Otherwise each
resampled population value widened by the task-to-task spread
Var g(p) / T′, estimated from the per-task estimates (their variance less
the within-task part).

With unequal task weights the population is the one the weights define
(task types in proportion to their weight, E[w g(p)] / E[w]): the
resampling methods resample (task, weight) pairs, and the model (fewer than
30 tasks) counts each task's likelihood w_i / w̄ times, scaled to Kish's
effective number of tasks (Σ w)² / Σ w², so that its posterior is as wide as
the weights leave the data (:func:`weighted_multiplicities`; the method says
so). The benchmark scope uses the weights as given, with the plain model's
prior for each task's rate.

References
----------
.. [1] Efron, B. (1987). Better bootstrap confidence intervals. *JASA*, 82(397), 171–185.
.. [2] Gelman, A. et al. (2013). *Bayesian Data Analysis*, 3rd ed. CRC Press, §5.3.

Examples
--------
>>> import numpy as np
>>> from passhat.scopes import scope_intervals
>>> iv = scope_intervals([5] * 10, [5] * 10, np.ones(10), [5], ci=0.9, n_boot=1000,
...                      rng=np.random.default_rng(0))
>>> row = iv[(iv["metric"] == "pass_hat_k") & (iv["scope"] == "population")].iloc[0]
>>> bool(row["lower"] < 0.9 < row["upper"] <= 1.0), row["method"].split(",")[0]
(True, 'hierarchical Beta-Binomial posterior')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import special

from passhat.betabinom import Grid, GridNodes, HyperPrior, posterior_grid
from passhat.bootstrap import (
    FEW_CLUSTERS,
    Categories,
    bayesian_bootstrap_draws,
    bound_bootstrap_draws,
    cluster_categories,
    draw_stats,
    interval_from_draws,
)
from passhat.cluster_robust import cluster_jackknife_logit_interval
from passhat.estimators import pair_values, pass_hat_k_variance_estimate
from passhat.hierarchical import (
    Column,
    beta_moment_draws,
    expected_task_variance,
    latent_draws,
    population_values,
    predictive_draws,
    weighted_quantiles,
)

__all__ = [
    "DEFAULT_PRIOR",
    "FEW_CLUSTERS",
    "MIN_FLAKY",
    "MIN_SIDE",
    "MIN_TASKS",
    "column_values",
    "columns",
    "effective_tasks",
    "scope_intervals",
    "task_variances",
    "weighted_multiplicities",
    "weights_method",
]

#: The bootstrap and the normal interval need at least this many tasks.
MIN_TASKS = 30
#: The bootstrap needs at least this many tasks strictly on each side of the estimate.
MIN_SIDE = 10
#: The normal benchmark interval needs at least this many tasks with both outcomes.
MIN_FLAKY = 10
#: Hyperpriors of the hierarchical model the intervals use (those of ``passhat.fit``).
DEFAULT_PRIOR = HyperPrior()
#: The analytic interval ``ci_method="analytic"`` takes (:mod:`passhat.analytic`;
#: studies/analytic_interval compares both kinds with the task bootstrap).
ANALYTIC_KIND = "logit-t"
#: Grid points per axis for the posterior.
GRID_SIZE = 256
#: Grid points per axis for posterior expectations (smooth functions need fewer).
EXPECT_GRID = 64


def columns(ks: Sequence[int]) -> list[Column]:
    """The interval columns for these k: the mean once, then pass@k and pass^k per k.

    Examples
    --------
    >>> from passhat.scopes import columns
    >>> columns([1, 3])
    [('mean', 1), ('pass_at_k', 1), ('pass_at_k', 3), ('pass_hat_k', 1), ('pass_hat_k', 3)]
    """
    ks = list(ks)
    return [("mean", ks[0])] + [(m, k) for m in ("pass_at_k", "pass_hat_k") for k in ks]


def column_values(
    n: NDArray[np.float64], c: NDArray[np.float64], cols: Sequence[Column]
) -> NDArray[np.float64]:
    """Unbiased per-task (or per-category) values of each column (rows × columns).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.scopes import column_values
    >>> column_values(np.array([4.0]), np.array([2.0]), [("mean", 1), ("pass_hat_k", 2)]).tolist()
    [[0.5, 0.16666666666666669]]
    """
    ks = np.asarray(sorted({k for _, k in cols}), dtype=float)
    pv = pair_values(n, c, ks)
    kidx = {int(k): i for i, k in enumerate(ks)}
    return np.column_stack([pv[m][:, kidx[int(k)]] for m, k in cols]).astype(float)


def task_variances(
    n: ArrayLike, c: ArrayLike, cols: Sequence[Column], nodes: GridNodes | None
) -> NDArray[np.float64]:
    """Per-task variance of the unbiased estimator, per column: unbiased, or model-based (n < 2k).

    Where n ≥ 2k it is the unbiased estimate U² − C(c, 2k)/C(n, 2k) (of the
    failures for pass@k; k = 1 for the mean); where n < 2k no unbiased
    estimate exists and it is the posterior expectation of the exact
    variance under the hierarchical model (``nodes``;
    :func:`passhat.hierarchical.expected_task_variance`).

    Returns
    -------
    ndarray, shape (tasks, len(cols))

    Examples
    --------
    >>> from passhat.scopes import task_variances
    >>> task_variances([10, 10], [5, 10], [("mean", 1)], None).round(4).tolist()
    [[0.0278], [0.0]]
    """
    nn = np.asarray(n, dtype=float).ravel()
    cc = np.asarray(c, dtype=float).ravel()
    out = np.zeros((nn.size, len(cols)))
    need: list[int] = []
    for j, (metric, k) in enumerate(cols):
        kk = 1 if metric == "mean" else int(k)
        succ = nn - cc if metric == "pass_at_k" else cc
        enough = nn >= 2 * kk
        if enough.any():
            out[enough, j] = pass_hat_k_variance_estimate(nn[enough], succ[enough], kk)
        if not enough.all():
            need.append(j)
    if need:
        if nodes is None:
            raise ValueError("tasks with n < 2k need the posterior nodes")
        model = expected_task_variance(nodes, nn, cc, [cols[j] for j in need])
        for i, j in enumerate(need):
            kk = 1 if cols[j][0] == "mean" else int(cols[j][1])
            short = nn < 2 * kk
            out[short, j] = model[short, i]
    return out


def _categories(
    n: NDArray[np.float64], c: NDArray[np.float64], w: NDArray[np.float64]
) -> tuple[Any, Any, Any, Any, Any]:
    """Distinct (n, c, w) with their frequencies and each task's category (1-d integer keys)."""
    _, w_code = np.unique(w, return_inverse=True)
    n_i, c_i = n.astype(np.int64), c.astype(np.int64)
    base_c = int(n_i.max()) + 1
    key = (w_code.ravel().astype(np.int64) * (int(n_i.max()) + 1) + n_i) * base_c + c_i
    _, first, inverse, freq = np.unique(
        key, return_index=True, return_inverse=True, return_counts=True
    )
    return n[first], c[first], w[first], freq.astype(np.int64), inverse.ravel().astype(np.int64)


def effective_tasks(weights: ArrayLike, freq: ArrayLike | None = None) -> float:
    """Kish's effective number of tasks, (Σ w)² / Σ w² (each weight counted ``freq`` times).

    Examples
    --------
    >>> from passhat.scopes import effective_tasks
    >>> effective_tasks([1.0] * 9 + [5.0] * 3), effective_tasks([2.0] * 12)
    (6.857142857142857, 12.0)
    """
    w = np.asarray(weights, dtype=float).ravel()
    f = np.ones(w.size) if freq is None else np.asarray(freq, dtype=float).ravel()
    return float(np.sum(f * w) ** 2 / np.sum(f * w**2))


def weighted_multiplicities(weights: ArrayLike, freq: ArrayLike) -> NDArray[np.float64] | None:
    """The likelihood weight of each category for the weighted population model, or None when
    every weight is equal (the plain model).

    Each task counts w_i / w̄ times, scaled so that the weights add up to Kish's
    effective number of tasks (:func:`effective_tasks`): the fitted Beta then
    describes the population the weights define (task types in proportion to
    their weight), and the posterior is as wide as the effective number of
    tasks allows, not as the raw count (a survey-weighted pseudo-likelihood).

    Examples
    --------
    >>> from passhat.scopes import weighted_multiplicities
    >>> weighted_multiplicities([1.0, 5.0], [9, 3]).round(3).tolist()   # sums to 6.857
    [2.571, 4.286]
    >>> weighted_multiplicities([2.0, 2.0], [9, 3]) is None
    True
    """
    w = np.asarray(weights, dtype=float).ravel()
    f = np.asarray(freq, dtype=float).ravel()
    if np.ptp(w) <= 1e-12 * np.max(w):
        return None
    return np.asarray(f * w / np.sum(f * w) * effective_tasks(w, f), dtype=float)


def weights_method(weights: ArrayLike, freq: ArrayLike | None = None) -> str:
    """The words the model's method adds when task weights enter it ("" when they are equal).

    Examples
    --------
    >>> from passhat.scopes import weights_method
    >>> weights_method([1.0, 5.0], [9, 3])
    '; task weights as likelihood weights, scaled to 6.9 effective tasks (Kish)'
    """
    w = np.asarray(weights, dtype=float).ravel()
    f = np.ones(w.size) if freq is None else np.asarray(freq, dtype=float).ravel()
    if np.ptp(w) <= 1e-12 * np.max(w):
        return ""
    return (
        "; task weights as likelihood weights, scaled to "
        f"{effective_tasks(w, f):.1f} effective tasks (Kish)"
    )


class _Model:
    """The hierarchical posterior of one system, computed on first use; with unequal task
    weights also the weighted population model (:func:`weighted_multiplicities`)."""

    def __init__(self, cats: Categories, n: Any, c: Any, prior: HyperPrior) -> None:
        self._args = (n, c, cats.freq)
        self._mult = weighted_multiplicities(cats.weights, cats.freq)
        self._prior = prior
        self._grid: Grid | None = None
        self._nodes: GridNodes | None = None
        self._weighted: GridNodes | None = None
        self._coarse: GridNodes | None = None
        self._var: dict[Column, NDArray[np.float64]] = {}

    @property
    def population_nodes(self) -> GridNodes:
        """The posterior of the population the task weights define (the plain one when every
        weight is equal): each task's likelihood counts in proportion to its weight."""
        if self._mult is None:
            return self.nodes
        if self._weighted is None:
            n, c, _ = self._args
            self._weighted = posterior_grid(
                n, c, self._mult, prior=self._prior, size=GRID_SIZE
            ).nodes()
        return self._weighted

    def variances(
        self, n: NDArray[np.float64], c: NDArray[np.float64], cols: Sequence[Column]
    ) -> NDArray[np.float64]:
        """:func:`task_variances` of these categories, each column computed once."""
        todo = [col for col in cols if col not in self._var]
        if todo:
            short = any(np.any(n < 2 * (1 if m == "mean" else k)) for m, k in todo)
            v = task_variances(n, c, todo, self.coarse if short else None)
            for j, col in enumerate(todo):
                self._var[col] = v[:, j]
        return np.column_stack([self._var[col] for col in cols])

    @property
    def nodes(self) -> GridNodes:
        if self._nodes is None:
            n, c, f = self._args
            self._grid = posterior_grid(n, c, f, prior=self._prior, size=GRID_SIZE)
            self._nodes = self._grid.nodes()
        return self._nodes

    @property
    def coarse(self) -> GridNodes:
        """A 64 × 64 grid on the same posterior: enough for smooth expectations."""
        if self._coarse is None:
            if self._grid is not None:
                self._coarse = self._grid.coarsened(GRID_SIZE // EXPECT_GRID)
            else:
                n, c, f = self._args
                self._coarse = posterior_grid(n, c, f, prior=self._prior, size=EXPECT_GRID).nodes()
        return self._coarse


def scope_intervals(
    n: ArrayLike,
    c: ArrayLike,
    weights: ArrayLike,
    ks: Sequence[int],
    *,
    ci: float,
    n_boot: int,
    rng: np.random.Generator,
    ci_method: str = "bca",
    predictive: int | None = None,
    prior: HyperPrior = DEFAULT_PRIOR,
    clusters: ArrayLike | None = None,
) -> pd.DataFrame:
    """Both scopes' intervals (and optionally a new benchmark's) for one system's tasks.

    Parameters
    ----------
    n, c : array_like
        Decided runs and successes of the tasks that enter the averages
        (every n ≥ max k).
    weights : array_like
        Task weights (any positive scale).
    ks : sequence of int
    ci : float
        Confidence level.
    n_boot : int
        Bootstrap resamples, and posterior draws where the model draws.
    rng : numpy.random.Generator
    ci_method : {"bca", "percentile", "analytic"}
        The interval where the rule picks the task bootstrap: BCa, percentile, or the
        analytic logit-t interval (:func:`passhat.analytic.analytic_interval`; its method says
        "analytic … (rule: ci_method analytic; …)"). The other regimes keep their method;
        clusters always take the cluster bootstrap (BCa with "analytic").
    predictive : int, optional
        Also give the interval for a new benchmark of this many tasks.
    prior : HyperPrior
        Hyperpriors of the hierarchical model.
    clusters : array_like, optional
        Each task's cluster (any hashable labels). When given, the population
        scope is the **cluster jackknife logit-t interval** below ``FEW_CLUSTERS`` (20)
        clusters (:func:`passhat.cluster_robust.cluster_jackknife_logit_interval`; the
        bootstrap draws are still made, so the later scopes' draws do not move), and
        otherwise the **cluster bootstrap** whatever the task counts
        (:func:`passhat.bootstrap.cluster_categories`: clusters resampled with
        replacement, each with all its tasks; BCa or percentile by
        ``ci_method``, the jackknife leaving out one cluster); the benchmark
        scope is unchanged. One cluster gives no population interval (NaN).

    Returns
    -------
    pandas.DataFrame
        One row per (metric, k, scope): metric, k, scope ("benchmark",
        "population", "predictive"), lower, upper, method.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.scopes import scope_intervals
    >>> rng = np.random.default_rng(1)
    >>> c = rng.binomial(5, rng.beta(1, 1, size=200))
    >>> iv = scope_intervals(np.full(200, 5), c, np.ones(200), [1], ci=0.9, n_boot=1000, rng=rng)
    >>> sorted({m.split(" (")[0].split(",")[0] for m in iv["method"]})
    ['normal', 'task bootstrap BCa']
    """
    level = float(ci)
    nn = np.asarray(n, dtype=float).ravel()
    cc = np.asarray(c, dtype=float).ravel()
    w = np.asarray(weights, dtype=float).ravel()
    cols = columns(ks)
    n_j, c_j, w_j, freq, inverse = _categories(nn, cc, w)
    vals = column_values(n_j, c_j, cols)  # categories × columns
    cats = Categories(freq=freq, values=vals, weights=w_j, inverse=inverse)
    fw = cats.freq * cats.weights
    setup = _Setup(
        cols=cols,
        cats=cats,
        n_j=n_j,
        c_j=c_j,
        theta=fw @ vals / fw.sum(),
        w_norm=cats.weights / fw.sum(),
        model=_Model(cats, n_j, c_j, prior),
        level=level,
        n_boot=n_boot,
    )
    out: dict[tuple[Column, str], tuple[float, float, str]] = {}
    # the random draws in this order: population, benchmark, then a new benchmark's stream
    if clusters is None:
        resampled = _population(
            out, setup, rng=rng, ci_method=ci_method, predictive=predictive is not None
        )
    else:
        groups = np.asarray(clusters, dtype=object).ravel()
        if groups.size != nn.size:
            raise ValueError(f"clusters has {groups.size} labels for {nn.size} tasks")
        resampled = _cluster_population(out, setup, groups, rng=rng, ci_method=ci_method)
    _benchmark(out, setup, rng=rng)
    if predictive is not None:
        _predictive(
            out,
            cols,
            resampled,
            setup.model,
            vals,
            cats,
            setup.w_norm,
            n_j,
            c_j,
            predictive=predictive,
            level=level,
            n_boot=n_boot,
            rng=_side_stream(rng),
        )
    if clusters is not None:  # a new benchmark's draws come from the model of independent tasks
        for key in [key for key in out if key[1] == "predictive"]:
            lo, hi, _ = out[key]
            out[key] = (
                lo,
                hi,
                f"new benchmark of {predictive} tasks: equal-tailed interval of the hierarchical "
                f"posterior predictive, {n_boot} draws; tasks treated as independent (the "
                "clusters are not modelled for a new benchmark: may be too narrow)",
            )
    rows = [
        {"metric": col[0], "k": col[1], "scope": scope, "lower": lo, "upper": hi, "method": meth}
        for col in cols
        for scope in ("benchmark", "population", "predictive")
        if (col, scope) in out
        for lo, hi, meth in [out[(col, scope)]]
    ]
    return pd.DataFrame(rows, columns=["metric", "k", "scope", "lower", "upper", "method"])


@dataclass(frozen=True, eq=False)
class _Setup:
    """One system's tasks as :func:`scope_intervals` works on them."""

    cols: list[Column]
    cats: Categories  # distinct (n, c, weight) categories with their frequencies
    n_j: NDArray[np.float64]
    c_j: NDArray[np.float64]
    theta: NDArray[np.float64]  # the benchmark values, one per column
    w_norm: NDArray[np.float64]  # a category's weight over the total weight
    model: _Model
    level: float
    n_boot: int

    @property
    def tasks(self) -> int:
        return int(self.cats.freq.sum())

    @property
    def alpha(self) -> float:
        return 1.0 - self.level


def _population(
    out: dict[tuple[Column, str], tuple[float, float, str]],
    setup: _Setup,
    *,
    rng: np.random.Generator,
    ci_method: str,
    predictive: bool = False,
) -> dict[int, NDArray[np.float64]]:
    """The population scope's interval of every column, by the rule: the task bootstrap (or
    with ``ci_method="analytic"`` the analytic interval) with enough tasks on each side of
    the estimate, the Bayesian bootstrap with enough tasks but too few on a side, the
    hierarchical posterior with few tasks. Returns the resampled values (column → draws)
    that a new benchmark's interval reuses (``predictive``: drawn for the analytic columns
    too, from a side stream)."""
    cats, cols, theta, n_boot = setup.cats, setup.cols, setup.theta, setup.n_boot
    vals = cats.values
    tol = 1e-12
    below = ((vals < theta - tol) * cats.freq[:, None]).sum(axis=0)
    above = ((vals > theta + tol) * cats.freq[:, None]).sum(axis=0)
    many = setup.tasks >= MIN_TASKS
    use_boot = many & (below >= MIN_SIDE) & (above >= MIN_SIDE)
    use_bayes = many & ~use_boot
    resampled: dict[int, NDArray[np.float64]] = {}  # column → draws (bootstrap or Bayesian)
    if use_boot.any() and ci_method == "analytic":
        _analytic_population(out, setup, use_boot)
        if predictive:  # a new benchmark's interval resamples; a side stream keeps rng's draws
            draws = draw_stats(cats, n_boot=n_boot, rng=_side_stream(rng))
            resampled.update({j: draws[:, j] for j in np.flatnonzero(use_boot).tolist()})
    elif use_boot.any():
        boot_draws = draw_stats(cats, n_boot=n_boot, rng=rng)
        lo, hi, labels = interval_from_draws(
            theta, boot_draws, cats, ci=setup.level, method=ci_method
        )
        for j in np.flatnonzero(use_boot).tolist():
            resampled[j] = boot_draws[:, j]
            why = f"≥ {MIN_TASKS} tasks, ≥ {MIN_SIDE} on each side of the estimate"
            out[(cols[j], "population")] = (
                float(lo[j]),
                float(hi[j]),
                f"task bootstrap {labels[j]}, {n_boot} resamples (rule: {why})",
            )
    if use_bayes.any():
        # the draws a new benchmark's interval reuses: half a pseudo-task at 0 and at 1
        resampled.update(_bounded_population(out, setup, use_bayes, below, above, rng=rng))
    if not many:
        _model_population(out, setup, rng=rng)
    return resampled


def _bounded_population(
    out: dict[tuple[Column, str], tuple[float, float, str]],
    setup: _Setup,
    use: NDArray[np.bool_],
    below: NDArray[np.float64],
    above: NDArray[np.float64],
    *,
    rng: np.random.Generator,
) -> dict[int, NDArray[np.float64]]:
    """The Bayesian bootstrap of the columns in ``use``: half a pseudo-task at 0 and at 1,
    or, where every task's value is 0 or 1, one whole pseudo-task at the bound
    (:func:`passhat.bootstrap.bound_bootstrap_draws`, drawn after the others: the
    Clopper–Pearson interval of the share of tasks at 1, which reaches 0 when none is,
    where the half pseudo-tasks give the Jeffreys interval, whose exact coverage at 90%
    falls to 0.81–0.82 for some shares near 0 or 1 of 30–100 tasks). Returns the
    half-pseudo-task draws, which a new benchmark's interval reuses."""
    n_boot, alpha, vals = setup.n_boot, setup.alpha, setup.cats.values
    bb = bayesian_bootstrap_draws(setup.cats, n_boot=n_boot, rng=rng)
    q = np.quantile(bb, [alpha / 2, 1 - alpha / 2], axis=0)
    binary = use & np.all((vals == 0.0) | (vals == 1.0), axis=0)
    if binary.any():
        bound = bound_interval(setup.cats, alpha=alpha, n_boot=n_boot, rng=rng)
        q[:, binary] = bound[:, binary]
    for j in np.flatnonzero(use).tolist():
        side = (
            "either side"
            if below[j] < MIN_SIDE and above[j] < MIN_SIDE
            else ("below" if below[j] < MIN_SIDE else "above")
        )
        how = (
            f"Bayesian bootstrap with one pseudo-task at the bound, {n_boot} draws "
            "(Clopper–Pearson type: at 0 for the lower end, at 1 for the upper; rule: every "
            f"task's value 0 or 1, ≥ {MIN_TASKS} tasks, fewer than {MIN_SIDE} {side} the estimate)"
            if binary[j]
            else f"Bayesian bootstrap with half a pseudo-task at 0 and at 1, {n_boot} draws "
            f"(rule: ≥ {MIN_TASKS} tasks, fewer than {MIN_SIDE} {side} the estimate)"
        )
        out[(setup.cols[j], "population")] = (float(q[0, j]), float(q[1, j]), how)
    return {j: bb[:, j] for j in np.flatnonzero(use).tolist()}


def bound_interval(
    cats: Categories, *, alpha: float, n_boot: int, rng: np.random.Generator
) -> NDArray[np.float64]:
    """The Bayesian bootstrap with one pseudo-task at the bound: (lower, upper) × columns.

    With equal task weights and every task's value 0 or 1 its ends are known in closed
    form, the Clopper–Pearson bounds: the α/2 quantile of Beta(x, T − x + 1) and the
    1 − α/2 quantile of Beta(x + 1, T − x) for x tasks at 1 of T (0 and 1 at x = 0 and
    x = T), so they are computed exactly (no Monte-Carlo error: two systems with the same
    tasks get the same interval). Otherwise the α/2 and 1 − α/2 quantiles of
    :func:`passhat.bootstrap.bound_bootstrap_draws`.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.bootstrap import compress
    >>> v = np.r_[np.ones(3), np.zeros(27)][:, None]
    >>> b = bound_interval(compress(v, v, np.ones(30)), alpha=0.1, n_boot=1,
    ...                    rng=np.random.default_rng(0))
    >>> [round(float(x), 4) for x in b[:, 0]]  # scipy.stats.beta.ppf(0.05, 3, 28), (.95, 4, 27)
    [0.0278, 0.2386]
    """
    vals, f = cats.values, cats.freq.astype(float)
    exact = np.all((vals == 0.0) | (vals == 1.0), axis=0) & (np.ptp(cats.weights) == 0)
    tasks = float(f.sum())
    x = (vals * f[:, None]).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        lo = np.where(x > 0, special.betaincinv(x, tasks - x + 1, alpha / 2), 0.0)
        hi = np.where(x < tasks, special.betaincinv(x + 1, tasks - x, 1 - alpha / 2), 1.0)
    out = np.stack([lo, hi]).astype(float)
    if not exact.all():  # weighted tasks or values between 0 and 1: the draws
        lo_d, hi_d = bound_bootstrap_draws(cats, n_boot=n_boot, rng=rng)
        out[0, ~exact] = np.quantile(lo_d[:, ~exact], alpha / 2, axis=0)
        out[1, ~exact] = np.quantile(hi_d[:, ~exact], 1 - alpha / 2, axis=0)
    return out


def _model_population(
    out: dict[tuple[Column, str], tuple[float, float, str]],
    setup: _Setup,
    *,
    rng: np.random.Generator,
) -> None:
    """Fewer than :data:`MIN_TASKS` tasks: the hierarchical posterior's equal-tailed interval,
    joined, where no task shows both outcomes, with the Bayesian bootstrap with one
    pseudo-task at the bound (Clopper–Pearson on the all-pass tasks): then the model
    cannot tell the spread of the rates from the binomial noise, and its interval of a
    share near 0 or 1 covered 0.80 at 90%, and 0 for a share of 0.001 (reports/extremes)."""
    cols, alpha, cats = setup.cols, setup.alpha, setup.cats
    nodes = setup.model.population_nodes
    q = weighted_quantiles(population_values(nodes, cols), nodes.weight, [alpha / 2, 1 - alpha / 2])
    note = weights_method(cats.weights, cats.freq)
    how = (
        f"hierarchical Beta-Binomial posterior, grid quadrature (rule: fewer than {MIN_TASKS} "
        "tasks)"
    )
    if not np.any((setup.c_j > 0) & (setup.c_j < setup.n_j)):
        bound = bound_interval(cats, alpha=alpha, n_boot=setup.n_boot, rng=rng)
        q[0] = np.minimum(q[0], bound[0])
        q[1] = np.maximum(q[1], bound[1])
        how = (
            "hierarchical Beta-Binomial posterior, grid quadrature, joined with the Bayesian "
            f"bootstrap with one pseudo-task at the bound (Clopper–Pearson type), {setup.n_boot} "
            f"draws (rule: fewer than {MIN_TASKS} tasks, none with both outcomes)"
        )
    for j in range(len(cols)):
        out[(cols[j], "population")] = (float(q[0, j]), float(q[1, j]), how + note)


def _analytic_population(
    out: dict[tuple[Column, str], tuple[float, float, str]],
    setup: _Setup,
    use: NDArray[np.bool_],
) -> None:
    """The analytic interval (:func:`passhat.analytic.analytic_interval`) of the columns in
    ``use`` — where the rule would take the task bootstrap — with the rule that picked it."""
    from passhat.analytic import analytic_interval

    cats = setup.cats
    lo, hi, label = analytic_interval(
        cats.values, cats.freq, cats.weights, ci=setup.level, kind=ANALYTIC_KIND
    )
    why = f"ci_method analytic; ≥ {MIN_TASKS} tasks, ≥ {MIN_SIDE} on each side of the estimate"
    for j in np.flatnonzero(use).tolist():
        out[(setup.cols[j], "population")] = (float(lo[j]), float(hi[j]), f"{label} (rule: {why})")


def _cluster_population(
    out: dict[tuple[Column, str], tuple[float, float, str]],
    setup: _Setup,
    groups: NDArray[Any],
    *,
    rng: np.random.Generator,
    ci_method: str,
) -> dict[int, NDArray[np.float64]]:
    """The population scope by the cluster bootstrap (every column); one cluster: NaN.

    Returns no resampled values: a new benchmark's interval from them would treat the tasks
    as independent."""
    codes = pd.factorize(pd.Series(groups, dtype=object), sort=False)[0].astype(np.int64)
    ccats = cluster_categories(setup.cats, codes)
    n_cl = int(ccats.freq.sum())
    if n_cl < 2:
        for col in setup.cols:
            out[(col, "population")] = (
                float("nan"),
                float("nan"),
                "not computed: one cluster (the cluster bootstrap needs ≥ 2 clusters)",
            )
        return {}
    draws = draw_stats(ccats, n_boot=setup.n_boot, rng=rng)  # drawn below 20 too: same stream
    if n_cl < FEW_CLUSTERS:
        _few_clusters(out, setup, codes, n_cl)
        return {}
    method = "bca" if ci_method == "analytic" else ci_method
    lo, hi, labels = interval_from_draws(setup.theta, draws, ccats, ci=setup.level, method=method)
    few = "; ci_method analytic does not apply to clusters" if ci_method == "analytic" else ""
    for j, col in enumerate(setup.cols):
        out[(col, "population")] = (
            float(lo[j]),
            float(hi[j]),
            f"cluster bootstrap {labels[j]}, {n_cl} clusters, {setup.n_boot} resamples "
            f"(rule: a cluster column; each cluster resampled with all its tasks){few}",
        )
    return {}


def _few_clusters(
    out: dict[tuple[Column, str], tuple[float, float, str]],
    setup: _Setup,
    codes: NDArray[np.int64],
    n_cl: int,
) -> None:
    """The population scope below :data:`FEW_CLUSTERS` clusters: the logit-t interval on G − 1
    degrees of freedom with the leave-one-cluster-out jackknife (CV3) standard error of
    logit θ̂, and Clopper–Pearson with the clusters as trials where that is undefined (θ̂ or a
    leave-one-out mean at 0 or 1, or no spread), which cover where the cluster bootstrap and
    the CR1 logit-t do not (studies/cluster_coverage)."""
    cats = setup.cats
    lo, hi, jack = cluster_jackknife_logit_interval(
        cats.values[cats.inverse], cats.weights[cats.inverse], codes, ci=setup.level
    )
    rule = f"(rule: fewer than {FEW_CLUSTERS} clusters; the cluster bootstrap under-covers)"
    for j, col in enumerate(setup.cols):
        at_one, at_zero = setup.theta[j] >= 1.0 - 1e-12, setup.theta[j] <= 1e-12
        if jack[j]:
            how = (
                f"cluster jackknife logit-t interval, leave-one-cluster-out (CV3) standard "
                f"error of logit θ̂ over {n_cl} clusters, G − 1 = {n_cl - 1} degrees of "
                f"freedom {rule}"
            )
        elif at_one or at_zero:  # every cluster at the bound: a t interval has no width
            how = (
                f"exact binomial (Clopper–Pearson) bound over the {n_cl} clusters, every "
                f"cluster at {int(at_one)} {rule[:-1]}; a t interval would have no width)"
            )
        else:
            how = (
                f"Clopper–Pearson interval with the {n_cl} clusters as {n_cl} trials, "
                f"θ̂ · G = {setup.theta[j] * n_cl:.3g} successes {rule[:-1]}; the jackknife "
                "logit-t is undefined: the clusters do not differ, or leaving one out leaves "
                "only clusters at 0 or at 1)"
            )
        out[(col, "population")] = (float(lo[j]), float(hi[j]), how)


def _benchmark(
    out: dict[tuple[Column, str], tuple[float, float, str]],
    setup: _Setup,
    *,
    rng: np.random.Generator,
) -> None:
    """The benchmark scope's interval of every column, by the rule (the variance estimate
    rests on the flaky tasks): the normal interval with enough tasks and flaky tasks, the
    hierarchical posterior of these tasks' rates otherwise."""
    cats, cols, n_j, c_j, n_boot = setup.cats, setup.cols, setup.n_j, setup.c_j, setup.n_boot
    z = float(-special.ndtri(setup.alpha / 2))  # = scipy.stats.norm.isf (~0.5 s to import)
    flaky = int(cats.freq[(c_j > 0) & (c_j < n_j)].sum())
    model_cols: list[int] = []
    normal_ok = setup.tasks >= MIN_TASKS and flaky >= MIN_FLAKY
    if normal_ok:
        v_all = setup.model.variances(n_j, c_j, cols)
    for j, col in enumerate(cols):
        if normal_ok:
            kk = 1 if col[0] == "mean" else col[1]
            var = float(np.sum(cats.freq * setup.w_norm**2 * v_all[:, j]))
            if var > 0:
                se = np.sqrt(var)
                note = f"; model-based variance where n < {2 * kk}" if (n_j < 2 * kk).any() else ""
                out[(col, "benchmark")] = (
                    max(0.0, float(setup.theta[j] - z * se)),
                    min(1.0, float(setup.theta[j] + z * se)),
                    f"normal, unbiased estimate ± z·SE (rule: ≥ {MIN_TASKS} tasks, "
                    f"≥ {MIN_FLAKY} with both outcomes){note}",
                )
                continue
        model_cols.append(j)
    if not model_cols:
        return
    draws = latent_draws(
        setup.model.nodes,
        n_j,
        c_j,
        cats.weights,
        cats.freq,
        [cols[j] for j in model_cols],
        n_draws=n_boot,
        rng=rng,
    )
    q = np.quantile(draws, [setup.alpha / 2, 1 - setup.alpha / 2], axis=0)
    if setup.tasks < MIN_TASKS:
        why = f"fewer than {MIN_TASKS} tasks"
    else:
        why = f"fewer than {MIN_FLAKY} tasks with both outcomes"
    for i, j in enumerate(model_cols):
        out[(cols[j], "benchmark")] = (
            float(q[0, i]),
            float(q[1, i]),
            f"hierarchical posterior of these tasks' rates, {n_boot} draws (rule: {why})",
        )


def _side_stream(rng: np.random.Generator) -> np.random.Generator:
    """A child stream of ``rng`` that leaves ``rng``'s own draws as they were.

    The predictive interval is asked for by the report, not by ``passhat estimate``: drawing
    it from ``rng`` itself would shift every later system's population and benchmark draws,
    so the report's intervals would differ from ``estimate``'s at the same seed.
    ``Generator.spawn`` advances the seed sequence's child counter, not the stream.
    """
    try:
        return rng.spawn(1)[0]
    except (AttributeError, TypeError, ValueError):  # a bit generator without a seed sequence
        return rng


def _predictive(
    out: dict[tuple[Column, str], tuple[float, float, str]],
    cols: list[Column],
    resampled: dict[int, NDArray[np.float64]],
    model: _Model,
    vals: NDArray[np.float64],
    cats: Categories,
    w_norm: NDArray[np.float64],
    n_j: NDArray[np.float64],
    c_j: NDArray[np.float64],
    *,
    predictive: int,
    level: float,
    n_boot: int,
    rng: np.random.Generator,
) -> None:
    """Intervals for the value of a new benchmark of ``predictive`` equally weighted tasks.

    Each is the equal-tailed interval of draws of the new benchmark's value.
    Where the population interval came from the model, or every task's
    estimate is the same (typically all 0, as for pass^5 of 50 tasks × 5 runs
    none of them all-pass): the hierarchical posterior predictive
    (:func:`passhat.hierarchical.predictive_draws`). Such estimates say
    nothing about the task-to-task spread nor about the skewed shape of a
    mean of T′ tiny values piled against 0, and resampling them gives
    population draws that reach up to the Jeffreys bound of 0 successes out of
    T (far above what T′ new tasks show: the interval covered 1.000 with the
    model's spread added to them). Otherwise, each resampled population value
    plus the task-to-task spread, a Beta with variance Var g(p) / T′, Var g(p)
    the variance of the per-task estimates less their mean within-task
    variance (:func:`task_variances`).
    """
    alpha = 1.0 - level
    label = f"new benchmark of {predictive} tasks"
    same = [j for j in sorted(resampled) if np.ptp(vals[:, j]) == 0.0]
    idx = [j for j in range(len(cols)) if j not in resampled or j in same]
    if idx:
        d = predictive_draws(
            model.population_nodes, [cols[j] for j in idx], predictive, n_draws=n_boot, rng=rng
        )
        note = weights_method(cats.weights, cats.freq)
        q = np.quantile(d, [alpha / 2, 1 - alpha / 2], axis=0)
        for i, j in enumerate(idx):
            why = (
                f"every task's estimate {vals[0, j]:g}"
                if j in same
                else f"fewer than {MIN_TASKS} tasks"
            )
            out[(cols[j], "predictive")] = (
                float(q[0, i]),
                float(q[1, i]),
                f"{label}: equal-tailed interval of the hierarchical posterior predictive, "
                f"{n_boot} draws (rule: {why}){note}",
            )
    bidx = [j for j in sorted(resampled) if j not in same]
    if not bidx:
        return
    fw = cats.freq * w_norm
    v_all = model.variances(n_j, c_j, [cols[j] for j in bidx])
    for i, j in enumerate(bidx):
        mean = float(fw @ vals[:, j])
        # Var g(p) across tasks = Var of the per-task estimates − their mean within-task variance
        spread = float(fw @ (vals[:, j] - mean) ** 2) - float(fw @ v_all[:, i])
        theta = np.clip(resampled[j], 0.0, 1.0)
        var = max(spread, 0.0) / predictive
        draws = beta_moment_draws(theta, np.full(theta.shape, var), rng)
        lo, hi = np.quantile(draws, [alpha / 2, 1 - alpha / 2])
        out[(cols[j], "predictive")] = (
            float(lo),
            float(hi),
            f"{label}: equal-tailed interval of the population draws + task spread "
            f"Var g(p) / {predictive}",
        )


def _order(col: Column) -> int:
    """The k of a column's g (1 for the mean)."""
    return 1 if col[0] == "mean" else int(col[1])
