"""Tests of passhat.signflip_shared: many pairs' sign-flip tests on shared flips.

Oracles: :func:`passhat.signflip.invert_flips` (itself tested against brute
force over all 2^T sign vectors in ``test_signflip.py``) fed the very same
random sign vectors, one task per category, for each pair — the shared engine
must give the same p-values exactly and the same interval ends to rounding;
the exact enumeration (:func:`flip_sums` with few categories) for the
p-value's Monte-Carlo error; the binomial law of fair coin flips for the
random signs.
"""

from __future__ import annotations

import numpy as np
import pytest

from passhat.signflip import FlipSums, flip_sums, invert_flips
from passhat.signflip_shared import _random_signs, invert_shared_flips


def _replayed(t_n: int, n_flips: int, seed: int) -> FlipSums:
    """The shared engine's sign vectors (same seed), as per-task flip sums plus the observed row."""
    signs = np.vstack(list(_random_signs(t_n, n_flips, np.random.default_rng(seed))))
    sums = np.vstack([np.ones(t_n), 2.0 * signs - 1.0])
    return FlipSums(sums=sums, prob=np.full(n_flips + 1, 1.0 / (n_flips + 1)), exact=False)


@pytest.mark.parametrize("seed", range(12))
def test_equals_the_per_pair_inversion_on_the_same_signs(seed: int) -> None:
    g = np.random.default_rng(100 + seed)
    s_n, t_n, c_n = int(g.integers(2, 6)), int(g.integers(3, 90)), 3
    # few distinct values (ties between tasks and between flips), or many
    u = (
        g.integers(0, 4, size=(s_n, t_n, c_n)) / 3.0
        if seed % 2
        else g.beta(1, 1, size=(s_n, t_n, c_n))
    )
    w = np.ones(t_n) if seed % 3 else g.integers(1, 4, size=t_n).astype(float)
    pairs = [(a, b) for a in range(s_n) for b in range(a + 1, s_n)]
    pairs += [(b, a) for a, b in pairs[:1]]  # either direction
    need = g.random((len(pairs), c_n)) < 0.8
    n_flips = int(g.integers(40, 700))
    level = float(g.choice([0.8, 0.9, 0.95]))
    lo, hi, p = invert_shared_flips(
        u, w, pairs, n_flips=n_flips, rng=np.random.default_rng(seed), ci=level, need=need
    )
    flips = _replayed(t_n, n_flips, seed)
    for r, (a, b) in enumerate(pairs):
        lo1, hi1, p1 = invert_flips(u[b] - u[a], w, flips, ci=level)
        js = need[r]
        assert np.isnan(p[r, ~js]).all()
        np.testing.assert_array_equal(p[r, js], p1[js])
        np.testing.assert_allclose(lo[r, js], lo1[js], rtol=0, atol=1e-12)
        np.testing.assert_allclose(hi[r, js], hi1[js], rtol=0, atol=1e-12)
        # the interval excludes 0 exactly when the test rejects
        outside = (lo[r, js] > 0) | (hi[r, js] < 0)
        assert outside.tolist() == (p[r, js] <= round(1 - level, 12)).tolist()


def test_category_codes_give_the_same_result() -> None:
    g = np.random.default_rng(3)
    n = np.full((3, 70), 4)
    c = g.integers(0, 5, size=(3, 70))
    u = np.stack([c / 4.0, (c >= 2) * 1.0], axis=2)  # values are functions of c
    pairs = [(0, 1), (0, 2), (1, 2)]
    one = invert_shared_flips(
        u, np.ones(70), pairs, n_flips=300, rng=np.random.default_rng(1), ci=0.9
    )
    two = invert_shared_flips(
        u,
        np.ones(70),
        pairs,
        n_flips=300,
        rng=np.random.default_rng(1),
        ci=0.9,
        categories=n * 10 + c,
    )
    for x, y in zip(one, two, strict=True):
        np.testing.assert_allclose(x, y, rtol=0, atol=1e-12)


def test_rows_with_all_signs_equal_reject_no_shift() -> None:
    # three tasks: a quarter of the random rows have every sign equal
    u = np.array([[[0.0], [0.0], [0.0]], [[1.0], [0.5], [0.25]]])
    lo, hi, p = invert_shared_flips(
        u, np.ones(3), [(0, 1)], n_flips=400, rng=np.random.default_rng(2), ci=0.9
    )
    lo1, hi1, p1 = invert_flips(u[1] - u[0], np.ones(3), _replayed(3, 400, 2), ci=0.9)
    assert p[0, 0] == p1[0] and p[0, 0] > 0.2  # ≥ the all-equal rows' share
    assert (lo[0, 0], hi[0, 0]) == pytest.approx((lo1[0], hi1[0]), abs=1e-12)


def test_random_signs_are_fair_coins() -> None:
    n_flips, t_n = 20_000, 37
    signs = np.vstack(list(_random_signs(t_n, n_flips, np.random.default_rng(5)))).astype(float)
    assert signs.shape == (n_flips, t_n)
    se = np.sqrt(0.25 / n_flips)
    assert np.abs(signs.mean(axis=0) - 0.5).max() < 4.5 * se
    # neighbouring tasks (and bits of one byte) are independent: P(both +) = 1/4
    both = (signs[:, :-1] * signs[:, 1:]).mean(axis=0)
    assert np.abs(both - 0.25).max() < 4.5 * np.sqrt(0.25 * 0.75 / n_flips)


@pytest.mark.parametrize("seed", range(4))
def test_p_value_within_monte_carlo_error_of_the_exact_one(seed: int) -> None:
    g = np.random.default_rng(seed)
    t_n = 24
    base = g.integers(0, 4, size=t_n) / 3.0
    cand = np.clip(
        base + g.choice([0.0, 1 / 3, -1 / 3, 2 / 3], size=t_n, p=[0.4, 0.3, 0.2, 0.1]), 0, 1
    )
    d = cand - base
    # the exact p-value: enumerate the sign sums of the (d) categories
    vals, first, freq = np.unique(d, return_index=True, return_counts=True)
    del vals
    exact = flip_sums(freq, n_flips=10, rng=g)
    assert exact.exact
    _, _, p_exact = invert_flips(d[first, None], np.ones(first.size), exact, ci=0.9)
    n_flips = 20_000
    _, _, p = invert_shared_flips(
        np.stack([base, cand])[:, :, None],
        np.ones(t_n),
        [(0, 1)],
        n_flips=n_flips,
        rng=np.random.default_rng(seed),
        ci=0.9,
    )
    pe = float(p_exact[0])
    assert abs(p[0, 0] - pe) <= 4.5 * np.sqrt(pe * (1 - pe) / n_flips) + 2.0 / n_flips


@pytest.mark.parametrize("seed", range(3))
def test_many_tasks_take_the_candidate_selection_and_stay_exact(seed: int) -> None:
    # with many tasks m = Σ ω s stays small, so the ends are selected among the flips with
    # large |e| (the path the leaderboard takes); the result must not change
    g = np.random.default_rng(200 + seed)
    t_n = 1500
    base = g.beta(1, 1, size=t_n)
    u = np.stack([g.binomial(4, np.clip(base + x, 0, 1)) / 4 for x in (0.0, 0.01, 0.05)])
    u = np.stack([u, u**2], axis=2)
    pairs = [(0, 1), (0, 2), (1, 2)]
    n_flips = 2500
    lo, hi, p = invert_shared_flips(
        u, np.ones(t_n), pairs, n_flips=n_flips, rng=np.random.default_rng(seed), ci=0.95
    )
    flips = _replayed(t_n, n_flips, seed)
    for r, (a, b) in enumerate(pairs):
        lo1, hi1, p1 = invert_flips(u[b] - u[a], np.ones(t_n), flips, ci=0.95)
        np.testing.assert_array_equal(p[r], p1)
        np.testing.assert_allclose(lo[r], lo1, rtol=0, atol=1e-12)
        np.testing.assert_allclose(hi[r], hi1, rtol=0, atol=1e-12)


def test_pairs_in_two_threads_give_the_sequential_result(monkeypatch: pytest.MonkeyPatch) -> None:
    import passhat._kernels as mod
    import passhat.signflip_shared as shared

    monkeypatch.setattr(shared, "_COMPILED_CELLS", 0)  # the compiled path, whatever the size
    g = np.random.default_rng(7)
    u = g.integers(0, 5, size=(5, 200, 5)) / 4.0
    pairs = [(a, b) for a in range(5) for b in range(a + 1, 5)]
    kw = {"n_flips": 20_000, "ci": 0.95}
    threaded = invert_shared_flips(u, np.ones(200), pairs, rng=np.random.default_rng(1), **kw)
    monkeypatch.setattr(mod, "_THREADS", 1)
    single = invert_shared_flips(u, np.ones(200), pairs, rng=np.random.default_rng(1), **kw)
    for x, y in zip(threaded, single, strict=True):
        np.testing.assert_array_equal(x, y)
    # and the oracle on the same signs, for two of the pairs
    flips = _replayed(200, 20_000, 1)
    for r in (0, 9):
        a, b = pairs[r]
        _, _, p1 = invert_flips(u[b] - u[a], np.ones(200), flips, ci=0.95)
        np.testing.assert_array_equal(threaded[2][r], p1)


def test_tasks_in_every_systems_implied_category_are_left_out_of_the_product() -> None:
    # most tasks fail for every system (the common case on hard benchmarks): the product
    # skips them, the result must not change
    g = np.random.default_rng(11)
    u = np.zeros((4, 120, 2))
    u[:, :30] = g.integers(0, 4, size=(4, 30, 2)) / 3.0
    pairs = [(0, 1), (1, 2), (0, 3), (2, 3)]
    lo, hi, p = invert_shared_flips(
        u, np.ones(120), pairs, n_flips=900, rng=np.random.default_rng(4), ci=0.9
    )
    flips = _replayed(120, 900, 4)
    for r, (a, b) in enumerate(pairs):
        lo1, hi1, p1 = invert_flips(u[b] - u[a], np.ones(120), flips, ci=0.9)
        np.testing.assert_array_equal(p[r], p1)
        np.testing.assert_allclose(lo[r], lo1, rtol=0, atol=1e-12)
        np.testing.assert_allclose(hi[r], hi1, rtol=0, atol=1e-12)


def test_level_under_exchangeable_systems() -> None:
    # four systems with the same rate on every task (runs independent): each pair's test of
    # "no difference" rejects at most at its level, even though the pairs share their flips
    g = np.random.default_rng(12)
    reps, s_n, t_n, runs, alpha = 150, 4, 40, 3, 0.1
    pairs = [(a, b) for a in range(s_n) for b in range(a + 1, s_n)]
    rejected = 0
    for rep in range(reps):
        rate = g.beta(0.7, 0.7, size=t_n)
        u = g.binomial(runs, np.broadcast_to(rate, (s_n, t_n))) / runs
        _, _, p = invert_shared_flips(
            u[:, :, None],
            np.ones(t_n),
            pairs,
            n_flips=499,
            rng=np.random.default_rng(rep),
            ci=1 - alpha,
        )
        rejected += int(np.count_nonzero(p <= alpha))
    share = rejected / (reps * len(pairs))
    assert share <= alpha + 4.5 * np.sqrt(alpha * (1 - alpha) / (reps * len(pairs)))


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize(
    ("weighted", "clustered", "given", "n_flips"),
    [(False, False, False, 3000), (True, False, True, 3000), (False, True, False, 2000),
     (True, True, True, 1500), (False, False, True, 9)],
)  # fmt: skip
def test_equals_the_code_before_the_compiled_kernels(
    weighted: bool,
    clustered: bool,
    given: bool,
    n_flips: int,
    compiled: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # oracle: the module as it was (float32 product, np.partition per pair), bit for bit, on
    # the compiled path (large inputs) and on the numpy one (small inputs)
    from tests.signflip_shared_oracle import invert_shared_flips as old

    import passhat.signflip_shared as mod

    monkeypatch.setattr(mod, "_COMPILED_CELLS", 0 if compiled else 10**18)

    g = np.random.default_rng(n_flips + 2 * weighted + clustered)
    s_n, t_n = 5, 150
    n = np.full((s_n, t_n), 4.0)
    c = g.integers(0, 5, size=(s_n, t_n)).astype(float)
    u = np.stack([c / 4.0, (c >= 2) * 1.0, c * (c - 1) / 12.0], axis=2)
    w = g.integers(1, 3, size=t_n).astype(float) if weighted else np.ones(t_n)
    pairs = [(a, b) for a in range(s_n) for b in range(a + 1, s_n)]
    kw = {
        "n_flips": n_flips,
        "ci": 0.9,
        "need": g.random((len(pairs), 3)) < 0.8,
        "categories": (n * 5 + c).astype(np.int64) * (1 + (w > 1))[None, :] if given else None,
        "clusters": np.arange(t_n) // 3 if clustered else None,
    }
    new_out = invert_shared_flips(u, w, pairs, rng=np.random.default_rng(1), **kw)
    old_out = old(u, w, pairs, rng=np.random.default_rng(1), **kw)
    for x, y in zip(new_out, old_out, strict=True):
        np.testing.assert_array_equal(x, y)
