"""Tests of passhat.signflip: the sign-flip test and its inversion into an interval.

Oracles: brute force over all 2^T sign vectors of the tasks themselves (the
exact p-value of the weighted mean difference at every shift δ), a fine scan
of δ for the interval's ends, and the Monte-Carlo p-value formula
(1 + #{|T*| ≥ |T|}) / (1 + B).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from passhat.signflip import flip_sums, invert_flips


def _categories(d: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    keys, first, freq = np.unique(
        np.column_stack([d, w]), axis=0, return_index=True, return_counts=True
    )
    del keys
    return d[first], w[first], freq


def _brute_p(d: np.ndarray, w: np.ndarray, delta: float) -> float:
    """P(|Σ w s (d − δ)| ≥ |Σ w (d − δ)|) over all 2^T equally likely sign vectors."""
    t = d.size
    x = w * (d - delta)
    obs = abs(x.sum())
    hits = 0
    for signs in itertools.product((-1.0, 1.0), repeat=t):
        hits += abs(np.dot(signs, x)) >= obs - 1e-12
    return hits / 2**t


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_p_value_and_interval_match_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    t = 9
    d = rng.choice([-0.5, 0.0, 0.25, 0.5, 1.0], size=t)
    w = rng.choice([1.0, 2.0, 0.5], size=t)  # declared / category-like weights
    dj, wj, fj = _categories(d, w)
    flips = flip_sums(fj, n_flips=100, rng=rng)
    assert flips.exact
    level = 0.8
    lo, hi, p = invert_flips(dj[:, None], wj, flips, ci=level)
    assert p[0] == pytest.approx(_brute_p(d, w, 0.0), abs=1e-12)
    # the interval is the set of shifts the test does not reject at 1 − level
    theta = float(w @ d / w.sum())
    assert lo[0] <= theta <= hi[0]
    alpha = 1 - level
    for delta in np.linspace(lo[0] + 1e-6, hi[0] - 1e-6, 7):
        assert _brute_p(d, w, delta) > alpha - 1e-12
    for delta in (lo[0] - 1e-6, hi[0] + 1e-6):
        if -1 < delta < 1:
            assert _brute_p(d, w, delta) <= alpha + 1e-12


def test_random_flips_p_value_formula() -> None:
    d = np.repeat([0.2, -0.1, 0.4, 0.0], [30, 20, 25, 25])
    dj, wj, fj = _categories(d, np.ones(d.size))
    flips = flip_sums(fj, n_flips=999, rng=np.random.default_rng(5))
    assert not flips.exact
    _, _, p = invert_flips(dj[:, None], wj, flips, ci=0.9)
    # recompute from the same sign sums: T* = Σ_j s_j d_j / T
    stat = flips.sums[1:] @ dj / d.size
    want = (1 + np.sum(np.abs(stat) >= abs(d.mean()) - 1e-12)) / 1000
    assert p[0] == pytest.approx(want, abs=1e-12)


def test_all_signs_equal_statistic_and_no_difference() -> None:
    # every task equal: the observed statistic sits in the middle, p = 1, interval holds 0
    flips = flip_sums([6], n_flips=100, rng=np.random.default_rng(0))
    lo, hi, p = invert_flips(np.zeros((1, 1)), np.ones(1), flips, ci=0.9)
    assert p[0] == pytest.approx(1.0)
    assert lo[0] <= 0.0 <= hi[0]


@given(
    d=st.lists(st.sampled_from([-1.0, -0.5, -0.2, 0.0, 0.2, 0.6, 1.0]), min_size=3, max_size=40),
    seed=st.integers(0, 2**16),
    level=st.sampled_from([0.8, 0.9, 0.95]),
)
def test_interval_excludes_zero_exactly_when_test_rejects(
    d: list[float], seed: int, level: float
) -> None:
    arr = np.array(d)
    rng = np.random.default_rng(seed)
    w = rng.choice([1.0, 3.0], size=arr.size)
    dj, wj, fj = _categories(arr, w)
    flips = flip_sums(fj, n_flips=500, rng=rng, exact_max=2000)
    lo, hi, p = invert_flips(dj[:, None], wj, flips, ci=level)
    excluded = bool(lo[0] > 0 or hi[0] < 0)
    assert excluded == bool(p[0] <= 1 - level)
    assert lo[0] <= float(w @ arr / w.sum()) <= hi[0]
