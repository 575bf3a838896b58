"""Intervals: per task (a success rate), and of a benchmark value in its two scopes.

Which interval answers which question:

* **per task** — a binomial proportion interval for the task's success rate
  p (Wilson [1]_, Clopper–Pearson [2]_ or Jeffreys [3]_;
  :func:`proportion_interval`), mapped to p^k and 1 − (1 − p)^k, which are
  increasing in p (:func:`task_intervals`).
* **benchmark** — the weighted mean over *these* tasks; its only uncertainty
  is within-task (each task got finitely many runs).
* **population** — the expected value over tasks like these (a new task
  drawn from the distribution the benchmark samples); it adds which tasks
  happened to be drawn.
* **predictive** (on request) — the value a *new benchmark* of T′ tasks
  from the same distribution would show.

The method behind the last three is picked per system, metric and k by the
documented rule of :mod:`passhat.scopes` (the task bootstrap [4]_ or the
normal interval where they are valid, the hierarchical Beta-Binomial
posterior where they are not: few tasks, most tasks all-pass or all-fail),
and each row's ``method`` names the one that ran and why.
:func:`estimate_intervals` applies it to every system of
:func:`passhat.estimate`. Paired differences of two systems are in
:mod:`passhat.compare`. :func:`benchmark_se` keeps the plain normal-theory
standard error (unbiased per-task variances; where n < 2k the larger of a
plug-in at a shrunk rate and a conservative model-free bound) for callers
that want that number alone (``fit``'s benchmark rows).

References
----------
.. [1] Wilson, E. B. (1927). Probable inference, the law of succession, and
   statistical inference. *JASA*, 22(158), 209–212.
.. [2] Clopper, C. J. and Pearson, E. S. (1934). The use of confidence or
   fiducial limits illustrated in the case of the binomial. *Biometrika*,
   26(4), 404–413.
.. [3] Brown, L. D., Cai, T. T. and DasGupta, A. (2001). Interval estimation
   for a binomial proportion. *Statistical Science*, 16(2), 101–133 (the
   Jeffreys interval).
.. [4] Efron, B. (1987). Better bootstrap confidence intervals. *JASA*, 82(397), 171–185.

Examples
--------
>>> import passhat as ph
>>> ti = ph.task_intervals(ph.counts_from_arrays([5, 5], [4, 0]), method="wilson")
>>> ti[["rate", "rate_lower", "rate_upper"]].round(3).values.tolist()
[[0.8, 0.376, 0.964], [0.0, 0.0, 0.434]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import ArrayLike, NDArray

from passhat._validate import (
    DEFAULT_N_BOOT,
    DEFAULT_SEED,
    check_ci,
    check_method,
    check_n_boot,
    named_rng,
    norm_k,
    root_seed,
)
from passhat.bootstrap import CI_METHODS
from passhat.errors import OptionError, ShortTaskError
from passhat.estimators import (
    METRIC_LABELS,
    METRICS,
    as_counts,
    pass_hat_k_variance,
    pass_hat_k_variance_estimate,
    subset_ratio,
)
from passhat.trials import Trials

__all__ = [
    "POPULATION_CI_METHODS",
    "TASK_METHODS",
    "benchmark_se",
    "estimate_intervals",
    "outside_mask",
    "proportion_interval",
    "task_intervals",
    "task_outcome_shares",
    "value_outside_note",
]

#: Per-task interval methods for a success rate.
TASK_METHODS = ("wilson", "clopper-pearson", "jeffreys")
#: Population-scope methods of :func:`estimate_intervals`: the task bootstrap's two intervals,
#: or the analytic logit-t interval where the rule would bootstrap (:mod:`passhat.analytic`).
POPULATION_CI_METHODS = (*CI_METHODS, "analytic")


# --------------------------------------------------------- per-task intervals
def proportion_interval(
    n: ArrayLike, c: ArrayLike, *, method: str = "wilson", ci: float = 0.95
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Two-sided interval for a binomial proportion c / n, elementwise.

    Matches :func:`statsmodels.stats.proportion.proportion_confint` with
    ``method`` "wilson", "beta" (= "clopper-pearson") and "jeffreys", except
    that the Jeffreys interval has the boundary modification of Brown, Cai
    and DasGupta (2001) [3]_: the lower end is 0 when c = 0 and
    the upper end is 1 when c = n (statsmodels leaves the equal-tailed Beta
    quantiles there, so 5 of 5 got [0.62, 0.9999], an interval excluding
    its own point 1). NaN where n = 0.

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

    References
    ----------
    .. [1] Wilson, E. B. (1927). Probable inference, the law of succession, and
       statistical inference. *JASA*, 22(158), 209–212.
    .. [2] Clopper, C. J. and Pearson, E. S. (1934). The use of confidence or
       fiducial limits illustrated in the case of the binomial. *Biometrika*,
       26(4), 404–413.
    .. [3] Brown, L. D., Cai, T. T. and DasGupta, A. (2001). Interval
       estimation for a binomial proportion. *Statistical Science*, 16(2),
       101–133 (Jeffreys).

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
            from scipy import special  # here, not at the top: importing it costs ~0.25 s

            z = -special.ndtri(a2)  # = scipy.stats.norm.isf
            z2 = z * z
            denom = 1.0 + z2 / nn
            center = (q + z2 / (2.0 * nn)) / denom
            dist = z * np.sqrt(q * (1.0 - q) / nn + z2 / (4.0 * nn**2)) / denom
            lo = np.clip(center - dist, 0.0, 1.0)
            hi = np.clip(center + dist, 0.0, 1.0)
        elif m == "clopper-pearson":
            from scipy import stats  # here, not at the top: importing it costs ~0.5 s

            lo = np.where(cc == 0, 0.0, stats.beta.ppf(a2, np.maximum(cc, 1e-300), nn - cc + 1))
            hi = np.where(cc == nn, 1.0, stats.beta.isf(a2, cc + 1, np.maximum(nn - cc, 1e-300)))
        else:  # jeffreys with Brown, Cai & DasGupta's ends: 0 at c = 0, 1 at c = n
            from scipy import stats

            lo = np.where(cc == 0, 0.0, stats.beta.ppf(a2, cc + 0.5, nn - cc + 0.5))
            hi = np.where(cc == nn, 1.0, stats.beta.isf(a2, cc + 0.5, nn - cc + 0.5))
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
    out["method"] = f"{m} {level:g}"  # in the frame at once: no block per late column
    df = pd.DataFrame(out, copy=False)  # no consolidating copy of a million-task table
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
    unbiased variance estimate of the task's estimator (n ≥ 2k). Where some
    task has n < 2k runs no unbiased estimate exists, and SE² is the larger of
    two sums: with the exact variance at the shrunk rate (c + ½)/(n + 1) for
    those tasks, and with the conservative model-free bound of
    :mod:`passhat.variance_bound` (an unbiased estimate of an upper bound of
    each task's variance). The plug-in can fall short when rates sit at
    far-apart values (two kinds of task: 0.83 at 90% in reports/fit_shapes),
    the bound when few tasks carry it (it rests on the tasks one success short
    of all-pass); the larger of the two held ≥ 0.85 in every cell there
    (reports/bench_variance). pass@k uses the failures (pass@k = 1 − pass^k of
    failures); mean is pass^1. A sum of unbiased estimates can be negative by
    chance; it is floored at 0.

    Returns
    -------
    se : float
    n_plugin : int
        How many tasks have fewer than 2k runs (no unbiased variance).

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
    if low.any():  # no unbiased variance: the larger of the plug-in's and the bound's sums
        from passhat.variance_bound import bounded_variance_estimate

        bound = bounded_variance_estimate(n_a.astype(np.int64), succ.astype(np.int64), kk)
        var = max(var, float(np.sum(w * w * bound)))
    return float(np.sqrt(max(var, 0.0))), int(low.sum())


# ------------------------------------------------------ both scopes, every system
def estimate_intervals(
    counts: xr.Dataset,
    include: NDArray[np.bool_],
    weights: NDArray[np.float64],
    ks: Sequence[int],
    *,
    ci: float,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | np.random.Generator | None = DEFAULT_SEED,
    ci_method: str = "bca",
    predictive: int | None = None,
    clusters: ArrayLike | None = None,
) -> pd.DataFrame:
    """Both scopes' intervals (and a new benchmark's) for :func:`passhat.estimate`.

    Per system, the tasks in ``include`` go to
    :func:`passhat.scopes.scope_intervals`, which picks the method by its
    rule. The mean does not depend on k: its rows repeat for every k.

    Parameters
    ----------
    counts : xarray.Dataset
        Count table over (system, task) with ``n`` and ``c``.
    include : ndarray of bool, system × task
        Tasks that enter the averages.
    weights : ndarray, system × task
        Task weights (zero outside ``include``).
    ks : sequence of int
    ci, n_boot, seed, ci_method
        Level, resamples / posterior draws, seed, and the population interval where the rule
        would take the task bootstrap: "bca", "percentile" or "analytic" (the logit-t
        interval of :mod:`passhat.analytic`; no resampling).
    predictive : int, optional
        Also give the interval of a new benchmark of this many tasks
        (scope "predictive").
    clusters : array_like, optional
        Each task's cluster (over the task axis): the population scope
        resamples clusters (:func:`passhat.scopes.scope_intervals`).

    Returns
    -------
    pandas.DataFrame
        system, k, metric, scope, lower, upper, method.

    Examples
    --------
    >>> import numpy as np
    >>> import passhat as ph
    >>> from passhat.intervals import estimate_intervals
    >>> ds = ph.counts_from_arrays([4, 4, 4, 4], [4, 3, 1, 0])
    >>> iv = estimate_intervals(ds, np.ones((1, 4), bool), np.full((1, 4), 0.25), [1],
    ...                         ci=0.9, n_boot=500, seed=0)
    >>> iv[["metric", "scope"]].values[:2].tolist()
    [['mean', 'benchmark'], ['mean', 'population']]
    """
    level = check_ci(ci)
    nb = check_n_boot(n_boot)
    meth = check_method(ci_method, POPULATION_CI_METHODS, "ci_method")
    whole = isinstance(predictive, int | np.integer) and not isinstance(predictive, bool)
    if predictive is not None and (not whole or predictive < 1):
        raise OptionError(f"predictive must be a whole number of tasks ≥ 1 (got {predictive!r})")
    root = root_seed(seed)  # each system's stream from the seed and its name (named_rng)
    ks = list(ks)
    # here, not at the top: the rule's modules import scipy (~0.5 s), which estimate() without
    # intervals does not need
    from passhat.scopes import scope_intervals

    systems = [str(s) for s in counts["system"].values]
    n_all = np.asarray(counts["n"].values, dtype=float)
    c_all = np.asarray(counts["c"].values, dtype=float)
    groups = None if clusters is None else np.asarray(clusters, dtype=object).ravel()
    parts = []
    for s, name in enumerate(systems):
        inc = include[s]
        if not inc.any():
            continue
        iv = scope_intervals(
            n_all[s, inc],
            c_all[s, inc],
            weights[s, inc],
            ks,
            ci=level,
            n_boot=nb,
            rng=named_rng(root, name),
            ci_method=meth,
            predictive=predictive,
            clusters=None if groups is None else groups[inc],
        )
        mean = iv[iv["metric"] == "mean"]
        rest = iv[iv["metric"] != "mean"]
        rows = [rest] + [mean.assign(k=kv) for kv in ks]
        part = pd.concat(rows, ignore_index=True)
        part.insert(0, "system", name)
        parts.append(part)
    cols = ["system", "k", "metric", "scope", "lower", "upper", "method"]
    if not parts:
        return pd.DataFrame(columns=cols)
    out = pd.concat(parts, ignore_index=True)[cols]
    order = {m: i for i, m in enumerate(METRICS)}
    scope_order = {"benchmark": 0, "population": 1, "predictive": 2}
    return (
        out.assign(
            _s=out["system"].map({n: i for i, n in enumerate(systems)}),
            _m=out["metric"].map(order),
            _c=out["scope"].map(scope_order),
        )
        .sort_values(["_s", "k", "_m", "_c"], kind="stable")
        .drop(columns=["_s", "_m", "_c"])
        .reset_index(drop=True)
    )


def outside_mask(
    value: ArrayLike, lower: ArrayLike, upper: ArrayLike, *, tol: float = 1e-9
) -> NDArray[np.bool_]:
    """Where a point value lies outside its interval (beyond ``tol``; never where an end or the
    value is not finite): the test behind every output's "lies outside its interval" note.

    Examples
    --------
    >>> outside_mask([1.0, 0.5, 0.2], [0.4, 0.4, float("nan")], [0.99, 0.6, 0.3]).tolist()
    [True, False, False]
    """
    v, lo, hi = (np.asarray(x, dtype=float) for x in (value, lower, upper))
    ok = np.isfinite(v) & np.isfinite(lo) & np.isfinite(hi)
    return np.asarray(ok & ((v < lo - tol) | (v > hi + tol)))


def value_outside_note(
    table: pd.DataFrame, *, value: str = "value", who: tuple[str, ...] = ("system",)
) -> list[str]:
    """The note that says which intervals do not contain their point value, and why.

    The point value is the unbiased average of per-task estimates; the interval comes from
    the method the scope rule picks. A hierarchical posterior shrinks tasks whose runs all
    agree toward the others, and BCa corrects the bootstrap for bias, so with few tasks or
    rates near 0 or 1 the interval can lie beside the value. That is stated, never left for
    the reader to find (the intervals themselves are unchanged).

    Parameters
    ----------
    table : pandas.DataFrame
        Rows with ``value`` (the point column), ``lower``, ``upper``, ``k``, ``metric``,
        ``scope`` and the ``who`` columns naming the row.
    value : str
        The point column (``"difference"`` for a comparison).
    who : tuple of str
        Columns that name a row's system (or systems) in the note.

    Returns
    -------
    list of str
        Empty when every interval contains its value; else one sentence.

    Examples
    --------
    >>> t = pd.DataFrame({"system": ["s"], "k": [2], "metric": ["pass_at_k"],
    ...                   "scope": ["population"], "value": [1.0], "lower": [0.4],
    ...                   "upper": [0.99]})
    >>> value_outside_note(t)[0][:64]
    '1 interval(s) do not contain their point value, e.g. s pass@2 (p'
    """
    if table.empty or "lower" not in table.columns:
        return []
    v = table[value].to_numpy(dtype=float)
    lo = table["lower"].to_numpy(dtype=float)
    hi = table["upper"].to_numpy(dtype=float)
    out = outside_mask(v, lo, hi)
    if not out.any():
        return []
    i = int(np.flatnonzero(out)[0])
    row = table.iloc[i]
    name = " vs ".join(str(row[c]) for c in who)
    metric = str(row["metric"])
    label = "mean" if metric == "mean" else METRIC_LABELS[metric].replace("k", str(row["k"]))
    near = lo[i] if v[i] < lo[i] else hi[i]
    d = next((d for d in range(3, 10) if f"{v[i]:.{d}f}" != f"{near:.{d}f}"), 10)  # visible gap
    return [
        f"{int(out.sum())} interval(s) do not contain their point value, e.g. {name} {label} "
        f"({row['scope']}): {v[i]:.{d}f} outside [{lo[i]:.{d}f}, {hi[i]:.{d}f}]. "
        "The value is the unbiased average of the per-task "
        "estimates; the interval is the rule's method (each row names it): a hierarchical "
        "posterior pulls tasks whose runs all agree toward the others and BCa corrects the "
        "bootstrap for bias, so with few tasks or rates near 0 or 1 the interval can lie "
        "beside the value. Read the interval as the plausible range of the quantity."
    ]
