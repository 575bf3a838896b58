"""The paired-difference engine: interval and test of B − A in both scopes, for many pairs.

For systems that ran the same tasks (weights w_i shared), the difference of
a metric is Δ = Σ w_i (U_i(B) − U_i(A)) / Σ w_i with the unbiased per-task
estimates U. In each scope the reported interval and the reported test are
two faces of one construction, so **the interval excludes 0 exactly when
the test rejects at the same level** (p ≤ 1 − ci):

**Population scope** (the expected difference over tasks like these):

* **sign-flip test, inverted** (:mod:`passhat.signflip`) when at least
  :data:`MIN_DISCORDANT` tasks have a non-zero difference: the interval is
  every shift δ the sign-flip test of "mean difference = δ" does not reject.
  Exact enumeration of the sign flips when the task categories allow it,
  random flips otherwise. Exact under "the two systems are exchangeable
  within each task" when both ran every task equally often; when n differs
  between the systems on some task the flipped differences are not
  exchangeable and the p-value is labelled approximate.
* otherwise the **paired Bayesian bootstrap joined with that test**
  (:mod:`passhat.compare.few_differ`): the matched tasks' differences are
  weighted by Dirichlet draws with half a pseudo-task at −1 and at +1, and
  the interval is the hull of that posterior's equal-tailed interval and the
  sign-flip interval, its p-value the larger of the two: few differing tasks
  leave the sign-flip interval too short (all tasks equal gives the single
  point 0), and the test keeps the sign-flip test's exact level. (The two
  systems' separate Beta posteriors used before ignored the pairing and held
  the true difference in as few as 23% of replicates where a candidate fixed
  a tenth of the tasks: ``studies/compare_coverage``.)

**Benchmark scope** (these tasks, given their runs; runs of A and B are
independent):

* **normal**, Δ ± z·SE with SE² = Σ w_i² (V_i(A) + V_i(B)) /(Σ w_i)²
  (:func:`passhat.scopes.task_variances`) and the two-sided normal p-value,
  when there are at least :data:`passhat.scopes.MIN_TASKS` tasks and at
  least :data:`passhat.scopes.MIN_FLAKY` show both outcomes in some system;
* otherwise the **unbiased difference with its simulated error**: one Beta
  population is fitted to both systems' tasks; per draw, every task's rate
  is drawn from its posterior, new runs are drawn at it and the error of the
  unbiased difference is recorded; the interval is the difference minus
  the error's quantiles, widened by the largest step one success moves
  the estimate, and the test is the error's two-sided tail at the observed
  difference. Centring on the unbiased difference keeps pooling from
  pulling the systems together (drawing the pooled posterior's rates themselves covered a
  difference of 0.2 in 23–50% of replicates with 10–20 tasks); one
  population for both keeps the test symmetric under H0 (each system's own
  population made an all-pass system's posterior hug 1 on every task, and
  that test rejected 16–19% at α = 0.1 near the boundary with 3 runs).

:func:`paired_table` runs every pair of a list on one set of tasks and
reuses each system's posterior across pairs (a leaderboard calls it for
all pairs of N systems).

References
----------
.. [1] Fisher, R. A. (1935). *The Design of Experiments*, §21.
.. [2] Lehmann, E. L. and Romano, J. P. (2005). *Testing Statistical
   Hypotheses*, 3rd ed., §3.5 (confidence sets from tests).

Examples
--------
>>> import numpy as np
>>> from passhat.compare.engine import paired_table
>>> n = np.full((2, 40), 4)
>>> c = np.vstack([np.r_[np.full(20, 4), np.full(20, 1)], np.r_[np.full(20, 4), np.full(20, 3)]])
>>> t = paired_table(n, c, np.ones(40), [(0, 1)], [1], ci=0.9, n_boot=2000,
...                  rng=np.random.default_rng(0))
>>> r = t[(t["scope"] == "population") & (t["metric"] == "mean")].iloc[0]
>>> round(float(r["difference"]), 3), bool(r["lower"] > 0), bool(r["p_value"] <= 0.1)
(0.25, True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import special, stats

from passhat.betabinom import GridNodes, HyperPrior, posterior_grid
from passhat.bootstrap import cluster_categories, compress
from passhat.clusters import cluster_codes
from passhat.compare.draw_tests import draw_interval, error_interval
from passhat.compare.few_differ import few_differ_intervals
from passhat.compare.pair_arrays import (
    PairStats,
    normal_block,
    pair_stats,
    pair_variances,
    table_frame,
)
from passhat.hierarchical import Column, estimate_error_draws
from passhat.scopes import (
    DEFAULT_PRIOR,
    EXPECT_GRID,
    MIN_FLAKY,
    MIN_TASKS,
    column_values,
    columns,
    task_variances,
)
from passhat.signflip import enumerable, flip_sums, invert_flips
from passhat.signflip_shared import invert_shared_flips

__all__ = ["MIN_DISCORDANT", "TaskValues", "draw_interval", "error_interval", "paired_table"]

#: The sign-flip interval needs at least this many tasks whose difference is not zero.
MIN_DISCORDANT = 10


class _System:
    """One system's tasks (the pair's shared task set) and its posterior, built on first use."""

    def __init__(self, n: NDArray[np.float64], c: NDArray[np.float64], prior: HyperPrior) -> None:
        self.n, self.c = n, c
        self.nj, self.cj, self.inverse, self.freq = _distinct_pairs(n, c)
        self._prior = prior
        self._coarse: GridNodes | None = None
        self._var: dict[tuple[Column, ...], NDArray[np.float64]] = {}

    def nodes(self) -> GridNodes:
        """The posterior on a coarse grid (model-based variances where n < 2k)."""
        if self._coarse is None:
            self._coarse = posterior_grid(
                self.nj, self.cj, self.freq, prior=self._prior, size=EXPECT_GRID
            ).nodes()
        return self._coarse

    def variances(self, cols: Sequence[Column]) -> NDArray[np.float64]:
        """Per-task variances of the unbiased estimators (tasks × columns), kept per column set."""
        key = tuple(cols)
        if key not in self._var:
            short = any(np.any(self.nj < 2 * (1 if m == "mean" else k)) for m, k in cols)
            v = task_variances(self.nj, self.cj, cols, self.nodes() if short else None)
            self._var[key] = np.asarray(v[self.inverse], dtype=float)
        return self._var[key]


def _distinct_pairs(
    n: NDArray[np.float64], c: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
    """The distinct (n, c) sorted by n then c, each task's index among them and their counts:
    ``np.unique(np.column_stack([n, c]), axis=0, return_inverse=True, return_counts=True)``
    by one sort of two keys.

    >>> nj, cj, inv, freq = _distinct_pairs(np.array([4.0, 2.0, 4.0]), np.array([1.0, 2.0, 1.0]))
    >>> nj.tolist(), cj.tolist(), inv.tolist(), freq.tolist()
    ([2.0, 4.0], [2.0, 1.0], [1, 0, 1], [1, 2])
    """
    n = np.asarray(n, dtype=float).ravel()
    c = np.asarray(c, dtype=float).ravel()
    order = np.lexsort((c, n))
    ns, cs = n[order], c[order]
    new = np.r_[True, (ns[1:] != ns[:-1]) | (cs[1:] != cs[:-1])]
    starts = np.flatnonzero(new)
    inverse = np.empty(n.size, dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ns[starts], cs[starts], inverse, np.diff(np.r_[starts, n.size]).astype(np.int64)


def _same_estimand(cols: Sequence[Column]) -> list[int]:
    """For each column, the first column with the same estimand (pass@1 = pass^1 = the mean).

    >>> _same_estimand([("mean", 1), ("pass_at_k", 1), ("pass_hat_k", 1), ("pass_at_k", 2)])
    [0, 0, 0, 3]
    """
    first: dict[tuple[str, int], int] = {}
    return [
        first.setdefault(("mean", 1) if m == "mean" or int(k) == 1 else (m, int(k)), j)
        for j, (m, k) in enumerate(cols)
    ]


def _pooled_benchmark_intervals(
    a: _System,
    b: _System,
    cols: Sequence[Column],
    weights: NDArray[np.float64],
    estimates: NDArray[np.float64],
    *,
    ci: float,
    n_draws: int,
    rng: np.random.Generator,
    prior: HyperPrior,
) -> list[tuple[float, float, float]]:
    """Interval and test of B − A over these tasks from the simulated error of the estimate.

    One Beta population is fitted to the 2T tasks of both systems together;
    draw j of A and of B use the same node (a, b), each task's rate is drawn
    from its own system's runs, new runs are drawn at it, and the error of
    the unbiased difference is recorded (:func:`passhat.hierarchical.
    estimate_error_draws`); one fit and one set of draws serve every column
    of ``cols`` (each column's interval is read from its own error draws). The
    interval is centred on the unbiased
    difference, so pooling cannot pull the systems together: drawing the
    rates themselves shrank both towards the pooled mean and covered a
    difference of 0.2 in 23–50% of replicates at 10–20 tasks. Fitting the
    systems separately was not symmetric under H0 (an all-pass system's
    population hugs 1). The estimate moves in steps: one success more or
    less on task i moves it by w_i |U(c_i ± 1) − U(c_i)| / Σ w. The largest
    such step at the observed counts widens both ends (a continuity
    correction that counts the observed value as reached, as an exact test
    of discrete data does: with half a step the test rejected at p = 0.099
    where the exact conditional test of the same runs gives 0.25). Not the
    smallest step w_i / C(n_i, k): near the all-pass corner pass^k moves by
    k/n per failing run, and the smallest step (1/C(n, k), reached only at
    c = k − 1) left pass^2 rejecting at p = 0.04–0.07 where the exact
    conditional test gives 0.125 (one failure on each of 4 of 10–20 tasks,
    3–8 runs; :func:`_one_success_step`).
    """
    keys, freq = np.unique(
        np.column_stack([np.r_[a.n, b.n], np.r_[a.c, b.c]]), axis=0, return_counts=True
    )
    nodes = posterior_grid(keys[:, 0], keys[:, 1], freq, prior=prior, size=EXPECT_GRID).nodes()
    pick = nodes.sample(n_draws, rng)
    err = np.zeros((n_draws, len(cols)))
    for s, sign in ((a, -1.0), (b, 1.0)):
        cat, freq_s = np.unique(np.column_stack([s.n, s.c, weights]), axis=0, return_counts=True)
        err += sign * estimate_error_draws(
            nodes, cat[:, 0], cat[:, 1], cat[:, 2], freq_s, cols, pick=pick, rng=rng
        )
    return [
        error_interval(
            float(estimates[j]),
            err[:, j],
            ci=ci,
            step=max(_one_success_step(s.n, s.c, weights, col) for s in (a, b)),
        )
        for j, col in enumerate(cols)
    ]


def _one_success_step(
    n: NDArray[np.float64], c: NDArray[np.float64], weights: NDArray[np.float64], col: Column
) -> float:
    """The largest move of the weighted estimate when one task gains or loses one success.

    max_i w_i · max(|U(c_i + 1) − U(c_i)|, |U(c_i) − U(c_i − 1)|) / Σ w over the
    observed counts (a count at 0 or n has one neighbour), and at least the
    smallest step min_i w_i / C(n_i, k) / Σ w that the correction used before.

    >>> import numpy as np
    >>> n, w = np.full(10, 5.0), np.ones(10)
    >>> round(_one_success_step(n, np.full(10, 5.0), w, ("pass_hat_k", 2)), 6)  # (1 − 0.6) / 10
    0.04
    >>> round(_one_success_step(n, np.full(10, 5.0), w, ("mean", 1)), 6)
    0.02
    """
    here = column_values(n, c, [col])[:, 0]
    up = np.abs(column_values(n, np.minimum(c + 1, n), [col])[:, 0] - here)
    down = np.abs(here - column_values(n, np.maximum(c - 1, 0), [col])[:, 0])
    # never below the smallest step w_i / C(n_i, k): an all-fail task moves pass^k by 0 locally
    kk = 1 if col[0] == "mean" else int(col[1])
    keep = weights > 0
    floor = np.min(weights[keep] / special.comb(n[keep], kk))
    return float(max(np.max(weights * np.maximum(up, down)), floor) / np.sum(weights))


def paired_table(
    n: ArrayLike,
    c: ArrayLike,
    weights: ArrayLike,
    pairs: Sequence[tuple[int, int]],
    ks: Sequence[int],
    *,
    ci: float,
    n_boot: int,
    rng: np.random.Generator,
    prior: HyperPrior = DEFAULT_PRIOR,
    shared_flips: bool = False,
    clusters: ArrayLike | None = None,
    task_values: TaskValues | None = None,
) -> pd.DataFrame:
    """Paired differences B − A for every pair, both scopes, every metric and k.

    Parameters
    ----------
    n, c : array_like, shape (systems, tasks)
        Decided runs and successes of every system on the same tasks (every
        n ≥ max k).
    weights : array_like, shape (tasks,)
        Task weights shared by the systems (declared, per category, …).
    pairs : sequence of (a, b)
        Row indices: each pair reports b − a.
    ks : sequence of int
    ci, n_boot, rng
        Level; random flips / posterior draws; generator.
    prior : HyperPrior
    shared_flips : bool
        Draw the random sign flips once for every pair that needs them
        (:func:`passhat.signflip_shared.invert_shared_flips`: one sign per task and
        flip, the same for every pair) instead of once per pair; each pair's
        test is the same random-flip test, at a cost nearly flat in the number
        of pairs. Pairs whose flips are enumerated exactly are unchanged; a
        single such pair keeps its own flips.
    clusters : array_like, shape (tasks,), optional
        Each task's cluster: the population scope flips the signs of whole clusters
        (the sum of a cluster's weighted differences flipped together), needs
        :data:`MIN_DISCORDANT` clusters that differ for the inverted sign-flip test, and
        where fewer differ draws clusters in the paired Bayesian bootstrap. Clusters of one
        task each give the task-level answer bit for bit. The benchmark scope is unchanged.
    task_values : TaskValues, optional
        Compare these per-task values (partial-credit scores) instead of the 0/1
        estimators of (n, c): the population scope is the same construction on their
        differences; the benchmark scope is always the normal interval from their
        within-task variances (no Beta-Binomial model describes them).

    Returns
    -------
    pandas.DataFrame
        One row per (pair, k, metric, scope): a, b, k, metric, scope,
        base_value, cand_value, difference, lower, upper, p_value, tasks,
        method, p_method. The mean's rows repeat for every k.
    """
    eng = _Pairs(
        n=np.asarray(n, dtype=float),
        c=np.asarray(c if task_values is None else task_values.codes, dtype=float),
        w=np.asarray(weights, dtype=float).ravel(),
        cols=columns(ks),
        ks=list(ks),
        level=float(ci),
        n_boot=n_boot,
        rng=rng,
        prior=prior,
        clusters=None if clusters is None else _codes(clusters),
        given=task_values,
    )
    if not len(pairs):
        return pd.DataFrame([])
    return eng.table(pairs, shared_flips=shared_flips)


@dataclass(frozen=True)
class TaskValues:
    """Per-task values given instead of the 0/1 estimators of (n, c) (e.g. partial-credit
    scores): what :func:`paired_table` compares when they are not pass/fail counts.

    Attributes
    ----------
    values, variances : ndarray, shape (systems, tasks, columns)
        Each system's per-task unbiased values, in the order of
        :func:`passhat.scopes.columns` (the mean, the "at least one" metric per k, the
        "every one" metric per k), and their within-task variance estimates.
    codes : ndarray of int, shape (systems, tasks)
        Category codes: on one system, tasks with equal n and code have equal values (they
        replace c in the sign flips' categories; ranks of (n, c) give c's categories).
    ks : tuple of int
        The k of the columns (empty: the columns are exactly those compared).
    """

    values: NDArray[np.float64]
    variances: NDArray[np.float64]
    codes: NDArray[np.int64]
    ks: tuple[int, ...] = ()


def _codes(clusters: ArrayLike) -> NDArray[np.int64]:
    """Cluster codes 0 … G − 1 of any labels (one per task), in order of first appearance
    (distinct labels give 0 … T − 1 in task order: the task-level flips)."""
    return cluster_codes(np.asarray(clusters, dtype=object).ravel())


def _differing(
    d: NDArray[np.float64], w: NDArray[np.float64], clusters: NDArray[np.int64] | None
) -> NDArray[np.int64]:
    """Per column, how many tasks differ, or with clusters how many clusters' weighted sums
    of differences are not zero (the units the sign flips flip).

    >>> import numpy as np
    >>> d, w = np.array([[0.5], [-0.5], [0.25]]), np.ones(3)
    >>> _differing(d, w, None).tolist(), _differing(d, w, np.array([0, 0, 1])).tolist()
    ([3], [1])
    """
    if clusters is None:
        return np.asarray((np.abs(d) > 1e-12).sum(axis=0), dtype=np.int64)
    sums = np.zeros((int(clusters.max()) + 1, d.shape[1]))
    np.add.at(sums, clusters, (w / w.sum())[:, None] * d)
    return np.asarray((np.abs(sums) > 1e-12).sum(axis=0), dtype=np.int64)


def _flip_word(clusters: NDArray[np.int64] | None) -> str:
    """The test's name: the sign-flip test, or its cluster form with the clusters."""
    if clusters is None:
        return "sign-flip test"
    return f"cluster sign-flip test ({int(np.unique(clusters).size)} clusters)"


#: A scope's cells, pairs × columns: lower, upper, p-value, interval method, test method.
_Cells = tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], Any, Any]

_FLIP_METHOD = (
    f"sign-flip test inverted: every shift it does not reject (rule: ≥ {MIN_DISCORDANT} "
    "tasks differ)"
)
_FEW_METHOD = (
    "paired Bayesian bootstrap of the matched tasks (half a pseudo-task at −1 and at +1), "
    f"joined with the sign-flip test inverted (rule: fewer than {MIN_DISCORDANT} tasks differ)"
)
_DRAWN_METHOD = (
    "unbiased difference with the error distribution of the estimate simulated from the "
    "hierarchical posterior of these tasks' rates, one Beta population fitted to both "
    "systems; ends widened by the largest step one success moves the estimate (rule: {why})"
)
_NORMAL_RULE = (
    f"normal, unbiased difference ± z·SE (rule: ≥ {MIN_TASKS} tasks, ≥ {MIN_FLAKY} with both "
    "outcomes)"
)


def _empty_cells(shape: tuple[int, int]) -> _Cells:
    return (
        np.full(shape, np.nan),
        np.full(shape, np.nan),
        np.full(shape, np.nan),
        np.full(shape, None, dtype=object),
        np.full(shape, None, dtype=object),
    )


def _put(cells: _Cells, r: int, j: int, cell: tuple[float, float, float, str, str]) -> None:
    for q in range(5):
        cells[q][r, j] = cell[q]


@dataclass
class _Pairs:
    """The systems of :func:`paired_table` and its settings. The deterministic cells of every
    pair are computed over the pair axis (:mod:`passhat.compare.pair_arrays`); the cells that
    draw random numbers, pair by pair in the order that fixes the random stream (shared flips
    first, then per pair: its own flips, the few-differ fallback, the simulated benchmark
    error)."""

    n: NDArray[np.float64]
    c: NDArray[np.float64]
    w: NDArray[np.float64]
    cols: list[Column]
    ks: list[int]
    level: float
    n_boot: int
    rng: np.random.Generator
    prior: HyperPrior
    clusters: NDArray[np.int64] | None = None
    given: TaskValues | None = None
    systems: dict[int, _System] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.wn = self.w / self.w.sum()
        self.values = (  # tasks × columns per system
            [column_values(self.n[s], self.c[s], self.cols) for s in range(self.n.shape[0])]
            if self.given is None
            else list(np.asarray(self.given.values, dtype=float))
        )
        self.same = _same_estimand(self.cols)
        self.first = np.array([self.same[j] == j for j in range(len(self.cols))])
        self.t_n = int(self.n.shape[1])

    def system(self, s: int) -> _System:
        """System ``s`` with its posterior (built on first use, then shared by its pairs)."""
        if s not in self.systems:
            self.systems[s] = _System(self.n[s], self.c[s], self.prior)
        return self.systems[s]

    def table(self, pairs: Sequence[tuple[int, int]], *, shared_flips: bool) -> pd.DataFrame:
        """Every pair's rows: both scopes, every column and k."""
        a = np.array([int(x) for x, _ in pairs], dtype=np.int64)
        b = np.array([int(y) for _, y in pairs], dtype=np.int64)
        vals = np.stack(self.values)
        st = pair_stats(vals, self.wn, self.n, self.c, a, b)
        use = st.discordant >= MIN_DISCORDANT  # the sign-flip test where enough tasks differ
        if self.clusters is not None:  # … where enough clusters differ
            use = (
                np.stack(
                    [
                        _differing(vals[y] - vals[x], self.w, self.clusters)
                        for x, y in zip(a, b, strict=True)
                    ]
                ).reshape(use.shape)
                >= MIN_DISCORDANT
            )
        shared = (
            _shared_population(
                self.n,
                self.c,
                self.w,
                self.values,
                pairs,
                ci=self.level,
                n_flips=self.n_boot,
                rng=self.rng,
                use=use,
                clusters=self.clusters,
            )
            if shared_flips  # drawn first, before any pair's own draws
            else {}
        )
        pop = self._shared_cells(st, use, shared)
        bench, normal = self._normal_cells(st) if self.given is None else self._given_cells(st)
        drawn = ~normal & self.first[None, :]
        own = ~np.array([(int(x), int(y)) in shared for x, y in zip(a, b, strict=True)])
        slow = (
            (own & use.any(axis=1)) | (~use & self.first[None, :]).any(axis=1) | drawn.any(axis=1)
        )
        for r in np.flatnonzero(slow).tolist():  # pairs that draw random numbers, in order
            d = self.values[b[r]] - self.values[a[r]]
            if own[r]:
                self._own_flips(pop, r, st, d, np.flatnonzero(use[r]).tolist())
            self._few_differ(pop, r, d, np.flatnonzero(~use[r] & self.first).tolist())
            self._pooled(bench, r, st, np.flatnonzero(drawn[r]).tolist())
        for cells, done in ((pop, use | self.first[None, :]), (bench, normal | drawn)):
            for j in range(len(self.cols)):  # pass@1 = pass^1 = the mean: one answer
                rows = ~done[:, j]
                for q in range(5):
                    cells[q][rows, j] = cells[q][rows, self.same[j]]
        point = np.stack([self.wn @ v for v in self.values])
        return table_frame(
            st, point, {"benchmark": bench, "population": pop}, self.cols, self.ks, self.t_n
        )

    def _flip_method(self) -> str:
        """The population interval's words where the (cluster) sign-flip test is inverted."""
        if self.clusters is None:
            return _FLIP_METHOD
        return (
            f"{_flip_word(self.clusters)} inverted: every shift it does not reject "
            f"(rule: ≥ {MIN_DISCORDANT} clusters differ)"
        )

    def _perm_word(self) -> str:
        return _flip_word(self.clusters).replace("test", "permutation")

    def _given_cells(self, st: PairStats) -> tuple[_Cells, NDArray[np.bool_]]:
        """Benchmark scope of given values (scores): Δ ± z·SE from their within-task
        variances, for every pair and column (no model to fall back on)."""
        given = self.given
        cells = _empty_cells(st.theta.shape)
        if given is None:
            return cells, np.zeros(st.theta.shape, dtype=bool)
        z = float(stats.norm.isf(round(1.0 - self.level, 12) / 2))
        var = np.stack(
            [
                (self.wn**2) @ (given.variances[x] + given.variances[y])
                for x, y in zip(st.a, st.b, strict=True)
            ]
        ).reshape(st.theta.shape)
        se = np.sqrt(np.maximum(var, 0.0))
        theta = st.theta
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(se > 0, 2.0 * special.ndtr(-np.abs(theta) / se), (theta == 0) * 1.0)
        words = (
            "normal, unbiased difference ± z·SE, within-task variance of each task's "
            "U-statistic (scores: no Beta-Binomial model; the rule of estimate --scores)"
        )
        cells[0][:], cells[1][:] = np.maximum(-1.0, theta - z * se), np.minimum(1.0, theta + z * se)
        cells[2][:] = p
        cells[3][:] = np.where(se > 0, words, words + "; SE 0: every task's runs agree")
        cells[4][:] = "normal approximation, two-sided"
        return cells, np.ones(st.theta.shape, dtype=bool)

    def _note(self, diff_n: int) -> str:
        return (
            f"; approximate: n differs between the systems on {diff_n} of {self.t_n} tasks"
            if diff_n
            else "; exact level when the systems are exchangeable within each task"
        )

    def _shared_cells(
        self,
        st: PairStats,
        use: NDArray[np.bool_],
        shared: dict[tuple[int, int], tuple[Any, Any, Any, str]],
    ) -> _Cells:
        """Population cells of the pairs on shared flips (the others are filled later)."""
        cells = _empty_cells(use.shape)
        for r, pair in enumerate(zip(st.a.tolist(), st.b.tolist(), strict=True)):
            if pair not in shared:
                continue
            lo, hi, p, how = shared[pair]
            js = use[r]
            cells[0][r, js], cells[1][r, js], cells[2][r, js] = lo[js], hi[js], p[js]
            cells[3][r, js] = self._flip_method()
            cells[4][r, js] = f"{self._perm_word()}, {how}{self._note(int(st.diff_n[r]))}"
        return cells

    def _normal_cells(self, st: PairStats) -> tuple[_Cells, NDArray[np.bool_]]:
        """Benchmark cells by the normal rule (≥ MIN_TASKS tasks, ≥ MIN_FLAKY flaky in the
        pair) where the variance is positive; the mask of those cells."""
        cells = _empty_cells(st.theta.shape)
        done = np.zeros(st.theta.shape, dtype=bool)
        rows = np.flatnonzero((st.flaky >= MIN_FLAKY) & (self.t_n >= MIN_TASKS))
        if rows.size == 0:
            return cells, done
        a, b = st.a[rows], st.b[rows]
        var = pair_variances(lambda s: self.system(s).variances(self.cols), self.wn, a, b)
        nmin = self.n.min(axis=1)
        kks = np.array([1 if m == "mean" else int(k) for m, k in self.cols])
        short = np.minimum(nmin[a], nmin[b])[:, None] < 2 * kks[None, :]
        z = float(stats.norm.isf(round(1.0 - self.level, 12) / 2))
        lo, hi, p, ok, meth = normal_block(
            st.theta[rows], var, short, self.cols, z=z, rule=_NORMAL_RULE
        )
        for q, arr in enumerate((lo, hi, p, meth)):
            cells[q][rows] = np.where(ok, arr, cells[q][rows])
        cells[4][rows] = np.where(ok, "normal approximation, two-sided", cells[4][rows])
        done[rows] = ok
        return cells, done

    def _own_flips(
        self, pop: _Cells, r: int, st: PairStats, d: NDArray[np.float64], jdx: list[int]
    ) -> None:
        """The pair's own sign flips (exact where its task categories allow it)."""
        if not jdx:
            return
        n, c, w = self.n, self.c, self.w
        ia, ib = int(st.a[r]), int(st.b[r])
        cats = compress(np.column_stack([n[ia], c[ia], n[ib], c[ib]]), d, w)
        if self.clusters is not None:
            cats = cluster_categories(cats, self.clusters)
        flips = flip_sums(cats.freq, n_flips=self.n_boot, rng=self.rng)
        # values[:, jdx] as before (its memory layout fixes the products' last bits)
        lo, hi, p = invert_flips(cats.values[:, jdx], cats.weights, flips, ci=self.level)
        how = (
            f"exact ({flips.prob.size} sign patterns enumerated)"
            if flips.exact
            else f"{self.n_boot} random sign flips"
        )
        p_meth = f"{self._perm_word()}, {how}{self._note(int(st.diff_n[r]))}"
        meth = self._flip_method()
        for i, j in enumerate(jdx):
            _put(pop, r, j, (float(lo[i]), float(hi[i]), float(p[i]), meth, p_meth))

    def _few_differ(self, pop: _Cells, r: int, d: NDArray[np.float64], few: list[int]) -> None:
        """The paired Bayesian bootstrap joined with the sign-flip test (few tasks differ)."""
        if not few:
            return
        lo, hi, p, how = few_differ_intervals(
            d[:, few], self.w, ci=self.level, n_draws=self.n_boot, rng=self.rng,
            clusters=self.clusters,
        )  # fmt: skip
        p_meth = (
            f"the larger of the Bayesian bootstrap's two-sided tail ({self.n_boot} draws) and "
            f"the {self._perm_word()} p-value ({how})"
        )
        meth = _FEW_METHOD
        if self.clusters is not None:
            meth = (
                "paired Bayesian bootstrap of the matched clusters (half a pseudo-cluster at −1 "
                f"and at +1), joined with the {_flip_word(self.clusters)} inverted (rule: fewer "
                f"than {MIN_DISCORDANT} clusters differ)"
            )
        for i, j in enumerate(few):
            _put(pop, r, j, (float(lo[i]), float(hi[i]), float(p[i]), meth, p_meth))

    def _pooled(self, bench: _Cells, r: int, st: PairStats, drawn: list[int]) -> None:
        """The unbiased difference with its simulated error (the normal rule does not hold)."""
        if not drawn:
            return
        found = _pooled_benchmark_intervals(
            self.system(int(st.a[r])),
            self.system(int(st.b[r])),
            [self.cols[j] for j in drawn],
            self.w,
            st.theta[r, drawn],
            ci=self.level,
            n_draws=self.n_boot,
            rng=self.rng,
            prior=self.prior,
        )
        why = (
            f"fewer than {MIN_TASKS} tasks"
            if self.t_n < MIN_TASKS
            else f"fewer than {MIN_FLAKY} tasks with both outcomes"
        )
        p_meth = f"two-sided tail of the simulated error, {self.n_boot} draws"
        for j, (lo_, hi_, p_) in zip(drawn, found, strict=True):
            _put(bench, r, j, (lo_, hi_, p_, _DRAWN_METHOD.format(why=why), p_meth))


def _shared_population(
    n: NDArray[np.float64],
    c: NDArray[np.float64],
    w: NDArray[np.float64],
    values: Sequence[NDArray[np.float64]],
    pairs: Sequence[tuple[int, int]],
    *,
    ci: float,
    n_flips: int,
    rng: np.random.Generator,
    use: NDArray[np.bool_] | None = None,
    clusters: NDArray[np.int64] | None = None,
) -> dict[tuple[int, int], tuple[Any, Any, Any, str]]:
    """Population sign-flip results of the pairs that need random flips, on shared flips.

    A pair qualifies as in :func:`paired_table`'s own path: some column has at
    least :data:`MIN_DISCORDANT` differing tasks and the pair's (n, c, w)
    categories are too many to enumerate. With fewer than two such pairs
    there is nothing to share and the dictionary is empty. ``use`` (pairs × columns), when
    given, says which columns have enough differing tasks (else found from ``values``).
    """
    s_n = n.shape[0]
    # per-system category codes of (n, c, w): equal code, equal values and weight
    _, w_code = np.unique(w, return_inverse=True)
    key = (w_code.ravel()[None, :] * (np.max(n) + 1) + n) * (np.max(c) + 1) + c
    codes = np.empty(n.shape, dtype=np.int64)
    sizes = np.empty(s_n, dtype=np.int64)
    for s in range(s_n):
        _, inv = np.unique(key[s], return_inverse=True)
        codes[s] = inv.ravel()
        sizes[s] = int(codes[s].max()) + 1
    picked: list[tuple[int, int]] = []
    need: list[NDArray[np.bool_]] = []
    if use is None:
        use = (
            np.array(
                [np.count_nonzero(np.abs(values[b] - values[a]) > 1e-12, axis=0) for a, b in pairs]
            ).reshape(len(pairs), -1)
            >= MIN_DISCORDANT
        )
    for (ia, ib), use_r in zip(pairs, use, strict=True):
        if not use_r.any():
            continue
        joint = codes[ia] * sizes[ib] + codes[ib]
        if clusters is not None:  # the flipped units: clusters of equal task categories
            one = np.zeros((joint.size, 1))
            freq = cluster_categories(compress(joint[:, None], one, one[:, 0]), clusters).freq
        else:
            cells = int(sizes[ia] * sizes[ib])
            freq = (
                np.bincount(joint, minlength=cells)
                if cells <= 4 * joint.size
                else np.unique(joint, return_counts=True)[1]
            )
        if enumerable(freq[freq > 0]):
            continue
        picked.append((int(ia), int(ib)))
        need.append(use_r)
    if len(picked) < 2:
        return {}
    lo, hi, p = invert_shared_flips(
        np.stack(values),
        w,
        picked,
        n_flips=n_flips,
        rng=rng,
        ci=ci,
        need=np.vstack(need),
        categories=codes,
        clusters=clusters,
    )
    how = f"{n_flips} random sign flips shared by {len(picked)} pairs"
    return {pair: (lo[r], hi[r], p[r], how) for r, pair in enumerate(picked)}
