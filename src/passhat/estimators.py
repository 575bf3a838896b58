"""Unbiased per-task estimators of mean success, pass@k and pass^k, and their average.

For a task with ``n`` decided runs and ``c`` successes the unbiased (UMVUE)
estimators are

* pass^k = C(c, k) / C(n, k)           (all k of a random k-subset pass)
* pass@k = 1 − C(n − c, k) / C(n, k)   (at least one of k passes)
* mean   = c / n

computed in log space as sums of log1p terms (no big integers, no overflow,
full relative precision for n up to 10^6 and beyond). The benchmark value is the
weighted mean of the per-task values (equal weight per task by default).

Examples
--------
>>> import passhat as ph
>>> round(float(ph.pass_hat_k(10, 8, 5)), 3), round(float(ph.plugin_pass_hat_k(10, 8, 5)), 3)
(0.222, 0.328)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy import special

from passhat._validate import check_ci, check_n_boot, norm_k
from passhat.errors import CountError, OptionError, ShortTaskError, ValidationError
from passhat.trials import Trials, validate_counts

__all__ = [
    "METRICS",
    "METRIC_LABELS",
    "Estimate",
    "as_counts",
    "estimate",
    "log_subset_ratio",
    "mean_success",
    "pass_at_k",
    "pass_at_k_variance",
    "pass_hat_k",
    "pass_hat_k_variance",
    "pass_hat_k_variance_estimate",
    "per_task_metrics",
    "plugin_pass_at_k",
    "plugin_pass_hat_k",
    "subset_overlap_weights",
    "subset_ratio",
    "task_weights",
]

#: The three metrics, in the order tables show them.
METRICS = ("mean", "pass_at_k", "pass_hat_k")

#: How tables and text name each metric.
METRIC_LABELS = {"mean": "mean", "pass_at_k": "pass@k", "pass_hat_k": "pass^k"}

WeightSpec = None | str | Mapping[str, float]


# --------------------------------------------------------------- validation
def _check_counts(n: ArrayLike, c: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    n_arr = np.asarray(n, dtype=float)
    c_arr = np.asarray(c, dtype=float)
    for name, arr in (("n", n_arr), ("c", c_arr)):
        if not np.all(np.isfinite(arr)) or np.any(arr != np.floor(arr)):
            raise CountError(f"{name} must hold whole numbers (got {arr.ravel()[:5].tolist()})")
        if np.any(arr < 0):
            raise CountError(f"{name} must be non-negative (got {arr[arr < 0].ravel()[0]:g})")
    if np.any(c_arr > n_arr):
        nb, cb = np.broadcast_arrays(n_arr, c_arr)
        i = np.flatnonzero(cb > nb)[0]
        raise CountError(
            f"c = {cb.ravel()[i]:g} successes exceeds n = {nb.ravel()[i]:g} runs; require 0 ≤ c ≤ n"
        )
    return n_arr, c_arr


def _check_k(k: ArrayLike) -> NDArray[np.float64]:
    k_arr = np.asarray(k, dtype=float)
    if not np.all(np.isfinite(k_arr)) or np.any(k_arr != np.floor(k_arr)) or np.any(k_arr < 1):
        raise OptionError(f"k must be whole numbers ≥ 1 (got {np.ravel(k_arr)[:5].tolist()})")
    return k_arr


def _check_k_le_n(n: NDArray[np.float64], k: NDArray[np.float64]) -> None:
    if np.any(k > n):
        nb, kb = np.broadcast_arrays(n, k)
        i = np.flatnonzero(kb > nb)[0]
        raise ShortTaskError(
            f"k = {kb.ravel()[i]:g} exceeds n = {nb.ravel()[i]:g} runs; the unbiased estimator "
            "needs k ≤ n"
        )


# ------------------------------------------------------------ elementwise
#: Below this log ratio exp() underflows to 0 in double precision.
_LOG_UNDERFLOW = -800.0
#: Longest product summed term by term; longer ones (never needed for n ≤ 10^6) use betaln.
_MAX_TERMS = 50_000


def log_subset_ratio(a: ArrayLike, n: ArrayLike, k: ArrayLike) -> NDArray[np.float64]:
    """log(C(a, k) / C(n, k)) for whole a ≤ n and k ≥ 1, elementwise; −inf where a < k.

    With d = n − a, C(a,k)/C(n,k) = Π_{j<k} (1 − d/(n−j)) = Π_{i<d} (1 − k/(n−i)).
    The shorter of the two products is summed term by term (log1p for factors
    near 1, log of the exact integer quotient otherwise), each accurate to an
    ulp, so the result keeps full relative precision for n up to 10^6 and
    beyond (lgamma/betaln differences lose ~1e-9 there). Cost: min(k, d)
    vectorised steps. Where the bound −k·d/n is below −800 the ratio underflows
    to 0 and −inf is returned without work; products longer than 50,000 terms
    fall back to :func:`scipy.special.betaln`.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.estimators import log_subset_ratio
    >>> round(float(np.exp(log_subset_ratio(4, 5, 2))), 12)
    0.6
    """
    a_arr, n_arr, k_arr = np.broadcast_arrays(
        np.asarray(a, float), np.asarray(n, float), np.asarray(k, float)
    )
    if a_arr.size > 512:  # many tasks share few (a, n, k): compute each distinct triple once
        distinct = _distinct_triples(a_arr.ravel(), n_arr.ravel(), k_arr.ravel())
        if distinct is not None:
            (ua, un, uk), inverse = distinct
            return _log_subset_ratio(ua, un, uk)[inverse].reshape(a_arr.shape)
    return _log_subset_ratio(a_arr, n_arr, k_arr)


def _distinct_triples(
    a: NDArray[np.float64], n: NDArray[np.float64], k: NDArray[np.float64]
) -> tuple[tuple[NDArray[np.float64], ...], NDArray[np.intp]] | None:
    """Distinct (a, n, k) rows and the inverse index, or None when not worth it."""
    ai, ni, ki = a.astype(np.int64), n.astype(np.int64), k.astype(np.int64)
    if not (np.array_equal(ai, a) and np.array_equal(ni, n) and np.array_equal(ki, k)):
        return None
    if a.size == 0 or min(ai.min(), ni.min(), ki.min()) < 0:
        return None
    ra, rn, rk = int(ai.max()) + 1, int(ni.max()) + 1, int(ki.max()) + 1
    if ra * rn * rk >= 2**62:
        return None
    key = (ai * rn + ni) * rk + ki
    size = ra * rn * rk
    if size <= max(4 * key.size, 1 << 16):  # dense table: O(tasks), no sort
        seen = np.zeros(size, dtype=bool)
        seen[key] = True
        ukey = np.flatnonzero(seen)
        pos = np.zeros(size, dtype=np.intp)
        pos[ukey] = np.arange(ukey.size)
        inverse = pos[key]
    else:
        ukey, inverse = np.unique(key, return_inverse=True)
    if 2 * ukey.size > key.size:
        return None
    uk = ukey % rk
    rest = ukey // rk
    triples = ((rest // rn).astype(float), (rest % rn).astype(float), uk.astype(float))
    return triples, inverse.ravel()


def _log_subset_ratio(
    a_arr: NDArray[np.float64], n_arr: NDArray[np.float64], k_arr: NDArray[np.float64]
) -> NDArray[np.float64]:
    out = np.full(a_arr.shape, -np.inf)
    ok = a_arr >= k_arr
    if not np.any(ok):
        return out
    aa, nn, kk = a_arr[ok], n_arr[ok], k_arr[ok]
    d = nn - aa
    use_k = kk <= d
    terms = np.where(use_k, kk, d)  # number of factors in the shorter product
    step = np.where(use_k, d, kk)  # factor j is 1 − step/(n − j)
    res = np.zeros(aa.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        underflow = -kk * d / nn < _LOG_UNDERFLOW
    res[underflow] = -np.inf
    long = ~underflow & (terms > _MAX_TERMS)
    if np.any(long):
        res[long] = special.betaln(nn[long] - kk[long] + 1.0, kk[long]) - special.betaln(
            aa[long] - kk[long] + 1.0, kk[long]
        )
    idx = np.flatnonzero(~underflow & ~long & (terms > 0))
    j = 0
    while idx.size:  # step j touches only the elements with more than j factors
        s_i = step[idx]
        den = nn[idx] - j
        frac = s_i / den  # factor = 1 − frac = (den − step) / den, exact integers
        # log1p keeps precision for factors near 1, log of the exact quotient near 0
        res[idx] += np.where(frac <= 0.5, np.log1p(-frac), np.log((den - s_i) / den))
        j += 1
        idx = idx[terms[idx] > j]
    out[ok] = res
    return out


def subset_ratio(a: ArrayLike, n: ArrayLike, k: ArrayLike) -> NDArray[np.float64]:
    """C(a, k) / C(n, k) for whole a ≤ n and k ≥ 1, elementwise, in log space.

    Zero where a < k. See :func:`log_subset_ratio` for the method.

    Examples
    --------
    >>> from passhat.estimators import subset_ratio
    >>> float(subset_ratio(4, 5, 2))
    0.6
    """
    return np.exp(log_subset_ratio(a, n, k))


def pass_hat_k(n: ArrayLike, c: ArrayLike, k: ArrayLike) -> NDArray[np.float64]:
    """Unbiased per-task pass^k: C(c, k) / C(n, k), with numpy broadcasting.

    Parameters
    ----------
    n, c : array_like of int
        Decided runs and successes, 0 ≤ c ≤ n.
    k : array_like of int
        1 ≤ k ≤ n.

    Returns
    -------
    numpy.ndarray
        The estimate, broadcast over the inputs.

    Raises
    ------
    CountError
        Negative or non-integer counts, or c > n.
    ShortTaskError
        k > n.

    Examples
    --------
    >>> import passhat as ph
    >>> ph.pass_hat_k([5, 5, 5, 5], [5, 4, 2, 0], 2).round(3).tolist()
    [1.0, 0.6, 0.1, 0.0]
    """
    n_arr, c_arr = _check_counts(n, c)
    k_arr = _check_k(k)
    _check_k_le_n(n_arr, k_arr)
    return subset_ratio(c_arr, n_arr, k_arr)


def pass_at_k(n: ArrayLike, c: ArrayLike, k: ArrayLike) -> NDArray[np.float64]:
    """Unbiased per-task pass@k: 1 − C(n − c, k) / C(n, k).

    Examples
    --------
    >>> import passhat as ph
    >>> ph.pass_at_k([5, 5, 5, 5], [5, 4, 2, 0], 2).round(3).tolist()
    [1.0, 1.0, 0.7, 0.0]
    """
    n_arr, c_arr = _check_counts(n, c)
    k_arr = _check_k(k)
    _check_k_le_n(n_arr, k_arr)
    # 0.0 − expm1(·): full precision near 0, and +0.0 (not −0.0) when c = 0
    return 0.0 - np.expm1(log_subset_ratio(n_arr - c_arr, n_arr, k_arr))


def mean_success(n: ArrayLike, c: ArrayLike) -> NDArray[np.float64]:
    """Per-task success rate c / n (needs n ≥ 1).

    Examples
    --------
    >>> import passhat as ph
    >>> float(ph.mean_success(5, 4))
    0.8
    """
    n_arr, c_arr = _check_counts(n, c)
    if np.any(n_arr < 1):
        raise ShortTaskError("a task with n = 0 decided runs has no success rate")
    return c_arr / n_arr


def plugin_pass_hat_k(n: ArrayLike, c: ArrayLike, k: ArrayLike) -> NDArray[np.float64]:
    """Plug-in (c/n)^k: biased upward for small n. Provided only as a contrast.

    Examples
    --------
    >>> import passhat as ph
    >>> round(float(ph.plugin_pass_hat_k(10, 8, 3)), 3)
    0.512
    """
    return np.power(mean_success(n, c), _check_k(k))


def plugin_pass_at_k(n: ArrayLike, c: ArrayLike, k: ArrayLike) -> NDArray[np.float64]:
    """Plug-in 1 − (1 − c/n)^k: biased on small n. Provided only as a contrast."""
    return 1.0 - np.power(1.0 - mean_success(n, c), _check_k(k))


def subset_overlap_weights(n: NDArray[np.float64], k: int) -> NDArray[np.float64]:
    """h_j = C(k,j) C(n−k,k−j) / C(n,k) for j = 1..k; shape n.shape + (k,).

    The chance that two random k-subsets of n runs share exactly j runs
    (hypergeometric); the weights of the exact variance of the pass^k estimator.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.estimators import subset_overlap_weights
    >>> subset_overlap_weights(np.array(4.0), 2).round(3).tolist()   # j = 1, 2
    [0.667, 0.167]
    """
    j = np.arange(1, k + 1, dtype=float)
    nn = n[..., None]

    # log C(k,j) + log C(n-k, k-j) - log C(n,k), zero where k-j > n-k
    def logcomb(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
        return special.gammaln(a + 1) - special.gammaln(b + 1) - special.gammaln(a - b + 1)

    valid = (k - j) <= (nn - k)
    lw = (
        logcomb(np.full_like(j, k), j)
        + logcomb(np.maximum(nn - k, k - j), k - j)
        - logcomb(nn, np.full_like(nn, k))
    )
    return np.where(valid, np.exp(np.where(valid, lw, 0.0)), 0.0)


def pass_hat_k_variance(n: ArrayLike, p: ArrayLike, k: int) -> NDArray[np.float64]:
    """Exact variance of the unbiased pass^k estimator given the true rate p.

    Var = Σ_{j=1..k} [C(k,j) C(n−k,k−j)/C(n,k)] (p^{2k−j} − p^{2k}), where the
    bracket is the probability that two random k-subsets of n runs share j.

    Examples
    --------
    >>> import passhat as ph
    >>> round(float(ph.pass_hat_k_variance(10, 0.5, 1)), 4)   # p(1-p)/n
    0.025
    """
    k_i = int(_check_k(k))
    n_arr = np.asarray(n, dtype=float)
    _check_k_le_n(n_arr, np.asarray(float(k_i)))
    p_arr = np.asarray(p, dtype=float)
    if np.any((p_arr < 0) | (p_arr > 1)):
        raise OptionError("p must lie in [0, 1]")
    n_b, p_b = np.broadcast_arrays(n_arr, p_arr)
    h = subset_overlap_weights(n_b, k_i)
    j = np.arange(1, k_i + 1, dtype=float)
    terms = np.power(p_b[..., None], 2 * k_i - j) - np.power(p_b[..., None], 2 * k_i)
    return np.maximum((h * terms).sum(axis=-1), 0.0)


def pass_at_k_variance(n: ArrayLike, p: ArrayLike, k: int) -> NDArray[np.float64]:
    """Exact variance of the unbiased pass@k estimator given p (pass^k of failures)."""
    return pass_hat_k_variance(n, 1.0 - np.asarray(p, dtype=float), k)


def pass_hat_k_variance_estimate(n: ArrayLike, c: ArrayLike, k: int) -> NDArray[np.float64]:
    """Unbiased estimate of the pass^k estimator's variance: U² − C(c,2k)/C(n,2k).

    Needs n ≥ 2k (NaN where n < 2k). It can be slightly negative by chance;
    it is returned as is so that sums over tasks stay unbiased.

    Examples
    --------
    >>> import passhat as ph
    >>> round(float(ph.pass_hat_k_variance_estimate(10, 5, 1)), 4)   # c(n-c)/(n²(n-1))
    0.0278
    """
    n_arr, c_arr = _check_counts(n, c)
    k_i = int(_check_k(k))
    _check_k_le_n(n_arr, np.asarray(float(k_i)))
    u = subset_ratio(c_arr, n_arr, k_i)
    enough = n_arr >= 2 * k_i
    u2k = subset_ratio(c_arr, np.where(enough, n_arr, 2 * k_i), 2 * k_i)
    return np.where(enough, u * u - u2k, np.nan)


# ------------------------------------------------------------ count tables
def as_counts(data: Trials | xr.Dataset) -> xr.Dataset:
    """The count table of trials, or a validated copy of a count table."""
    if isinstance(data, Trials):
        return data.counts()
    if isinstance(data, xr.Dataset):
        return validate_counts(data)
    raise ValidationError(
        f"expected passhat.Trials or a count-table xarray.Dataset, got {type(data).__name__}"
    )


def task_weights(ds: xr.Dataset, weights: WeightSpec = None) -> xr.DataArray:
    """Per-task weights over (system, task), before normalisation.

    Parameters
    ----------
    weights : None, "equal", "declared", "category", or mapping
        ``None``/"equal": every task counts the same. "declared": the
        ``weight`` variable (a ``weight`` column of the trials). "category":
        every category gets the same total weight, shared equally by its
        tasks. A mapping gives a weight per task id, or per category when its
        keys are category names; every task (or category) must be covered.
    """
    base = xr.ones_like(ds["n"], dtype=float)
    if weights is None or weights == "equal":
        return base
    src = f"{ds.attrs['source_path']}: " if ds.attrs.get("source_path") else ""
    if weights == "declared":
        if not ds.attrs.get("declared_weights"):
            raise OptionError(f"{src}weights='declared' but the data declare no weight column")
        return ds["weight"].astype(float)
    if weights == "category" or isinstance(weights, Mapping):
        if weights == "category" or (
            "category" in ds.coords
            and set(map(str, weights)) <= set(map(str, ds["category"].values))  # type: ignore[arg-type]
        ):
            if "category" not in ds.coords:
                raise OptionError(f"{src}weights='category' need a category column")
            cat = pd.Series(ds["category"].values, dtype=object)
            if cat.isna().any():
                t = ds["task"].values[int(np.flatnonzero(cat.isna().to_numpy())[0])]
                raise ValidationError(f"task {t!r} has no category; weights by category need one")
            cat = cat.astype(str)
            present = ds["present"].values
            w = np.zeros(ds["n"].shape)
            for s in range(ds.sizes["system"]):
                sizes = cat[present[s]].value_counts()
                if isinstance(weights, Mapping):
                    missing = sorted(set(sizes.index) - set(map(str, weights)))
                    if missing:
                        raise OptionError(f"no weight given for categories {missing}")
                    cw = {str(key): float(v) for key, v in weights.items()}
                else:
                    cw = dict.fromkeys(sizes.index, 1.0)
                w[s] = [cw[c] / sizes[c] if c in sizes.index else 0.0 for c in cat]
            return xr.DataArray(w, dims=("system", "task"), coords=base.coords)
        task_map: Mapping[str, float] = weights  # type: ignore[assignment]
        tw = {str(key): float(v) for key, v in task_map.items()}
        missing = [t for t in map(str, ds["task"].values) if t not in tw]
        if missing:
            raise OptionError(
                f"no weight given for {len(missing)} task(s), e.g. {', '.join(missing[:5])}"
            )
        vals = np.array([tw[t] for t in map(str, ds["task"].values)])
        if np.any(vals < 0) or not np.all(np.isfinite(vals)):
            raise OptionError("task weights must be finite and non-negative")
        return base * vals[None, :]
    raise OptionError(
        f"weights must be None, 'equal', 'declared', 'category' or a mapping (got {weights!r})"
    )


def _distinct_pairs(
    n: NDArray[np.int64], c: NDArray[np.int64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.intp]]:
    """Distinct (n, c) pairs of a count grid and each cell's pair index (flattened)."""
    # a 1-d integer key is ~10× faster than a row-wise unique
    base = int(n.max(initial=0)) + 1
    if base * base <= max(4 * n.size, 1 << 16):  # small key range: a counting pass, no sort
        key = n.ravel() * base + c.ravel()
        seen = np.bincount(key, minlength=base * base) > 0
        keys = np.flatnonzero(seen)
        inverse = (np.cumsum(seen) - 1)[key]
        pn, pc = keys // base, keys % base
    elif base < 2**31:
        keys, inverse = np.unique(n.ravel() * base + c.ravel(), return_inverse=True)
        pn, pc = keys // base, keys % base
    else:
        pairs, inverse = np.unique(
            np.stack([n.ravel(), c.ravel()], axis=1), axis=0, return_inverse=True
        )
        pn, pc = pairs[:, 0], pairs[:, 1]
    return pn.astype(float), pc.astype(float), inverse.ravel()


def _pair_values(
    pn: NDArray[np.float64], pc: NDArray[np.float64], ks: NDArray[np.float64]
) -> dict[str, NDArray[np.float64]]:
    """The three metrics for each distinct pair (rows) and k (columns); NaN where n < k."""
    pn2, pc2, kk = pn[:, None], pc[:, None], ks[None, :]
    short = kk > pn2
    hat = np.where(short, np.nan, subset_ratio(pc2, np.maximum(pn2, kk), kk))
    at = np.where(
        short, np.nan, 0.0 - np.expm1(log_subset_ratio(pn2 - pc2, np.maximum(pn2, kk), kk))
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(pn2 > 0, pc2 / np.where(pn2 > 0, pn2, 1.0), np.nan)
    return {"mean": np.broadcast_to(mean, hat.shape), "pass_at_k": at, "pass_hat_k": hat}


def per_task_metrics(ds: xr.Dataset, k: int | Sequence[int]) -> xr.Dataset:
    """Per-task mean, pass@k and pass^k over (system, task, k).

    Tasks with n < k (or not run by a system) hold NaN; callers decide
    whether that is an error (see :func:`estimate`). The work is done once per
    distinct (n, c) pair, so its cost does not grow with the number of tasks.

    Examples
    --------
    >>> import passhat as ph
    >>> ds = ph.counts_from_arrays([5, 5, 5, 5], [5, 4, 2, 0])
    >>> ph.per_task_metrics(ds, 2)["pass_hat_k"].values.round(3).ravel().tolist()
    [1.0, 0.6, 0.1, 0.0]
    """
    ks = np.asarray(norm_k(k), dtype=float)
    n = np.asarray(ds["n"].values, dtype=np.int64)
    c = np.asarray(ds["c"].values, dtype=np.int64)
    pn, pc, inverse = _distinct_pairs(n, c)
    pair_vals = _pair_values(pn, pc, ks)
    hat, at, mean = pair_vals["pass_hat_k"], pair_vals["pass_at_k"], pair_vals["mean"]
    shape = (*n.shape, len(ks))
    # tasks a system did not run point at an extra all-NaN row: one gather per metric
    absent = ~np.asarray(ds["present"].values, dtype=bool).ravel()
    row = np.where(absent, len(pn), inverse)
    nan_row = np.full((1, len(ks)), np.nan)

    def expand(values: NDArray[np.float64]) -> NDArray[np.float64]:
        full = np.concatenate([np.broadcast_to(values, hat.shape), nan_row])
        return np.take(full, row, axis=0).reshape(shape)

    out = xr.Dataset(
        {
            "mean": (("system", "task", "k"), expand(mean)),
            "pass_at_k": (("system", "task", "k"), expand(at)),
            "pass_hat_k": (("system", "task", "k"), expand(hat)),
        },
        coords={**{name: crd for name, crd in ds.coords.items()}, "k": ks.astype(int)},
    )
    return out


# ---------------------------------------------------------------- estimate
@dataclass
class Estimate:
    """Result of :func:`estimate`.

    Attributes
    ----------
    table : pandas.DataFrame
        Tidy: system, k, metric, value, tasks (and, when intervals were asked
        for, lower, upper, scope, method).
    per_task : xarray.Dataset
        Per-task metrics over (system, task, k) with n, c, unscored, weight.
    excluded : pandas.DataFrame
        Tasks left out of the averages (system, task, n, reason).
    summary : pandas.DataFrame
        Per system: tasks, runs, unscored, excluded tasks, and the shares of
        included tasks that are flaky (both outcomes among decided runs),
        all-pass and all-fail.
    settings : dict
        The options used (k, weights, on_short, ...).
    tasks : pandas.DataFrame
        Per task (tidy, one row per system × task): n, c, unscored, flaky,
        all_pass, all_fail, rate and pass@k / pass^k with per-task intervals
        (see :func:`passhat.intervals.task_intervals`), and ``included``.
        Built on first access (a property), so estimates that never look at
        it do not pay for it.
    """

    table: pd.DataFrame
    excluded: pd.DataFrame
    summary: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)
    _counts: xr.Dataset | None = field(default=None, repr=False)
    _include: NDArray[np.bool_] | None = field(default=None, repr=False)
    _weights: NDArray[np.float64] | None = field(default=None, repr=False)
    _per_task: xr.Dataset | None = field(default=None, repr=False)
    _tasks: pd.DataFrame | None = field(default=None, repr=False)

    @property
    def per_task(self) -> xr.Dataset:
        """Per-task metrics over (system, task, k) with n, c, unscored, weight, included.

        Built on first access: the benchmark values themselves are computed
        from the distinct (n, c) pairs and never need this (system × task × k)
        array.
        """
        if self._per_task is None:
            if self._counts is None or self._include is None or self._weights is None:
                raise OptionError("this Estimate holds no count table to expand per task")
            ds = self._counts
            per = per_task_metrics(ds, self.settings["k"])
            for var in ("n", "c", "unscored", "present"):
                per[var] = ds[var]
            per["weight"] = (("system", "task"), self._weights)
            per["included"] = (("system", "task"), self._include)
            self._per_task = per
        return self._per_task

    @property
    def tasks(self) -> pd.DataFrame:
        """Per-task table with intervals and the flaky flag (see the class docstring)."""
        if self._tasks is None:
            from passhat.intervals import task_intervals

            per = self.per_task
            df = task_intervals(
                per[["n", "c", "unscored", "present"]],
                method=self.settings.get("task_method", "wilson"),
                ci=self.settings.get("task_ci", 0.95),
                k=self.settings["k"],
            )
            # one row per present (system, task), in row-major order
            present = np.asarray(per["present"].values, dtype=bool)
            df["included"] = np.asarray(per["included"].values, dtype=bool)[present]
            self._tasks = df
        return self._tasks

    def wide(self) -> pd.DataFrame:
        """One row per (system, k), one column per metric."""
        return self.table.pivot_table(
            index=["system", "k"], columns="metric", values="value", sort=False
        )[list(METRICS)].reset_index()

    def value(self, metric: str, k: int, system: str | None = None) -> float:
        """A single benchmark value."""
        t = self.table
        sel = (t["metric"] == metric) & (t["k"] == k)
        if system is not None:
            sel &= t["system"] == system
        vals = t.loc[sel, "value"]
        if len(vals) != 1:
            raise OptionError(
                f"expected one value for metric={metric!r}, k={k}, system={system!r}; "
                f"found {len(vals)} (name the system when there are several)"
            )
        return float(vals.iloc[0])


def _included(
    ds: xr.Dataset, kmax: int, *, on_short: str, min_runs: int | None
) -> tuple[NDArray[np.bool_], pd.DataFrame]:
    """Mask of tasks that enter the averages, and the excluded tasks with reasons."""
    n = ds["n"].values
    present = ds["present"].values
    floor = min_runs or 0
    below_floor = present & (n < floor)
    short = present & ~below_floor & (n < kmax)
    if short.any() and on_short == "error":
        bad = [
            (str(ds["system"].values[s]), str(ds["task"].values[t]), int(n[s, t]))
            for s, t in np.argwhere(short)
        ]
        shown = ", ".join(f"{t} (n={nn})" for _, t, nn in bad[:8])
        more = f" and {len(bad) - 8} more" if len(bad) > 8 else ""
        raise ShortTaskError(
            f"k = {kmax} exceeds the decided runs of {len(bad)} task(s): {shown}{more}; "
            "run more trials, lower k, or exclude them (--min-runs / on_short='exclude')",
            tasks=bad,
        )
    rows = []
    dropped = below_floor | short
    for s, t in np.argwhere(dropped) if dropped.any() else ():
        nn = int(n[s, t])
        reason = (
            f"n = {nn} decided runs < min_runs = {min_runs}"
            if below_floor[s, t]
            else f"n = {nn} decided runs < k = {kmax}"
        )
        rows.append(
            {
                "system": str(ds["system"].values[s]),
                "task": str(ds["task"].values[t]),
                "n": nn,
                "unscored": int(ds["unscored"].values[s, t]),
                "reason": reason,
            }
        )
    excluded = pd.DataFrame(rows, columns=["system", "task", "n", "unscored", "reason"])
    return present & ~below_floor & ~short, excluded


def estimate(
    data: Trials | xr.Dataset,
    *,
    k: int | Sequence[int] = 1,
    weights: WeightSpec = None,
    on_short: Literal["error", "exclude"] = "error",
    min_runs: int | None = None,
    ci: float | None = None,
    n_boot: int = 10_000,
    seed: int | None = None,
    ci_method: Literal["bca", "percentile"] = "bca",
    task_method: str = "wilson",
) -> Estimate:
    """Benchmark mean success, pass@k and pass^k per system.

    Each task's unbiased estimate is computed first and then averaged with
    the task weights (equal by default). With ``ci`` every value gets two
    intervals, one per scope (see :mod:`passhat.intervals`): ``benchmark``
    (these tasks; within-task uncertainty from per-task variance estimates)
    and ``population`` (a new task from the same distribution; task-level
    bootstrap).

    Parameters
    ----------
    data : Trials or xarray.Dataset
        Trials, or a count table.
    k : int or sequence of int
        The k values (each ≥ 1).
    weights : None, "equal", "declared", "category" or mapping
        See :func:`task_weights`.
    on_short : {"error", "exclude"}
        What to do with tasks whose decided runs n are fewer than the largest
        k: raise :class:`ShortTaskError` naming them (default), or leave them
        out of every average and list them in ``excluded``.
    min_runs : int, optional
        Also exclude tasks with fewer decided runs than this (listed in
        ``excluded``).
    ci : float, optional
        Confidence level in (0, 1). When given, ``table`` has one row per
        (system, k, metric, scope) with columns lower, upper, scope, method.
    n_boot : int
        Bootstrap resamples for the population scope (≥ 100).
    seed : int, optional
        Seed of the bootstrap.
    ci_method : {"bca", "percentile"}
        Bootstrap interval; BCa falls back to percentile where degenerate.
    task_method : {"wilson", "clopper-pearson", "jeffreys"}
        Per-task intervals in ``tasks`` (at level ``ci``, or 0.95).

    Returns
    -------
    Estimate

    Examples
    --------
    >>> import passhat as ph
    >>> est = ph.estimate(ph.load_example("abcd"), k=2)
    >>> est.wide()[["mean", "pass_at_k", "pass_hat_k"]].round(3).values.tolist()
    [[0.55, 0.675, 0.425]]
    """
    if on_short not in ("error", "exclude"):
        raise OptionError(f"on_short must be 'error' or 'exclude' (got {on_short!r})")
    from passhat import intervals as _iv  # late import: intervals builds on this module

    if ci is not None:
        ci = check_ci(ci)
        n_boot = check_n_boot(n_boot)
    if min_runs is not None and (
        isinstance(min_runs, bool) or int(min_runs) != min_runs or min_runs < 1
    ):
        raise OptionError(f"min_runs must be a whole number ≥ 1 (got {min_runs!r})")
    ks = norm_k(k)
    ds = as_counts(data)
    include, excluded = _included(ds, max(ks), on_short=on_short, min_runs=min_runs)
    # weights over the tasks left (a category's share must not shrink with its exclusions)
    kept = ds.assign(present=ds["present"] & xr.DataArray(include, dims=ds["present"].dims))
    w = task_weights(kept, weights).values * include
    tot = w.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        wn = np.where(tot > 0, w / np.where(tot > 0, tot, 1.0), 0.0)
    systems = [str(s) for s in ds["system"].values]
    n_tasks = include.sum(axis=1)
    if np.any(n_tasks == 0):
        empty = [systems[i] for i in np.flatnonzero(n_tasks == 0)]
        why = "; ".join(sorted(set(excluded["reason"]))) or "no task"
        raise ShortTaskError(
            f"no task of system(s) {', '.join(empty)} is left to average after exclusions "
            f"({why}); lower k or --min-runs, or run more trials"
        )
    # Benchmark values from the distinct (n, c) pairs: each pair's metrics are computed
    # once and weighted by the total weight of the tasks holding it, so the cost grows
    # with the number of distinct pairs, not of tasks.
    n_arr = np.asarray(ds["n"].values, dtype=np.int64)
    pn, pc, inverse = _distinct_pairs(n_arr, np.asarray(ds["c"].values, dtype=np.int64))
    pair_vals = _pair_values(pn, pc, np.asarray(ks, dtype=float))
    inverse = inverse.reshape(n_arr.shape)
    raw_w = np.where(include, w, 0.0)
    rows = []  # already in table order: system, k, metric
    for s_i, name in enumerate(systems):
        pw = np.bincount(inverse[s_i], weights=raw_w[s_i], minlength=len(pn))
        used = pw > 0
        pw = pw[used] / pw.sum()
        vals = {metric: pw @ pair_vals[metric][used] for metric in METRICS}
        for ki, kv in enumerate(ks):
            for metric in METRICS:
                rows.append((name, kv, metric, float(vals[metric][ki]), int(n_tasks[s_i])))
    table = pd.DataFrame(rows, columns=["system", "k", "metric", "value", "tasks"])
    result = Estimate(
        table=table,
        excluded=excluded,
        summary=pd.DataFrame(),
        settings={"k": ks},
        _counts=ds,
        _include=include,
        _weights=wn,
    )
    if ci is not None:
        iv = _iv.estimate_intervals(
            result.per_task, include, wn, ks, ci=ci, n_boot=n_boot, seed=seed, ci_method=ci_method
        )
        table = table.merge(iv, on=["system", "k", "metric"], how="left", sort=False)
    _iv.proportion_interval(1, 1, method=task_method)  # validate the per-task method now
    summary = pd.DataFrame(
        {
            "system": systems,
            "tasks": n_tasks.astype(int),
            "runs": (ds["n"].values * include).sum(axis=1).astype(int),
            "unscored": ds["unscored"].values.sum(axis=1).astype(int),
            "excluded_tasks": [int((excluded["system"] == s).sum()) for s in systems],
        }
    )
    shares = _iv.task_outcome_shares(ds["n"].values, ds["c"].values)
    for key, flag in shares.items():
        with np.errstate(invalid="ignore", divide="ignore"):
            summary[f"{key}_share"] = (flag & include).sum(axis=1) / np.where(
                n_tasks > 0, n_tasks, np.nan
            )
    settings: dict[str, Any] = {
        "k": ks,
        "weights": weights if isinstance(weights, str | None) else "mapping",
        "on_short": on_short,
        "min_runs": min_runs,
        "task_method": task_method,
        "task_ci": ci if ci is not None else 0.95,
    }
    if ci is not None:
        settings.update({"ci": ci, "n_boot": n_boot, "seed": seed, "ci_method": ci_method})
    result.table = table
    result.summary = summary
    result.settings = settings
    return result
