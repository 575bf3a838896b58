"""Many pairs' sign-flip tests and intervals on one shared set of random flips.

:mod:`passhat.signflip` tests one pair of systems: its random flips are drawn
per pair, so a leaderboard of S systems draws S(S − 1)/2 sets of them (and,
for Holm's procedure to reach α / pairs, at least 2 · pairs / α flips each).
Here **one sign per task and flip**, s_bi = ±1, serves every pair. The
flipped statistic of pair (a, b) is

    Σ_i ω_i s_bi (U_i(b) − U_i(a)) = A_b(s_b) − A_a(s_b),

the difference of two *per-system* flipped sums, and a system's flipped sum
depends on its tasks only through the sum of signs within each of its
(values, weight) categories. So the flips cost one product of the 0/1 sign
matrix (flips × tasks) with the systems' one-hot categories (exact in
float32: integer counts), and each pair then costs a subtraction and a
selection per column. Every sign vector is uniform on {±1}^T as in the
per-pair test, so each pair's p-value is the same random-flip p-value
(1 + #{|T*| ≥ |T|}) / (1 + n_flips); only the pairs' tests now share their
flips (Holm's procedure needs no independence between them).

The inversion is :func:`passhat.signflip.invert_flips`' rule with every row
of probability 1/(n_flips + 1). With m = Σ ω_i s_i and e = A − D·m (the
flipped copy of d − D), a flip rejects no shift outside
[D − g⁻, D + g⁺], g⁻ = |e|/(1 − sgn(e)·m), g⁺ = |e|/(1 + sgn(e)·m), so each
end of the interval is an order statistic of one array per pair and column
and p(0) is a count over the same array: the interval excludes 0 exactly when
p(0) ≤ 1 − ci. The order statistics are found among the flips whose |e|
passes a threshold (g⁻ and g⁺ are at most |e| · max(1/(1 ∓ m)) of the flip);
a column whose candidates cannot be proven to hold them falls back to a full
selection, so the result is exact either way.

Examples
--------
>>> import numpy as np
>>> from passhat.signflip_shared import invert_shared_flips
>>> u = np.zeros((3, 40, 1))
>>> u[1, :12, 0] = 1.0            # B passes 12 of 40 tasks, A and C none
>>> lo, hi, p = invert_shared_flips(u, np.ones(40), [(0, 1), (0, 2)], n_flips=999,
...                                 rng=np.random.default_rng(0), ci=0.95)
>>> float(p[0, 0]), bool(lo[0, 0] > 0), float(p[1, 0])   # no flip of 12 signs reaches 12
(0.001, True, 1.0)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import ModuleType

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["invert_shared_flips"]

#: Largest number of random signs (flips × tasks) of one chunk.
_SIGN_CELLS = 8_000_000

#: Flips × tasks from which the compiled kernels (:mod:`passhat._kernels`) pay for loading
#: numba (about 0.5 s of CPU); below, numpy computes the same numbers.
_COMPILED_CELLS = 50_000_000

#: Flips used to place the candidate threshold of the order statistics.
_PILOT = 4096


def _kernels() -> ModuleType:
    """:mod:`passhat._kernels`, imported when first needed (numba is slow to import)."""
    from passhat import _kernels

    return _kernels


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


def _random_bytes(
    units: int, n_flips: int, rng: np.random.Generator
) -> Iterator[NDArray[np.uint8]]:
    """Chunks of random signs packed 8 to a byte (flips × bytes; bit 1 = +, first unit high)."""
    nbytes = (units + 7) // 8
    chunk = max(1, min(n_flips, _SIGN_CELLS // max(units, 1)))
    for start in range(0, n_flips, chunk):
        b = min(chunk, n_flips - start)
        yield np.frombuffer(rng.bytes(b * nbytes), dtype=np.uint8).reshape(b, nbytes)


def _random_signs(t_n: int, n_flips: int, rng: np.random.Generator) -> Iterator[NDArray[np.uint8]]:
    """Chunks of random signs (1 for +, 0 for −), flips × tasks: 8 per random byte."""
    for raw in _random_bytes(t_n, n_flips, rng):
        yield np.unpackbits(raw, axis=1, count=t_n)


def _packed_signs(
    t_n: int, n_flips: int, rng: np.random.Generator, clusters: NDArray[np.int64] | None
) -> Iterator[NDArray[np.uint64]]:
    """The chunks of :func:`_random_signs` (per task, one sign per cluster), packed in words."""
    if clusters is None:
        for raw in _random_bytes(t_n, n_flips, rng):
            yield _kernels().pad_words(raw)
    else:
        for drawn in _random_signs(int(clusters.max()) + 1, n_flips, rng):
            yield _kernels().pack_rows(drawn[:, clusters])


def _system_categories(
    u: NDArray[np.float64], omega: NDArray[np.float64], categories: NDArray[np.int64] | None
) -> tuple[list[NDArray[np.int64]], list[NDArray[np.float64]], list[NDArray[np.float64]]]:
    """Each system's category code per task (its most frequent category last), the ω·U of
    one task of each category, and the categories' sizes."""
    codes: list[NDArray[np.int64]] = []
    vals: list[NDArray[np.float64]] = []
    freqs: list[NDArray[np.float64]] = []
    for s in range(u.shape[0]):
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
    return codes, vals, freqs


def _category_masks(
    codes: list[NDArray[np.int64]], sizes: list[int], t_n: int
) -> NDArray[np.uint64]:
    """Packed task masks of every system's categories but its last, then one of all tasks."""
    offsets = np.r_[0, np.cumsum(sizes)]
    member = np.zeros((int(offsets[-1]) + 1, t_n), dtype=bool)
    for s, code in enumerate(codes):
        keep = np.flatnonzero(code < sizes[s])
        member[offsets[s] + code[keep], keep] = True
    member[-1] = True
    return _kernels().pack_rows(member)


def _counts_by_popcount(
    t_n: int,
    n_flips: int,
    rng: np.random.Generator,
    codes: list[NDArray[np.int64]],
    sizes: list[int],
    clusters: NDArray[np.int64] | None,
) -> Iterator[tuple[NDArray[np.float64], NDArray[np.int64]]]:
    """Per chunk of flips whose signs are not all equal: + signs per category (categories ×
    flips) and in all (flips), by population counts of the packed signs (compiled)."""
    masks = _category_masks(codes, sizes, t_n)
    for signs in _packed_signs(t_n, n_flips, rng, clusters):
        both = _kernels().category_counts(signs, masks)  # flips × (categories, all tasks)
        plus = both[:, -1]
        mixed = (plus > 0) & (plus < t_n)  # rows whose signs are not all equal
        if not mixed.all():
            both, plus = both[mixed], plus[mixed]
        if both.shape[0] > 0:
            yield both[:, :-1].T.astype(np.float64), plus


def _counts_by_product(
    t_n: int,
    n_flips: int,
    rng: np.random.Generator,
    codes: list[NDArray[np.int64]],
    sizes: list[int],
    clusters: NDArray[np.int64] | None,
) -> Iterator[tuple[NDArray[np.float64], NDArray[np.int64]]]:
    """:func:`_counts_by_popcount`'s counts by a float32 product of the unpacked 0/1 signs
    with the one-hot categories (exact: small integers); numpy only, for small inputs."""
    offsets = np.r_[0, np.cumsum(sizes)]
    basis = np.zeros((t_n, max(int(offsets[-1]), 1)), dtype=np.float32)
    for s, code in enumerate(codes):
        keep = code < sizes[s]
        basis[np.flatnonzero(keep), offsets[s] + code[keep]] = 1.0
    units = t_n if clusters is None else int(clusters.max()) + 1
    for drawn in _random_signs(units, n_flips, rng):
        bits = drawn if clusters is None else drawn[:, clusters]  # one sign per cluster
        plus = bits.sum(axis=1, dtype=np.int64)
        mixed = (plus > 0) & (plus < t_n)  # rows whose signs are not all equal
        if not mixed.all():
            bits, plus = bits[mixed], plus[mixed]
        if bits.shape[0] > 0:
            yield (bits.astype(np.float32) @ basis).T.astype(np.float64), plus


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

    Every system's count of + signs per category is a population count of the
    packed signs under the category's packed task mask (exact integers; on small
    inputs a float32 product, the same integers without compiling); the most
    frequent category of each system is implied by the total.
    """
    s_n, t_n, c_n = u.shape
    codes, vals, freqs = _system_categories(u, omega, categories)
    sizes = [f.size - 1 for f in freqs]
    offsets = np.r_[0, np.cumsum(sizes)]
    # the weight of one task of each of system 0's categories: m = Σ_k S_0k ω_k
    w0 = np.empty(sizes[0] + 1)
    w0[codes[0]] = omega
    e = np.empty((s_n, c_n, n_flips))
    m_all = np.empty(n_flips)
    filled = 0
    by = _counts_by_popcount if n_flips * t_n >= _COMPILED_CELLS else _counts_by_product
    for counts, plus in by(t_n, n_flips, rng, codes, sizes, clusters):
        b = plus.size
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


def _select_by_pair(
    cen: _Centred, cells: NDArray[np.int64], kk: int, g_star: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    """:func:`passhat._kernels.select_cells` in numpy, one pair's cells at a time (small inputs)."""
    pf = 1.0 / (1.0 - cen.m)
    qf = 1.0 / (1.0 + cen.m)
    hf = np.maximum(pf, qf)
    lo, hi = np.empty(len(cells)), np.empty(len(cells))
    cnt = np.empty(len(cells), dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, np.any(cells[1:, :2] != cells[:-1, :2], axis=1)])
    for q0, q1 in zip(starts.tolist(), [*starts[1:].tolist(), len(cells)], strict=True):
        a, b, cols = cells[q0, 0], cells[q0, 1], cells[q0:q1, 2]
        e = cen.e[b, cols] - cen.e[a, cols]  # columns × flips
        pos = cells[q0:q1, 3] == 1
        lo[q0:q1], hi[q0:q1], cnt[q0:q1] = _select(e, pf, qf, hf, kk, g_star[q0:q1], pos)
    return lo, hi, cnt


def _all_counts(
    cen: _Centred,
    ends: NDArray[np.int64],
    cols: NDArray[np.int64],
    d: NDArray[np.float64],
    g_star: NDArray[np.float64],
) -> NDArray[np.int64]:
    """Per cell, #{flips with g ≥ g*} over every flip (g⁻ where d ≥ 0, g⁺ where d < 0)."""
    pf = 1.0 / (1.0 - cen.m)
    qf = 1.0 / (1.0 + cen.m)
    cnt = np.empty(d.size, dtype=np.int64)
    for q in range(d.size):
        e = cen.e[ends[q, 1], cols[q]] - cen.e[ends[q, 0], cols[q]]
        g = np.maximum(e * pf, -e * qf) if d[q] >= 0.0 else np.maximum(e * qf, -e * pf)
        cnt[q] = np.count_nonzero(g >= g_star[q])
    return cnt


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
    # the cells: each pair's representative columns that one of its wanted columns needs
    col_pos = np.full(c_n, -1)
    col_pos[keep] = np.arange(keep.size)
    col_pos = col_pos[rep]
    want = np.zeros((len(pair_list), keep.size), dtype=bool)
    for j in range(c_n):
        want[:, col_pos[j]] |= mask[:, j]
    rows, cols = np.nonzero(want)
    ends = np.array(pair_list, dtype=np.int64).reshape(-1, 2)
    d = point[ends[rows, 1], cols] - point[ends[rows, 0], cols]
    tol = 1e-12 * (1.0 + np.abs(d))
    g_star = _count_threshold(d, tol)
    if kk < 0:  # fewer flips than the level needs: every shift is accepted
        lo_c, hi_c = np.full(d.size, -np.inf), np.full(d.size, np.inf)
        cnt = _all_counts(cen, ends[rows], cols, d, g_star)
    else:
        r_n = cen.m.size
        n_pilot = min(r_n, _PILOT)
        share = 1.1 * (kk + 1) / r_n + 3.0 * np.sqrt((kk + 1) / r_n / n_pilot)
        at_pilot = int(n_pilot * (1.0 - share))
        cells = np.column_stack([ends[rows], cols, d >= 0.0]).astype(np.int64)
        if n_flips * u.shape[1] >= _COMPILED_CELLS:
            top_lo, top_hi, cnt = _kernels().select_cells(
                cen.e,
                cen.m,
                cells,
                kk=kk,
                n_pilot=n_pilot,
                at_pilot=at_pilot if 0 <= at_pilot < n_pilot and share < 1.0 else -1,
                g_star=g_star,
            )
        else:
            top_lo, top_hi, cnt = _select_by_pair(cen, cells, kk, g_star)
        lo_c, hi_c = (d - top_lo) - tol, (d + top_hi) + tol
    p_c = cum[n_inf + cnt - 1]
    cell_of = np.zeros(want.shape, dtype=np.int64)
    cell_of[rows, cols] = np.arange(rows.size)
    for j in range(c_n):
        at = np.flatnonzero(mask[:, j])
        q = cell_of[at, col_pos[j]]
        lo[at, j], hi[at, j], p0[at, j] = lo_c[q], hi_c[q], p_c[q]
    return np.clip(lo, *bounds), np.clip(hi, *bounds), np.minimum(p0, 1.0)
