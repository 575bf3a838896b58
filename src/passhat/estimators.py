"""Unbiased per-task estimators of mean success, pass@k and pass^k, weights and exact variances.

Pure formulas on counts. For a task with ``n`` decided runs and ``c``
successes the unbiased (UMVUE) estimators are

* pass^k = C(c, k) / C(n, k)           (all k of a random k-subset pass) [2]_
* pass@k = 1 − C(n − c, k) / C(n, k)   (at least one of k passes) [1]_
* mean   = c / n

computed in log space as sums of log1p terms (no big integers, no overflow,
full relative precision for n up to 10^6 and beyond). The benchmark value is
the weighted mean of the per-task values (equal weight per task by default;
:func:`task_weights`); :func:`passhat.estimate` builds the table of those
values and :mod:`passhat.intervals` their intervals. The exact variance of the
pass^k estimator and its unbiased estimate are here too.

References
----------
.. [1] Chen, M. et al. (2021). Evaluating large language models trained on
   code. arXiv:2107.03374 (the unbiased pass@k estimator).
.. [2] Yao, S., Shinn, N., Razavi, P. and Narasimhan, K. (2024). τ-bench: a
   benchmark for tool-agent-user interaction in real-world domains.
   arXiv:2406.12045 (pass^k).

Examples
--------
>>> import passhat as ph
>>> round(float(ph.pass_hat_k(10, 8, 5)), 3), round(float(ph.plugin_pass_hat_k(10, 8, 5)), 3)
(0.222, 0.328)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from passhat._labels import METRIC_LABELS as _LABELS
from passhat._validate import check_k_values, check_weight, check_weight_tasks, norm_k
from passhat._validate import stable_scale as _stable
from passhat.errors import CountError, OptionError, ShortTaskError, ValidationError

if TYPE_CHECKING:  # the count-table functions load pandas and xarray; the formulas need numpy
    import xarray as xr

    from passhat.trials import Trials

__all__ = [
    "METRICS",
    "METRIC_LABELS",
    "WeightSpec",
    "as_counts",
    "distinct_pairs",
    "log_subset_ratio",
    "mean_success",
    "pair_values",
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

#: How tables and text name each metric (the one table: :mod:`passhat._labels`).
METRIC_LABELS = _LABELS

#: What ``weights=`` accepts: None, "equal", "declared", "category" or a mapping.
WeightSpec = None | str | Mapping[str, float]


# --------------------------------------------------------------- validation
def _check_counts(n: ArrayLike, c: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    from passhat._frames import number_array  # pandas: the checked public formulas only

    n_arr, c_arr = number_array(n, "n"), number_array(c, "c")
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
        from scipy import special  # here, not at the top: importing it costs ~0.25 s

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
    return _exact_at_one(a, n, k, np.exp(log_subset_ratio(a, n, k)))


def _exact_at_one(a: ArrayLike, n: ArrayLike, k: ArrayLike, r: ArrayLike) -> NDArray[np.float64]:
    """``r`` with C(a,1)/C(n,1) = a/n exactly at k = 1 (exp∘log gave 0.7999999999999999)."""
    a_b, n_b, k_b = np.broadcast_arrays(*(np.asarray(x, float) for x in (a, n, k)))
    return np.where((k_b == 1) & (n_b > 0), a_b / np.maximum(n_b, 1.0), r)[()]  # scalar in, out


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
    k_arr = check_k_values(k)
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
    k_arr = check_k_values(k)
    _check_k_le_n(n_arr, k_arr)
    at = 0.0 - np.expm1(log_subset_ratio(n_arr - c_arr, n_arr, k_arr))  # +0.0 (not −0.0) at c=0
    return _exact_at_one(c_arr, n_arr, k_arr, at)


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
    return np.power(mean_success(n, c), check_k_values(k))


def plugin_pass_at_k(n: ArrayLike, c: ArrayLike, k: ArrayLike) -> NDArray[np.float64]:
    """Plug-in 1 − (1 − c/n)^k: biased on small n. Provided only as a contrast.

    Examples
    --------
    >>> import passhat as ph
    >>> round(float(ph.plugin_pass_at_k(10, 2, 3)), 3), round(float(ph.pass_at_k(10, 2, 3)), 3)
    (0.488, 0.533)
    """
    return 1.0 - np.power(1.0 - mean_success(n, c), check_k_values(k))


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
    from scipy import special

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
    k_i = int(check_k_values(k))
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
    """Exact variance of the unbiased pass@k estimator given p (pass^k of failures).

    Examples
    --------
    >>> import passhat as ph
    >>> float(ph.pass_at_k_variance(10, 0.3, 2)) == float(ph.pass_hat_k_variance(10, 0.7, 2))
    True
    """
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
    k_i = int(check_k_values(k))
    _check_k_le_n(n_arr, np.asarray(float(k_i)))
    u = subset_ratio(c_arr, n_arr, k_i)
    enough = n_arr >= 2 * k_i
    u2k = subset_ratio(c_arr, np.where(enough, n_arr, 2 * k_i), 2 * k_i)
    return np.where(enough, u * u - u2k, np.nan)


# ------------------------------------------------------------ count tables
def as_counts(data: Trials | xr.Dataset) -> xr.Dataset:
    """The count table of trials, or a validated copy of a count table.

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.estimators import as_counts
    >>> as_counts(ph.load_example("abcd"))["n"].values.tolist()
    [[5, 5, 5, 5]]
    """
    import xarray as xr

    from passhat.trials import Trials, validate_counts

    if isinstance(data, Trials):
        return data.counts()
    if isinstance(data, xr.Dataset):
        return validate_counts(data)
    raise ValidationError(
        f"expected passhat.Trials or a count-table xarray.Dataset, got {type(data).__name__}"
    )


def task_weights(
    ds: xr.Dataset, weights: WeightSpec = None, *, tasks: Iterable[object] | None = None
) -> xr.DataArray:
    """Per-task weights over (system, task), before normalisation (beyond 2^±400 scaled by one
    power of two: every ratio exact, no sum that overflows; all 1e308: each task counts alike).

    Parameters
    ----------
    weights : None, "equal", "declared", "category", or mapping
        ``None``/"equal": every task counts the same. "declared": the
        ``weight`` variable (a ``weight`` column of the trials). "category":
        every category gets the same total weight, shared equally by its
        tasks. A mapping gives a weight per task id, or per category when its
        keys are category names; every task (or category) must be covered, and a task map
        names no task outside ``tasks`` (the input's, when ``ds`` holds some; default ds's).

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.estimators import task_weights
    >>> ds = ph.counts_from_arrays([2, 2, 2], [1, 2, 0], category=["x", "x", "y"])
    >>> task_weights(ds, "category").values.tolist()
    [[0.5, 0.5, 1.0]]
    """
    return _stable(_task_weights(ds, weights, tasks=tasks))


def _task_weights(ds: xr.Dataset, weights: WeightSpec, *, tasks: Iterable | None) -> xr.DataArray:
    import pandas as pd
    import xarray as xr

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
                    cw = {str(key): check_weight(key, v) for key, v in weights.items()}
                else:
                    cw = dict.fromkeys(sizes.index, 1.0)
                w[s] = [cw[c] / sizes[c] if c in sizes.index else 0.0 for c in cat]
            return xr.DataArray(w, dims=("system", "task"), coords=base.coords)
        task_map: Mapping[str, float] = weights  # type: ignore[assignment]
        tw = {str(key): check_weight(key, v) for key, v in task_map.items()}
        check_weight_tasks(tw, [str(t) for t in ds["task"].values], tasks)
        vals = np.array([tw[t] for t in map(str, ds["task"].values)])
        return base * vals[None, :]
    raise OptionError(
        f"weights must be None, 'equal', 'declared', 'category' or a mapping (got {weights!r})"
    )


def distinct_pairs(
    n: NDArray[np.int64], c: NDArray[np.int64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.intp]]:
    """Distinct (n, c) pairs of a count grid and each cell's pair index (flattened).

    Every per-task value depends only on the task's (n, c), so computing it
    once per distinct pair and gathering with the index costs the number of
    pairs, not of tasks.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.estimators import distinct_pairs
    >>> pn, pc, inverse = distinct_pairs(np.array([[5, 5, 4]]), np.array([[2, 2, 4]]))
    >>> pn.tolist(), pc.tolist(), inverse.tolist()
    ([4.0, 5.0], [4.0, 2.0], [1, 1, 0])
    """
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


def pair_values(
    pn: NDArray[np.float64], pc: NDArray[np.float64], ks: NDArray[np.float64]
) -> dict[str, NDArray[np.float64]]:
    """The three metrics for each distinct pair (rows) and k (columns); NaN where n < k.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.estimators import pair_values
    >>> v = pair_values(np.array([5.0, 1.0]), np.array([4.0, 1.0]), np.array([1.0, 2.0]))
    >>> v["pass_hat_k"].round(3).tolist()
    [[0.8, 0.6], [1.0, nan]]
    """
    pn2, pc2, kk = pn[:, None], pc[:, None], ks[None, :]
    short = kk > pn2
    hat = np.where(short, np.nan, subset_ratio(pc2, np.maximum(pn2, kk), kk))
    n_k = np.maximum(pn2, kk)
    at_k = _exact_at_one(pc2, n_k, kk, 0.0 - np.expm1(log_subset_ratio(pn2 - pc2, n_k, kk)))
    at = np.where(short, np.nan, at_k)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(pn2 > 0, pc2 / np.where(pn2 > 0, pn2, 1.0), np.nan)
    return {"mean": np.broadcast_to(mean, hat.shape), "pass_at_k": at, "pass_hat_k": hat}


def benchmark_values(
    n: NDArray[np.int64], c: NDArray[np.int64], weights: NDArray[np.float64], ks: Sequence[int]
) -> NDArray[np.float64]:
    """Each system's weighted average of the per-task metrics, over (system, k, metric).

    ``n``, ``c`` and ``weights`` are (system, task) grids; a task of weight 0 is left out.
    Each distinct (n, c) pair's metrics are computed once and weighted by the total weight of
    the tasks holding it, so the cost grows with the number of distinct pairs, not of tasks.
    The metrics are :data:`METRICS` in order.

    Examples
    --------
    >>> import numpy as np
    >>> v = benchmark_values(np.array([[4, 4]]), np.array([[4, 2]]), np.ones((1, 2)), [1, 2])
    >>> v.round(3).tolist()
    [[[0.75, 0.75, 0.75], [0.75, 0.917, 0.583]]]
    """
    pn, pc, inverse = distinct_pairs(n, c)
    pair_vals = pair_values(pn, pc, np.asarray(ks, dtype=float))
    inverse = inverse.reshape(n.shape)
    out = np.empty((n.shape[0], len(ks), len(METRICS)))
    for s_i in range(n.shape[0]):  # one pass per system, vectorised over pairs
        pw = np.bincount(inverse[s_i], weights=weights[s_i], minlength=len(pn))
        used = pw > 0
        pw = pw[used] / pw.sum()
        for m_i, metric in enumerate(METRICS):
            out[s_i, :, m_i] = pw @ pair_vals[metric][used]
    return out


def per_task_metrics(ds: xr.Dataset, k: int | Sequence[int]) -> xr.Dataset:
    """Per-task mean, pass@k and pass^k over (system, task, k).

    Tasks with n < k (or not run by a system) hold NaN; callers decide
    whether that is an error (see :func:`passhat.estimate`). The work is done once per
    distinct (n, c) pair, so its cost does not grow with the number of tasks.

    Examples
    --------
    >>> import passhat as ph
    >>> ds = ph.counts_from_arrays([5, 5, 5, 5], [5, 4, 2, 0])
    >>> ph.per_task_metrics(ds, 2)["pass_hat_k"].values.round(3).ravel().tolist()
    [1.0, 0.6, 0.1, 0.0]
    """
    import xarray as xr

    ks = np.asarray(norm_k(k), dtype=float)
    n = np.asarray(ds["n"].values, dtype=np.int64)
    c = np.asarray(ds["c"].values, dtype=np.int64)
    pn, pc, inverse = distinct_pairs(n, c)
    pair_vals = pair_values(pn, pc, ks)
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
