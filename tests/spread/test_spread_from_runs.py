"""passhat.spread.from_runs: clustered vs uniform spread from runs.

Oracles: the seeds' "two 50% agents" example, brute force with math.comb (the gap split by
task, the share of tasks carrying 80% of it), counting by hand (always-pass / always-fail /
flaky tasks and where the failing runs are), passhat.estimate (the pass^k interval) and
passhat.spread.heterogeneity_test (the per-system test).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import passhat as ph
from passhat.spread import CLUSTERED, heterogeneity_test


def test_two_fifty_percent_agents_from_runs() -> None:
    # 100 tasks × 5 runs, half 5/5 and half 0/5: measured 50.0% vs uniform 3.1%
    counts = ph.counts_from_arrays([5] * 100, [5] * 50 + [0] * 50)
    row = ph.spread(counts, k=5).row("system", 5)
    assert f"{row['pass_hat_k']:.1%}" == "50.0%" and f"{row['uniform']:.1%}" == "3.1%"
    assert row["flaky_share"] == 0 and row["gap"] == 0
    assert "no gap" in ph.spread(counts, k=5).sentence("system", 5)
    # and the test sees the clustering: half the tasks never fail, half never pass
    assert row["clustered"] and row["p_value"] < 0.01


def test_gap_split_by_task_brute_force() -> None:
    rng = np.random.default_rng(3)
    n = rng.integers(5, 9, size=40)
    c = rng.binomial(n, rng.beta(0.6, 0.4, size=40))
    counts = ph.counts_from_arrays(n, c, tasks=[f"t{i}" for i in range(40)])
    sp = ph.spread(counts, k=[2, 5])
    for k in (2, 5):
        brute = np.array(
            [
                ci / ni - math.comb(int(ci), k) / math.comb(int(ni), k)
                for ni, ci in zip(n, c, strict=True)
            ]
        ) / len(n)
        row = sp.row("system", k)
        contrib = sp.contributions[sp.contributions["k"] == k]
        assert contrib["contribution"].sum() == pytest.approx(row["gap"], abs=1e-12)
        assert row["gap"] == pytest.approx(brute.sum(), abs=1e-12)
        # worst first, the exact brute-force values, and only tasks with both outcomes
        expect = np.sort(brute[brute > 0])[::-1]
        np.testing.assert_allclose(contrib["contribution"].to_numpy(), expect, atol=1e-12)
        assert set(contrib["task"]) == {f"t{i}" for i in np.flatnonzero((c > 0) & (c < n))}
        # smallest share of tasks carrying 80% of the gap, by brute force
        cum = np.cumsum(expect) / expect.sum()
        assert row["tasks_for_80"] == pytest.approx((np.argmax(cum >= 0.8) + 1) / 40)
        assert row["tasks_for_100"] == pytest.approx(((c > 0) & (c < n)).sum() / 40)
        assert contrib["cumulative"].iloc[-1] == pytest.approx(1.0)
        assert row["uniform"] == pytest.approx(row["mean"] ** k)
        assert row["consistency"] == pytest.approx(row["pass_hat_k"] / row["mean"])


def test_shares_and_sentence_on_example(agents_trials) -> None:
    sp = ph.spread(agents_trials, k=[1, 5])
    counts = agents_trials.counts()
    for s, system in enumerate(counts["system"].values):
        n, c = counts["n"].values[s], counts["c"].values[s]
        sh = sp.shares[sp.shares["system"] == system].iloc[0]
        assert sh["always_pass"] == int((c == n).sum())
        assert sh["always_fail"] == int((c == 0).sum())
        assert sh["flaky"] == int(((c > 0) & (c < n)).sum())
        # where the failing runs are, counted by hand
        assert sh["failures"] == int((n - c).sum())
        assert sh["failures_always_fail"] == int(n[c == 0].sum())
        assert sh["failures_flaky"] == int((n - c)[(c > 0) & (c < n)].sum())
        assert sh["failures_always_fail"] + sh["failures_flaky"] == sh["failures"]
        row = sp.row(system, 5)
        text = sp.sentence(system, 5)
        # written from the numbers, not hard-coded
        assert f"{row['flaky_share']:.0%} of tasks" in text
        assert f"{row['gap'] * 100:.1f}-point gap" in text
        assert f"{sh['failures_always_fail_share']:.0%} in tasks that always fail" in text
    assert "k = 1" in sp.sentence(str(counts["system"].values[0]), 1)


def test_spread_short_tasks_error_names_task() -> None:
    counts = ph.counts_from_arrays([5, 2], [3, 1], tasks=["long", "short-one"])
    with pytest.raises(ph.ShortTaskError, match="short-one"):
        ph.spread(counts, k=5)
    sp = ph.spread(counts, k=5, on_short="exclude")
    assert sp.row("system", 5)["tasks"] == 1 and len(sp.excluded) == 1
    # one task left: nothing to compare it with, so no test and no clustering claim
    assert not sp.row("system", 5)["testable"] and not sp.row("system", 5)["clustered"]


def test_spread_even_spread_sentence() -> None:
    # every task 3 of 5: unbiased pass^2 = C(3,2)/C(5,2) = 0.3 < 0.6² = 0.36 (no clustering)
    counts = ph.counts_from_arrays([5] * 20, [3] * 20)
    sp = ph.spread(counts, k=2)
    row = sp.row("system", 2)
    assert row["pass_hat_k"] == pytest.approx(math.comb(3, 2) / math.comb(5, 2))
    assert row["ratio"] == pytest.approx(0.3 / 0.36)
    text = sp.sentence("system", 2)
    assert "no sign that failures cluster" in text and "concentrate" not in text
    assert "100% of tasks have both outcomes" in text
    assert CLUSTERED not in text.replace("do not show " + CLUSTERED[:8], "")
    assert not row["clustered"]


def test_spread_with_intervals_matches_estimate() -> None:
    # the pass^k interval of the spread table is the population-scope interval of estimate
    trials = ph.load_example("agents")
    sp = ph.spread(trials, k=[2, 5], ci=0.9, n_boot=400, seed=1)
    est = ph.estimate(trials, k=[2, 5], ci=0.9, n_boot=400, seed=1)
    t = est.table
    for r in sp.table.to_dict(orient="records"):
        iv = t[
            (t["system"] == r["system"])
            & (t["k"] == r["k"])
            & (t["metric"] == "pass_hat_k")
            & (t["scope"] == "population")
        ].iloc[0]
        assert (r["pass_hat_k_lower"], r["pass_hat_k_upper"]) == (iv["lower"], iv["upper"])
        assert r["pass_hat_k_lower"] <= r["pass_hat_k"] <= r["pass_hat_k_upper"]
        assert r["scope"] == "population" and "bootstrap" in r["method"]


def test_heterogeneity_table_is_the_test_of_each_system(agents_trials) -> None:
    sp = ph.spread(agents_trials, k=[1, 5], ci=0.9, n_boot=300, seed=3)
    counts = agents_trials.counts()
    het = sp.heterogeneity.set_index("system")
    for s, system in enumerate(counts["system"].values):
        n, c = counts["n"].values[s], counts["c"].values[s]
        direct = heterogeneity_test(n, c, n_draws=300, seed=0)
        h = het.loc[system]
        assert h["statistic"] == pytest.approx(direct.statistic, rel=1e-12)
        assert (h["tasks"], h["runs"]) == (direct.tasks, direct.runs)
        # the level is 1 − ci, and "clustered" is the test's decision at it
        assert h["alpha"] == pytest.approx(0.1)
        assert bool(h["clustered"]) == (h["p_value"] <= 0.1)
        assert h["icc_lower"] <= h["icc"] <= h["icc_upper"]
        for k in (1, 5):
            row = sp.row(system, k)
            assert row["p_value"] == h["p_value"] and row["clustered"] == h["clustered"]
    # the same seed gives the same p-values and intervals
    again = ph.spread(agents_trials, k=[1, 5], ci=0.9, n_boot=300, seed=3)
    assert again.heterogeneity["p_value"].tolist() == sp.heterogeneity["p_value"].tolist()
    assert again.table["ratio_upper"].tolist() == sp.table["ratio_upper"].tolist()


def test_ratio_interval_reaches_one_exactly_when_the_test_does_not_reject() -> None:
    rng = np.random.default_rng(8)
    seen = set()
    for rep in range(12):
        kappa = [0.5, 3.0, 1e9][rep % 3]
        p = rng.beta(0.7 * kappa, 0.3 * kappa, size=25)
        counts = ph.counts_from_arrays(np.full(25, 4), rng.binomial(4, p))
        sp = ph.spread(counts, k=[1, 4], ci=0.9, n_boot=200, seed=rep)
        row = sp.row("system", 4)
        seen.add(bool(row["clustered"]))
        assert (row["ratio_lower"] == 1.0) == (not row["clustered"])
        assert row["ratio_lower"] >= 1.0 - 1e-12  # the population ratio is ≥ 1 (Jensen)
        assert row["tasks_for_80_model_lower"] <= row["tasks_for_80_model_upper"] <= 0.8 + 1e-12
        if not row["clustered"]:  # the homogeneous model joins: 80% of tasks carry 80%
            assert row["tasks_for_80_model_upper"] == pytest.approx(0.8)
        k1 = sp.row("system", 1)
        assert k1["ratio_lower"] == pytest.approx(1.0) and math.isnan(k1["tasks_for_80_model"])
    assert seen == {True, False}  # both branches were exercised


def test_weights_are_noted_for_the_model_based_figures() -> None:
    counts = ph.counts_from_arrays([4] * 6, [4, 0, 2, 4, 1, 3])
    plain = ph.spread(counts, k=2)
    weighted = ph.spread(counts, k=2, weights={str(i): float(i + 1) for i in range(6)})
    assert "weights" not in plain.method
    assert "equally weighted" in weighted.method["weights"]


# ---------------------------------------- a figure outside its interval is said, never left
def test_spread_single_task_gives_no_model_interval_and_says_why() -> None:
    # One task, 7 of 10: the sample ratio at k = 5 is C(7,5)/C(10,5) / 0.7^5 = 0.0833/0.168 =
    # 0.496, and one task says nothing about how task rates spread, so the old population
    # interval (1.0–357×) was the prior's and did not contain the 0.5× printed beside it.
    sp = ph.spread(ph.counts_from_arrays([10], [7]), k=[1, 5], ci=0.95, n_boot=200)
    row = sp.row("system", 5)
    assert row["ratio"] == pytest.approx((math.comb(7, 5) / math.comb(10, 5)) / 0.7**5)
    for key in ("ratio", "consistency", "tasks_for_80_model"):
        assert math.isnan(row[f"{key}_lower"]) and math.isnan(row[f"{key}_upper"])
    assert math.isnan(sp.heterogeneity["icc_lower"].iloc[0])
    assert any("fewer than two tasks" in n for n in sp.notes)
    k1 = sp.row("system", 1)  # k = 1: equal by definition, no rounding residue
    assert k1["gap"] == 0.0 and k1["ratio"] == 1.0


def test_spread_sample_ratio_below_population_interval_gets_a_note() -> None:
    # 30 tasks × 5 runs at one common rate: the sample ratio is below 1 (the unbiased pass^k
    # over the plug-in mean^k), the population interval starts at 1 (Jensen): said in a note.
    c = [3] * 20 + [4] * 10
    sp = ph.spread(ph.counts_from_arrays([5] * 30, c), k=5, ci=0.95, n_boot=200)
    row = sp.row("system", 5)
    hat = (20 * math.comb(3, 5) + 10 * math.comb(4, 5)) / 30 / math.comb(5, 5)
    mean = (20 * 3 + 10 * 4) / 150
    assert row["ratio"] == pytest.approx(hat / mean**5) and row["ratio"] < row["ratio_lower"]
    assert any("outside their population interval" in n and "Jensen" in n for n in sp.notes)


@st.composite
def _small_counts(draw: st.DrawFn) -> tuple[list[int], list[int]]:
    t = draw(st.integers(1, 6))
    n = draw(st.lists(st.integers(1, 8), min_size=t, max_size=t))
    c = [draw(st.integers(0, m)) for m in n]
    return n, c


@given(_small_counts(), st.integers(1, 4))
def test_spread_every_figure_in_its_interval_or_noted(
    counts: tuple[list[int], list[int]], kmax: int
) -> None:
    n, c = counts
    ks = sorted({1, min(kmax, min(n))})
    sp = ph.spread(ph.counts_from_arrays(n, c), k=ks, ci=0.9, n_boot=100)
    t = sp.table
    for key in ("ratio", "consistency"):
        lo, hi, v = (t[f"{key}_lower"], t[f"{key}_upper"], t[key])
        ok = lo.isna() | hi.isna() | v.isna() | ((v >= lo - 1e-9) & (v <= hi + 1e-9))
        assert (lo.isna() | hi.isna() | (lo <= hi)).all()
        if not ok.all():
            assert any(
                f"{'pass^k / mean^k' if key == 'ratio' else 'pass^k / mean'} value" in s
                for s in sp.notes
            )
    assert ((t["gap"] >= -1e-12) | (t["k"] > 1)).all() and (t.loc[t["k"] == 1, "gap"] == 0).all()
    if len(n) < 2:
        assert t["ratio_lower"].isna().all()


def test_a_systems_spread_does_not_depend_on_its_neighbours() -> None:
    """Issue 33, item 12: each system's test and posterior draw from its own named stream."""
    import passhat as ph

    runs = ph.load_example("agents")
    frame = runs.frame
    alone = ph.Trials.from_frame(frame[frame["system"] == "guided"], where="x")
    a = ph.spread(alone, k=[1, 3], ci=0.9, n_boot=300, seed=2).table
    b = ph.spread(runs, k=[1, 3], ci=0.9, n_boot=300, seed=2).table
    pd.testing.assert_frame_equal(
        a.reset_index(drop=True), b[b["system"] == "guided"].reset_index(drop=True)
    )
