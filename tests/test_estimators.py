"""Tests of passhat.estimators. Every expected value names its oracle.

Oracles used here:
- brute force: enumerate every k-subset of a task's run outcomes
  (itertools.combinations) and count all-pass / any-pass subsets, exactly (Fraction);
- the seeds (shared/seeds/*.txt): the four-task A–D example and 8 of 10 at k = 3, 5;
- τ-bench's published leaderboard for gpt-4o airline (pass^1..4);
- exact integer arithmetic with math.comb / fractions.Fraction for large n;
- exact variance by enumerating all 2^n outcome vectors.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.estimators import log_subset_ratio, subset_ratio, task_weights

TOL = 1e-12


# ------------------------------------------------------------------ oracles
def brute_force(n: int, c: int, k: int) -> tuple[Fraction, Fraction]:
    """Exact share of k-subsets of the n runs that are all-pass and any-pass."""
    outcomes = [1] * c + [0] * (n - c)
    total = all_pass = any_pass = 0
    for subset in itertools.combinations(range(n), k):
        picked = [outcomes[i] for i in subset]
        total += 1
        all_pass += all(picked)
        any_pass += any(picked)
    return Fraction(all_pass, total), Fraction(any_pass, total)


def random_tasks(rng: np.random.Generator, tasks: int, n_max: int = 10, n_min: int = 1):
    n = rng.integers(n_min, n_max + 1, size=tasks)
    c = np.array([rng.integers(0, m + 1) for m in n])
    return n, c


def close(x: float, y: Fraction | float, tol: float = TOL) -> bool:
    return abs(float(x) - float(y)) <= tol


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
def test_per_task_metrics_and_macro_average_with_unequal_n(seed: int) -> None:
    """Oracle: brute force per task, then the plain average over tasks (unequal n)."""
    rng = np.random.default_rng(100 + seed)
    n, c = random_tasks(rng, 30, n_min=4)
    ks = [1, 2, 3, 4]
    ds = ph.counts_from_arrays(n, c)
    per = ph.per_task_metrics(ds, ks)
    est = ph.estimate(ds, k=ks)
    for k in ks:
        exact = [brute_force(int(nn), int(cc), k) for nn, cc in zip(n, c, strict=True)]
        hat = per["pass_hat_k"].sel(k=k).values.ravel()
        at = per["pass_at_k"].sel(k=k).values.ravel()
        mean = per["mean"].sel(k=k).values.ravel()
        for i, (all_pass, any_pass) in enumerate(exact):
            assert close(hat[i], all_pass) and close(at[i], any_pass)
            assert close(mean[i], Fraction(int(c[i]), int(n[i])))
        macro_hat = sum(e[0] for e in exact) / len(exact)
        macro_at = sum(e[1] for e in exact) / len(exact)
        macro_mean = sum(Fraction(int(cc), int(nn)) for nn, cc in zip(n, c, strict=True)) / len(n)
        assert close(est.value("pass_hat_k", k), macro_hat)
        assert close(est.value("pass_at_k", k), macro_at)
        assert close(est.value("mean", k), macro_mean)


def _weighted(exact: list[Fraction], weights: list[Fraction]) -> Fraction:
    return sum((w * e for w, e in zip(weights, exact, strict=True)), Fraction(0)) / sum(weights)


def test_declared_weights_match_brute_force_weighted_average() -> None:
    """Oracle: brute force per task, weighted by the declared weights (exact Fractions)."""
    rng = np.random.default_rng(7)
    n, c = random_tasks(rng, 20, n_min=3)
    w = rng.integers(1, 6, size=20)
    ds = ph.counts_from_arrays(n, c, weight=w)
    est = ph.estimate(ds, k=[1, 3], weights="declared")
    fw = [Fraction(int(x)) for x in w]
    for k in (1, 3):
        exact = [brute_force(int(nn), int(cc), k) for nn, cc in zip(n, c, strict=True)]
        assert close(est.value("pass_hat_k", k), _weighted([e[0] for e in exact], fw))
        assert close(est.value("pass_at_k", k), _weighted([e[1] for e in exact], fw))
    # declared weights must be declared
    with pytest.raises(ph.OptionError, match="declare no weight"):
        ph.estimate(ph.counts_from_arrays(n, c), k=1, weights="declared")


def test_category_weights_match_brute_force() -> None:
    """Oracle: brute force; each category gets equal total weight shared by its tasks."""
    rng = np.random.default_rng(11)
    n, c = random_tasks(rng, 12, n_min=2)
    cats = ["x"] * 2 + ["y"] * 7 + ["z"] * 3
    ds = ph.counts_from_arrays(n, c, category=cats)
    sizes = {cat: cats.count(cat) for cat in set(cats)}
    fw = [Fraction(1, sizes[cat]) for cat in cats]
    est = ph.estimate(ds, k=2, weights="category")
    exact = [brute_force(int(nn), int(cc), 2) for nn, cc in zip(n, c, strict=True)]
    assert close(est.value("pass_hat_k", 2), _weighted([e[0] for e in exact], fw))
    assert close(est.value("pass_at_k", 2), _weighted([e[1] for e in exact], fw))
    # a mapping category → weight
    cw = {"x": 3, "y": 1, "z": 2}
    est = ph.estimate(ds, k=2, weights=cw)
    fw = [Fraction(cw[cat], sizes[cat]) for cat in cats]
    assert close(est.value("pass_hat_k", 2), _weighted([e[0] for e in exact], fw))
    with pytest.raises(ph.OptionError, match="categories"):
        ph.estimate(ds, k=2, weights={"x": 1, "y": 1})


def test_task_weight_mapping_matches_brute_force() -> None:
    """Oracle: brute force weighted by a task → weight mapping."""
    rng = np.random.default_rng(13)
    n, c = random_tasks(rng, 9, n_min=3)
    tasks = [f"t{i}" for i in range(9)]
    ds = ph.counts_from_arrays(n, c, tasks=tasks)
    tw = {t: float(i % 4) + 0.5 for i, t in enumerate(tasks)}
    est = ph.estimate(ds, k=3, weights=tw)
    exact = [brute_force(int(nn), int(cc), 3) for nn, cc in zip(n, c, strict=True)]
    fw = [Fraction(tw[t]) for t in tasks]
    assert close(est.value("pass_hat_k", 3), _weighted([e[0] for e in exact], fw))
    assert close(est.value("pass_at_k", 3), _weighted([e[1] for e in exact], fw))
    with pytest.raises(ph.OptionError, match="no weight given"):
        ph.estimate(ds, k=3, weights={"t0": 1.0})
    with pytest.raises(ph.OptionError, match="non-negative"):
        ph.estimate(ds, k=3, weights={t: -1.0 for t in tasks})
    with pytest.raises(ph.OptionError, match="weights must be"):
        task_weights(ds, "traffic")  # type: ignore[arg-type]


# ------------------------------------------------------------------- the seeds
def test_seed_four_task_example() -> None:
    """Oracle: the seeds' Go program output (A–D with 5, 4, 2, 0 of 5 runs, k = 2)."""
    est = ph.estimate(ph.load_example("abcd"), k=2)
    per = est.per_task.sel(k=2)
    expected = {"A": (1, 1, 1), "B": (0.8, 1, 0.6), "C": (0.4, 0.7, 0.1), "D": (0, 0, 0)}
    for task, (mean, any_pass, all_pass) in expected.items():
        row = per.sel(task=task).squeeze()
        assert float(row["mean"]) == pytest.approx(mean, abs=TOL)
        assert float(row["pass_at_k"]) == pytest.approx(any_pass, abs=TOL)
        assert float(row["pass_hat_k"]) == pytest.approx(all_pass, abs=TOL)
    assert round(est.value("mean", 2), 3) == 0.550
    assert round(est.value("pass_at_k", 2), 3) == 0.675
    assert round(est.value("pass_hat_k", 2), 3) == 0.425
    assert est.value("pass_hat_k", 2) == pytest.approx(0.425, abs=TOL)


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


def test_seed_uniform_vs_clustered_spread() -> None:
    """Oracle: the seeds (two agents at 50%): per-task pass^5 vs the uniform-spread Mean^5."""
    even = ph.estimate(ph.counts_from_arrays([10] * 4, [5] * 4), k=5)
    split = ph.estimate(ph.counts_from_arrays([10] * 4, [10, 10, 0, 0]), k=5)
    assert even.value("mean", 5) == split.value("mean", 5) == 0.5
    assert split.value("pass_hat_k", 5) == pytest.approx(0.5, abs=TOL)
    # estimated per task from 5 of 10 runs: C(5,5)/C(10,5) = 1/252 (not the 3.1% of p = 0.5)
    assert even.value("pass_hat_k", 5) == pytest.approx(1 / 252, abs=TOL)


# --------------------------------------------------------------------- τ-bench
def test_tau_bench_published_leaderboard(tau_airline_path) -> None:
    """Oracle: τ-bench's published gpt-4o airline pass^1..4 (0.420, 0.273, 0.220, 0.200)."""
    trials = ph.read_trials(tau_airline_path, format="tau-bench")
    est = ph.estimate(trials, k=[1, 2, 3, 4])
    got = [round(est.value("pass_hat_k", k), 3) for k in (1, 2, 3, 4)]
    assert got == [0.420, 0.273, 0.220, 0.200]
    counts = trials.counts()
    assert int(counts.sizes["task"]) == 50 and set(counts["n"].values.ravel()) == {4}


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


def _rel(x: float, exact: Fraction) -> float:
    if exact == 0:
        return abs(x)
    return float(abs(Fraction(x) - exact) / exact)


@pytest.mark.parametrize(("n", "c", "k"), LARGE)
def test_large_n_matches_exact_integer_arithmetic(n: int, c: int, k: int) -> None:
    """Oracle: exact math.comb ratios as Fractions; relative error < 1e-9."""
    hat_exact = Fraction(math.comb(c, k), math.comb(n, k))
    at_exact = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
    assert _rel(float(ph.pass_hat_k(n, c, k)), hat_exact) < 1e-9
    assert _rel(float(ph.pass_at_k(n, c, k)), at_exact) < 1e-9


def test_relative_precision_is_near_machine_epsilon() -> None:
    """Oracle: exact Fractions; every (n, c, k) on a grid up to n = 10^4 within 1e-13·k relative."""
    rng = np.random.default_rng(5)
    n = rng.integers(1, 10**4, size=60)
    c = np.array([rng.integers(0, m + 1) for m in n])
    k = np.array([rng.integers(1, min(m, 40) + 1) for m in n])
    hat, at = ph.pass_hat_k(n, c, k), ph.pass_at_k(n, c, k)
    for i in range(len(n)):
        nn, cc, kk = int(n[i]), int(c[i]), int(k[i])
        assert _rel(float(hat[i]), exact_hat(nn, cc, kk)) < 1e-13 * kk
        assert _rel(float(at[i]), exact_at(nn, cc, kk)) < 1e-13 * kk


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
    assert _rel(float(hat[2]), Fraction(1, math.comb(n, k))) < 1e-9 or hat[2] == 0.0
    assert _rel(float(hat[-2]), Fraction(n - k, n)) < 1e-12


def test_large_n_through_estimate() -> None:
    """Oracle: math.comb ratios; the count-table path keeps the same precision."""
    n = np.array([10**6, 10**6, 500_000])
    c = np.array([999_000, 1, 250_000])
    est = ph.estimate(ph.counts_from_arrays(n, c), k=[1, 10, 50])
    for k in (1, 10, 50):
        exact = sum(
            Fraction(math.comb(int(cc), k), math.comb(int(nn), k))
            for nn, cc in zip(n, c, strict=True)
        ) / len(n)
        assert _rel(est.value("pass_hat_k", k), exact) < 1e-9


def test_subset_ratio_zero_when_too_few() -> None:
    """Oracle: C(a, k) = 0 when a < k (the seeds' convention)."""
    assert subset_ratio(np.array([0, 1, 2]), 5, 3).tolist() == [0.0, 0.0, 0.0]
    assert float(subset_ratio(3, 5, 3)) == pytest.approx(1 / 10, abs=TOL)


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


def exact_hat(n: int, c: int, k: int) -> Fraction:
    return Fraction(math.comb(c, k), math.comb(n, k))


def exact_at(n: int, c: int, k: int) -> Fraction:
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


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
    assert _rel(float(ph.pass_hat_k_variance(n, float(q), k)), var) < 1e-8


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


@pytest.mark.parametrize("k", [0, -2, 1.5, "2", True, [1, 0], []])
def test_estimate_k_must_be_whole_and_positive(k) -> None:
    """Oracle: the rule k ≥ 1, whole (bool and strings are not k)."""
    with pytest.raises(ph.OptionError, match="k must"):
        ph.estimate(ph.load_example("abcd"), k=k)


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


def test_short_tasks_are_named() -> None:
    """Oracle: the rule k ≤ n for every task (DESIGN: never a silent 0 or NaN)."""
    ds = ph.counts_from_arrays([5, 2, 3, 5], [3, 1, 3, 5], tasks=["a", "b", "c", "d"])
    with pytest.raises(ph.ShortTaskError, match=r"b \(n=2\), c \(n=3\)") as info:
        ph.estimate(ds, k=[1, 4])
    assert [t for _, t, _ in info.value.tasks] == ["b", "c"]
    with pytest.raises(ph.ShortTaskError, match="exceeds"):
        ph.pass_hat_k([5, 2], [3, 1], 3)


def test_on_short_exclude_lists_tasks_with_reasons() -> None:
    """Oracle: brute force over the remaining tasks; the excluded table names each task."""
    ds = ph.counts_from_arrays([5, 2, 3, 5], [3, 1, 3, 5], tasks=["a", "b", "c", "d"])
    est = ph.estimate(ds, k=[1, 4], on_short="exclude")
    assert est.excluded["task"].tolist() == ["b", "c"]
    assert all("< k = 4" in r for r in est.excluded["reason"])
    expected = (brute_force(5, 3, 4)[0] + brute_force(5, 5, 4)[0]) / 2
    assert close(est.value("pass_hat_k", 4), expected)
    # the same task set for every k: k = 1 averages a and d only
    assert close(est.value("mean", 1), Fraction(3 + 5, 10))
    assert est.value("pass_hat_k", 1) == est.value("mean", 1)
    assert (
        int(est.summary["tasks"].iloc[0]) == 2 and int(est.summary["excluded_tasks"].iloc[0]) == 2
    )
    assert int(est.summary["runs"].iloc[0]) == 10
    assert est.tasks.set_index("task")["included"].to_dict() == {
        "a": True,
        "b": False,
        "c": False,
        "d": True,
    }


def test_min_runs_excludes_with_reason() -> None:
    """Oracle: the min_runs rule; excluded tasks listed with their n and reason."""
    ds = ph.counts_from_arrays([10, 4, 6], [9, 2, 3], tasks=["a", "b", "c"])
    est = ph.estimate(ds, k=2, min_runs=5)
    assert est.excluded["task"].tolist() == ["b"]
    assert est.excluded["reason"].iloc[0] == "n = 4 decided runs < min_runs = 5"
    assert close(est.value("pass_hat_k", 2), (exact_hat(10, 9, 2) + exact_hat(6, 3, 2)) / 2)
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ph.OptionError, match="min_runs"):
            ph.estimate(ds, k=2, min_runs=bad)
    with pytest.raises(ph.OptionError, match="on_short"):
        ph.estimate(ds, k=2, on_short="drop")  # type: ignore[arg-type]


def test_all_unscored_task_is_short() -> None:
    """Oracle: the data model (unscored runs are not in n; n = 0 has no estimate)."""
    df = pd.DataFrame(
        {
            "task_id": ["a"] * 3 + ["b"] * 3,
            "trial": [0, 1, 2] * 2,
            "success": [True, True, False, None, None, None],
        }
    )
    trials = ph.Trials.from_frame(df)
    with pytest.raises(ph.ShortTaskError, match=r"b \(n=0\)"):
        ph.estimate(trials, k=1)
    est = ph.estimate(trials, k=1, on_short="exclude")
    assert est.excluded["task"].tolist() == ["b"]
    assert int(est.excluded["unscored"].iloc[0]) == 3
    assert close(est.value("mean", 1), Fraction(2, 3))
    assert int(est.summary["unscored"].iloc[0]) == 3
    with pytest.raises(ph.ShortTaskError):
        ph.mean_success(0, 0)


def test_tasks_absent_for_one_system_are_ignored() -> None:
    """Oracle: brute force per system over the tasks that system ran (absence is no error)."""
    rows = []
    outcomes = {
        ("s1", "a"): [1, 1, 0, 1],
        ("s1", "b"): [0, 0, 1],
        ("s1", "c"): [1, 1, 1],
        ("s2", "a"): [1, 0, 0],
        ("s2", "c"): [1, 1, 0, 0, 1],
    }
    for (system, task), runs in outcomes.items():
        for trial, ok in enumerate(runs):
            rows.append({"system": system, "task_id": task, "trial": trial, "success": bool(ok)})
    trials = ph.Trials.from_frame(pd.DataFrame(rows))
    est = ph.estimate(trials, k=[1, 2, 3])
    assert est.excluded.empty
    for system in ("s1", "s2"):
        mine = [(len(r), sum(r)) for (s, _), r in outcomes.items() if s == system]
        for k in (1, 2, 3):
            exact = [brute_force(n, c, k) for n, c in mine]
            want_hat = sum(e[0] for e in exact) / len(exact)
            want_at = sum(e[1] for e in exact) / len(exact)
            assert close(est.value("pass_hat_k", k, system), want_hat)
            assert close(est.value("pass_at_k", k, system), want_at)
    assert est.summary.set_index("system")["tasks"].to_dict() == {"s1": 3, "s2": 2}
    per = est.per_task.sel(system="s2", task="b", k=1)
    assert np.isnan(float(per["pass_hat_k"])) and not bool(per["included"])
    assert float(est.per_task["weight"].sel(system="s2", task="b")) == 0.0
    rows = est.tasks[["system", "task", "n", "included"]].values.tolist()
    assert rows == [[s, t, len(r), True] for (s, t), r in outcomes.items()]
    assert float(est.per_task["weight"].sel(system="s2").sum()) == pytest.approx(1.0)


def test_value_needs_a_system_when_several() -> None:
    """Oracle: the Estimate.value contract (exactly one row or an error)."""
    est = ph.estimate(ph.load_example("agents"), k=1)
    with pytest.raises(ph.OptionError, match="name the system"):
        est.value("pass_hat_k", 1)
    systems = est.summary["system"].tolist()
    assert len(systems) == 2
    assert 0 <= est.value("pass_hat_k", 1, systems[0]) <= 1


def test_as_counts_rejects_other_types() -> None:
    """Oracle: the API contract (Trials or a count-table Dataset)."""
    with pytest.raises(ph.ValidationError, match=r"expected passhat\.Trials"):
        ph.estimate(pd.DataFrame({"n": [1], "c": [1]}), k=1)  # type: ignore[arg-type]


def test_macro_average_over_many_tasks_is_exact_to_rounding() -> None:
    """Oracle: exact Fractions over the distinct (n, c) pairs × multiplicity (20,000 tasks).

    A naive running sum over tasks drifts by ~ε·T (≈1e-12 at 10^5 tasks); the average
    must stay within a few ulps of the exact value.
    """
    rng = np.random.default_rng(2026)
    n = rng.integers(10, 13, size=20_000)
    c = np.array([rng.integers(0, m + 1) for m in n])
    ks = [1, 3, 10]
    est = ph.estimate(ph.counts_from_arrays(n, c), k=ks)
    pairs, mult = np.unique(np.stack([n, c], axis=1), axis=0, return_counts=True)
    for k in ks:
        terms = zip(pairs.tolist(), mult.tolist(), strict=True)
        exact_hat_sum = sum((m * exact_hat(nn, cc, k) for (nn, cc), m in terms), Fraction(0))
        assert abs(est.value("pass_hat_k", k) - float(exact_hat_sum / len(n))) < 1e-15


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
        assert _rel(float(hat[i]), exact_hat(*case)) < 1e-13, case
        assert _rel(float(at[i]), exact_at(*case)) < 1e-13, case
    # and the same values as element-by-element calls (no compression for tiny arrays)
    for i in range(0, size, 97):
        assert float(ph.pass_hat_k(n[i], c[i], k[i])) == hat[i]


def test_error_when_exclusions_leave_no_task() -> None:
    """Every task short of --min-runs: a clear ShortTaskError, not an empty table (KeyError)."""
    ds = ph.counts_from_arrays([3, 3], [1, 2], tasks=["a", "b"])
    with pytest.raises(ph.ShortTaskError, match="no task of system"):
        ph.estimate(ds, k=2, min_runs=4, on_short="exclude")


def test_per_task_is_built_lazily_and_matches_the_table() -> None:
    """Benchmark values come from distinct (n, c) pairs; the per-task expansion agrees."""
    rng = np.random.default_rng(7)
    n = rng.integers(5, 12, size=300)
    c = rng.binomial(n, rng.beta(0.6, 0.4, size=300))
    est = ph.estimate(ph.counts_from_arrays(n, c), k=[1, 3, 5])
    assert est._per_task is None
    per = est.per_task
    for metric in ("mean", "pass_at_k", "pass_hat_k"):
        direct = per[metric].values[0].mean(axis=0)
        table = est.table[est.table["metric"] == metric]["value"].to_numpy()
        np.testing.assert_allclose(table, direct, rtol=0, atol=1e-14)
