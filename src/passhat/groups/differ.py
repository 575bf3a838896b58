"""Do the categories differ? A permutation test of the per-task values' category means.

For one system and one metric (mean, pass@k or pass^k at one k), each included task i has its
unbiased per-task value vᵢ and a category gᵢ. The statistic is the between-category sum of
squares B = Σ_g T_g (v̄_g − v̄)²; with the total sum of squares fixed under relabelling, B is
monotone in the one-way ANOVA F statistic, so this is the **permutation F test**. Under the
null hypothesis that the category does not change a task's value (the labels are exchangeable
over tasks), every arrangement of the labels is equally likely:

* **exact** when the distinct arrangements T! / Π T_g! number at most ``n_perm``: p is the share
  of all of them with B ≥ B_obs (the observed one included);
* **Monte Carlo** otherwise: ``n_perm`` random relabellings, p = (1 + #{B* ≥ B_obs}) /
  (1 + n_perm), which is a valid p-value (Phipson and Smyth 2010 [1]_).

Ties in B are counted as at least as extreme (a relative tolerance of 1e-9). The test is of
the tasks' values, equal weights: it asks whether the categories' tasks differ, not whether
the categories' benchmark averages (which also carry run-to-run noise) would.

References
----------
.. [1] Phipson, B. and Smyth, G. K. (2010). Permutation p-values should never be zero.
   *Statistical Applications in Genetics and Molecular Biology*, 9(1), article 39.

Examples
--------
>>> import numpy as np
>>> v = np.array([[1.0], [0.9], [0.8], [0.1], [0.0], [0.2]])
>>> res = category_difference(v, np.array([0, 0, 0, 1, 1, 1]), n_perm=1000,
...                           rng=np.random.default_rng(0))
>>> res.exact, round(float(res.p_value[0]), 4)  # the observed split and its mirror: 2 of 20
(True, 0.1)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "CategoryTest",
    "arrangements",
    "between_ss",
    "category_difference",
    "order_difference",
]

#: Relative tolerance under which a permuted B counts as equal to the observed one.
TIE_TOL = 1e-9

#: Most cells (relabellings × tasks) held at once when drawing relabellings.
_CHUNK_CELLS = 2_000_000


@dataclass(frozen=True, eq=False)
class CategoryTest:
    """The permutation test's answer per column of values.

    Attributes
    ----------
    statistic : ndarray
        B, the between-category sum of squares, per column.
    p_value : ndarray
        The permutation p-value per column (NaN where fewer than two categories have tasks).
    exact : bool
        Whether every distinct arrangement was enumerated (else ``n_perm`` random ones).
    n_perm : int
        Arrangements used (all of them when exact).
    """

    statistic: NDArray[np.float64]
    p_value: NDArray[np.float64]
    exact: bool
    n_perm: int


def between_ss(
    values: NDArray[np.float64], labels: NDArray[np.int64], groups: int
) -> NDArray[np.float64]:
    """B per relabelling (rows of ``labels``, R × T) and column of ``values`` (T × C) → R × C.

    Examples
    --------
    >>> between_ss(np.array([[1.0], [3.0], [5.0]]), np.array([[0, 0, 1]]), 2).tolist()
    [[6.0]]
    """
    lab = np.atleast_2d(labels)
    r = lab.shape[0]
    size = np.bincount(lab[0], minlength=groups).astype(float)  # the same in every row
    idx = (lab + groups * np.arange(r)[:, None]).ravel()
    grand = values.mean(axis=0)
    out = np.empty((r, values.shape[1]))
    for j in range(values.shape[1]):
        sums = np.bincount(idx, weights=np.tile(values[:, j], r), minlength=r * groups)
        sums = sums.reshape(r, groups)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(size > 0, sums / np.where(size > 0, size, 1.0), 0.0)
        out[:, j] = ((means - grand[j]) ** 2 * size).sum(axis=1)
    return out


def _count(sizes: NDArray[np.int64]) -> int:
    """T! / Π T_g!: the distinct arrangements of the labels."""
    out = math.factorial(int(sizes.sum()))
    for s in sizes.tolist():
        out //= math.factorial(int(s))
    return out


def arrangements(labels: NDArray[np.int64]) -> NDArray[np.int64]:
    """Every distinct arrangement of ``labels`` (rows), by choosing each group's positions in
    turn among those left.

    Examples
    --------
    >>> arrangements(np.array([0, 0, 1])).tolist()
    [[0, 0, 1], [0, 1, 0], [1, 0, 0]]
    """
    t = labels.size
    sizes = np.bincount(labels)
    rows: list[NDArray[np.int64]] = [np.full(t, -1, dtype=np.int64)]
    for g, size in enumerate(sizes.tolist()):
        nxt = []
        for row in rows:
            free = np.flatnonzero(row < 0)
            for pos in itertools.combinations(free.tolist(), size):
                r = row.copy()
                r[list(pos)] = g
                nxt.append(r)
        rows = nxt
    return np.array(rows, dtype=np.int64)


def category_difference(
    values: NDArray[np.float64],
    labels: NDArray[np.int64],
    *,
    n_perm: int = 9999,
    rng: np.random.Generator,
) -> CategoryTest:
    """The permutation F test of whether the category means of ``values`` (T tasks × C
    columns) differ, ``labels`` the tasks' category codes 0 … G − 1 (see the module docstring)."""
    v = np.asarray(values, dtype=float)
    return _permutation_test(
        lambda lab, groups: between_ss(v, lab, groups), v.shape[1], labels, n_perm=n_perm,
        rng=rng,
    )  # fmt: skip


def order_difference(
    values: NDArray[np.float64],
    labels: NDArray[np.int64],
    *,
    n_perm: int = 9999,
    rng: np.random.Generator,
) -> CategoryTest:
    """Do the systems' differences depend on the category? ``values`` is T tasks × S systems ×
    C columns of per-task values, ``labels`` the tasks' category codes.

    Each task's values are centred on their mean over the systems, which removes what a task
    (or a category) does to every system alike; the statistic per column is the between-category
    sum of squares of the centred values summed over the systems, B = Σ_s Σ_g T_g (d̄_gs − d̄_s)²
    (the trace of the between-category matrix: a PERMANOVA on Euclidean distances, Anderson
    2001, whose pseudo-F is monotone in B since the total is fixed under relabelling). The
    labels are permuted over tasks as in :func:`category_difference` (exact enumeration when
    the arrangements are few). With two systems the centred values are ±(v₂ − v₁)/2, so B is
    half the between-category SS of the paired differences and the p-value is
    :func:`category_difference`'s of those differences (with the same random stream).

    Examples
    --------
    >>> v = np.array([[[0.9], [0.1]], [[0.8], [0.2]], [[0.2], [0.8]], [[0.1], [0.9]]])
    >>> res = order_difference(v, np.array([0, 0, 1, 1]), rng=np.random.default_rng(0))
    >>> res.exact, round(float(res.p_value[0]), 4)  # the order flips: 2 of 6 arrangements
    (True, 0.3333)
    """
    v = np.asarray(values, dtype=float)
    t_n, s_n, c_n = v.shape
    flat = (v - v.mean(axis=1, keepdims=True)).reshape(t_n, s_n * c_n)

    def stat(lab: NDArray[np.int64], groups: int) -> NDArray[np.float64]:
        b = between_ss(flat, lab, groups)
        return b.reshape(b.shape[0], s_n, c_n).sum(axis=1)

    return _permutation_test(stat, c_n, labels, n_perm=n_perm, rng=rng)


def _permutation_test(
    stat: Callable[[NDArray[np.int64], int], NDArray[np.float64]],
    columns: int,
    labels: NDArray[np.int64],
    *,
    n_perm: int,
    rng: np.random.Generator,
) -> CategoryTest:
    """The permutation p-value per column of ``stat(relabellings R × T, groups)`` → R × C:
    exact over every arrangement when they number at most ``n_perm``, else ``n_perm`` random
    relabellings (Phipson–Smyth)."""
    lab = np.unique(np.asarray(labels), return_inverse=True)[1].astype(np.int64)
    groups = int(lab.max()) + 1 if lab.size else 0
    if groups < 2:
        nan = np.full(columns, np.nan)
        return CategoryTest(nan, nan, True, 0)
    observed = stat(lab[None, :], groups)[0]
    tol = TIE_TOL * np.maximum(np.abs(observed), 1e-12)
    total = _count(np.bincount(lab))
    if total <= n_perm:
        stats = stat(arrangements(lab), groups)
        p = (stats >= observed - tol).mean(axis=0)
        return CategoryTest(observed, p, True, total)
    hits = np.zeros(columns)
    step = max(1, _CHUNK_CELLS // max(lab.size, 1))
    for start in range(0, n_perm, step):
        r = min(step, n_perm - start)
        perm = rng.permuted(np.broadcast_to(lab, (r, lab.size)), axis=1)
        hits += (stat(perm, groups) >= observed - tol).sum(axis=0)
    return CategoryTest(observed, (1.0 + hits) / (1.0 + n_perm), False, n_perm)
