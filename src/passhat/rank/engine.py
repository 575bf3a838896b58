"""The paired task bootstrap of many systems: one draw of task weights serves every system.

For S systems that ran the same T tasks, a resample draws T tasks with
replacement (multinomial counts M_bt over the tasks) and **every system, metric
and k is evaluated on the same resampled tasks**, so the correlation between
systems (hard tasks are hard for all) is kept. The resampled value of system s
and column j is

    θ*_bsj = Σ_t M_bt w_t U_sj(t) / Σ_t M_bt w_t

with the unbiased per-task estimates U (:func:`passhat.scopes.column_values`)
and the task weights w shared by the systems.

The arithmetic is one matrix product per chunk of resamples, on whichever
basis is smaller:

* **per-system categories** — a system's value on a task depends only on its
  (n, c) there, so M @ H with the one-hot matrix H (tasks × Σ_s distinct (n, c)
  of s) gives each system's resampled category counts, exact in float32 for
  equal weights (integers), and the values follow from a small product per
  system;
* **values** — M @ (w·U) directly (tasks × systems·columns), in float64.

Examples
--------
>>> import numpy as np
>>> from passhat.rank.engine import paired_draws
>>> n = np.full((2, 50), 4.0)
>>> c = np.vstack([np.arange(50) % 5, np.arange(50) % 5]).astype(float)
>>> d = paired_draws(n, c, np.ones(50), [("mean", 1)], n_boot=200, rng=np.random.default_rng(0))
>>> d.shape, bool(np.all(d[:, 0, 0] == d[:, 1, 0]))    # identical systems, identical draws
((200, 2, 1), True)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from passhat.hierarchical import Column
from passhat.scopes import column_values

__all__ = ["paired_draws", "point_values", "resample_counts"]

#: Resamples × tasks from which the compiled count (:func:`draw_counts`) pays for loading numba.
_COMPILED_CELLS = 50_000_000

#: Largest number of cells of one chunk's count matrix (resamples × tasks).
_CHUNK_CELLS = 5_000_000


def resample_counts(n_tasks: int, size: int, rng: np.random.Generator) -> NDArray[np.int64]:
    """``size`` multinomial resamples of ``n_tasks`` tasks: how often each task was drawn.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.rank.engine import resample_counts
    >>> m = resample_counts(5, 3, np.random.default_rng(0))
    >>> m.shape, m.sum(axis=1).tolist()
    ((3, 5), [5, 5, 5])
    """
    idx = rng.integers(0, n_tasks, size=(size, n_tasks))
    idx += np.arange(size)[:, None] * n_tasks
    return np.bincount(idx.ravel(), minlength=size * n_tasks).reshape(size, n_tasks)


def draw_counts(idx: NDArray[np.int64], n_tasks: int) -> NDArray[np.float32]:
    """Per row of drawn task indices, how often each task was drawn (float32, exact).

    :func:`passhat._kernels.draw_counts`, imported when first used (numba is slow to import).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.rank.engine import draw_counts
    >>> draw_counts(np.array([[1, 1, 0]]), 3).tolist()
    [[1.0, 2.0, 0.0]]
    """
    from passhat import _kernels

    return _kernels.draw_counts(idx, n_tasks)


def point_values(
    n: NDArray[np.float64], c: NDArray[np.float64], w: NDArray[np.float64], cols: Sequence[Column]
) -> NDArray[np.float64]:
    """Weighted means of the unbiased per-task estimates (systems × columns).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.rank.engine import point_values
    >>> point_values(np.full((1, 2), 2.0), np.array([[2.0, 0.0]]), np.ones(2), [("mean", 1)])
    array([[0.5]])
    """
    wn = w / w.sum()
    return np.vstack([wn @ column_values(n[s], c[s], cols) for s in range(n.shape[0])])


def _count_chunks(
    t_n: int,
    n_boot: int,
    chunk: int,
    rng: np.random.Generator,
    clusters: NDArray[np.int64] | None,
    dtype: np.dtype[Any],
) -> Iterator[tuple[int, NDArray[np.floating[Any]]]]:
    """Each chunk's first resample and its count matrix (resamples × tasks, as ``dtype``).

    On large inputs the drawn task indices of the next chunk are drawn on a helper thread
    (numpy draws them without the GIL) while this chunk is counted and multiplied; the
    generator's calls follow one another in the same order with the same sizes, so the
    draws are those of :func:`resample_counts`, counted by :func:`draw_counts`.
    """
    starts = list(range(0, n_boot, chunk))
    sizes = [min(chunk, n_boot - st) for st in starts]
    if clusters is not None:  # each task counted as often as its cluster was drawn
        for st, b in zip(starts, sizes, strict=True):
            yield st, resample_counts(int(clusters.max()) + 1, b, rng)[:, clusters].astype(dtype)
    elif n_boot * t_n < _COMPILED_CELLS:  # numpy counts the same draws
        for st, b in zip(starts, sizes, strict=True):
            yield st, resample_counts(t_n, b, rng).astype(dtype)
    else:
        with ThreadPoolExecutor(max_workers=1) as ahead:
            nxt = ahead.submit(rng.integers, 0, t_n, size=(sizes[0], t_n))
            for i, st in enumerate(starts):
                idx = nxt.result()
                if i + 1 < len(starts):
                    nxt = ahead.submit(rng.integers, 0, t_n, size=(sizes[i + 1], t_n))
                yield st, draw_counts(idx, t_n).astype(dtype, copy=False)


def paired_draws(
    n: ArrayLike,
    c: ArrayLike,
    weights: ArrayLike,
    cols: Sequence[Column],
    *,
    n_boot: int,
    rng: np.random.Generator,
    clusters: NDArray[np.int64] | None = None,
    values: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """Paired task-bootstrap draws of every system and column (resamples × systems × columns).

    Parameters
    ----------
    n, c : array_like, shape (systems, tasks)
        Decided runs and successes of every system on the same tasks (every
        n ≥ the largest k of ``cols``).
    weights : array_like, shape (tasks,)
        Task weights shared by the systems (> 0).
    cols : sequence of (metric, k)
        Columns, e.g. :func:`passhat.scopes.columns`.
    n_boot : int
    rng : numpy.random.Generator
    clusters : ndarray of int, shape (tasks,), optional
        Each task's cluster code 0 … G − 1: a resample draws G clusters with replacement,
        each with all its tasks (the paired cluster bootstrap; codes 0 … T − 1 in task order
        give the task bootstrap bit for bit).
    values : ndarray, shape (systems, tasks, columns), optional
        Per-task values given instead of the 0/1 estimators (partial-credit scores); ``c``
        then holds category codes (equal n and code, equal values).

    Returns
    -------
    ndarray, shape (n_boot, systems, columns)
    """
    n_a = np.asarray(n, dtype=float)
    c_a = np.asarray(c, dtype=float)
    w = np.asarray(weights, dtype=float).ravel()
    s_n, t_n = n_a.shape
    n_cols = len(cols)
    # per-system categories of (n, c): codes and the values of one task of each
    codes: list[NDArray[np.int64]] = []
    tables: list[NDArray[np.float64]] = []
    base = float(np.max(c_a)) + 1.0
    for s in range(s_n):
        _, first, inv, freq = np.unique(
            n_a[s] * base + c_a[s], return_index=True, return_inverse=True, return_counts=True
        )
        # the most frequent category goes last: its count is the total minus the others'
        order = np.r_[np.delete(np.arange(freq.size), np.argmax(freq)), np.argmax(freq)]
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        codes.append(rank[inv.ravel()].astype(np.int64))
        tables.append(
            column_values(n_a[s, first[order]], c_a[s, first[order]], cols)
            if values is None
            else np.asarray(values[s], dtype=float)[first[order]]
        )
    sizes = np.array([t.shape[0] - 1 for t in tables])  # the last category is implied
    offsets = np.r_[0, np.cumsum(sizes)]
    equal_w = bool(np.all(w == w[0]))
    by_category = int(offsets[-1]) <= s_n * n_cols
    if by_category:
        dtype = np.float32 if equal_w and t_n < 2**24 else np.float64
        basis = np.zeros((t_n, max(int(offsets[-1]), 1)), dtype=dtype)
        for s in range(s_n):
            keep = codes[s] < sizes[s]
            rows = np.flatnonzero(keep)
            basis[rows, offsets[s] + codes[s][keep]] = 1.0 if equal_w else w[keep]
    else:
        basis = np.empty((t_n, s_n * n_cols))
        for s in range(s_n):
            basis[:, s * n_cols : (s + 1) * n_cols] = w[:, None] * tables[s][codes[s]]
    out = np.empty((n_boot, s_n, n_cols))
    chunk = max(1, min(n_boot, _CHUNK_CELLS // max(t_n, 1)))
    for start, m in _count_chunks(t_n, n_boot, chunk, rng, clusters, basis.dtype):
        b = m.shape[0]
        # resampled total weight (the same for every system)
        den = m.sum(axis=1, dtype=np.float64) * w[0] if equal_w else m @ w
        prod = m @ basis
        if by_category:
            prod64 = prod.astype(np.float64)
            total = den / w[0] if equal_w else den
            for s in range(s_n):
                part = prod64[:, offsets[s] : offsets[s + 1]]
                rest = total - part.sum(axis=1)  # the implied, most frequent category
                out[start : start + b, s] = part @ tables[s][:-1] + rest[:, None] * tables[s][-1]
            if equal_w:
                out[start : start + b] *= w[0]
        else:
            out[start : start + b] = prod.reshape(b, s_n, n_cols)
        out[start : start + b] /= den[:, None, None]
    return out
