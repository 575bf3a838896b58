"""The permutation F test across categories. Oracles: scipy.stats.permutation_test (exact,
all arrangements) on tiny cases; exact enumeration against the Monte-Carlo p-value within
its Monte-Carlo error; the between-category sum of squares against its definition."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from passhat.groups.differ import (
    arrangements,
    between_ss,
    category_difference,
    order_difference,
)


def _b(*samples: np.ndarray, axis: int = -1) -> np.ndarray:
    allv = np.concatenate(samples, axis=axis)
    grand = allv.mean(axis=axis)
    return sum(s.shape[axis] * (s.mean(axis=axis) - grand) ** 2 for s in samples)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_p_equals_scipy_permutation_test(seed: int) -> None:
    rng = np.random.default_rng(seed)
    labels = np.array([0, 0, 0, 1, 1, 1, 2, 2])
    v = rng.choice([0.0, 0.25, 0.5, 1.0], size=labels.size) + 0.3 * labels * (seed == 2)
    ours = category_difference(v[:, None], labels, n_perm=10_000, rng=rng)
    assert ours.exact and ours.n_perm == math.factorial(8) // (6 * 6 * 2)
    ref = stats.permutation_test(
        [v[labels == g] for g in range(3)], _b, permutation_type="independent",
        n_resamples=np.inf, alternative="greater",
    )  # fmt: skip
    assert ours.statistic[0] == pytest.approx(ref.statistic)
    assert ours.p_value[0] == pytest.approx(ref.pvalue, abs=1e-12)


def test_monte_carlo_p_within_its_error_of_the_exact_p() -> None:
    rng = np.random.default_rng(5)
    labels = np.repeat([0, 1, 2], 4)  # 34,650 arrangements
    v = np.column_stack([rng.uniform(size=12), rng.uniform(size=12) + 0.4 * (labels == 2)])
    exact = category_difference(v, labels, n_perm=40_000, rng=rng)
    mc = category_difference(v, labels, n_perm=4_000, rng=np.random.default_rng(6))
    assert exact.exact and not mc.exact
    se = np.sqrt(exact.p_value * (1 - exact.p_value) / 4_000)
    assert np.all(np.abs(mc.p_value - exact.p_value) <= 4 * se + 1 / 4_001)


def test_between_ss_and_arrangements() -> None:
    v = np.array([0.1, 0.4, 0.9, 0.3, 0.7])
    lab = np.array([0, 1, 1, 2, 0])
    got = between_ss(v[:, None], lab[None, :], 3)[0, 0]
    assert got == pytest.approx(_b(v[lab == 0], v[lab == 1], v[lab == 2]))
    rows = arrangements(lab)
    assert len(rows) == 30 and len({tuple(r) for r in rows}) == 30  # 5!/(2!2!1!)
    assert (np.sort(rows, axis=1) == np.sort(lab)).all()


def test_one_category_gives_no_test() -> None:
    res = category_difference(
        np.ones((3, 2)), np.zeros(3, dtype=np.int64), rng=np.random.default_rng(0)
    )
    assert np.isnan(res.p_value).all()


def test_order_difference_by_brute_force() -> None:
    """B summed over systems of task-centred values, every arrangement enumerated by hand."""
    rng = np.random.default_rng(5)
    v = rng.uniform(size=(7, 3, 2))  # tasks × systems × columns
    lab = np.array([0, 0, 1, 1, 1, 2, 2])
    centred = v - v.mean(axis=1, keepdims=True)

    def stat(labels: tuple[int, ...]) -> np.ndarray:
        lab_a = np.array(labels)
        out = np.zeros(2)
        for g in np.unique(lab_a):
            m = centred[lab_a == g].mean(axis=0)  # systems × columns
            out += (lab_a == g).sum() * ((m - centred.mean(axis=0)) ** 2).sum(axis=0)
        return out

    perms = sorted(set(itertools.permutations(lab.tolist())))
    obs = stat(tuple(lab.tolist()))
    p = np.mean([stat(q) >= obs - 1e-12 for q in perms], axis=0)
    res = order_difference(v, lab, n_perm=10_000, rng=np.random.default_rng(0))
    assert res.exact and res.n_perm == len(perms) == 210
    np.testing.assert_allclose(res.statistic, obs, rtol=1e-12)
    np.testing.assert_allclose(res.p_value, p, rtol=1e-12)


def test_order_difference_of_two_systems_is_the_test_of_their_differences() -> None:
    """Centred values are ±d/2: B is half the differences' B and, with the same stream, the
    p-values are category_difference's (compare --by's test) exactly."""
    rng = np.random.default_rng(6)
    v = rng.uniform(size=(40, 2, 3))
    lab = rng.integers(0, 4, size=40)
    d = v[:, 1, :] - v[:, 0, :]
    mine = order_difference(v, lab, n_perm=499, rng=np.random.default_rng(9))
    theirs = category_difference(d, lab, n_perm=499, rng=np.random.default_rng(9))
    np.testing.assert_allclose(mine.statistic, theirs.statistic / 2, rtol=1e-12)
    np.testing.assert_array_equal(mine.p_value, theirs.p_value)


def test_order_difference_ignores_what_a_category_does_to_every_system() -> None:
    """A shift shared by every system in one category leaves B at 0 (nothing to test)."""
    v = np.tile(np.array([[0.2, 0.5, 0.8]])[..., None], (6, 1, 1))
    v[3:] += 0.1  # category 1 easier for all alike
    res = order_difference(v, np.array([0, 0, 0, 1, 1, 1]), rng=np.random.default_rng(0))
    np.testing.assert_allclose(res.statistic, 0.0, atol=1e-15)
    assert res.p_value[0] == 1.0
