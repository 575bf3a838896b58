"""Property tests (hypothesis) of ``estimate`` in unusual regimes, with intervals.

Regimes: one or two tasks, one run, k = n, k > n for some tasks, unequal n, every task
all-pass or all-fail, one flaky task, extreme declared weights (1e-9 vs 1e9), 10^4 runs per
task with k up to 500.

Oracles: exact rational arithmetic (``fractions.Fraction`` with ``math.comb``) of the
weighted averages of C(c,k)/C(n,k) and 1 − C(n−c,k)/C(n,k); the orderings pass^k ≤ mean ≤
pass@k (equal at k = 1) and monotonicity in k; and the output contract: values and bounds in
[0, 1], lower ≤ upper, an interval either contains its value or the notes say why, both scopes
named, and a k above a task's n refused (naming the task) or the task excluded with a count.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import passhat as ph

N_BOOT = 100


def _exact(n: list[int], c: list[int], w: list[float], k: int) -> tuple[float, float, float]:
    """Weighted mean, pass@k and pass^k by exact rational arithmetic."""
    ws = [Fraction(x) for x in w]
    tot = sum(ws)
    mean = sum(wi * Fraction(ci, ni) for wi, ni, ci in zip(ws, n, c, strict=True)) / tot
    at = sum(
        wi * (1 - Fraction(math.comb(ni - ci, k), math.comb(ni, k)))
        for wi, ni, ci in zip(ws, n, c, strict=True)
    )
    hat = sum(
        wi * Fraction(math.comb(ci, k), math.comb(ni, k))
        for wi, ni, ci in zip(ws, n, c, strict=True)
    )
    return float(mean), float(at / tot), float(hat / tot)


@st.composite
def regimes(draw: st.DrawFn) -> tuple[list[int], list[int]]:
    """Small data sets, tilted toward the degenerate regimes."""
    t = draw(st.integers(1, 6))
    n = draw(st.lists(st.integers(1, 9), min_size=t, max_size=t))
    kind = draw(st.sampled_from(["random", "all_pass", "all_fail", "one_flaky", "equal_n"]))
    if kind == "equal_n":
        n = [n[0]] * t
    if kind == "all_pass":
        c = list(n)
    elif kind == "all_fail":
        c = [0] * t
    elif kind == "one_flaky":
        n = [max(m, 2) for m in n]
        c = [*n[:-1], draw(st.integers(1, n[-1] - 1))]
    else:
        c = [draw(st.integers(0, m)) for m in n]
    return n, c


def _check_table(est: ph.Estimate) -> None:
    t = est.table
    assert set(t["scope"]) == {"benchmark", "population"}
    assert t["value"].between(-1e-12, 1 + 1e-12).all()
    assert (t["lower"] >= -1e-12).all() and (t["upper"] <= 1 + 1e-12).all()
    assert (t["lower"] <= t["upper"] + 1e-12).all()
    outside = (t["value"] < t["lower"] - 1e-9) | (t["value"] > t["upper"] + 1e-9)
    if outside.any():
        assert any(f"{int(outside.sum())} interval(s) do not contain" in s for s in est.notes)


@given(regimes(), st.integers(1, 9))
def test_values_match_exact_arithmetic_and_intervals_keep_the_contract(case, kmax) -> None:
    n, c = case
    k = min(kmax, min(n))
    ks = sorted({1, k})
    est = ph.estimate(ph.counts_from_arrays(n, c), k=ks, ci=0.9, n_boot=N_BOOT)
    for kk in ks:
        mean, at, hat = _exact(n, c, [1.0] * len(n), kk)
        assert est.value("mean", kk) == pytest.approx(mean, abs=1e-12)
        assert est.value("pass_at_k", kk) == pytest.approx(at, abs=1e-12)
        assert est.value("pass_hat_k", kk) == pytest.approx(hat, abs=1e-12)
        assert hat <= mean + 1e-12 <= at + 2e-12
    if ks == [1, k] and k > 1:
        assert est.value("pass_hat_k", k) <= est.value("pass_hat_k", 1) + 1e-12
        assert est.value("pass_at_k", k) >= est.value("pass_at_k", 1) - 1e-12
    assert est.value("pass_hat_k", 1) == est.value("mean", 1) == est.value("pass_at_k", 1)
    _check_table(est)


@given(regimes())
def test_k_above_some_tasks_n_is_refused_or_excluded_with_a_count(case) -> None:
    n, c = case
    k = max(n)
    short = [i for i, m in enumerate(n) if m < k]
    tasks = [f"task{i}" for i in range(len(n))]
    ds = ph.counts_from_arrays(n, c, tasks=tasks)
    if not short:
        assert ph.estimate(ds, k=k).value("pass_hat_k", k) >= 0
        return
    with pytest.raises(ph.ShortTaskError, match=tasks[short[0]]):
        ph.estimate(ds, k=k)
    est = ph.estimate(ds, k=k, on_short="exclude")
    assert len(est.excluded) == len(short)
    counted = [int(s.split()[1]) for s in est.notes if s.startswith("excluded ")]
    assert sum(counted) == len(short)  # one note per reason, each with its count
    keep = [i for i in range(len(n)) if i not in short]
    _, at, hat = _exact([n[i] for i in keep], [c[i] for i in keep], [1.0] * len(keep), k)
    assert est.value("pass_hat_k", k) == pytest.approx(hat, abs=1e-12)
    assert est.value("pass_at_k", k) == pytest.approx(at, abs=1e-12)


@pytest.mark.parametrize("weights", [[1e-9, 1e9], [1e9, 1e-9, 1.0], [1e-300, 1.0], [1e300] * 3])
def test_extreme_declared_weights_match_exact_arithmetic(weights: list[float]) -> None:
    n = [10, 10, 7][: len(weights)]
    c = [3, 9, 7][: len(weights)]
    ds = ph.counts_from_arrays(n, c, weight=weights)
    est = ph.estimate(ds, k=[1, 3], weights="declared", ci=0.9, n_boot=N_BOOT)
    for k in (1, 3):
        mean, at, hat = _exact(n, c, weights, k)
        assert est.value("mean", k) == pytest.approx(mean, rel=1e-12, abs=1e-15)
        assert est.value("pass_at_k", k) == pytest.approx(at, rel=1e-12, abs=1e-15)
        assert est.value("pass_hat_k", k) == pytest.approx(hat, rel=1e-12, abs=1e-15)
    _check_table(est)


@pytest.mark.parametrize("k", [1, 100, 500])
def test_ten_thousand_runs_and_large_k_match_exact_arithmetic(k: int) -> None:
    n = [10_000] * 4
    c = [10_000, 9_990, 5_000, 10]
    est = ph.estimate(ph.counts_from_arrays(n, c), k=k, ci=0.9, n_boot=N_BOOT)
    mean, at, hat = _exact(n, c, [1.0] * 4, k)
    assert est.value("pass_hat_k", k) == pytest.approx(hat, rel=1e-12, abs=1e-300)
    assert est.value("pass_at_k", k) == pytest.approx(at, rel=1e-12)
    assert est.value("mean", k) == pytest.approx(mean, rel=1e-12)
    _check_table(est)


@pytest.mark.parametrize(("n", "c"), [([1], [1]), ([1], [0]), ([1, 1], [1, 0]), ([3], [2])])
def test_one_run_or_one_task_keeps_the_contract(n: list[int], c: list[int]) -> None:
    est = ph.estimate(ph.counts_from_arrays(n, c), k=1, ci=0.95, n_boot=N_BOOT)
    assert est.value("mean", 1) == pytest.approx(float(np.mean(np.divide(c, n))), abs=1e-15)
    _check_table(est)
    assert np.isfinite(est.table[["lower", "upper"]].to_numpy(dtype=float)).all()
