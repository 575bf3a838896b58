"""Tests of passhat.compare.pair_arrays: the pairwise table computed over the pair axis.

Oracle: the per-pair code it replaced (``tests/compare/pair_table_oracle.py``, main at
493a0a4), run on the same inputs with a generator of the same seed. The table must be
identical to the last bit: every number, every method string, every random draw (the
random cells are drawn pair by pair in the old order). The cases reach every path: the
normal benchmark interval and the simulated one (few tasks, few flaky tasks, zero
variance), the sign-flip test on shared flips, on the pair's own random flips and
enumerated exactly, the few-differ fallback, n differing between systems, n < 2k,
declared weights, repeated and reversed pairs, blocks of pairs smaller than the list.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from tests.compare.pair_table_oracle import old_paired_table

from passhat.compare import pair_arrays
from passhat.compare.engine import paired_table
from passhat.compare.pair_arrays import pair_stats


def _systems(
    seed: int, s_n: int, t_n: int, *, unequal_n: bool, few_flaky: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = np.tile(rng.integers(3, 7, t_n).astype(float), (s_n, 1))
    if unequal_n:
        n[1, : t_n // 3] += 1.0
    p = np.clip(rng.beta(0.6, 0.6, t_n)[None, :] + rng.normal(0, 0.2, (s_n, 1)), 0, 1)
    c = rng.binomial(n.astype(int), p).astype(float)
    if few_flaky:  # systems 1 and 2 pass all or none of each task's runs
        c[1:3] = np.where(c[1:3] > n[1:3] / 2, n[1:3], 0.0)
    c[3] = c[2]  # system 3 equals system 2 on every task: no task differs
    c[3, :4] = n[3, :4] - c[3, :4]  # ... but on four (the few-differ fallback)
    c[4] = n[4]  # system 4 passes every run (zero variance, few flaky tasks)
    return n, c


def _both(n, c, w, pairs, ks, **kw):  # type: ignore[no-untyped-def]
    new = paired_table(n, c, w, pairs, ks, rng=np.random.default_rng(7), **kw)
    old = old_paired_table(n, c, w, pairs, ks, rng=np.random.default_rng(7), **kw)
    return new, old


ALL_PAIRS = [(a, b) for a in range(5) for b in range(a + 1, 5)]


@pytest.mark.parametrize(
    ("t_n", "shared", "unequal_n", "few_flaky", "ks", "paths"),
    [
        (40, True, False, False, [1, 2, 3], ["shared by", "normal,", "Bayesian bootstrap"]),
        (40, False, True, False, [1, 3], ["flips; approximate: n differs", "flips; exact level"]),
        (12, True, False, False, [1, 2], ["enumerated", "rule: fewer than 30 tasks"]),
        (36, True, True, False, [2, 4], ["model-based variance where n < 8", "approximate"]),
        (40, True, False, True, [1, 2], ["normal,", "fewer than 10 tasks with both outcomes"]),
    ],
)
def test_vectorised_table_equals_the_per_pair_table(
    t_n: int, shared: bool, unequal_n: bool, few_flaky: bool, ks: list[int], paths: list[str]
) -> None:
    n, c = _systems(t_n, 5, t_n, unequal_n=unequal_n, few_flaky=few_flaky)
    w = np.random.default_rng(1).uniform(0.5, 2.0, t_n)
    pairs = [*ALL_PAIRS, (2, 0), (0, 1)]  # a reversed and a repeated pair
    new, old = _both(n, c, w, pairs, ks, ci=0.9, n_boot=120, shared_flips=shared)
    assert len(new) == len(old) > 0
    pd.testing.assert_frame_equal(new, old, check_exact=True)
    words = " | ".join(set(new["method"]) | set(new["p_method"]))
    assert all(path in words for path in paths), paths  # the case reaches its paths


def test_blocks_of_pairs_do_not_change_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    n, c = _systems(3, 5, 40, unequal_n=True)
    w = np.ones(40)
    whole = paired_table(
        n,
        c,
        w,
        ALL_PAIRS,
        [1, 2],
        ci=0.95,
        n_boot=100,
        rng=np.random.default_rng(7),
        shared_flips=True,
    )
    monkeypatch.setattr(pair_arrays, "_BLOCK_CELLS", 1)  # one pair per block
    blocked, old = _both(n, c, w, ALL_PAIRS, [1, 2], ci=0.95, n_boot=100, shared_flips=True)
    pd.testing.assert_frame_equal(blocked, whole, check_exact=True)
    pd.testing.assert_frame_equal(blocked, old, check_exact=True)


def test_counts_task_by_task_equal_the_histogram(monkeypatch: pytest.MonkeyPatch) -> None:
    # many distinct (n, c) take the path over the tasks; both give the old table
    n, c = _systems(5, 5, 40, unequal_n=True)
    w = np.ones(40)
    hist, old = _both(n, c, w, ALL_PAIRS, [1, 3], ci=0.9, n_boot=100, shared_flips=True)
    monkeypatch.setattr(pair_arrays, "_MAX_COMBOS", 0)
    direct, _ = _both(n, c, w, ALL_PAIRS, [1, 3], ci=0.9, n_boot=100, shared_flips=True)
    pd.testing.assert_frame_equal(hist, old, check_exact=True)
    pd.testing.assert_frame_equal(direct, old, check_exact=True)


def test_no_pairs_gives_the_empty_table() -> None:
    n, c = _systems(0, 5, 40, unequal_n=False)
    new, old = _both(n, c, np.ones(40), [], [1], ci=0.9, n_boot=100)
    pd.testing.assert_frame_equal(new, old)


def test_pair_stats_by_hand() -> None:
    # theta is the weighted mean difference; flaky counts tasks with both outcomes in a or b
    n = np.array([[2.0, 2, 2, 4], [2.0, 2, 2, 2]])
    c = np.array([[0.0, 1, 2, 4], [2.0, 1, 0, 1]])
    v = (c / n)[:, :, None]
    w = np.array([1.0, 1, 2, 4]) / 8
    s = pair_stats(v, w, n, c, np.array([0, 1]), np.array([1, 0]))
    d = (c[1] / n[1] - c[0] / n[0]) @ w
    assert s.theta[:, 0].tolist() == [d, -d]
    assert s.discordant[:, 0].tolist() == [3, 3]
    assert s.flaky.tolist() == [2, 2]
    assert s.diff_n.tolist() == [1, 1]


def test_pair_stats_and_variances_equal_on_the_compiled_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the compiled pair rows (large inputs) give numpy's numbers to the last bit
    from passhat.compare import pair_arrays as mod

    g = np.random.default_rng(4)
    n = np.full((5, 60), 4.0)
    c = g.integers(0, 5, size=(5, 60)).astype(float)
    values = np.stack([c / 4.0, (c > 0) * 1.0], axis=2)
    wn = np.full(60, 1 / 60)
    a, b = np.array([0, 0, 1, 3]), np.array([1, 2, 4, 4])
    var = g.random((5, 60, 2))
    runs = []
    for cells in (10**18, 0):
        monkeypatch.setattr(mod, "_COMPILED_CELLS", cells)
        st = mod.pair_stats(values, wn, n, c, a, b)
        runs.append((st.theta, mod.pair_variances(lambda s: var[s], wn, a, b)))
    for x, y in zip(runs[0], runs[1], strict=True):
        np.testing.assert_array_equal(x, y)
