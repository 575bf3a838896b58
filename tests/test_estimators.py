"""Tests of passhat.estimators (the per-task formulas). Every expected value names its oracle.

Oracles used here:
- brute force: enumerate every k-subset of a task's run outcomes
  (itertools.combinations) and count all-pass / any-pass subsets, exactly (Fraction);
- the seeds (shared/seeds/*.txt): 8 of 10 at k = 3, 5;
- exact integer arithmetic with math.comb / fractions.Fraction for large n;
- exact variance by enumerating all 2^n outcome vectors.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import passhat as ph
from estimator_oracles import TOL, brute_force, close, exact_at, exact_hat, random_tasks, rel
from passhat.estimators import log_subset_ratio, subset_ratio, task_weights


# --------------------------------------------------------- brute force: per task
@pytest.mark.parametrize("seed", range(6))
def test_elementwise_estimators_match_subset_enumeration(seed: int) -> None:
    """Oracle: brute-force enumeration of all k-subsets (itertools.combinations)."""
    rng = np.random.default_rng(seed)
    n, c = random_tasks(rng, 25)
    for k in range(1, int(n.max()) + 1):
        ok = n >= k
        hat = ph.pass_hat_k(n[ok], c[ok], k)
        at = ph.pass_at_k(n[ok], c[ok], k)
        for i, (nn, cc) in enumerate(zip(n[ok], c[ok], strict=True)):
            all_pass, any_pass = brute_force(int(nn), int(cc), k)
            assert close(hat[i], all_pass), (nn, cc, k)
            assert close(at[i], any_pass), (nn, cc, k)


def test_every_small_case_matches_subset_enumeration() -> None:
    """Oracle: brute force, exhaustively for every (n, c, k) with n ≤ 8."""
    cases = [(n, c, k) for n in range(1, 9) for c in range(n + 1) for k in range(1, n + 1)]
    n, c, k = (np.array(v) for v in zip(*cases, strict=True))
    hat, at = ph.pass_hat_k(n, c, k), ph.pass_at_k(n, c, k)
    for i, case in enumerate(cases):
        all_pass, any_pass = brute_force(*case)
        assert close(hat[i], all_pass) and close(at[i], any_pass), case


def test_broadcasting_over_tasks_and_k() -> None:
    """Oracle: brute force; a (tasks, 1) × (k,) call equals the elementwise values."""
    n = np.array([[10], [7], [4]])
    c = np.array([[8], [3], [4]])
    ks = np.array([1, 2, 3, 4])
    got = ph.pass_hat_k(n, c, ks)
    assert got.shape == (3, 4)
    for i in range(3):
        for j, k in enumerate(ks):
            assert close(got[i, j], brute_force(int(n[i, 0]), int(c[i, 0]), int(k))[0])


@pytest.mark.parametrize("seed", range(4))
def test_per_task_metrics_with_unequal_n(seed: int) -> None:
    """Oracle: brute force per task (unequal n)."""
    rng = np.random.default_rng(100 + seed)
    n, c = random_tasks(rng, 30, n_min=4)
    ks = [1, 2, 3, 4]
    ds = ph.counts_from_arrays(n, c)
    per = ph.per_task_metrics(ds, ks)
    for k in ks:
        exact = [brute_force(int(nn), int(cc), k) for nn, cc in zip(n, c, strict=True)]
        hat = per["pass_hat_k"].sel(k=k).values.ravel()
        at = per["pass_at_k"].sel(k=k).values.ravel()
        mean = per["mean"].sel(k=k).values.ravel()
        for i, (all_pass, any_pass) in enumerate(exact):
            assert close(hat[i], all_pass) and close(at[i], any_pass)
            assert close(mean[i], Fraction(int(c[i]), int(n[i])))


def test_task_weights_refuse_an_unknown_spec() -> None:
    """Oracle: the weights contract (None, "equal", "declared", "category" or a mapping)."""
    ds = ph.counts_from_arrays([3, 3], [1, 2], tasks=["t0", "t1"])
    with pytest.raises(ph.OptionError, match="weights must be"):
        task_weights(ds, "traffic")  # type: ignore[arg-type]


# ------------------------------------------------------------------- the seeds
@pytest.mark.parametrize(("k", "unbiased", "plugin"), [(3, 0.467, 0.512), (5, 0.222, 0.328)])
def test_seed_eight_of_ten(k: int, unbiased: float, plugin: float) -> None:
    """Oracle: the seeds' pass_k.py output (8 passes in 10 runs)."""
    assert round(float(ph.pass_hat_k(10, 8, k)), 3) == unbiased
    assert round(float(ph.plugin_pass_hat_k(10, 8, k)), 3) == plugin
    assert round(float(ph.pass_at_k(10, 8, k)), 3) == 1.000
    # exact values behind the rounding: C(8,k)/C(10,k)
    assert float(ph.pass_hat_k(10, 8, k)) == pytest.approx(math.comb(8, k) / math.comb(10, k))
    # the plug-in pass@k contrast: 1 − (1 − 0.8)^k
    assert float(ph.plugin_pass_at_k(10, 8, k)) == pytest.approx(1 - 0.2**k)


# ------------------------------------------------------------- large n, precision
LARGE = [
    (10**6, 999_000, 50),
    (10**6, 500_000, 20),
    (10**6, 10**6 - 1, 1000),
    (10**6, 1, 10),
    (10**6, 100, 5),
    (10**6, 10, 3),
    (123_457, 100_000, 300),
    (10**6, 990_000, 600),
    (10**6, 500_000, 1000),
    (10**5, 99_990, 70_000),
    (88_376, 1, 1),  # found by hypothesis: a factor near 0 needs log of the exact quotient
    (10**6, 3, 2),
    (10**6, 10**6 - 3, 999_990),
]


@pytest.mark.parametrize(("n", "c", "k"), LARGE)
def test_large_n_matches_exact_integer_arithmetic(n: int, c: int, k: int) -> None:
    """Oracle: exact math.comb ratios as Fractions; relative error < 1e-9."""
    hat_exact = Fraction(math.comb(c, k), math.comb(n, k))
    at_exact = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
    assert rel(float(ph.pass_hat_k(n, c, k)), hat_exact) < 1e-9
    assert rel(float(ph.pass_at_k(n, c, k)), at_exact) < 1e-9


def test_relative_precision_is_near_machine_epsilon() -> None:
    """Oracle: exact Fractions; every (n, c, k) on a grid up to n = 10^4 within 1e-13·k relative."""
    rng = np.random.default_rng(5)
    n = rng.integers(1, 10**4, size=60)
    c = np.array([rng.integers(0, m + 1) for m in n])
    k = np.array([rng.integers(1, min(m, 40) + 1) for m in n])
    hat, at = ph.pass_hat_k(n, c, k), ph.pass_at_k(n, c, k)
    for i in range(len(n)):
        nn, cc, kk = int(n[i]), int(c[i]), int(k[i])
        assert rel(float(hat[i]), exact_hat(nn, cc, kk)) < 1e-13 * kk
        assert rel(float(at[i]), exact_at(nn, cc, kk)) < 1e-13 * kk


def test_large_n_log_ratio_matches_exact_logarithm() -> None:
    """Oracle: log of the exact integer ratio (math.log of big ints), also where exp underflows."""
    for n, c, k in [(10**6, 400_000, 2000), (10**6, 999_000, 50), (10**6, 500_000, 1000)]:
        exact = math.log(math.comb(c, k)) - math.log(math.comb(n, k))
        got = float(log_subset_ratio(c, n, k))
        if got == -np.inf:  # returned only when the ratio underflows double precision
            assert exact < -745
        else:
            assert abs(got - exact) <= 1e-9 * max(1.0, abs(exact))


def test_no_overflow_or_nan_for_n_one_million_k_thousand() -> None:
    """Oracle: bounds (values in [0, 1], monotone in c) and exact ends (c = n, c < k)."""
    n, k = 10**6, 1000
    c = np.array([0, 999, 1000, 10**5, 5 * 10**5, 9 * 10**5, 999_999, 10**6])
    hat = ph.pass_hat_k(n, c, k)
    at = ph.pass_at_k(n, c, k)
    assert np.all(np.isfinite(hat)) and np.all(np.isfinite(at))
    assert np.all((hat >= 0) & (hat <= 1)) and np.all((at >= 0) & (at <= 1))
    assert np.all(np.diff(hat) >= 0) and np.all(np.diff(at) >= 0)
    assert hat[0] == hat[1] == 0.0 and hat[-1] == 1.0 and at[0] == 0.0
    assert rel(float(hat[2]), Fraction(1, math.comb(n, k))) < 1e-9 or hat[2] == 0.0
    assert rel(float(hat[-2]), Fraction(n - k, n)) < 1e-12


def test_subset_ratio_zero_when_too_few() -> None:
    """Oracle: C(a, k) = 0 when a < k (the seeds' convention)."""
    assert subset_ratio(np.array([0, 1, 2]), 5, 3).tolist() == [0.0, 0.0, 0.0]
    assert float(subset_ratio(3, 5, 3)) == pytest.approx(1 / 10, abs=TOL)


@pytest.mark.parametrize("big_n", [False, True])
def test_long_arrays_take_the_distinct_triple_path_and_agree(big_n: bool) -> None:
    """Oracle: exact Fractions per element; arrays > 512 elements are computed per distinct
    (a, n, k) (dense table for small values, sorted keys for n up to 10^6)."""
    rng = np.random.default_rng(9)
    size = 3000
    n = rng.choice([10**6, 999_999] if big_n else [5, 9, 12], size=size)
    c = np.array([rng.choice([0, 1, 3, m // 2, m - 1, m]) for m in n])
    k = rng.integers(1, 5, size=size)
    hat, at = ph.pass_hat_k(n, c, k), ph.pass_at_k(n, c, k)
    seen: set[tuple[int, int, int]] = set()
    for i in range(size):
        case = (int(n[i]), int(c[i]), int(k[i]))
        if case in seen:
            continue
        seen.add(case)
        assert rel(float(hat[i]), exact_hat(*case)) < 1e-13, case
        assert rel(float(at[i]), exact_at(*case)) < 1e-13, case
    # and the same values as element-by-element calls (no compression for tiny arrays)
    for i in range(0, size, 97):
        assert float(ph.pass_hat_k(n[i], c[i], k[i])) == hat[i]


# ----------------------------------------------------------------- variance
def exact_moments(n: int, p: Fraction, k: int, estimator) -> tuple[Fraction, Fraction]:
    """Mean and variance of an estimator over all 2^n outcome vectors (exact)."""
    mean = second = Fraction(0)
    for outcome in itertools.product((0, 1), repeat=n):
        c = sum(outcome)
        prob = p**c * (1 - p) ** (n - c)
        value = estimator(n, c, k)
        mean += prob * value
        second += prob * value * value
    return mean, second - mean * mean


VAR_CASES = [(n, k) for n in (1, 3, 5, 8, 10) for k in (1, 2, 3, 5) if k <= n]


P_VALUES = [Fraction(0), Fraction(1, 10), Fraction(1, 2), Fraction(7, 10), Fraction(1)]


@pytest.mark.parametrize(("n", "k"), VAR_CASES)
def test_pass_hat_k_variance_is_exact(n: int, k: int) -> None:
    """Oracle: enumerate all 2^n outcome vectors weighted by p^c (1 − p)^(n − c)."""
    for p in P_VALUES:
        mean, var = exact_moments(n, p, k, exact_hat)
        assert mean == p**k  # unbiasedness of the estimator itself
        assert close(ph.pass_hat_k_variance(n, float(p), k), var)
        mean, var = exact_moments(n, p, k, exact_at)
        assert mean == 1 - (1 - p) ** k
        assert close(ph.pass_at_k_variance(n, float(p), k), var)


@pytest.mark.parametrize(("n", "k", "p"), [(1000, 5, "3/10"), (50, 10, "9/10"), (10**5, 3, "1/2")])
def test_variance_formula_for_larger_n(n: int, k: int, p: str) -> None:
    """Oracle: the overlap formula in exact rational arithmetic (brute force is 2^n here)."""
    q = Fraction(p)
    var = sum(
        Fraction(math.comb(k, j) * math.comb(n - k, k - j), math.comb(n, k))
        * (q ** (2 * k - j) - q ** (2 * k))
        for j in range(1, k + 1)
    )
    assert rel(float(ph.pass_hat_k_variance(n, float(q), k)), var) < 1e-8


def test_variance_k1_is_binomial() -> None:
    """Oracle: Var(c/n) = p(1 − p)/n."""
    p = np.linspace(0, 1, 11)
    assert np.allclose(ph.pass_hat_k_variance(7, p, 1), p * (1 - p) / 7, atol=TOL, rtol=0)


@pytest.mark.parametrize(("n", "k"), [(2, 1), (4, 2), (6, 3), (7, 2), (9, 4), (10, 5), (10, 1)])
def test_variance_estimate_is_unbiased(n: int, k: int) -> None:
    """Oracle: its exact expectation over Binomial(n, p) equals the brute-force variance."""
    for p in P_VALUES:
        _, var = exact_moments(n, p, k, exact_hat)
        c = np.arange(n + 1)
        est = ph.pass_hat_k_variance_estimate(n, c, k)
        probs = [math.comb(n, int(cc)) * p**cc * (1 - p) ** (n - cc) for cc in c]
        expectation = sum(float(pr) * float(e) for pr, e in zip(probs, est, strict=True))
        assert expectation == pytest.approx(float(var), abs=1e-12)
        # pass@k: the same estimator applied to failures (pass@k = 1 − pass^k of failures)
        _, var_at = exact_moments(n, p, k, exact_at)
        est_at = ph.pass_hat_k_variance_estimate(n, n - c, k)
        expectation = sum(float(pr) * float(e) for pr, e in zip(probs, est_at, strict=True))
        assert expectation == pytest.approx(float(var_at), abs=1e-12)


def test_variance_estimate_nan_below_2k() -> None:
    """Oracle: the rule n ≥ 2k (C(c, 2k)/C(n, 2k) is undefined otherwise)."""
    got = ph.pass_hat_k_variance_estimate([3, 4, 5, 6], [2, 2, 2, 2], 3)
    assert np.isnan(got[:3]).all() and np.isfinite(got[3])
    # k = 1: c(n − c)/(n²(n − 1)), the unbiased estimate of p(1 − p)/n
    assert float(ph.pass_hat_k_variance_estimate(10, 3, 1)) == pytest.approx(21 / 900)


def test_variance_rejects_bad_arguments() -> None:
    """Oracle: the input rules (p in [0, 1], k ≤ n)."""
    with pytest.raises(ph.OptionError, match="p must"):
        ph.pass_hat_k_variance(5, 1.5, 2)
    with pytest.raises(ph.ShortTaskError):
        ph.pass_hat_k_variance(3, 0.5, 4)
    with pytest.raises(ph.OptionError):
        ph.pass_hat_k_variance(3, 0.5, 0)


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("k", [0, -1, 1.5, float("nan")])
def test_elementwise_k_must_be_whole_and_positive(k) -> None:
    """Oracle: the rule k ≥ 1, whole."""
    with pytest.raises(ph.OptionError, match="k must"):
        ph.pass_hat_k(5, 3, k)
    with pytest.raises(ph.OptionError, match="k must"):
        ph.pass_at_k(5, 3, k)


@pytest.mark.parametrize(
    ("n", "c", "match"),
    [(3, 4, "exceeds"), (5, -1, "non-negative"), (-5, 0, "non-negative"), (5, 2.5, "whole")],
)
def test_bad_counts_elementwise(n, c, match) -> None:
    """Oracle: the rules 0 ≤ c ≤ n, whole numbers."""
    with pytest.raises(ph.CountError, match=match):
        ph.pass_hat_k(n, c, 1)
    with pytest.raises(ph.CountError, match=match):
        ph.pass_at_k(n, c, 1)


@pytest.mark.parametrize(
    ("n", "c", "match"),
    [
        ([5, 3], [2, 4], "'1'.*exceeds"),
        ([5, 3], [2, -1], "'1'.*negative"),
        ([5, 3.5], [2, 1], "whole"),
    ],
)
def test_bad_counts_in_count_table_name_the_task(n, c, match) -> None:
    """Oracle: the rules 0 ≤ c ≤ n, whole numbers; the message names the task."""
    with pytest.raises(ph.CountError, match=match):
        ph.counts_from_arrays(np.array(n), np.array(c))


def test_short_tasks_are_an_error_elementwise() -> None:
    """Oracle: the rule k ≤ n for every task (DESIGN: never a silent 0 or NaN)."""
    with pytest.raises(ph.ShortTaskError, match="exceeds"):
        ph.pass_hat_k([5, 2], [3, 1], 3)


def test_mean_success_needs_a_decided_run() -> None:
    """Oracle: the data model (n = 0 has no success rate)."""
    with pytest.raises(ph.ShortTaskError):
        ph.mean_success(0, 0)


def test_k_one_is_exactly_c_over_n() -> None:
    # pass^1 = pass@1 = mean = c/n exactly (oracle: the fraction itself). exp∘log1p gave
    # 0.7999999999999999 for 4 of 5, so pass^1 == mean failed in estimate() (found by the
    # regime property test in tests/test_estimate_regimes.py).
    n = np.arange(1, 60)
    for c_frac in (0.2, 0.5, 0.8, 0.9):
        c = np.floor(n * c_frac)
        assert (ph.pass_hat_k(n, c, 1) == c / n).all()
        assert (ph.pass_at_k(n, c, 1) == c / n).all()
    assert ph.pass_hat_k(5, 4, 1) == 0.8 and isinstance(ph.pass_hat_k(5, 4, 1), np.floating)
    est = ph.estimate(ph.counts_from_arrays([5, 7, 3], [4, 1, 2]), k=1)
    assert est.value("pass_hat_k", 1) == est.value("mean", 1) == est.value("pass_at_k", 1)


def test_a_task_weight_map_naming_tasks_the_data_lack_is_refused() -> None:
    """A weight of a task the data do not hold (a typo, another benchmark's list) was ignored
    silently; it is an OptionError naming it, in estimate, compare and rank. A weight of a task
    one system ran and compare/rank leave out (not matched) is a task of the input: fine."""
    ds = ph.counts_from_arrays([4, 4, 4], [1, 2, 4], tasks=["a", "b", "c"])
    typo = {"a": 1.0, "b": 1.0, "c": 2.0, "cc": 5.0}
    lack = r"weights name 1 task\(s\) the data do not hold: 'cc'"
    with pytest.raises(ph.OptionError, match=lack):
        ph.estimate(ds, weights=typo)
    with pytest.raises(ph.OptionError, match="the data do not hold: 'cc'"):
        task_weights(ds, typo)
    # oracle for the accepted map: (1/4 + 2/4 + 2 * 4/4) / 4 = 0.6875
    assert ph.estimate(ds, weights={"a": 1, "b": 1, "c": 2}).value("mean", 1) == 0.6875
    a = ph.counts_from_arrays([4, 4, 4], [1, 2, 4], tasks=["a", "b", "c"], system="A")
    b = ph.counts_from_arrays([4, 4], [2, 2], tasks=["a", "b"], system="B")
    both = {"a": 1.0, "b": 1.0, "c": 2.0}  # c: only A ran it
    ph.compare(a, b, weights=both, intersect=True, n_boot=200)
    ph.rank([a, b], k=1, weights=both, intersect=True, n_boot=200)
    for call in (
        lambda: ph.compare(a, b, weights=typo, intersect=True, n_boot=200),
        lambda: ph.rank([a, b], k=1, weights=typo, intersect=True, n_boot=200),
    ):
        with pytest.raises(ph.OptionError, match="the data do not hold: 'cc'"):
            call()


@pytest.mark.parametrize("scale", [1e308, 1e-300, 1e-323])
def test_extreme_weights_give_the_ratios_numbers(scale: float) -> None:
    """Issue 33, item 8: all weights 1e308 gave mean 0.000 (the sum overflowed; right: 0.750).
    Oracle: weights matter only by their ratios, so (2, 1) × any scale gives the (2, 1) result;
    at 1e-323 the weights are the two smallest floats, 1e-323 and 5e-324 (still 2:1)."""
    import passhat as ph

    ds = ph.counts_from_arrays([4, 4], [4, 1], weight=[1.0, 0.5])
    ref = ph.estimate(ds, k=[1, 2], weights="declared").table["value"].to_numpy()
    big = ds.assign(weight=ds["weight"] * scale)
    got = ph.estimate(big, k=[1, 2], weights="declared").table["value"].to_numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    assert ref[0] == pytest.approx((1.0 * 1.0 + 0.5 * 0.25) / 1.5)


def test_non_finite_declared_weight_refused() -> None:
    """Issue 33, item 8: ``inf`` printed "—" and numpy RuntimeWarnings with exit 0 (trials read
    from a file; count tables were already checked)."""
    import pandas as pd

    import passhat as ph
    from passhat.errors import CountError, ValidationError

    frame = pd.DataFrame({"task_id": ["a", "b"], "success": [1, 0], "weight": [np.inf, 1.0]})
    with pytest.raises(ValidationError, match=r"row 1: weight inf is not a finite non-negative"):
        ph.Trials.from_frame(frame, where="t")
    ds = ph.counts_from_arrays([4, 4], [4, 1], weight=[2.0, 1.0])
    bad = ds.assign(weight=ds["weight"].copy(data=[[np.inf, 1.0]]))
    with pytest.raises(CountError, match=r"task '0': weight inf is not a non-negative number"):
        ph.estimate(bad, weights="declared")
