"""Tests of passhat.intervals: per-task intervals, benchmark SE, both scopes per system.

Oracles: statsmodels ``proportion_confint`` (per-task intervals); exact
enumeration of the binomial distribution (variance estimates); simulation
with known truth and Monte-Carlo tolerances (coverage); the engine's own
functions (benchmark_se, task_bootstrap, scope_intervals) for the tables that
combine them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

import passhat as ph
from passhat._validate import named_rng
from passhat.bootstrap import task_bootstrap
from passhat.errors import OptionError
from passhat.intervals import (
    benchmark_se,
    estimate_intervals,
    proportion_interval,
    value_outside_note,
)
from passhat.scopes import scope_intervals

SM_NAME = {"wilson": "wilson", "clopper-pearson": "beta", "jeffreys": "jeffreys"}


# ------------------------------------------------------------ per task
@pytest.mark.parametrize("method", ["wilson", "clopper-pearson", "jeffreys"])
@pytest.mark.parametrize("ci", [0.8, 0.95, 0.99])
def test_proportion_interval_matches_statsmodels(method: str, ci: float) -> None:
    n = np.concatenate([np.full(k + 1, k) for k in range(1, 31)])
    c = np.concatenate([np.arange(k + 1) for k in range(1, 31)])
    lo, hi = proportion_interval(n, c, method=method, ci=ci)
    ref_lo, ref_hi = proportion_confint(c, n, alpha=1 - ci, method=SM_NAME[method])
    if method == "jeffreys":  # Brown, Cai & DasGupta's ends, which statsmodels does not apply
        ref_lo, ref_hi = np.where(c == 0, 0.0, ref_lo), np.where(c == n, 1.0, ref_hi)
    np.testing.assert_allclose(lo, ref_lo, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(hi, ref_hi, rtol=1e-10, atol=1e-12)


def test_jeffreys_interval_contains_its_own_point_at_the_ends() -> None:
    """5 of 5 gave [0.62, 0.9999] (excluding 1) and 0 of 5 gave [0.0001, 0.38].

    Oracle: Brown, Cai and DasGupta (2001), the Jeffreys interval with upper end 1 when
    c = n and lower end 0 when c = 0; the other end is the Beta(c + 1/2, n - c + 1/2)
    quantile (scipy), unchanged.
    """
    lo, hi = proportion_interval([5, 5, 5], [5, 0, 3], method="jeffreys", ci=0.95)
    assert hi[0] == 1.0 and lo[1] == 0.0
    assert lo[0] == pytest.approx(stats.beta.ppf(0.025, 5.5, 0.5), rel=1e-12)
    assert hi[1] == pytest.approx(stats.beta.isf(0.025, 0.5, 5.5), rel=1e-12)
    assert lo[2] == pytest.approx(stats.beta.ppf(0.025, 3.5, 2.5), rel=1e-12)
    assert hi[2] == pytest.approx(stats.beta.isf(0.025, 3.5, 2.5), rel=1e-12)
    ti = ph.task_intervals(ph.counts_from_arrays([5, 5], [5, 0]), method="jeffreys", k=2)
    assert ti["rate_upper"].iloc[0] == 1.0 and ti["pass_hat_2_upper"].iloc[0] == 1.0
    assert ti["rate_lower"].iloc[1] == 0.0 and ti["pass_at_2_lower"].iloc[1] == 0.0


def test_task_intervals_transform_and_table() -> None:
    ds = ph.counts_from_arrays([5, 5, 5, 5, 0], [5, 4, 2, 0, 0], tasks=list("ABCDE"))
    ti = ph.task_intervals(ds, method="clopper-pearson", ci=0.9, k=[2, 3])
    ref_lo, ref_hi = proportion_confint([5, 4, 2, 0], [5] * 4, alpha=0.1, method="beta")
    np.testing.assert_allclose(ti["rate_lower"][:4], ref_lo, atol=1e-12)
    np.testing.assert_allclose(ti["pass_hat_3_lower"][:4], np.asarray(ref_lo) ** 3, atol=1e-12)
    np.testing.assert_allclose(
        ti["pass_at_2_upper"][:4], 1 - (1 - np.asarray(ref_hi)) ** 2, atol=1e-12
    )
    # point values are the unbiased estimates (seeds: .6 and .1 for B, C at k = 2)
    np.testing.assert_allclose(ti["pass_hat_2"][:4], [1.0, 0.6, 0.1, 0.0])
    assert ti["flaky"].tolist() == [False, True, True, False, False]
    assert ti["all_pass"].tolist() == [True, False, False, False, False]
    assert ti["all_fail"].tolist() == [False, False, False, True, False]
    # a task with no decided run has no interval
    assert np.isnan(ti["rate_lower"].iloc[4]) and np.isnan(ti["rate"].iloc[4])
    assert ti["method"].iloc[0] == "clopper-pearson 0.9"


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, "x"])
def test_ci_outside_unit_interval_is_an_option_error(bad: object) -> None:
    with pytest.raises(OptionError, match="ci must"):
        proportion_interval(5, 3, ci=bad)  # type: ignore[arg-type]


def test_bad_method() -> None:
    with pytest.raises(OptionError, match="method must be one of"):
        ph.task_intervals(ph.load_example("abcd"), method="wald")


# ------------------------------------------------------ benchmark scope
@pytest.mark.parametrize(("n", "k"), [(4, 1), (6, 2), (10, 3), (12, 5)])
def test_benchmark_variance_estimate_is_unbiased_by_enumeration(n: int, k: int) -> None:
    """E[V̂] over c ~ Binomial(n, p) equals the exact variance (brute-force enumeration)."""
    for p in (0.1, 0.5, 0.83):
        c = np.arange(n + 1)
        pmf = stats.binom.pmf(c, n, p)
        v_hat = np.array([benchmark_se([n], [cc], k=k)[0] ** 2 for cc in c])
        # se² is floored at 0 per call; recompute unfloored from the estimator itself
        v_raw = ph.pass_hat_k_variance_estimate(np.full(n + 1, n), c, k)
        assert np.all(np.isclose(v_hat, np.maximum(v_raw, 0)))
        u = ph.pass_hat_k(np.full(n + 1, n), c, k)
        exact = np.sum(pmf * (u - p**k) ** 2)
        assert np.sum(pmf * v_raw) == pytest.approx(exact, abs=1e-12)
        assert float(ph.pass_hat_k_variance(n, p, k)) == pytest.approx(exact, abs=1e-12)


def test_benchmark_se_mean_formula_and_plugin_branch() -> None:
    # mean, n ≥ 2: V̂ = c(n−c)/(n²(n−1)); equal weights over 3 tasks → Σ V̂ / 9
    n, c = np.array([10, 8, 5]), np.array([5, 2, 5])
    se, n_plug = benchmark_se(n, c, k=1, metric="mean")
    assert n_plug == 0
    assert se**2 == pytest.approx(np.sum(c * (n - c) / (n**2 * (n - 1))) / 9)
    # n < 2k: the larger of two sums, the exact variance at the shrunk rate (c + 1/2)/(n + 1)
    # and the model-free bound U² − b_c (n = 5, k = 3: b_4 = −0.2, so the 4-of-5 task gives
    # 0.4² + 0.2 = 0.36 and the 1-of-5 task 0; the bound's coefficients: test_variance_bound)
    se, n_plug = benchmark_se([5, 5], [4, 1], k=3, metric="pass_hat_k")
    assert n_plug == 2
    pv = ph.pass_hat_k_variance(np.array([5, 5]), np.array([4.5, 1.5]) / 6, 3)
    assert pv.sum() / 4 < 0.36 / 4
    assert se**2 == pytest.approx(0.36 / 4, abs=1e-4)
    se, _ = benchmark_se([5, 5, 5], [3, 2, 2], k=3, metric="pass_hat_k")  # no task at 4 of 5
    pv = ph.pass_hat_k_variance(np.array([5, 5, 5]), np.array([3.5, 2.5, 2.5]) / 6, 3)
    assert se**2 == pytest.approx(pv.sum() / 9)  # the plug-in's sum is the larger
    # pass@k uses failures: equals pass^k SE of the complement counts
    se_at, _ = benchmark_se([10, 10], [7, 3], k=2, metric="pass_at_k")
    se_hat, _ = benchmark_se([10, 10], [3, 7], k=2, metric="pass_hat_k")
    assert se_at == pytest.approx(se_hat)


# ------------------------------------------------------------ both scopes
def test_estimate_intervals_apply_the_rule_per_system() -> None:
    """Oracle: scope_intervals on each system's included tasks, with the system's own stream
    (derived from the seed and its name: issue 33, item 12)."""
    rng = np.random.default_rng(5)
    n = np.full((2, 40), 5)
    c = np.vstack([rng.binomial(5, rng.beta(1, 1, 40)), np.full(40, 5)])
    both = xr.concat(
        [
            ph.counts_from_arrays(n[0], c[0], system="a"),
            ph.counts_from_arrays(n[1], c[1], system="b"),
        ],
        dim="system",
    )
    w = np.full((2, 40), 1 / 40)
    got = estimate_intervals(both, np.ones((2, 40), bool), w, [1, 2], ci=0.9, n_boot=400, seed=3)
    assert len(got) == 2 * 2 * 3 * 2  # systems × k × metric × scope
    for s, name in enumerate(["a", "b"]):
        gen = named_rng(3, name)
        want = scope_intervals(n[s], c[s], w[s], [1, 2], ci=0.9, n_boot=400, rng=gen)
        part = got[(got["system"] == name) & (got["metric"] != "mean")]
        merged = part.merge(want, on=["metric", "k", "scope"], suffixes=("", "_want"))
        assert len(merged) == len(part)
        np.testing.assert_allclose(merged["lower"], merged["lower_want"])
        np.testing.assert_allclose(merged["upper"], merged["upper_want"])
    # b: every task all-pass — no zero-width interval, and the method says why
    b = got[got["system"] == "b"]
    assert (b["upper"] - b["lower"] > 1e-3).all()
    assert b.loc[b["scope"] == "population", "method"].str.contains("pseudo-task").all()
    assert b.loc[b["scope"] == "benchmark", "method"].str.contains("hierarchical").all()


def test_estimate_intervals_predictive_rows_and_bad_value() -> None:
    ds = ph.counts_from_arrays([4] * 12, [4, 3, 2, 4, 4, 1, 0, 4, 3, 4, 2, 4])
    inc, w = np.ones((1, 12), bool), np.full((1, 12), 1 / 12)
    got = estimate_intervals(ds, inc, w, [2], ci=0.9, n_boot=500, seed=0, predictive=12)
    assert set(got["scope"]) == {"benchmark", "population", "predictive"}
    wide = got.pivot_table(index=["metric", "k"], columns="scope", values="upper") - (
        got.pivot_table(index=["metric", "k"], columns="scope", values="lower")
    )
    assert (wide["predictive"] > wide["population"]).all()
    with pytest.raises(OptionError, match="predictive"):
        estimate_intervals(ds, inc, w, [2], ci=0.9, n_boot=500, predictive=0)


# ------------------------------------------------------------ coverage
def _coverage(
    a: float, b: float, t: int, n: int, k: int, reps: int, seed: int
) -> tuple[float, float]:
    """Share of reps whose population / benchmark interval covers E[p^k] / mean_i p_i^k."""
    rng = np.random.default_rng(seed)
    truth_pop = float(np.prod([(a + j) / (a + b + j) for j in range(k)]))  # E[p^k], Beta
    hit_pop = hit_bench = 0
    for _ in range(reps):
        p = rng.beta(a, b, size=t)
        c = rng.binomial(n, p)
        nn = np.full(t, n)
        v = ph.pass_hat_k(nn, c, k)
        r = task_bootstrap(v, keys=c, n_boot=1000, seed=rng, method="percentile")
        hit_pop += r["lower"][0] <= truth_pop <= r["upper"][0]
        se, _ = benchmark_se(nn, c, k=k)
        z = stats.norm.isf(0.025)
        truth_bench = float(np.mean(p**k))
        hit_bench += v.mean() - z * se <= truth_bench <= v.mean() + z * se
    return hit_pop / reps, hit_bench / reps


@pytest.mark.parametrize(
    ("a", "b", "t", "n", "k"),
    [(2.0, 2.0, 100, 10, 2), (0.5, 0.3, 300, 10, 1)],
)
def test_coverage_short(a: float, b: float, t: int, n: int, k: int) -> None:
    """Coverage within 3 binomial MC s.e. (+0.01 for bootstrap's small-T undercoverage)."""
    reps = 300
    pop, bench = _coverage(a, b, t, n, k, reps, seed=100 + t)
    tol = 3 * np.sqrt(0.95 * 0.05 / reps) + 0.01
    assert abs(pop - 0.95) < tol, pop
    assert abs(bench - 0.95) < tol, bench


def test_an_interval_beside_its_value_is_stated() -> None:
    """One task with 2 passes in 3 runs: the unbiased pass@2 is exactly 1 (1 − C(1,2)/C(3,2)),
    while the posterior interval the rule picks at one task lies below 1. The estimate says so
    in a note naming the row; rows that contain their value give no note."""
    est = ph.estimate(ph.counts_from_arrays([3], [2]), k=[1, 2], ci=0.95, n_boot=500)
    t = est.table
    row = t[(t["metric"] == "pass_at_k") & (t["k"] == 2) & (t["scope"] == "benchmark")].iloc[0]
    assert row["value"] == 1.0 and row["upper"] < 1.0  # the premise of the note
    (note,) = [n for n in est.notes if "do not contain their point value" in n]
    assert "system pass@2 (benchmark): 1.000 outside" in note
    inside = t[(t["value"] >= t["lower"]) & (t["value"] <= t["upper"])]
    assert value_outside_note(inside) == []
    # a comparison names both systems and the difference
    diff = inside.assign(baseline="A", candidate="B", difference=inside["upper"] + 0.1)
    (msg,) = value_outside_note(diff, value="difference", who=("baseline", "candidate"))
    assert msg.startswith(f"{len(diff)} interval(s)") and "A vs B" in msg


def test_a_systems_interval_does_not_depend_on_its_neighbours() -> None:
    """Issue 33, item 12: ``estimate --ci`` gave baseline pass^5 [0.565, 0.708] alone and
    [0.560, 0.702] when the other system's rows came first (one stream shared in file order).
    Each system now draws from a stream derived from the seed and its name."""
    import passhat as ph

    runs = ph.load_example("agents")
    frame = runs.frame
    both = ph.Trials.from_frame(frame.sort_values("system", ascending=False), where="agents")
    alone = ph.Trials.from_frame(frame[frame["system"] == "baseline"], where="agents")
    cols = ["system", "k", "metric", "scope", "lower", "upper"]

    def rows(data: ph.Trials) -> pd.DataFrame:
        t = ph.estimate(data, k=[1, 5], ci=0.95, n_boot=400, seed=3).table
        return t[t["system"] == "baseline"][cols].reset_index(drop=True)

    pd.testing.assert_frame_equal(rows(alone), rows(both))
    assert ph.estimate(both, k=[1, 5], ci=0.95, n_boot=400, seed=3).table.iloc[0]["system"] == (
        "guided"
    )  # the other system really came first
