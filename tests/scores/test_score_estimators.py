"""Best / worst of k for scores: oracles are brute force over k-subsets (and over pairs of
disjoint subsets, and over every sample of a small discrete law), and today's 0/1 estimators."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import passhat as ph
from passhat.scores.estimators import (
    best_of_k,
    order_weights,
    variance_kind,
    worst_of_k,
    worst_of_k_variance,
)


def brute(x: list[float], k: int, f: object) -> float:
    """Mean of f over every k-subset of the runs."""
    return float(np.mean([f(s) for s in itertools.combinations(x, k)]))  # type: ignore[operator]


def brute_pairs(x: list[float], k: int) -> float:
    """Mean of min(S1)·min(S2) over ordered pairs of disjoint k-subsets."""
    idx = range(len(x))
    vals = [
        min(x[i] for i in s1) * min(x[i] for i in s2)
        for s1 in itertools.combinations(idx, k)
        for s2 in itertools.combinations([i for i in idx if i not in s1], k)
    ]
    return float(np.mean(vals))


scores = st.lists(
    st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.5, 0.9, 1.0]) | st.floats(0, 1), min_size=1, max_size=8
)


@settings(max_examples=150, deadline=None)
@given(x=scores, data=st.data())
def test_best_and_worst_equal_brute_force_over_subsets(x: list[float], data: st.DataObject) -> None:
    k = data.draw(st.integers(1, len(x)))
    assert worst_of_k([x], k)[0] == pytest.approx(brute(x, k, min), abs=1e-12)
    assert best_of_k([x], k)[0] == pytest.approx(brute(x, k, max), abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(n=st.integers(1, 40), data=st.data())
def test_zero_one_scores_give_todays_estimators(n: int, data: st.DataObject) -> None:
    c = data.draw(st.integers(0, n))
    k = data.draw(st.integers(1, n))
    x = np.r_[np.ones(c), np.zeros(n - c)][None, :]
    assert worst_of_k(x, k)[0] == pytest.approx(float(ph.pass_hat_k(n, c, k)), abs=1e-12)
    assert best_of_k(x, k)[0] == pytest.approx(float(ph.pass_at_k(n, c, k)), abs=1e-12)
    if n >= 2 * k:  # the unbiased variance estimate is today's
        want = float(ph.pass_hat_k_variance_estimate(n, c, k))
        assert worst_of_k_variance(x, k)[0] == pytest.approx(want, abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(x=st.lists(st.floats(0, 1), min_size=2, max_size=8), data=st.data())
def test_pair_term_equals_brute_force(x: list[float], data: st.DataObject) -> None:
    """U² − variance = Q, the mean over disjoint pairs (the unbiased θ² estimate)."""
    k = data.draw(st.integers(1, len(x) // 2))
    u = brute(x, k, min)
    q = u * u - worst_of_k_variance([x], k)[0]
    assert q == pytest.approx(brute_pairs(x, k), abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(x=st.lists(st.floats(0, 1), min_size=2, max_size=9), data=st.data())
def test_jackknife_equals_leave_one_out_by_hand(x: list[float], data: st.DataObject) -> None:
    n = len(x)
    k = data.draw(st.integers(max(1, n // 2 + 1), n - 1)) if n // 2 + 1 <= n - 1 else n - 1
    if variance_kind(n, k) != "jackknife":
        return
    loo = np.array([brute(x[:j] + x[j + 1 :], k, min) for j in range(n)])
    want = (n - 1) / n * np.sum((loo - loo.mean()) ** 2)
    assert worst_of_k_variance([x], k)[0] == pytest.approx(want, abs=1e-12)


def test_n_equal_k_gets_the_bound() -> None:
    assert worst_of_k_variance([[0.3, 0.7]], 2).tolist() == [0.25]


def all_samples(support: list[float], probs: list[float], n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every n-tuple of a discrete law and its probability."""
    tuples = np.array(list(itertools.product(support, repeat=n)))
    idx = np.array(list(itertools.product(range(len(support)), repeat=n)))
    return tuples, np.prod(np.asarray(probs)[idx], axis=1)


@pytest.mark.parametrize(("n", "k"), [(4, 2), (5, 2), (6, 3), (3, 1)])
def test_unbiased_over_every_sample_of_a_discrete_law(n: int, k: int) -> None:
    """Exact expectations over all samples: E U = E[min of k], E[U² − Q] = Var U."""
    support, probs = [0.0, 0.3, 0.8, 1.0], [0.2, 0.3, 0.4, 0.1]
    xs, pr = all_samples(support, probs, n)
    u = worst_of_k(xs, k)
    # the truth: E[min of k] over k fresh draws
    xk, pk = all_samples(support, probs, k)
    theta = float(pk @ xk.min(axis=1))
    assert float(pr @ u) == pytest.approx(theta, abs=1e-12)
    var_u = float(pr @ (u - theta) ** 2)
    assert float(pr @ worst_of_k_variance(xs, k)) == pytest.approx(var_u, abs=1e-12)
    b = best_of_k(xs, k)
    assert float(pr @ b) == pytest.approx(float(pk @ xk.max(axis=1)), abs=1e-12)


@pytest.mark.parametrize(("n", "k"), [(3, 2), (5, 3), (4, 3)])
def test_jackknife_is_conservative_over_every_sample(n: int, k: int) -> None:
    """Efron–Stein: the jackknife's expectation is at least the true variance (k < n < 2k)."""
    support, probs = [0.0, 0.4, 1.0], [0.3, 0.3, 0.4]
    xs, pr = all_samples(support, probs, n)
    u = worst_of_k(xs, k)
    var_u = float(pr @ (u - pr @ u) ** 2)
    assert float(pr @ worst_of_k_variance(xs, k)) >= var_u - 1e-12


def test_large_n_stays_finite() -> None:
    x = np.random.default_rng(0).uniform(size=(3, 20_000))
    w = order_weights(20_000, 50, "worst")
    assert np.isfinite(w).all() and w.sum() == pytest.approx(1.0)
    v = worst_of_k_variance(x, 50)
    assert np.isfinite(v).all() and (v > 0).all()
