"""Oracle: :mod:`passhat.signflip_shared` as it was before its compiled kernels (issue 32).

The flips' category sums as a float32 product of the unpacked 0/1 signs with the
one-hot categories, and each pair's order statistics by ``np.partition`` in two
Python threads. Kept verbatim (only this docstring is new) so that the compiled
path (:mod:`passhat._kernels`) can be checked against it bit for bit; it is not
imported by the package.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["invert_shared_flips"]

#: Largest number of random signs (flips × tasks) of one chunk.
_SIGN_CELLS = 8_000_000

#: Flips used to place the candidate threshold of the order statistics.
_PILOT = 4096

#: Threads over the pairs (numpy releases the GIL on the large arrays of each pair).
_THREADS = 2


@dataclass(frozen=True)
class _Centred:
    """Every system's centred flipped sums on the shared random flips.

    ``e[s, j, b]`` = A_sj(s_b) − D_sj · m_b for the flips b whose signs are
    not all equal, ``m`` = Σ ω_i s_bi for those flips; ``n_same`` flips had
    all signs equal (they, like the observed row, reject no shift).
    """

    e: NDArray[np.float64]
    m: NDArray[np.float64]
    n_same: int


def _random_signs(t_n: int, n_flips: int, rng: np.random.Generator) -> Iterator[NDArray[np.uint8]]:
    """Chunks of random signs (1 for +, 0 for −), flips × tasks: 8 per random byte."""
    nbytes = (t_n + 7) // 8
    chunk = max(1, min(n_flips, _SIGN_CELLS // max(t_n, 1)))
    for start in range(0, n_flips, chunk):
        b = min(chunk, n_flips - start)
        raw = np.frombuffer(rng.bytes(b * nbytes), dtype=np.uint8).reshape(b, nbytes)
        yield np.unpackbits(raw, axis=1, count=t_n)


def _centred_sums(
    u: NDArray[np.float64],
    omega: NDArray[np.float64],
    point: NDArray[np.float64],
    *,
    n_flips: int,
    rng: np.random.Generator,
    categories: NDArray[np.int64] | None,
    clusters: NDArray[np.int64] | None = None,
) -> _Centred:
    """Per-system flipped sums through each system's (values, weight) categories.

    One product of the 0/1 sign matrix with the one-hot category matrix gives
    every system's count of + signs per category; the most frequent category
    of each system is implied by the total.
    """
    s_n, t_n, c_n = u.shape
    codes: list[NDArray[np.int64]] = []
    vals: list[NDArray[np.float64]] = []
    freqs: list[NDArray[np.float64]] = []
    sizes = []
    for s in range(s_n):
        _, first, inv, freq = (
            np.unique(
                np.column_stack([u[s], omega]),
                axis=0,
                return_index=True,
                return_inverse=True,
                return_counts=True,
            )
            if categories is None
            else np.unique(
                categories[s], return_index=True, return_inverse=True, return_counts=True
            )
        )
        order = np.r_[np.delete(np.arange(freq.size), np.argmax(freq)), np.argmax(freq)]
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        codes.append(rank[np.asarray(inv).ravel()])
        vals.append(omega[first[order], None] * u[s, first[order]])  # ω·U of one task
        freqs.append(freq[order].astype(float))
        sizes.append(freq.size - 1)
    offsets = np.r_[0, np.cumsum(sizes)]
    basis = np.zeros((t_n, max(int(offsets[-1]), 1)), dtype=np.float32)
    for s in range(s_n):
        keep = codes[s] < sizes[s]
        basis[np.flatnonzero(keep), offsets[s] + codes[s][keep]] = 1.0
    # tasks in every system's implied category need no column of the product (their signs
    # enter through the total only): leave them out when that saves a tenth of the work
    used = basis.any(axis=1)
    rows = np.flatnonzero(used) if used.mean() < 0.9 else None
    if rows is not None:
        basis = np.ascontiguousarray(basis[rows])
    # the weight of one task of each of system 0's categories: m = Σ_k S_0k ω_k
    w0 = np.empty(sizes[0] + 1)
    w0[codes[0]] = omega
    e = np.empty((s_n, c_n, n_flips))
    m_all = np.empty(n_flips)
    filled = 0
    units = t_n if clusters is None else int(clusters.max()) + 1
    for drawn in _random_signs(units, n_flips, rng):
        bits = drawn if clusters is None else drawn[:, clusters]  # one sign per cluster
        plus = bits.sum(axis=1, dtype=np.int64)
        mixed = (plus > 0) & (plus < t_n)  # rows whose signs are not all equal
        if not mixed.all():
            bits, plus = bits[mixed], plus[mixed]
        b = bits.shape[0]
        if b == 0:
            continue
        # + signs per category (categories × flips), exact small integers
        signs = bits if rows is None else bits[:, rows]
        counts = (signs.astype(np.float32) @ basis).T.astype(np.float64)
        m_rows = np.zeros(b)
        for s in range(s_n):
            part = counts[offsets[s] : offsets[s + 1]]
            sums = 2.0 * part - freqs[s][:-1, None]
            sums_last = 2.0 * (plus - part.sum(axis=0)) - freqs[s][-1]
            if s == 0:
                m_rows = w0[:-1] @ sums + w0[-1] * sums_last
            a_t = vals[s][:-1].T @ sums + vals[s][-1][:, None] * sums_last[None, :]
            a_t -= point[s][:, None] * m_rows[None, :]
            e[s, :, filled : filled + b] = a_t
        m_all[filled : filled + b] = m_rows
        filled += b
    return _Centred(e=e[:, :, :filled], m=m_all[:filled], n_same=n_flips - filled)


def _count_threshold(d: NDArray[np.float64], tol: NDArray[np.float64]) -> NDArray[np.float64]:
    """Per column the smallest float g with fl(fl(|d| − g) − tol) ≤ 0.

    The count behind p(0) is #{g : fl(fl(|d| − g) − tol) ≤ 0} (the lower ends
    ≤ 0 for d ≥ 0; the mirrored upper ends for d < 0), the same arithmetic as
    the interval's end, and rounding is monotone, so it is #{g ≥ this}.
    """
    ad = np.abs(d)

    def hit(g: NDArray[np.float64]) -> NDArray[np.bool_]:
        return np.asarray(((ad - g) - tol) <= 0.0)

    g = ad - tol
    for _ in range(64):
        up = ~hit(g)
        if not up.any():
            break
        g = np.where(up, np.nextafter(g, np.inf), g)
    for _ in range(64):
        prev = np.nextafter(g, -np.inf)
        down = hit(prev)
        if not down.any():
            break
        g = np.where(down, prev, g)
    return g


def _select(
    e: NDArray[np.float64],
    pf: NDArray[np.float64],
    qf: NDArray[np.float64],
    hf: NDArray[np.float64],
    kk: int,
    g_star: NDArray[np.float64],
    d_pos: NDArray[np.bool_],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    """The kk-th largest g⁻ and g⁺ (0 = largest) of each row, and the counts behind p(0).

    ``e`` is columns × flips; g⁻ = max(e·pf, −e·qf), g⁺ = max(e·qf, −e·pf)
    with pf = 1/(1 − m), qf = 1/(1 + m) per flip, both at most
    h = |e| · max(pf, qf). The candidates are the flips with h ≥ τ (τ from
    the first flips); the selection among them is the true one when the
    kk-th largest found is ≥ τ (no other flip can reach it), else the row is
    redone on every flip. The count of g ≥ g* (p(0)) is taken among the
    candidates when g* ≥ τ, else over every flip.
    """
    j_n, r_n = e.shape
    h = np.abs(e)
    h *= hf
    pilot = h[:, : min(r_n, _PILOT)]
    share = 1.1 * (kk + 1) / r_n + 3.0 * np.sqrt((kk + 1) / r_n / pilot.shape[1])
    at_pilot = int(pilot.shape[1] * (1.0 - share))
    tau = (
        np.partition(pilot, at_pilot, axis=1)[:, at_pilot]
        if 0 <= at_pilot < pilot.shape[1] and share < 1.0
        else np.zeros(j_n)
    )
    top_lo = np.empty(j_n)
    top_hi = np.empty(j_n)
    cnt = np.empty(j_n, dtype=np.int64)
    for j in range(j_n):
        idx = np.flatnonzero(h[j] >= tau[j]) if tau[j] > 0.0 else None
        if idx is not None and idx.size > kk:
            ej, pj, qj = e[j, idx], pf[idx], qf[idx]
            lo_c = np.maximum(ej * pj, -ej * qj)
            hi_c = np.maximum(ej * qj, -ej * pj)
            at = idx.size - 1 - kk
            v_lo = float(np.partition(lo_c, at)[at])
            v_hi = float(np.partition(hi_c, at)[at])
            if min(v_lo, v_hi) >= tau[j]:
                top_lo[j], top_hi[j] = v_lo, v_hi
                if g_star[j] >= tau[j]:  # every flip counted lies among the candidates
                    cnt[j] = int(np.count_nonzero((lo_c if d_pos[j] else hi_c) >= g_star[j]))
                else:
                    g = (
                        np.maximum(e[j] * pf, -e[j] * qf)
                        if d_pos[j]
                        else np.maximum(e[j] * qf, -e[j] * pf)
                    )
                    cnt[j] = int(np.count_nonzero(g >= g_star[j]))
                continue
        g_lo = np.maximum(e[j] * pf, -e[j] * qf)
        g_hi = np.maximum(e[j] * qf, -e[j] * pf)
        at = r_n - 1 - kk
        top_lo[j] = float(np.partition(g_lo, at)[at])
        top_hi[j] = float(np.partition(g_hi, at)[at])
        cnt[j] = int(np.count_nonzero((g_lo if d_pos[j] else g_hi) >= g_star[j]))
    return top_lo, top_hi, cnt


def invert_shared_flips(
    values: ArrayLike,
    weights: ArrayLike,
    pairs: Sequence[tuple[int, int]],
    *,
    n_flips: int,
    rng: np.random.Generator,
    ci: float,
    need: ArrayLike | None = None,
    categories: ArrayLike | None = None,
    bounds: tuple[float, float] = (-1.0, 1.0),
    clusters: ArrayLike | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Sign-flip interval and p-value (at δ = 0) of b − a for many pairs, on shared random flips.

    Parameters
    ----------
    values : array_like, shape (systems, tasks, C)
        Each system's per-task values U (one column per metric / k).
    weights : array_like, shape (tasks,)
        Task weights shared by the systems (> 0).
    pairs : sequence of (a, b)
        Each pair tests the weighted mean of U(b) − U(a).
    n_flips : int
        Random sign vectors (the observed, all-plus one is added).
    rng : numpy.random.Generator
    ci : float
        Level: δ is in the interval when p(δ) > 1 − ci.
    need : array_like of bool, shape (pairs, C), optional
        Which (pair, column) to compute (the others are NaN).
    categories : array_like of int, shape (systems, tasks), optional
        Codes such that tasks of one system with the same code have the same
        values and weight (e.g. from (n, c, w)); found from the values otherwise.
    bounds : (float, float)
        The range of the mean difference (infinite ends are clipped to it).
    clusters : array_like of int, shape (tasks,), optional
        Each task's cluster code 0 … G − 1: one random sign per cluster and flip, shared by
        its tasks (cluster sign flips; codes 0 … T − 1 in task order give the task-level
        flips bit for bit).

    Returns
    -------
    lower, upper, p_value : ndarray, shape (pairs, C)
        Per pair exactly :func:`passhat.signflip.invert_flips` run on these
        sign vectors; the interval excludes 0 exactly when p_value ≤ 1 − ci.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.signflip_shared import invert_shared_flips
    >>> u = np.random.default_rng(1).integers(0, 2, size=(4, 60, 1)).astype(float)
    >>> lo, hi, p = invert_shared_flips(u, np.ones(60), [(0, 1), (0, 2), (2, 3)],
    ...                                 n_flips=2000, rng=np.random.default_rng(0), ci=0.9)
    >>> bool(np.all((lo <= hi) & ((lo > 0) | (hi < 0)) == (p <= 0.1)))
    True
    """
    u = np.asarray(values, dtype=float)
    w = np.asarray(weights, dtype=float).ravel()
    c_n = u.shape[2]
    pair_list = [(int(a), int(b)) for a, b in pairs]
    mask = (
        np.ones((len(pair_list), c_n), dtype=bool)
        if need is None
        else np.asarray(need, dtype=bool).reshape(len(pair_list), c_n)
    )
    lo = np.full((len(pair_list), c_n), np.nan)
    hi = np.full((len(pair_list), c_n), np.nan)
    p0 = np.full((len(pair_list), c_n), np.nan)
    if not mask.any():
        return lo, hi, p0
    # columns equal for every system (pass@1 = pass^1 = mean) are computed once
    rep = np.arange(c_n)
    first = u[:, 0, :]  # a cheap first look: the first task of every system
    for j in range(c_n):
        for jj in range(j):
            if (
                rep[jj] == jj
                and np.array_equal(first[:, j], first[:, jj])
                and np.array_equal(u[:, :, j], u[:, :, jj])
            ):
                rep[j] = jj
                break
    keep = np.flatnonzero(rep == np.arange(c_n))
    omega = w / w.sum()
    point = np.einsum("t,stc->sc", omega, u[:, :, keep])  # each system's observed mean
    cats = None if categories is None else np.asarray(categories, dtype=np.int64)
    codes = None if clusters is None else np.asarray(clusters, dtype=np.int64).ravel()
    cen = _centred_sums(
        u[:, :, keep], omega, point, n_flips=n_flips, rng=rng, categories=cats, clusters=codes
    )
    n_inf = 1 + cen.n_same  # the observed row and all-equal rows reject no shift
    alpha = round(1.0 - float(ci), 12)
    cum = np.cumsum(np.full(n_flips + 1, 1.0 / (n_flips + 1)))
    i = min(int(np.searchsorted(cum, alpha, side="right")), n_flips)
    kk = i - n_inf  # rank (0 = largest) of the finite g that gives each end
    pf = 1.0 / (1.0 - cen.m)
    qf = 1.0 / (1.0 + cen.m)
    hf = np.maximum(pf, qf)
    pos = {int(j): q for q, j in enumerate(keep)}

    def one_pair(r: int) -> None:
        a, b = pair_list[r]
        want = np.flatnonzero(mask[r])
        js = np.unique(rep[want])
        if js.size == 0:
            return
        kj_list = [pos[int(j)] for j in js]
        # a run of columns is a view, not a copy
        kj: slice | NDArray[np.int64] = (
            slice(kj_list[0], kj_list[-1] + 1)
            if kj_list == list(range(kj_list[0], kj_list[-1] + 1))
            else np.array(kj_list)
        )
        d = point[b, kj] - point[a, kj]
        tol = 1e-12 * (1.0 + np.abs(d))
        g_star = _count_threshold(d, tol)
        e = cen.e[b, kj] - cen.e[a, kj]  # columns × flips
        if kk < 0:  # fewer flips than the level needs: every shift is accepted
            lo_j = np.full(js.size, -np.inf)
            hi_j = np.full(js.size, np.inf)
            g = np.where(
                (d >= 0.0)[:, None],
                np.maximum(e * pf, -e * qf),
                np.maximum(e * qf, -e * pf),
            )
            cnt = np.count_nonzero(g >= g_star[:, None], axis=1)
        else:
            top_lo, top_hi, cnt = _select(e, pf, qf, hf, kk, g_star, d >= 0.0)
            lo_j = (d - top_lo) - tol
            hi_j = (d + top_hi) + tol
        p_j = cum[n_inf + cnt - 1]
        at = {int(j): q for q, j in enumerate(js)}
        for j in want.tolist():
            q = at[int(rep[j])]
            lo[r, j], hi[r, j], p0[r, j] = lo_j[q], hi_j[q], p_j[q]

    # the pairs are independent (each writes its own row) and numpy releases the GIL on
    # these arrays, so two threads use both cores; the result does not depend on the order
    workers = min(_THREADS, os.cpu_count() or 1, len(pair_list))
    if workers > 1 and cen.m.size * c_n >= 100_000:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(one_pair, range(len(pair_list))))
    else:
        for r in range(len(pair_list)):
            one_pair(r)
    return np.clip(lo, *bounds), np.clip(hi, *bounds), np.minimum(p0, 1.0)
