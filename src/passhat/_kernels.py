"""Compiled (numba) kernels of the shared sign flips and the paired task bootstrap.

Each kernel replaces a numpy expression whose result it reproduces exactly
(integer counts, or the same floating-point operations on the same operands
in the same order), and runs its independent rows or cells on every core
(``prange``): each iteration writes only its own outputs, so the result does
not depend on the number of threads.

* :func:`category_counts` — for every random sign vector (packed 64 tasks per
  word) and every (system, category) mask, the number of + signs among the
  category's tasks: a population count of ``signs & mask``, in place of the
  float32 product of the unpacked 0/1 signs with the one-hot categories.
* :func:`select_cells` — the order statistics and counts behind each
  (pair, column) cell of :func:`passhat.signflip_shared.invert_shared_flips`,
  fused in one pass per cell.
* :func:`draw_counts` — how often each task was drawn in each resample, as
  float32 (small integers: exact), in place of ``np.bincount`` and a cast.

Machine code is cached on disk where numba can write a cache (as
:mod:`passhat.model._numba` does), so only the first process compiles.

Examples
--------
>>> import numpy as np
>>> from passhat._kernels import draw_counts
>>> draw_counts(np.array([[0, 2, 2], [1, 1, 1]]), 3).tolist()
[[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]
"""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba
import numpy as np
from numpy.typing import NDArray

__all__ = [
    "category_counts",
    "draw_counts",
    "max_scaled_gaps",
    "pack_rows",
    "pad_words",
    "pair_rows",
    "select_cells",
]

#: Threads of one kernel call (the machine this was written for has 2 cores).
_THREADS = 2

#: Fewest rows worth a thread of their own.
_MIN_ROWS = 16


def _jit(func: Callable[..., Any]) -> Any:
    """``numba.njit(nogil=True, cache=True)``, without the cache where none can be written."""
    try:
        return numba.njit(nogil=True, cache=True)(func)
    except RuntimeError:  # numba: "cannot cache function ...: no locator available"
        return numba.njit(nogil=True, cache=False)(func)


@functools.cache
def _helpers(pid: int) -> ThreadPoolExecutor:
    """The process's helper threads (one pool per process id: a forked child makes its own)."""
    return ThreadPoolExecutor(max_workers=max(1, _THREADS - 1), thread_name_prefix="passhat")


def _in_threads(kernel: Callable[..., None], rows: int, *args: Any) -> None:
    """``kernel(start, stop, *args)`` on contiguous row ranges, one per core (at most 2).

    The calling thread runs the first range, helper threads the others. The kernels
    release the GIL and write only their own rows, so the result is the same for any
    number of threads.
    """
    workers = max(1, min(_THREADS, os.cpu_count() or 1, rows // _MIN_ROWS))
    bounds = np.linspace(0, rows, workers + 1).astype(int).tolist()
    jobs = [
        _helpers(os.getpid()).submit(kernel, lo, hi, *args)
        for lo, hi in itertools.pairwise(bounds[1:])
    ]
    kernel(bounds[0], bounds[1], *args)
    for job in jobs:
        job.result()


_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


@_jit
def _category_counts(
    start: int,
    stop: int,
    signs: NDArray[np.uint64],
    masks: NDArray[np.uint64],
    out: NDArray[np.int64],
) -> None:  # pragma: no cover - compiled (numba); tested through category_counts
    one, two, four, top = np.uint64(1), np.uint64(2), np.uint64(4), np.uint64(56)
    for f in range(start, stop):
        for k in range(masks.shape[0]):
            acc = np.uint64(0)
            for i in range(signs.shape[1]):
                x = signs[f, i] & masks[k, i]
                x = x - ((x >> one) & _M1)
                x = (x & _M2) + ((x >> two) & _M2)
                x = (x + (x >> four)) & _M4
                acc += (x * _H01) >> top
            out[f, k] = acc


def pack_rows(bits: NDArray[np.bool_] | NDArray[np.uint8]) -> NDArray[np.uint64]:
    """Rows of 0/1 values packed 64 to a word, in :func:`numpy.packbits`' byte order.

    Only the bytes' order matters (a word is counted, never read as a number), so a
    row of random bytes from ``rng.bytes`` packs the same way with :func:`pad_words`.

    >>> import numpy as np
    >>> from passhat._kernels import pack_rows
    >>> pack_rows(np.ones((2, 70), dtype=bool)).shape
    (2, 2)
    """
    return pad_words(np.packbits(np.asarray(bits, dtype=bool), axis=1))


def pad_words(raw: NDArray[np.uint8]) -> NDArray[np.uint64]:
    """Rows of bytes zero-padded to whole 64-bit words (rows × words).

    >>> import numpy as np
    >>> from passhat._kernels import pad_words
    >>> pad_words(np.full((1, 9), 255, dtype=np.uint8)).shape
    (1, 2)
    """
    rows, nbytes = raw.shape
    words = (nbytes + 7) // 8
    out = np.zeros((rows, words * 8), dtype=np.uint8)
    out[:, :nbytes] = raw
    return out.view(np.uint64)


def category_counts(signs: NDArray[np.uint64], masks: NDArray[np.uint64]) -> NDArray[np.int64]:
    """The number of set bits of ``signs[f] & masks[k]`` for every row f and mask k.

    Parameters
    ----------
    signs : ndarray of uint64, shape (flips, words)
        Packed sign rows (:func:`pad_words` of the random bytes, 1 = +).
    masks : ndarray of uint64, shape (categories, words)
        Packed membership of each category (:func:`pack_rows`).

    Returns
    -------
    ndarray of int64, shape (flips, categories)

    Examples
    --------
    >>> import numpy as np
    >>> from passhat._kernels import category_counts, pack_rows
    >>> s = pack_rows(np.array([[1, 1, 0, 1], [0, 1, 1, 1]]))
    >>> m = pack_rows(np.array([[1, 0, 0, 1], [0, 1, 1, 0]]))
    >>> category_counts(s, m).tolist()
    [[2, 1], [1, 2]]
    """
    out = np.empty((signs.shape[0], masks.shape[0]), dtype=np.int64)
    _in_threads(
        _category_counts,
        out.shape[0],
        np.ascontiguousarray(signs),
        np.ascontiguousarray(masks),
        out,
    )
    return out


@_jit
def _draw_counts(
    start: int, stop: int, idx: NDArray[np.int64], out: NDArray[np.float32]
) -> None:  # pragma: no cover - compiled (numba); tested through draw_counts
    for b in range(start, stop):
        for i in range(idx.shape[1]):
            out[b, idx[b, i]] += np.float32(1.0)


def draw_counts(idx: NDArray[np.int64], n_tasks: int) -> NDArray[np.float32]:
    """Per row, how often each of ``n_tasks`` tasks appears in ``idx`` (float32, exact < 2^24).

    ``np.bincount`` of each row, cast to float32; see the module's example.
    """
    out = np.zeros((idx.shape[0], n_tasks), dtype=np.float32)
    _in_threads(_draw_counts, out.shape[0], np.ascontiguousarray(idx, dtype=np.int64), out)
    return out


@_jit
def _order_stat(x: NDArray[np.float64], at: int) -> float:  # pragma: no cover - compiled
    """The ``at``-th smallest of ``x`` (``np.partition(x, at)[at]``, no NaN); reorders ``x``.

    Quickselect (Hoare's partition about the median of three), iterative.
    """
    lo, hi = 0, x.size - 1
    while lo < hi:
        mid = (lo + hi) // 2
        a, b, c = x[lo], x[mid], x[hi]
        pivot = max(min(a, b), min(max(a, b), c))
        i, j = lo, hi
        while i <= j:
            while x[i] < pivot:
                i += 1
            while x[j] > pivot:
                j -= 1
            if i <= j:
                x[i], x[j] = x[j], x[i]
                i += 1
                j -= 1
        if at <= j:
            hi = j
        elif at >= i:
            lo = i
        else:
            return float(x[at])
    return float(x[at])


@_jit
def _select_one(  # pragma: no cover - compiled (numba); tested through select_cells
    ea: NDArray[np.float64],
    eb: NDArray[np.float64],
    m: NDArray[np.float64],
    hf: NDArray[np.float64],
    kk: int,
    at_pilot: int,
    n_pilot: int,
    g_star: float,
    d_pos: bool,
) -> tuple[float, float, int]:
    """One cell of :func:`select_cells`: e = eb − ea per flip, computed where needed."""
    r_n = m.size
    tau = 0.0
    if at_pilot >= 0:
        h = np.empty(n_pilot)
        for f in range(n_pilot):
            h[f] = abs(eb[f] - ea[f]) * hf[f]
        tau = _order_stat(h, at_pilot)
    if tau > 0.0:
        lo_c = np.empty(r_n)
        hi_c = np.empty(r_n)
        n_c = 0
        for f in range(r_n):
            e = eb[f] - ea[f]
            if abs(e) * hf[f] >= tau:
                pf, qf = 1.0 / (1.0 - m[f]), 1.0 / (1.0 + m[f])
                lo_c[n_c] = max(e * pf, -e * qf)
                hi_c[n_c] = max(e * qf, -e * pf)
                n_c += 1
        if n_c > kk:
            cnt = 0
            if g_star >= tau:  # every flip counted lies among the candidates
                g = lo_c if d_pos else hi_c
                for f in range(n_c):
                    cnt += g[f] >= g_star
            else:
                for f in range(r_n):
                    cnt += _g(eb[f] - ea[f], m[f], d_pos) >= g_star
            v_lo = _order_stat(lo_c[:n_c], n_c - 1 - kk)
            v_hi = _order_stat(hi_c[:n_c], n_c - 1 - kk)
            if min(v_lo, v_hi) >= tau:
                return v_lo, v_hi, cnt
    g_lo = np.empty(r_n)
    g_hi = np.empty(r_n)
    cnt = 0
    for f in range(r_n):
        g_lo[f] = _g(eb[f] - ea[f], m[f], True)
        g_hi[f] = _g(eb[f] - ea[f], m[f], False)
        cnt += (g_lo[f] if d_pos else g_hi[f]) >= g_star
    return _order_stat(g_lo, r_n - 1 - kk), _order_stat(g_hi, r_n - 1 - kk), cnt


@_jit
def _g(e: float, m: float, d_pos: bool) -> float:  # pragma: no cover - compiled
    """g⁻ = max(e·pf, −e·qf) (d ≥ 0) or g⁺ = max(e·qf, −e·pf) (d < 0) of one flip, with
    pf = 1/(1 − m) and qf = 1/(1 + m)."""
    pf, qf = 1.0 / (1.0 - m), 1.0 / (1.0 + m)
    return max(e * pf, -e * qf) if d_pos else max(e * qf, -e * pf)


@_jit
def _select_cells(  # pragma: no cover - compiled (numba); tested through select_cells
    start: int,
    stop: int,
    e_sys: NDArray[np.float64],
    m: NDArray[np.float64],
    hf: NDArray[np.float64],
    cells: NDArray[np.int64],
    kk: int,
    at_pilot: int,
    n_pilot: int,
    g_star: NDArray[np.float64],
    out_lo: NDArray[np.float64],
    out_hi: NDArray[np.float64],
    out_cnt: NDArray[np.int64],
) -> None:
    for q in range(start, stop):
        a, b, j = cells[q, 0], cells[q, 1], cells[q, 2]
        out_lo[q], out_hi[q], out_cnt[q] = _select_one(
            e_sys[a, j], e_sys[b, j], m, hf, kk, at_pilot, n_pilot, g_star[q], cells[q, 3] == 1
        )


def select_cells(
    e_sys: NDArray[np.float64],
    m: NDArray[np.float64],
    cells: NDArray[np.int64],
    *,
    kk: int,
    n_pilot: int,
    at_pilot: int,
    g_star: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    """Per cell (a, b, column, d ≥ 0) the kk-th largest g⁻ and g⁺ over the flips, and #{g ≥ g*}.

    The rule of :func:`passhat.signflip_shared` (its module docstring): with
    e = e_sys[b, column] − e_sys[a, column], g⁻ = max(e·pf, −e·qf) and
    g⁺ = max(e·qf, −e·pf) (pf = 1/(1 − m), qf = 1/(1 + m)); the candidates are
    the flips with |e|·max(pf, qf) ≥ τ, τ the ``at_pilot``-th smallest of that
    bound on the first ``n_pilot`` flips (no threshold when ``at_pilot`` < 0), and
    a cell whose candidates cannot be proven to hold the order statistic is
    redone on every flip. The count is of g⁻ (d ≥ 0) or g⁺ (d < 0) ≥ g*.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat._kernels import select_cells
    >>> e = np.array([[[0.0, 0.0, 0.0]], [[0.1, -0.2, 0.3]]])
    >>> lo, hi, cnt = select_cells(e, np.zeros(3), np.array([[0, 1, 0, 1]]), kk=0, n_pilot=3,
    ...                            at_pilot=-1, g_star=np.array([0.15]))
    >>> lo.tolist(), hi.tolist(), cnt.tolist()
    ([0.3], [0.3], [2])
    """
    hf = np.maximum(1.0 / (1.0 - m), 1.0 / (1.0 + m))
    n_cells = cells.shape[0]
    lo, hi = np.empty(n_cells), np.empty(n_cells)
    cnt = np.empty(n_cells, dtype=np.int64)
    _in_threads(
        _select_cells, n_cells, np.ascontiguousarray(e_sys), np.ascontiguousarray(m), hf,
        np.ascontiguousarray(cells, dtype=np.int64), kk, at_pilot, n_pilot,
        np.ascontiguousarray(g_star, dtype=np.float64), lo, hi, cnt,
    )  # fmt: skip
    return lo, hi, cnt


@_jit
def _max_scaled_gaps(
    start: int,
    stop: int,
    u: NDArray[np.float32],
    inv: NDArray[np.float32],
    out: NDArray[np.float32],
) -> None:  # pragma: no cover - compiled (numba); tested through max_scaled_gaps
    s_n = u.shape[1]
    for b in range(start, stop):
        for i in range(s_n):
            top = abs(u[b, 0] - u[b, i]) * inv[i, 0]
            for j in range(1, s_n):
                z = abs(u[b, j] - u[b, i]) * inv[i, j]
                if z > top:
                    top = z
            out[b, i] = top


def max_scaled_gaps(u: NDArray[np.float32], inv: NDArray[np.float32]) -> NDArray[np.float32]:
    """Per row b and system i, max_j |u[b, j] − u[b, i]| · inv[i, j], in float32 throughout.

    The same float32 operations as ``(np.abs(u[:, None, :] - u[:, :, None]) * inv).max(axis=2)``
    without the draws × systems × systems array (no NaN in ``u`` or ``inv``).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat._kernels import max_scaled_gaps
    >>> u = np.array([[0.0, 1.0, 3.0]], dtype=np.float32)
    >>> max_scaled_gaps(u, np.ones((3, 3), dtype=np.float32)).tolist()
    [[3.0, 2.0, 3.0]]
    """
    u32 = np.ascontiguousarray(u, dtype=np.float32)
    out = np.empty(u32.shape, dtype=np.float32)
    _in_threads(_max_scaled_gaps, u32.shape[0], u32, np.ascontiguousarray(inv, np.float32), out)
    return out


@_jit
def _pair_rows(
    start: int,
    stop: int,
    values: NDArray[np.float64],
    a: NDArray[np.int64],
    b: NDArray[np.int64],
    sign: float,
    out: NDArray[np.float64],
) -> None:  # pragma: no cover - compiled (numba); tested through pair_rows
    for p in range(start, stop):
        va, vb, o = values[a[p]], values[b[p]], out[p]
        for t in range(va.shape[0]):
            for j in range(va.shape[1]):
                o[t, j] = vb[t, j] - va[t, j] if sign < 0 else va[t, j] + vb[t, j]


def pair_rows(
    values: NDArray[np.float64],
    a: NDArray[np.int64],
    b: NDArray[np.int64],
    out: NDArray[np.float64],
    *,
    minus: bool,
) -> NDArray[np.float64]:
    """``values[b] - values[a]`` (``minus``) or ``values[a] + values[b]``, written into ``out``.

    The same float64 operations as numpy's, without its two gathered copies.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat._kernels import pair_rows
    >>> v = np.arange(12.0).reshape(3, 2, 2)
    >>> out = np.empty((1, 2, 2))
    >>> pair_rows(v, np.array([0]), np.array([2]), out, minus=True).tolist()
    [[[8.0, 8.0], [8.0, 8.0]]]
    """
    v = np.ascontiguousarray(values, dtype=np.float64)
    ia = np.ascontiguousarray(a, dtype=np.int64)
    ib = np.ascontiguousarray(b, dtype=np.int64)
    _in_threads(_pair_rows, ia.size, v, ia, ib, -1.0 if minus else 1.0, out)
    return out
