"""Tests of passhat._kernels: each compiled kernel against the numpy expression it replaces.

Oracles: ``np.unpackbits`` and a float product (category counts), ``np.bincount`` (draw
counts), ``np.partition`` (order statistic) and the pre-kernel selection of
``tests/signflip_shared_oracle.py`` (``_select``), compared bit for bit; and the same
result on one thread as on two.
"""

from __future__ import annotations

import numpy as np
import pytest
from tests.signflip_shared_oracle import _select

import passhat._kernels as kern
from passhat._kernels import category_counts, draw_counts, pack_rows, pad_words, select_cells


@pytest.mark.parametrize("t_n", [1, 7, 64, 65, 130, 1000])
def test_category_counts_equal_the_product_of_unpacked_signs(t_n: int) -> None:
    g = np.random.default_rng(t_n)
    raw = np.frombuffer(g.bytes(40 * ((t_n + 7) // 8)), dtype=np.uint8).reshape(40, -1)
    bits = np.unpackbits(raw, axis=1, count=t_n)
    member = g.random((9, t_n)) < 0.3
    member[0] = True
    want = bits.astype(np.int64) @ member.T.astype(np.int64)
    got = category_counts(pad_words(raw), pack_rows(member))
    np.testing.assert_array_equal(got, want)  # the random bits past the last task are masked


def test_pack_rows_puts_tasks_where_pad_words_puts_random_bytes() -> None:
    bits = np.random.default_rng(3).integers(0, 2, size=(5, 77)).astype(np.uint8)
    np.testing.assert_array_equal(pack_rows(bits), pad_words(np.packbits(bits, axis=1)))


def test_draw_counts_equal_bincount() -> None:
    idx = np.random.default_rng(4).integers(0, 50, size=(30, 50))
    want = np.vstack([np.bincount(row, minlength=50) for row in idx]).astype(np.float32)
    got = draw_counts(idx, 50)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("size", [1, 2, 3, 10, 57])
def test_order_stat_equals_partition_with_ties(size: int) -> None:
    g = np.random.default_rng(size)
    for _ in range(20):
        x = g.integers(-3, 4, size=size) * 0.5  # many ties
        for at in range(size):
            assert kern._order_stat(x.copy(), at) == np.partition(x, at)[at]


def _cells_case(seed: int, r_n: int) -> tuple[np.ndarray, ...]:
    g = np.random.default_rng(seed)
    e_sys = g.normal(size=(4, 2, r_n)) * (g.random((4, 2, 1)) < 0.9)  # one row all zero
    m = g.uniform(-0.9, 0.9, size=r_n)
    pairs = [(a, b) for a in range(4) for b in range(a + 1, 4)]
    cells = np.array([(a, b, j, (a + j) % 2) for a, b in pairs for j in (0, 1)], dtype=np.int64)
    g_star = np.abs(g.normal(size=len(cells))) * g.choice([0.01, 1.0, 3.0], size=len(cells))
    return e_sys, m, cells, g_star


@pytest.mark.parametrize(
    ("r_n", "kk", "n_pilot", "threshold"),
    [(3000, 149, 600, True), (3000, 5, 600, True), (500, 24, 500, True), (500, 400, 500, True),
     (40, 3, 40, True), (3000, 149, 3000, False)],
)  # fmt: skip
def test_select_cells_equal_the_numpy_selection(
    r_n: int, kk: int, n_pilot: int, threshold: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the oracle places its threshold as invert_shared_flips does; without one (at_pilot = −1)
    # the kernel scans every flip, and an exact selection must give the same numbers
    import tests.signflip_shared_oracle as old

    monkeypatch.setattr(old, "_PILOT", n_pilot)
    e_sys, m, cells, g_star = _cells_case(r_n + kk, r_n)
    pf, qf = 1.0 / (1.0 - m), 1.0 / (1.0 + m)
    share = 1.1 * (kk + 1) / r_n + 3.0 * np.sqrt((kk + 1) / r_n / n_pilot)
    at_pilot = int(n_pilot * (1.0 - share))
    at_pilot = at_pilot if threshold and 0 <= at_pilot < n_pilot and share < 1.0 else -1
    lo, hi, cnt = select_cells(
        e_sys, m, cells, kk=kk, n_pilot=n_pilot, at_pilot=at_pilot, g_star=g_star
    )
    for q, (a, b, j, d_pos) in enumerate(cells.tolist()):
        e = (e_sys[b, j] - e_sys[a, j])[None, :]
        want = _select(e, pf, qf, np.maximum(pf, qf), kk, g_star[q : q + 1], np.array([d_pos]))
        assert (lo[q], hi[q], cnt[q]) == (want[0][0], want[1][0], want[2][0])


def test_kernels_give_one_result_on_one_thread_and_on_two(monkeypatch: pytest.MonkeyPatch) -> None:
    e_sys, m, cells, g_star = _cells_case(9, 4000)
    cells = np.tile(cells, (4, 1))  # enough rows for two threads
    g_star = np.tile(g_star, 4)
    idx = np.random.default_rng(5).integers(0, 300, size=(64, 300))
    kw = {"kk": 199, "n_pilot": 1000, "at_pilot": 900, "g_star": g_star}
    two = select_cells(e_sys, m, cells, **kw), draw_counts(idx, 300)
    monkeypatch.setattr(kern, "_THREADS", 1)
    one = select_cells(e_sys, m, cells, **kw), draw_counts(idx, 300)
    for x, y in zip(two[0], one[0], strict=True):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(two[1], one[1])


def test_max_scaled_gaps_equal_the_float32_array_expression() -> None:
    # the expression rank's pairwise counts evaluated before (draws × systems × systems)
    g = np.random.default_rng(8)
    u = (g.normal(size=(300, 7)) * 0.01).astype(np.float32)
    u[:, 2] = u[:, 3]  # a pair that no draw separates
    inv = np.abs(g.normal(size=(7, 7))).astype(np.float32) * 40
    np.fill_diagonal(inv, 0.0)
    inv[2, 3] = inv[3, 2] = 0.0
    want = (np.abs(u[:, None, :] - u[:, :, None]) * inv[None, :, :]).max(axis=2)
    got = kern.max_scaled_gaps(u, inv)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, want)


def test_pair_rows_equal_numpys_differences_and_sums() -> None:
    v = np.random.default_rng(10).normal(size=(6, 50, 3))
    a, b = np.array([0, 2, 5, 1]), np.array([3, 4, 0, 1])
    out = np.empty((4, 50, 3))
    np.testing.assert_array_equal(kern.pair_rows(v, a, b, out, minus=True), v[b] - v[a])
    np.testing.assert_array_equal(kern.pair_rows(v, a, b, out, minus=False), v[a] + v[b])
