"""Both scopes' intervals of the mean score and the expected best / worst of k.

The per-task values are the unbiased U-statistics of :mod:`passhat.scores.estimators`,
macro-averaged with the task weights. The rule that picks each interval (every row's
``method`` names the one that ran and why):

**Population scope** (a new task from the distribution the benchmark samples): the tasks are
resampled, each carrying its own value, as :mod:`passhat.scopes` does for 0/1 outcomes —

* the **task bootstrap** (BCa, percentile where BCa degenerates) with at least
  :data:`passhat.scopes.MIN_TASKS` tasks and at least :data:`passhat.scopes.MIN_SIDE` of them
  strictly on each side of the estimate;
* otherwise the **Bayesian bootstrap with half a pseudo-task at 0 and at 1** (the 0/1 rule's
  choice for tasks piled at one end; with fewer than 30 tasks it also replaces the 0/1 rule's
  Beta-Binomial model, which has no counterpart for scores).

**Benchmark scope** (these tasks, given their finitely many runs): the **normal interval**
θ̂ ± z·SE with SE² = Σ w̃ᵢ² V̂ᵢ, V̂ᵢ the within-task variance estimate of task i's
U-statistic (unbiased where n ≥ 2k, the jackknife — conservative — where k < n < 2k, the
bound 1/4 where n = k; :func:`passhat.scores.estimators.worst_of_k_variance`), clipped to
[0, 1]. Its coverage is checked by simulation (``studies/scores_coverage.py``).

A system whose scores are all exactly 0 or 1 is pass/fail data: its best / worst of k *are*
pass@k / pass^k, and its intervals are those of :func:`passhat.scopes.scope_intervals` on the
same stream, equal to ``estimate``'s pass@k / pass^k rows.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> x = np.sort(rng.beta(2, 2, size=(40, 6)), axis=1)
>>> vals, var = task_columns([(6, np.arange(40), x)], 40, [("worst_of_k", 2)])
>>> iv = score_scope_intervals(vals, var, np.full(40, 6.0), np.ones(40), [("worst_of_k", 2)],
...                            ci=0.9, n_boot=500, rng=rng)
>>> iv["scope"].tolist(), iv["method"].str.split(",").str[0].tolist()
(['benchmark', 'population'], ['normal', 'task bootstrap BCa'])
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import stats

from passhat.bootstrap import bayesian_bootstrap_draws, compress, draw_stats, interval_from_draws
from passhat.scopes import MIN_SIDE, MIN_TASKS
from passhat.scores.estimators import best_of_k, worst_of_k, worst_of_k_variance

__all__ = [
    "SCORE_METRICS",
    "score_columns",
    "score_scope_intervals",
    "task_columns",
]

#: The score metrics, in the order tables show them (the 0/1 metrics' counterparts).
SCORE_METRICS = ("mean_score", "best_of_k", "worst_of_k")

#: A score column: (metric, k).
ScoreColumn = tuple[str, int]


def score_columns(ks: Sequence[int]) -> list[ScoreColumn]:
    """The mean score once, then the best and the worst of k per k (as
    :func:`passhat.scopes.columns` orders the 0/1 metrics).

    Examples
    --------
    >>> score_columns([1, 3])
    [('mean_score', 1), ('best_of_k', 1), ('best_of_k', 3), ('worst_of_k', 1), ('worst_of_k', 3)]
    """
    ks = list(ks)
    return [("mean_score", ks[0])] + [(m, k) for m in SCORE_METRICS[1:] for k in ks]


def _one(xs: NDArray[np.float64], col: ScoreColumn) -> tuple[NDArray[np.float64], ...]:
    """Value and variance estimate of one column for a group of rows (NaN where n < k)."""
    metric, k = col
    kk = 1 if metric == "mean_score" else int(k)
    if kk > xs.shape[1]:
        nan = np.full(xs.shape[0], np.nan)
        return nan, nan
    if metric == "best_of_k":  # best of x = 1 − worst of (1 − x), same variance
        return best_of_k(xs, kk), worst_of_k_variance(1.0 - xs, kk)
    return worst_of_k(xs, kk), worst_of_k_variance(xs, kk)


def task_columns(
    groups: Sequence[tuple[int, NDArray[np.int64], NDArray[np.float64]]],
    size: int,
    cols: Sequence[ScoreColumn],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per-cell values and within-task variance estimates (cells × columns; NaN for cells
    without runs or with n < k), one matrix operation per n-group."""
    vals = np.full((size, len(cols)), np.nan)
    var = np.full((size, len(cols)), np.nan)
    for _n, cells, xs in groups:
        for j, col in enumerate(cols):
            vals[cells, j], var[cells, j] = _one(xs, col)
    return vals, var


def _population(
    vals: NDArray[np.float64],
    w: NDArray[np.float64],
    theta: NDArray[np.float64],
    cols: Sequence[ScoreColumn],
    *,
    ci: float,
    n_boot: int,
    rng: np.random.Generator,
    ci_method: str,
) -> list[tuple[float, float, str]]:
    """The population scope per column, by the rule of the module docstring."""
    cats = compress(vals, vals, w)
    tol = 1e-12
    below = ((cats.values < theta - tol) * cats.freq[:, None]).sum(axis=0)
    above = ((cats.values > theta + tol) * cats.freq[:, None]).sum(axis=0)
    t = len(vals)
    use_boot = (t >= MIN_TASKS) & (below >= MIN_SIDE) & (above >= MIN_SIDE)
    out: list[tuple[float, float, str]] = [(np.nan, np.nan, "")] * len(cols)
    if use_boot.any() and ci_method == "analytic":
        from passhat.analytic import analytic_interval

        lo, hi, label = analytic_interval(cats.values, cats.freq, cats.weights, ci=ci)
        why = f"ci_method analytic; ≥ {MIN_TASKS} tasks, ≥ {MIN_SIDE} on each side of the estimate"
        for j in np.flatnonzero(use_boot).tolist():
            out[j] = (float(lo[j]), float(hi[j]), f"{label} (rule: {why})")
    elif use_boot.any():
        draws = draw_stats(cats, n_boot=n_boot, rng=rng)
        lo, hi, labels = interval_from_draws(theta, draws, cats, ci=ci, method=ci_method)
        why = f"≥ {MIN_TASKS} tasks, ≥ {MIN_SIDE} on each side of the estimate"
        for j in np.flatnonzero(use_boot).tolist():
            out[j] = (
                float(lo[j]),
                float(hi[j]),
                f"task bootstrap {labels[j]}, {n_boot} resamples (rule: {why})",
            )
    if (~use_boot).any():
        bb = bayesian_bootstrap_draws(cats, n_boot=n_boot, rng=rng)
        q = np.quantile(bb, [(1 - ci) / 2, (1 + ci) / 2], axis=0)
        for j in np.flatnonzero(~use_boot).tolist():
            why = (
                f"fewer than {MIN_TASKS} tasks"
                if t < MIN_TASKS
                else f"fewer than {MIN_SIDE} tasks on a side of the estimate"
            )
            out[j] = (
                float(q[0, j]),
                float(q[1, j]),
                f"Bayesian bootstrap with half a pseudo-task at 0 and at 1, {n_boot} draws "
                f"(rule: {why}; scores have no Beta-Binomial model)",
            )
    return out


def _benchmark(
    var: NDArray[np.float64],
    n: NDArray[np.float64],
    wn: NDArray[np.float64],
    theta: NDArray[np.float64],
    cols: Sequence[ScoreColumn],
    *,
    ci: float,
) -> list[tuple[float, float, str]]:
    """The benchmark scope per column: θ̂ ± z·SE from the tasks' within-task variances."""
    z = float(stats.norm.isf((1 - ci) / 2))
    out = []
    for j, (metric, k) in enumerate(cols):
        kk = 1 if metric == "mean_score" else int(k)
        se = float(np.sqrt(max(float(np.sum(wn**2 * var[:, j])), 0.0)))
        kinds = ["unbiased" + (f" where n ≥ {2 * kk}" if (n < 2 * kk).any() else "")]
        if ((n > kk) & (n < 2 * kk)).any():
            kinds.append(f"jackknife (conservative) where {kk} < n < {2 * kk}")
        if (n == kk).any():
            kinds.append(f"the bound 1/4 where n = {kk}")
        out.append(
            (
                max(0.0, float(theta[j] - z * se)),
                min(1.0, float(theta[j] + z * se)),
                "normal, unbiased estimate ± z·SE, within-task variance of each task's "
                f"U-statistic ({'; '.join(kinds)})",
            )
        )
    return out


def score_scope_intervals(
    vals: NDArray[np.float64],
    var: NDArray[np.float64],
    n: NDArray[np.float64],
    weights: NDArray[np.float64],
    cols: Sequence[ScoreColumn],
    *,
    ci: float,
    n_boot: int,
    rng: np.random.Generator,
    ci_method: str = "bca",
) -> pd.DataFrame:
    """Both scopes' intervals of one system's score columns (tasks × columns ``vals`` and
    ``var``; ``n`` runs per task; ``weights`` any positive scale).

    Returns
    -------
    pandas.DataFrame
        One row per (column, scope): metric, k, scope, lower, upper, method.
    """
    w = np.asarray(weights, dtype=float)
    wn = w / w.sum()
    theta = wn @ vals
    pop = _population(vals, w, theta, cols, ci=ci, n_boot=n_boot, rng=rng, ci_method=ci_method)
    bench = _benchmark(var, n, wn, theta, cols, ci=ci)
    rows = [
        {"metric": m, "k": k, "scope": scope, "lower": lo, "upper": hi, "method": meth}
        for j, (m, k) in enumerate(cols)
        for scope, (lo, hi, meth) in (("benchmark", bench[j]), ("population", pop[j]))
    ]
    return pd.DataFrame(rows, columns=["metric", "k", "scope", "lower", "upper", "method"])
