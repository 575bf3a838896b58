"""The conservative model-free per-task variance below 2k runs (passhat.variance_bound).

Oracles: the exact variance of the unbiased estimator given p (passhat.pass_hat_k_variance,
itself checked against enumeration in test_estimators) and exact Binomial expectations over
s = 0..n; the classical unbiased estimate U² − C(s, 2k)/C(n, 2k) where n ≥ 2k; an enumeration
of every outcome of a tiny case; closed forms for n = 1 (the tangent of q² at ½) and n = 2, 3
(the largest minorants through both ends, derived by hand in the module's docstring).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import passhat as ph
from passhat.variance_bound import bounded_variance_estimate, square_minorant

P = np.concatenate(
    [np.linspace(0.0, 1.0, 2001), 10.0 ** -np.arange(1, 13), 1 - 10.0 ** -np.arange(1, 13)]
)


def _expected_estimate(n: int, k: int, p: np.ndarray) -> np.ndarray:
    """E[V̂ | p] under Binomial(n, p), exactly (a sum over s = 0..n)."""
    s = np.arange(n + 1)
    v = bounded_variance_estimate(np.full(n + 1, n), s, k)
    return np.asarray(stats.binom.pmf(s[None, :], n, p[:, None]) @ v)


def _check_bound(n_max: int, k_max: int) -> None:
    for n in range(1, n_max + 1):
        for k in range(max(1, n // 2 + 1), min(n, k_max) + 1):  # every k with k ≤ n < 2k
            exact = ph.pass_hat_k_variance(n, P, k)
            got = _expected_estimate(n, k, P)
            assert np.all(got >= exact - 1e-12), (n, k, float(np.min(got - exact)))


def test_expectation_bounds_the_exact_variance_small_n() -> None:
    _check_bound(6, 6)


@pytest.mark.integration
def test_expectation_bounds_the_exact_variance_up_to_20() -> None:
    _check_bound(20, 20)


def test_pass_at_k_is_the_bound_of_the_failures() -> None:
    # pass@k's estimator is 1 − (pass^k of failures): its variance at p is pass^k's at 1 − p
    n, k = 5, 4
    s = np.arange(n + 1)
    v = bounded_variance_estimate(np.full(n + 1, n), n - s, k)  # failures
    for p in (0.1, 0.5, 0.93):
        e = float(stats.binom.pmf(s, n, p) @ v)
        assert e >= float(ph.pass_at_k_variance(n, p, k)) - 1e-12


def test_equals_the_unbiased_estimate_where_n_at_least_2k() -> None:
    rng = np.random.default_rng(3)
    n = rng.integers(2, 40, size=500)
    for k in (1, 2, 3):
        ok = n >= 2 * k
        c = rng.integers(0, n + 1)
        got = bounded_variance_estimate(n[ok], c[ok], k)
        want = ph.pass_hat_k_variance_estimate(n[ok], c[ok], k)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_ends_add_nothing_from_two_runs() -> None:
    for n in range(2, 9):
        for k in range(n // 2 + 1, n + 1):
            b = square_minorant(n, k)
            assert b[0] == 0.0 and b[-1] == 1.0
            v = bounded_variance_estimate([n, n], [0, n], k)
            assert v.tolist() == [0.0, 0.0]


def test_the_nonnegative_variant_is_nonnegative_and_looser() -> None:
    # the variant measured and not taken (reports/bench_variance): b_s ≤ U_s² too, so no task's
    # V̂ is negative, at the price of a smaller area under r (a looser bound)
    from passhat.variance_bound import _coefficients

    for n in range(1, 9):
        for k in range(n // 2 + 1, n + 1):
            u2 = ph.pass_hat_k(np.full(n + 1, n), np.arange(n + 1), k) ** 2
            nn = np.array(_coefficients(n, k, True))
            assert np.all(u2 - nn >= 0.0), (n, k)
            assert nn.sum() <= np.array(_coefficients(n, k)).sum() + 1e-9, (n, k)


def test_closed_forms() -> None:
    # n = 1: the best line below q² is its tangent at ½, q − ¼ (Bernstein −¼, ¾): V̂ = ¼
    np.testing.assert_allclose(square_minorant(1, 1), [-0.25, 0.75], atol=2e-3)
    # n = 2, k = 2: through both ends, below q⁴: q(a + (1 − a) q) with a ≤ −2, so the largest
    # is −2q + 3q² = Bernstein (0, −1, 1)
    np.testing.assert_allclose(square_minorant(2, 2), [0.0, -1.0, 1.0], atol=1e-4)
    # n = 3, k = 2: −q² + 2q³ = q⁴ − q²(1 − q)², Bernstein (0, 0, −1/3, 1)
    np.testing.assert_allclose(square_minorant(3, 2), [0.0, 0.0, -1 / 3, 1.0], atol=1e-4)


def test_enumeration_of_a_tiny_case() -> None:
    # 3 tasks × 3 runs, pass^2: the benchmark-scope variance estimate Σ V̂ / T² averaged over
    # every outcome (4³ of them) at the true rates is at least the exact variance of the mean
    p = np.array([0.2, 0.6, 0.9])
    n, k = 3, 2
    s = np.arange(n + 1)
    pmf = stats.binom.pmf(s[None, :], n, p[:, None])  # task × s
    grid = np.array(np.meshgrid(s, s, s, indexing="ij")).reshape(3, -1).T  # every outcome
    prob = pmf[0, grid[:, 0]] * pmf[1, grid[:, 1]] * pmf[2, grid[:, 2]]
    est = np.array([bounded_variance_estimate(np.full(3, n), g, k).sum() / 9 for g in grid])
    exact = float(ph.pass_hat_k_variance(n, p, k).sum() / 9)
    assert prob.sum() == pytest.approx(1.0)
    assert float(prob @ est) >= exact
    # and V̂ itself against its definition U² − b_s at one outcome
    u = ph.pass_hat_k(n, 2, k)
    assert bounded_variance_estimate([3], [2], k)[0] == pytest.approx(u**2 + 1 / 3, abs=1e-4)


def test_tasks_with_different_runs_use_their_own_n() -> None:
    n = np.array([3, 5, 8, 3])
    c = np.array([2, 4, 5, 1])
    got = bounded_variance_estimate(n, c, 3)
    want = [bounded_variance_estimate([m], [x], 3)[0] for m, x in zip(n, c, strict=True)]
    np.testing.assert_allclose(got, want, rtol=0, atol=0)
    assert got[2] == pytest.approx(float(ph.pass_hat_k_variance_estimate(8, 5, 3)), abs=1e-12)


def test_bad_k_is_refused() -> None:
    with pytest.raises(ValueError, match="1 ≤ k ≤ n"):
        square_minorant(3, 4)
