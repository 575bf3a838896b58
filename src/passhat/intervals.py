"""Uncertainty: per-task intervals, benchmark- and population-scope intervals, paired comparison.

Two scopes, always named in output:

* **benchmark** — the weighted mean over *these* tasks. Its only uncertainty
  is within-task (each task got finitely many runs). The interval is
  ``value ± z·SE`` with ``SE² = Σ w_i² V̂_i`` where ``V̂_i`` is the unbiased
  per-task variance estimate of the task's estimator
  (:func:`passhat.estimators.pass_hat_k_variance_estimate`, which needs
  ``n ≥ 2k``). For tasks with ``n < 2k`` the exact variance formula is
  evaluated at the shrunk rate ``p̃ = (c + ½)/(n + 1)`` (a plug-in), and the
  ``method`` string says for how many tasks that was done.
* **population** — the same metric for a new task drawn from the
  distribution the benchmark samples. Task-level bootstrap: tasks are
  resampled with replacement, each carrying all its runs (runs are never
  resampled within a task). Because a task's estimate depends only on its
  ``(n, c, w)``, a resample is a multinomial draw over the distinct
  categories, so the cost grows with the number of categories, not tasks.
  One draw matrix serves every metric and k. Percentile or BCa intervals;
  BCa falls back to percentile where it degenerates, and ``method`` says so.

Examples
--------
>>> import passhat as ph
>>> ti = ph.task_intervals(ph.counts_from_arrays([5, 5], [4, 0]), method="wilson")
>>> ti[["rate", "rate_lower", "rate_upper"]].round(3).values.tolist()
[[0.8, 0.376, 0.964], [0.0, 0.0, 0.434]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from passhat._validate import check_ci, check_method, check_n_boot, make_rng, norm_k
from passhat.errors import OptionError, ShortTaskError, ValidationError
from passhat.estimators import (
    METRICS,
    as_counts,
    pass_hat_k_variance,
    pass_hat_k_variance_estimate,
    subset_ratio,
)
from passhat.trials import Trials

__all__ = [
    "CI_METHODS",
    "TASK_METHODS",
    "Comparison",
    "benchmark_se",
    "bootstrap_draws",
    "compare",
    "estimate_intervals",
    "paired_difference",
    "proportion_interval",
    "task_bootstrap",
    "task_intervals",
    "task_outcome_shares",
]

#: Per-task interval methods for a success rate.
TASK_METHODS = ("wilson", "clopper-pearson", "jeffreys")
#: Bootstrap interval methods.
CI_METHODS = ("bca", "percentile")

#: Largest number of multinomial counts held at once (chunk × categories).
_CHUNK_CELLS = 4_000_000


# --------------------------------------------------------- per-task intervals
def proportion_interval(
    n: ArrayLike, c: ArrayLike, *, method: str = "wilson", ci: float = 0.95
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Two-sided interval for a binomial proportion c / n, elementwise.

    Matches :func:`statsmodels.stats.proportion.proportion_confint` with
    ``method`` "wilson", "beta" (= "clopper-pearson") and "jeffreys". NaN
    where n = 0.

    Parameters
    ----------
    n, c : array_like of int
        Trials and successes.
    method : {"wilson", "clopper-pearson", "jeffreys"}
    ci : float
        Confidence level in (0, 1).

    Returns
    -------
    lower, upper : numpy.ndarray

    Examples
    --------
    >>> from passhat.intervals import proportion_interval
    >>> lo, hi = proportion_interval(10, 8, method="clopper-pearson")
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.4439, 0.9748)
    """
    m = check_method(method, TASK_METHODS, "method")
    level = check_ci(ci)
    n_a, c_a = np.broadcast_arrays(np.asarray(n, dtype=float), np.asarray(c, dtype=float))
    a2 = (1.0 - level) / 2.0
    ok = n_a > 0
    nn = np.where(ok, n_a, 1.0)
    cc = np.where(ok, c_a, 0.0)
    q = cc / nn
    with np.errstate(invalid="ignore", divide="ignore"):
        if m == "wilson":
            z = stats.norm.isf(a2)
            z2 = z * z
            denom = 1.0 + z2 / nn
            center = (q + z2 / (2.0 * nn)) / denom
            dist = z * np.sqrt(q * (1.0 - q) / nn + z2 / (4.0 * nn**2)) / denom
            lo = np.clip(center - dist, 0.0, 1.0)
            hi = np.clip(center + dist, 0.0, 1.0)
        elif m == "clopper-pearson":
            lo = np.where(cc == 0, 0.0, stats.beta.ppf(a2, np.maximum(cc, 1e-300), nn - cc + 1))
            hi = np.where(cc == nn, 1.0, stats.beta.isf(a2, cc + 1, np.maximum(nn - cc, 1e-300)))
        else:  # jeffreys, as statsmodels: no boundary adjustment
            lo = stats.beta.ppf(a2, cc + 0.5, nn - cc + 0.5)
            hi = stats.beta.isf(a2, cc + 0.5, nn - cc + 0.5)
    lo = np.where(ok, lo, np.nan)
    hi = np.where(ok, hi, np.nan)
    return np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)


def task_outcome_shares(n: ArrayLike, c: ArrayLike) -> dict[str, NDArray[np.bool_]]:
    """Per-task flags: ``flaky`` (both outcomes among decided runs), ``all_pass``, ``all_fail``.

    Tasks with n = 0 are none of the three.

    Examples
    --------
    >>> from passhat.intervals import task_outcome_shares
    >>> {k: v.tolist() for k, v in task_outcome_shares([5, 5, 5, 0], [5, 2, 0, 0]).items()}
    {'flaky': [False, True, False, False], 'all_pass': [True, False, False, False], \
'all_fail': [False, False, True, False]}
    """
    n_a, c_a = np.broadcast_arrays(np.asarray(n), np.asarray(c))
    return {
        "flaky": (c_a > 0) & (c_a < n_a),
        "all_pass": (n_a > 0) & (c_a == n_a),
        "all_fail": (n_a > 0) & (c_a == 0),
    }


def task_intervals(
    counts: Trials | xr.Dataset,
    *,
    method: str = "wilson",
    ci: float = 0.95,
    k: int | Sequence[int] | None = None,
) -> pd.DataFrame:
    """Per-task success-rate intervals, and pass^k / pass@k intervals from them.

    pass^k = p^k and pass@k = 1 − (1 − p)^k are increasing in p, so the
    interval [L, U] for p maps to [L^k, U^k] and [1 − (1 − L)^k, 1 − (1 − U)^k]
    with the same coverage. The point values are the unbiased estimates
    (C(c,k)/C(n,k) and 1 − C(n−c,k)/C(n,k)); for tasks with n < k they are
    NaN, while the intervals (for p^k itself) are still given. An unbiased
    point value can lie outside the transformed interval (e.g. c = 1, n = 5,
    k = 2 gives 0 below L²): the interval is for p^k, not for the estimator.

    Parameters
    ----------
    counts : Trials or xarray.Dataset
        Trials or a count table.
    method : {"wilson", "clopper-pearson", "jeffreys"}
    ci : float
        Confidence level in (0, 1).
    k : int or sequence of int, optional
        Also give pass^k and pass@k columns for these k.

    Returns
    -------
    pandas.DataFrame
        One row per (system, task) the system ran: system, task, n, c,
        unscored, [category,] flaky, all_pass, all_fail, rate, rate_lower,
        rate_upper, then per k ``pass_hat_{k}``, ``pass_hat_{k}_lower``,
        ``pass_hat_{k}_upper``, ``pass_at_{k}``, ``pass_at_{k}_lower``,
        ``pass_at_{k}_upper``; and ``method``.

    Examples
    --------
    >>> import passhat as ph
    >>> ti = ph.task_intervals(ph.load_example("abcd"), k=2)
    >>> ti[["task", "pass_hat_2", "pass_hat_2_lower", "pass_hat_2_upper"]].round(3).values[1]
    array(['B', 0.6, 0.141, 0.929], dtype=object)
    """
    m = check_method(method, TASK_METHODS, "method")
    level = check_ci(ci)
    ds = as_counts(counts)
    ks = norm_k(k) if k is not None else []
    present = np.asarray(ds["present"].values, dtype=bool)
    s_idx, t_idx = np.nonzero(present)
    n = np.asarray(ds["n"].values)[s_idx, t_idx]
    c = np.asarray(ds["c"].values)[s_idx, t_idx]
    out: dict[str, Any] = {
        "system": np.asarray(ds["system"].values, dtype=object)[s_idx].astype(str),
        "task": np.asarray(ds["task"].values, dtype=object)[t_idx].astype(str),
        "n": n.astype(int),
        "c": c.astype(int),
        "unscored": np.asarray(ds["unscored"].values)[s_idx, t_idx].astype(int),
    }
    if "category" in ds.coords:
        out["category"] = np.asarray(ds["category"].values, dtype=object)[t_idx]
    out.update(task_outcome_shares(n, c))
    lo, hi = proportion_interval(n, c, method=m, ci=level)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["rate"] = np.where(n > 0, c / np.where(n > 0, n, 1), np.nan)
    out["rate_lower"], out["rate_upper"] = lo, hi
    nf, cf = n.astype(float), c.astype(float)
    for kv in ks:
        short = nf < kv
        nk = np.maximum(nf, kv)
        out[f"pass_hat_{kv}"] = np.where(short, np.nan, subset_ratio(cf, nk, kv))
        out[f"pass_hat_{kv}_lower"] = lo**kv
        out[f"pass_hat_{kv}_upper"] = hi**kv
        out[f"pass_at_{kv}"] = np.where(short, np.nan, 1.0 - subset_ratio(nf - cf, nk, kv))
        out[f"pass_at_{kv}_lower"] = 1.0 - (1.0 - lo) ** kv
        out[f"pass_at_{kv}_upper"] = 1.0 - (1.0 - hi) ** kv
    df = pd.DataFrame(out)
    df["method"] = f"{m} {level:g}"
    return df


# ------------------------------------------------------- benchmark scope
def _per_task_variance(
    n: NDArray[np.float64], c: NDArray[np.float64], k: int
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Variance estimate of the per-task C(c,k)/C(n,k) estimator; plug-in where n < 2k."""
    v = np.zeros(n.shape)
    enough = n >= 2 * k
    if enough.any():
        v[enough] = pass_hat_k_variance_estimate(n[enough], c[enough], k)
    low = ~enough
    if low.any():
        p_shrunk = (c[low] + 0.5) / (n[low] + 1.0)
        v[low] = pass_hat_k_variance(n[low], p_shrunk, k)
    return v, low


def benchmark_se(
    n: ArrayLike,
    c: ArrayLike,
    *,
    k: int,
    metric: str = "pass_hat_k",
    weights: ArrayLike | None = None,
) -> tuple[float, int]:
    """Standard error of a benchmark (these tasks) value from per-task variances.

    ``SE² = Σ w_i² V̂_i`` with normalised weights, where ``V̂_i`` is the
    unbiased variance estimate of the task's estimator (n ≥ 2k), or the exact
    variance at the shrunk rate (c + ½)/(n + 1) where n < 2k. pass@k uses
    the failures (pass@k = 1 − pass^k of failures); mean is pass^1. A sum of
    unbiased estimates can be negative by chance; it is floored at 0.

    Returns
    -------
    se : float
    n_plugin : int
        How many tasks used the plug-in variance (n < 2k).

    Examples
    --------
    >>> from passhat.intervals import benchmark_se
    >>> se, _ = benchmark_se([10, 10], [5, 5], k=1, metric="mean")
    >>> round(se, 4)   # sqrt(2 · ¼ · 5·5/(100·9)) = sqrt(0.0139)
    0.1179
    """
    if metric not in METRICS:
        raise OptionError(f"metric must be one of {', '.join(METRICS)} (got {metric!r})")
    n_a = np.asarray(n, dtype=float)
    c_a = np.asarray(c, dtype=float)
    kk = 1 if metric == "mean" else int(k)
    if np.any(n_a < kk):
        raise ShortTaskError(f"k = {kk} exceeds the decided runs of some task (n < k)")
    w = np.ones_like(n_a) if weights is None else np.asarray(weights, dtype=float)
    tot = w.sum()
    if n_a.size == 0 or tot <= 0:
        return float("nan"), 0
    w = w / tot
    succ = n_a - c_a if metric == "pass_at_k" else c_a
    v, low = _per_task_variance(n_a, succ, kk)
    var = float(np.sum(w * w * v))
    return float(np.sqrt(max(var, 0.0))), int(low.sum())


# ------------------------------------------------------ population scope
@dataclass
class _Compressed:
    """Distinct task categories: key rows, their frequencies, and per-category values."""

    freq: NDArray[np.int64]
    values: NDArray[np.float64]  # m × C
    weights: NDArray[np.float64]  # m
    inverse: NDArray[np.int64]  # T → category


def _compress(
    keys: NDArray[Any], values: NDArray[np.float64], weights: NDArray[np.float64]
) -> _Compressed:
    """Group tasks by identical key rows (a task's values must depend only on its key)."""
    full = np.column_stack([keys.astype(float), weights.astype(float)])
    _uniq, first, inverse, freq = np.unique(
        full, axis=0, return_index=True, return_inverse=True, return_counts=True
    )
    return _Compressed(
        freq=freq.astype(np.int64),
        values=values[first],
        weights=weights[first].astype(float),
        inverse=inverse.ravel().astype(np.int64),
    )


def bootstrap_draws(
    counts: NDArray[np.int64], values: NDArray[np.float64], weights: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Weighted means for given resample counts: ``(M·w) @ V / (M @ w)``.

    ``counts`` is draws × categories (how often each category was drawn),
    ``values`` categories × columns. Resampling tasks and then averaging
    their values gives exactly this number, because tasks of one category
    carry identical values.
    """
    mw = counts * weights[None, :]
    den = mw.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray((mw @ values) / den[:, None], dtype=float)


def _draw_stats(comp: _Compressed, *, n_boot: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """n_boot × C resampled weighted means, drawn in chunks (bounded memory)."""
    total = int(comp.freq.sum())
    m = comp.freq.size
    pvals = comp.freq / total
    out = np.empty((n_boot, comp.values.shape[1]))
    chunk = max(1, min(n_boot, _CHUNK_CELLS // max(m, 1)))
    for start in range(0, n_boot, chunk):
        b = min(chunk, n_boot - start)
        draws = rng.multinomial(total, pvals, size=b)
        out[start : start + b] = bootstrap_draws(draws, comp.values, comp.weights)
    return out


def _jackknife(comp: _Compressed) -> NDArray[np.float64]:
    """Leave-one-task-out weighted means per category (m × C)."""
    sw = float(np.sum(comp.freq * comp.weights))
    swv = (comp.freq * comp.weights) @ comp.values
    den = sw - comp.weights
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(
            (swv[None, :] - comp.weights[:, None] * comp.values) / den[:, None], dtype=float
        )


def _interval_from_draws(
    theta_hat: NDArray[np.float64],
    draws: NDArray[np.float64],
    comp: _Compressed,
    *,
    ci: float,
    method: str,
) -> tuple[NDArray[np.float64], NDArray[np.float64], list[str]]:
    """Percentile or BCa interval per column; BCa falls back to percentile per column."""
    alpha = 1.0 - ci
    n_cols = theta_hat.size
    lo = np.quantile(draws, alpha / 2, axis=0)
    hi = np.quantile(draws, 1 - alpha / 2, axis=0)
    labels = ["percentile"] * n_cols
    if method == "percentile":
        return lo, hi, labels
    b = draws.shape[0]
    tol = 1e-12 * np.maximum(1.0, np.abs(theta_hat))
    below = (draws < theta_hat - tol).sum(axis=0)
    tie = (np.abs(draws - theta_hat) <= tol).sum(axis=0)
    prop = (below + 0.5 * tie) / b
    jack = _jackknife(comp)
    f = comp.freq.astype(float)[:, None]
    total = f.sum()
    jbar = (f * jack).sum(axis=0) / total
    dev = jbar[None, :] - jack
    num = (f * dev**3).sum(axis=0)
    den = 6.0 * ((f * dev**2).sum(axis=0)) ** 1.5
    z_a = stats.norm.ppf(alpha / 2)
    for j in range(n_cols):
        spread = draws[:, j].max() - draws[:, j].min()
        if not np.isfinite(spread) or spread <= tol[j]:
            labels[j] = "percentile (BCa degenerate: no spread among resamples)"
            continue
        if prop[j] <= 0.0 or prop[j] >= 1.0:
            labels[j] = "percentile (BCa degenerate: estimate outside the resamples)"
            continue
        if not (np.isfinite(den[j]) and den[j] > 0):
            labels[j] = "percentile (BCa degenerate: jackknife has no spread)"
            continue
        z0 = stats.norm.ppf(prop[j])
        acc = num[j] / den[j]
        q = []
        for zz in (z_a, -z_a):
            d = 1.0 - acc * (z0 + zz)
            q.append(stats.norm.cdf(z0 + (z0 + zz) / d) if d > 0 else np.nan)
        if not all(np.isfinite(q)) or not (0.0 < q[0] < q[1] < 1.0):
            labels[j] = "percentile (BCa degenerate: adjusted levels invalid)"
            continue
        lo[j], hi[j] = np.quantile(draws[:, j], q)
        labels[j] = "BCa"
    return lo, hi, labels


def task_bootstrap(
    values: ArrayLike,
    *,
    keys: ArrayLike | None = None,
    weights: ArrayLike | None = None,
    ci: float = 0.95,
    n_boot: int = 10_000,
    seed: int | np.random.Generator | None = None,
    method: Literal["bca", "percentile"] = "bca",
) -> pd.DataFrame:
    """Task-level bootstrap of weighted means of per-task values (all columns at once).

    Tasks are resampled with replacement (never runs within tasks). Tasks
    whose ``keys`` rows (and weights) are equal are one category; each
    resample is a multinomial draw over categories, and one draw matrix
    serves every column, so intervals across metrics and k are coherent.

    Parameters
    ----------
    values : array_like, tasks × columns
        Per-task values; must be a function of the task's key row.
    keys : array_like, tasks × d, optional
        What a task's values depend on, e.g. (n, c). Default: the values.
    weights : array_like, optional
        Per-task weights (the mean is Σ w v / Σ w in every resample).
    ci, n_boot, seed, method
        Level, resamples (≥ 100), random seed, "bca" or "percentile".

    Returns
    -------
    pandas.DataFrame
        One row per column: estimate, lower, upper, se (sd of the resamples),
        method.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.intervals import task_bootstrap
    >>> v = np.r_[np.ones(30), np.zeros(20)][:, None]
    >>> r = task_bootstrap(v, n_boot=2000, seed=0, method="percentile")
    >>> round(float(r["estimate"][0]), 2), bool(r["lower"][0] < 0.6 < r["upper"][0])
    (0.6, True)
    """
    level = check_ci(ci)
    nb = check_n_boot(n_boot)
    meth = check_method(method, CI_METHODS, "ci_method")
    vals = np.asarray(values, dtype=float)
    if vals.ndim == 1:
        vals = vals[:, None]
    if vals.shape[0] == 0:
        raise ValidationError("no tasks to bootstrap")
    key_arr = vals if keys is None else np.asarray(keys)
    if key_arr.ndim == 1:
        key_arr = key_arr[:, None]
    w = np.ones(vals.shape[0]) if weights is None else np.asarray(weights, dtype=float)
    rng = make_rng(seed)
    comp = _compress(key_arr, vals, w)
    theta = (comp.freq * comp.weights) @ comp.values / float(np.sum(comp.freq * comp.weights))
    draws = _draw_stats(comp, n_boot=nb, rng=rng)
    lo, hi, labels = _interval_from_draws(theta, draws, comp, ci=level, method=meth)
    return pd.DataFrame(
        {
            "estimate": theta,
            "lower": lo,
            "upper": hi,
            "se": draws.std(axis=0, ddof=1),
            "method": [f"task bootstrap {lab}, {nb} resamples" for lab in labels],
        }
    )


# ----------------------------------------------------- estimate() helper
def estimate_intervals(
    per: xr.Dataset,
    include: NDArray[np.bool_],
    weights: NDArray[np.float64],
    ks: Sequence[int],
    *,
    ci: float,
    n_boot: int = 10_000,
    seed: int | None = None,
    ci_method: str = "bca",
) -> pd.DataFrame:
    """Benchmark- and population-scope intervals for :func:`passhat.estimate`.

    Parameters
    ----------
    per : xarray.Dataset
        Per-task metrics over (system, task, k) with n and c (as built by
        :func:`passhat.estimate`).
    include : ndarray of bool, system × task
        Tasks that enter the averages.
    weights : ndarray, system × task
        Normalised weights (zero outside ``include``).
    ks : sequence of int

    Returns
    -------
    pandas.DataFrame
        system, k, metric, scope, lower, upper, method.
    """
    level = check_ci(ci)
    nb = check_n_boot(n_boot)
    meth = check_method(ci_method, CI_METHODS, "ci_method")
    rng = make_rng(seed)
    ks = list(ks)
    z = float(stats.norm.isf((1 - level) / 2))
    systems = [str(s) for s in per["system"].values]
    n_all = np.asarray(per["n"].values, dtype=float)
    c_all = np.asarray(per["c"].values, dtype=float)
    rows: list[dict[str, Any]] = []
    for s, name in enumerate(systems):
        inc = include[s]
        n, c, w = n_all[s, inc], c_all[s, inc], weights[s, inc]
        if inc.sum() == 0:
            continue
        cols = [("mean", ks[0])] + [(m, kv) for m in ("pass_at_k", "pass_hat_k") for kv in ks]
        vals = np.column_stack([per[m].values[s, inc, ks.index(kv)] for m, kv in cols])
        theta = (w @ vals) / w.sum()
        # benchmark scope
        bench: dict[tuple[str, int], tuple[float, float, str]] = {}
        for (m, kv), th in zip(cols, theta, strict=True):
            se, n_plug = benchmark_se(n, c, k=kv, metric=m, weights=w)
            kk = 1 if m == "mean" else kv
            note = (
                f"; plug-in variance at p=(c+1/2)/(n+1) for {n_plug} of {n.size} tasks "
                f"with n < {2 * kk}"
                if n_plug
                else ""
            )
            bench[(m, kv)] = (
                max(0.0, th - z * se),
                min(1.0, th + z * se),
                f"normal, unbiased per-task variance{note}",
            )
        # population scope: one draw matrix for every column
        boot = task_bootstrap(
            vals,
            keys=np.column_stack([n, c]),
            weights=w,
            ci=level,
            n_boot=nb,
            seed=rng,
            method=meth,  # type: ignore[arg-type]
        )
        pop = {
            col: (float(r.lower), float(r.upper), str(r.method))
            for col, r in zip(cols, boot.itertuples(), strict=True)
        }
        for kv in ks:
            for m in METRICS:
                key = (m, ks[0]) if m == "mean" else (m, kv)
                for scope, src in (("benchmark", bench), ("population", pop)):
                    lo, hi, label = src[key]
                    rows.append(
                        {
                            "system": name,
                            "k": kv,
                            "metric": m,
                            "scope": scope,
                            "lower": lo,
                            "upper": hi,
                            "method": label,
                        }
                    )
    return pd.DataFrame(
        rows, columns=["system", "k", "metric", "scope", "lower", "upper", "method"]
    )


# ------------------------------------------------------- paired comparison
@dataclass
class Comparison:
    """Result of :func:`compare`.

    Attributes
    ----------
    table : pandas.DataFrame
        Tidy, one row per (baseline, candidate, k, metric, scope): values of
        both systems, difference (candidate − baseline), lower, upper,
        p_value, tasks, method, p_method.
    discordant : pandas.DataFrame
        McNemar-style counts per pair at k = 1 (see :func:`compare`).
    dropped : pandas.DataFrame
        Tasks left out because only one system ran them (``intersect=True``).
    settings : dict
    """

    table: pd.DataFrame
    discordant: pd.DataFrame
    dropped: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)


def _split_systems(
    a: Trials | xr.Dataset,
    b: Trials | xr.Dataset | None,
    baseline: str | None,
    names: tuple[str, str] | None,
) -> tuple[xr.Dataset, str, list[str]]:
    """One count table holding every system, the baseline's name and the candidates."""
    ds_a = as_counts(a)
    if b is None:
        systems = [str(s) for s in ds_a["system"].values]
        if len(systems) < 2:
            raise ValidationError(
                f"comparison needs two systems; the data hold one ({systems[0]!r}); "
                "give a second input"
            )
        if baseline is None:
            if len(systems) > 2:
                raise OptionError(
                    f"the data hold {len(systems)} systems ({', '.join(systems)}); "
                    "name the baseline (baseline=NAME / --baseline NAME)"
                )
            baseline = systems[0]
        if baseline not in systems:
            raise OptionError(f"baseline {baseline!r} not found; have {', '.join(systems)}")
        return ds_a, baseline, [s for s in systems if s != baseline]
    ds_b = as_counts(b)
    sa = [str(s) for s in ds_a["system"].values]
    sb = [str(s) for s in ds_b["system"].values]
    if len(sa) == 1 and len(sb) == 1:
        na, nb_ = names if names is not None else (sa[0], sb[0])
        if na == nb_:
            na, nb_ = f"{na} (A)", f"{nb_} (B)"
        ds_a = ds_a.assign_coords(system=np.array([na], dtype=object))
        ds_b = ds_b.assign_coords(system=np.array([nb_], dtype=object))
        if baseline is not None and baseline not in (na, nb_, sa[0]):
            raise OptionError(f"baseline {baseline!r} not found; have {na}, {nb_}")
        base = na
    else:
        clash = sorted(set(sa) & set(sb))
        if clash:
            raise ValidationError(
                f"both inputs hold system(s) {', '.join(clash)}; compare files with "
                "one system each, or one file with several systems and a baseline"
            )
        if baseline is None:
            raise OptionError("the inputs hold several systems; name the baseline")
        base = baseline
    keep = ["n", "c", "unscored", "present", "weight"]
    merged = xr.concat(
        [ds_a[keep].reset_coords(drop=True), ds_b[keep].reset_coords(drop=True)],
        dim="system",
        join="outer",
        fill_value=0,
        coords="minimal",
        compat="override",
    )
    merged["present"] = merged["present"].astype(bool)
    systems = [str(s) for s in merged["system"].values]
    if base not in systems:
        raise OptionError(f"baseline {base!r} not found; have {', '.join(systems)}")
    return merged, base, [s for s in systems if s != base]


def _values(n: NDArray[np.float64], c: NDArray[np.float64], ks: list[int]) -> NDArray[np.float64]:
    """Per-task columns [mean, pass@k for ks..., pass^k for ks...] (needs n ≥ max k)."""
    cols = [c / n]
    cols += [1.0 - subset_ratio(n - c, n, kv) for kv in ks]
    cols += [subset_ratio(c, n, kv) for kv in ks]
    return np.column_stack(cols)


def paired_difference(
    n_a: ArrayLike,
    c_a: ArrayLike,
    n_b: ArrayLike,
    c_b: ArrayLike,
    *,
    k: int | Sequence[int] = 1,
    ci: float = 0.95,
    n_boot: int = 10_000,
    seed: int | np.random.Generator | None = None,
    method: str = "bca",
) -> pd.DataFrame:
    """Paired difference B − A on matched tasks given as arrays (the core of :func:`compare`).

    Parameters
    ----------
    n_a, c_a, n_b, c_b : array_like
        Decided runs and successes of systems A and B on the same tasks, in
        the same order; every n ≥ max k.
    k, ci, n_boot, seed, method
        As in :func:`compare`.

    Returns
    -------
    pandas.DataFrame
        One row per (k, metric, scope): base_value, cand_value, difference,
        lower, upper, p_value, tasks, method, p_method.

    Examples
    --------
    >>> from passhat.intervals import paired_difference
    >>> r = paired_difference([5, 5, 5], [1, 2, 3], [5, 5, 5], [1, 2, 3], n_boot=200, seed=0)
    >>> r[["scope", "difference", "p_value"]].values.tolist()[:2]
    [['benchmark', 0.0, 1.0], ['population', 0.0, 1.0]]
    """
    level = check_ci(ci)
    nb = check_n_boot(n_boot)
    meth = check_method(method, CI_METHODS, "method")
    ks = norm_k(k)
    rng = make_rng(seed)
    na, ca = np.asarray(n_a, dtype=float), np.asarray(c_a, dtype=float)
    nc, cc = np.asarray(n_b, dtype=float), np.asarray(c_b, dtype=float)
    if not (na.shape == ca.shape == nc.shape == cc.shape) or na.ndim != 1 or na.size == 0:
        raise ValidationError("paired counts must be four 1-d arrays of one non-zero length")
    if min(na.min(), nc.min()) < max(ks):
        raise ShortTaskError(
            f"k = {max(ks)} exceeds the smallest n = {int(min(na.min(), nc.min()))} "
            "among the compared tasks"
        )
    z = float(stats.norm.isf((1 - level) / 2))
    cols = [("mean", ks[0])] + [(m, kv) for m in ("pass_at_k", "pass_hat_k") for kv in ks]
    va, vc = _values(na, ca, ks), _values(nc, cc, ks)
    d = vc - va
    t_n = d.shape[0]
    theta = d.mean(axis=0)
    comp = _compress(np.column_stack([na, ca, nc, cc]), d, np.ones(t_n))
    draws = _draw_stats(comp, n_boot=nb, rng=rng)
    lo, hi, labels = _interval_from_draws(theta, draws, comp, ci=level, method=meth)
    # sign-flip permutation: per category, Σ of f_j random signs = 2·Bin(f_j, ½) − f_j
    flips = np.empty((nb, d.shape[1]))
    chunk = max(1, min(nb, _CHUNK_CELLS // comp.freq.size))
    for start in range(0, nb, chunk):
        bsz = min(chunk, nb - start)
        signs = 2.0 * rng.binomial(comp.freq, 0.5, size=(bsz, comp.freq.size)) - comp.freq
        flips[start : start + bsz] = (signs @ comp.values) / t_n
    p_perm = (1.0 + (np.abs(flips) >= np.abs(theta) - 1e-12).sum(axis=0)) / (1.0 + nb)
    rows: list[dict[str, Any]] = []
    for j, (m, kv) in enumerate(cols):
        se_a, _ = benchmark_se(na, ca, k=kv, metric=m)
        se_c, _ = benchmark_se(nc, cc, k=kv, metric=m)
        se = float(np.sqrt(se_a**2 + se_c**2))
        if se > 0:
            p_norm = float(2 * stats.norm.sf(abs(theta[j]) / se))
        else:
            p_norm = 1.0 if theta[j] == 0 else 0.0
        scopes = (
            (
                "benchmark",
                (max(-1.0, theta[j] - z * se), min(1.0, theta[j] + z * se), p_norm),
                "normal, unbiased per-task variances (independent runs)",
                "normal approximation",
            ),
            (
                "population",
                (float(lo[j]), float(hi[j]), float(p_perm[j])),
                f"paired task bootstrap {labels[j]}, {nb} resamples",
                f"sign-flip permutation, {nb} flips",
            ),
        )
        for kv_row in ks if m == "mean" else [kv]:
            for scope, (lw, up, pv), mlabel, plabel in scopes:
                rows.append(
                    {
                        "k": kv_row,
                        "metric": m,
                        "scope": scope,
                        "base_value": float(va[:, j].mean()),
                        "cand_value": float(vc[:, j].mean()),
                        "difference": float(theta[j]),
                        "lower": float(lw),
                        "upper": float(up),
                        "p_value": float(pv),
                        "tasks": t_n,
                        "method": mlabel,
                        "p_method": plabel,
                    }
                )
    return pd.DataFrame(rows)


def compare(
    a: Trials | xr.Dataset,
    b: Trials | xr.Dataset | None = None,
    *,
    k: int | Sequence[int] = 1,
    ci: float = 0.95,
    n_boot: int = 10_000,
    seed: int | None = None,
    intersect: bool = False,
    baseline: str | None = None,
    method: Literal["bca", "percentile"] = "bca",
    names: tuple[str, str] | None = None,
) -> Comparison:
    """Paired comparison of systems on matched tasks: difference, interval, p-value.

    Only tasks run by both systems are compared (equal weight per task).
    Per task the difference of the unbiased estimates d_i = U_i(cand) −
    U_i(base) is formed for mean, pass@k and pass^k; the benchmark value is
    the mean of d_i.

    * ``population`` scope: paired task bootstrap — each resample draws the
      same tasks for both systems (multinomial over distinct
      (n_A, c_A, n_B, c_B) categories); percentile or BCa. p-value: sign-flip
      permutation test (each task's d_i flips sign at random; n_boot flips;
      p = (1 + #{|T*| ≥ |T|}) / (1 + n_boot)). Exact under "the two systems
      are exchangeable within each task" when n_A = n_B.
    * ``benchmark`` scope: difference ± z·SE with SE² = Σ (V̂_A,i + V̂_B,i)/T²
      (runs of the two systems are independent); p-value from the normal
      approximation.

    Parameters
    ----------
    a, b : Trials or count table
        Baseline and candidate (one system each), or ``a`` alone holding
        several systems, with ``baseline`` naming the one the others are
        compared to (with exactly two systems the first is the baseline).
    k : int or sequence of int
    ci, n_boot, seed, method
        Level, resamples (≥ 100), seed, "bca" or "percentile".
    intersect : bool
        Drop tasks that only one system ran (and report how many) instead of
        raising an error that lists them.
    baseline : str, optional
    names : (str, str), optional
        Labels for ``a`` and ``b`` when both are given.

    Returns
    -------
    Comparison
        ``discordant`` gives, at k = 1, the McNemar-style task counts:
        ``only_base`` / ``only_cand`` (tasks where one system succeeded in at
        least one run and the other in none), ``base_better`` /
        ``cand_better`` / ``ties`` (by per-task success rate), and for
        single-run data the exact McNemar p-value of the discordant tasks.

    Examples
    --------
    >>> import passhat as ph
    >>> cmp = ph.compare(ph.load_example("agents"), k=1, seed=0, n_boot=1000, intersect=True)
    >>> cmp.table[["candidate", "metric", "scope"]].iloc[0].tolist()
    ['guided', 'mean', 'benchmark']
    """
    level = check_ci(ci)
    nb = check_n_boot(n_boot)
    meth = check_method(method, CI_METHODS, "method")
    ks = norm_k(k)
    ds, base, cands = _split_systems(a, b, baseline, names)
    rng = make_rng(seed)
    systems = [str(s) for s in ds["system"].values]
    present = np.asarray(ds["present"].values, dtype=bool)
    n_all = np.asarray(ds["n"].values, dtype=float)
    c_all = np.asarray(ds["c"].values, dtype=float)
    tasks = np.asarray(ds["task"].values, dtype=object).astype(str)
    ib = systems.index(base)
    rows: list[dict[str, Any]] = []
    disc_rows: list[dict[str, Any]] = []
    dropped_rows: list[dict[str, Any]] = []
    for cand in cands:
        ic = systems.index(cand)
        both = present[ib] & present[ic]
        if not both.any():
            raise ValidationError(f"systems {base!r} and {cand!r} have no task in common")
        unmatched = (present[ib] | present[ic]) & ~both
        if unmatched.any() and not intersect:
            lst = [
                f"{t} (only {base if present[ib, i] else cand})"
                for i, t in zip(np.flatnonzero(unmatched), tasks[unmatched], strict=True)
            ]
            more = f" and {len(lst) - 8} more" if len(lst) > 8 else ""
            raise ValidationError(
                f"{len(lst)} task(s) not run by both {base!r} and {cand!r}: "
                f"{', '.join(lst[:8])}{more}; pass intersect=True / --intersect to compare "
                "the common tasks only"
            )
        for i in np.flatnonzero(unmatched):
            dropped_rows.append(
                {
                    "baseline": base,
                    "candidate": cand,
                    "task": tasks[i],
                    "only": base if present[ib, i] else cand,
                }
            )
        na, ca = n_all[ib, both], c_all[ib, both]
        nc, cc = n_all[ic, both], c_all[ic, both]
        kmax = max(ks)
        short = (na < kmax) | (nc < kmax)
        if short.any():
            bad = tasks[both][short]
            nmin = int(min(na.min(), nc.min()))
            raise ShortTaskError(
                f"k = {kmax} exceeds the smallest n = {nmin} among the compared tasks "
                f"({len(bad)} task(s), e.g. {', '.join(bad[:5])}); lower k or run more trials"
            )
        part = paired_difference(na, ca, nc, cc, k=ks, ci=level, n_boot=nb, seed=rng, method=meth)
        t_n = int(both.sum())
        part.insert(0, "candidate", cand)
        part.insert(0, "baseline", base)
        rows.extend(part.to_dict(orient="records"))
        rate_a, rate_c = ca / np.maximum(na, 1), cc / np.maximum(nc, 1)
        only_b = int(((ca > 0) & (cc == 0)).sum())
        only_c = int(((cc > 0) & (ca == 0)).sum())
        single = bool(np.all(na == 1) and np.all(nc == 1))
        mcn = (
            float(stats.binomtest(only_c, only_b + only_c, 0.5).pvalue)
            if single and only_b + only_c > 0
            else float("nan")
        )
        disc_rows.append(
            {
                "baseline": base,
                "candidate": cand,
                "tasks": t_n,
                "only_base": only_b,
                "only_cand": only_c,
                "base_better": int((rate_a > rate_c).sum()),
                "cand_better": int((rate_c > rate_a).sum()),
                "ties": int((rate_a == rate_c).sum()),
                "mcnemar_p": mcn,
                "dropped_tasks": int(unmatched.sum()),
            }
        )
    table = pd.DataFrame(rows)
    order = {mm: i for i, mm in enumerate(METRICS)}
    table = (
        table.assign(_m=table["metric"].map(order))
        .sort_values(["candidate", "k", "_m", "scope"], kind="stable")
        .drop(columns="_m")
        .reset_index(drop=True)
    )
    cand_order = {c: i for i, c in enumerate(cands)}
    table = table.sort_values(
        "candidate", key=lambda s: s.map(cand_order), kind="stable"
    ).reset_index(drop=True)
    settings = {
        "k": ks,
        "ci": level,
        "n_boot": nb,
        "seed": seed,
        "method": meth,
        "intersect": intersect,
        "baseline": base,
    }
    return Comparison(
        table=table,
        discordant=pd.DataFrame(disc_rows),
        dropped=pd.DataFrame(dropped_rows, columns=["baseline", "candidate", "task", "only"]),
        settings=settings,
    )
