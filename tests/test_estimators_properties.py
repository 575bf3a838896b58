"""Property tests (hypothesis) of the unbiased estimators.

Oracle: the ordering that holds for every task and every average of tasks —
pass^k ≤ mean ≤ pass@k (a k-subset that all passes has every member pass; one
with any pass has at least one), equality at k = 1, pass^k non-increasing and
pass@k non-decreasing in k (a (k+1)-subset all-passes only if each of its
k-subsets does), and all values in [0, 1]. Plus the exact identities
pass@k(c) = 1 − pass^k(n − c) and the Vandermonde-free check that pass^k is
the average of pass^(k−1) over the k-subsets' members.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import passhat as ph

SLACK = 1e-12


@st.composite
def count_arrays(draw: st.DrawFn, max_n: int = 60, max_tasks: int = 30):
    """Random (n, c) arrays with unequal n, and a k ≤ min(n)."""
    tasks = draw(st.integers(1, max_tasks))
    n = draw(st.lists(st.integers(1, max_n), min_size=tasks, max_size=tasks))
    c = [draw(st.integers(0, m)) for m in n]
    k = draw(st.integers(1, min(n)))
    return np.array(n), np.array(c), k


@st.composite
def large_counts(draw: st.DrawFn):
    """One large task: n up to 10^6, k up to 200."""
    n = draw(st.integers(1, 10**6))
    c = draw(st.integers(0, n))
    k = draw(st.integers(1, min(n, 200)))
    return n, c, k


@given(count_arrays())
def test_ordering_and_bounds_per_task(case) -> None:
    n, c, k = case
    hat, at, mean = ph.pass_hat_k(n, c, k), ph.pass_at_k(n, c, k), ph.mean_success(n, c)
    for v in (hat, at, mean):
        assert np.all((v >= 0) & (v <= 1)) and np.all(np.isfinite(v))
    assert np.all(hat <= mean + SLACK)
    assert np.all(mean <= at + SLACK)
    if k == 1:
        np.testing.assert_allclose(hat, mean, rtol=0, atol=SLACK)
        np.testing.assert_allclose(at, mean, rtol=0, atol=SLACK)


@given(count_arrays(max_n=25, max_tasks=12))
def test_monotone_in_k_per_task(case) -> None:
    n, c, _ = case
    ks = np.arange(1, int(n.min()) + 1)
    hat = ph.pass_hat_k(n[:, None], c[:, None], ks[None, :])
    at = ph.pass_at_k(n[:, None], c[:, None], ks[None, :])
    assert np.all(np.diff(hat, axis=1) <= SLACK)
    assert np.all(np.diff(at, axis=1) >= -SLACK)


@given(count_arrays(max_n=20, max_tasks=20))
def test_macro_average_ordering_and_monotonicity(case) -> None:
    n, c, _ = case
    ks = list(range(1, int(n.min()) + 1))
    wide = ph.estimate(ph.counts_from_arrays(n, c), k=ks).wide().set_index("k")
    mean, at, hat = wide["mean"].to_numpy(), wide["pass_at_k"].to_numpy(), wide["pass_hat_k"]
    hat = hat.to_numpy()
    for v in (mean, at, hat):
        assert np.all((v >= 0) & (v <= 1))
    assert np.all(hat <= mean + SLACK) and np.all(mean <= at + SLACK)
    assert abs(hat[0] - mean[0]) <= SLACK and abs(at[0] - mean[0]) <= SLACK
    assert np.all(np.diff(hat) <= SLACK) and np.all(np.diff(at) >= -SLACK)
    # the macro mean is the same at every k (one task set for all k)
    assert np.ptp(mean) <= SLACK


@given(count_arrays())
def test_pass_at_k_is_complement_of_failure_pass_hat_k(case) -> None:
    n, c, k = case
    np.testing.assert_allclose(
        ph.pass_at_k(n, c, k), 1.0 - ph.pass_hat_k(n, n - c, k), rtol=0, atol=SLACK
    )


@given(count_arrays(max_n=40))
def test_pass_hat_k_recursion(case) -> None:
    """C(c,k)/C(n,k) = (c−k+1)/(n−k+1) · C(c,k−1)/C(n,k−1): exact step in k."""
    n, c, k = case
    if k < 2:
        return
    lhs = ph.pass_hat_k(n, c, k)
    rhs = np.maximum(c - k + 1, 0) / (n - k + 1) * ph.pass_hat_k(n, c, k - 1)
    np.testing.assert_allclose(lhs, rhs, rtol=1e-12, atol=1e-300)


@given(large_counts())
def test_large_n_bounds_and_ordering(case) -> None:
    n, c, k = case
    hat, at = float(ph.pass_hat_k(n, c, k)), float(ph.pass_at_k(n, c, k))
    mean = c / n
    assert 0.0 <= hat <= mean + SLACK <= at + 2 * SLACK <= 1.0 + 2 * SLACK
    assert np.isfinite(hat) and np.isfinite(at)
    # plug-in (c/n)^k is never below the unbiased estimate (Π (c−j)/(n−j) ≤ (c/n)^k)
    assert hat <= mean**k * (1 + 1e-12) + 1e-300
