"""Tests of passhat.compare.paired: the paired comparison (compare, paired_difference).

Oracles: the difference of the two systems' own estimates (exact), a
hand-made McNemar example, scipy's binomtest (exact McNemar), and simulations
with known truth: an A/A comparison rejects at ~the nominal rate, and a known
shift is detected at the rate a normal-approximation power calculation with a
Monte-Carlo variance predicts (tolerance = 3 binomial s.e. + 0.05 for the
approximation).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import passhat as ph
from passhat._validate import named_rng
from passhat.compare import paired_difference
from passhat.errors import OptionError, ShortTaskError, ValidationError


def _pair(n_a, c_a, n_b, c_b, tasks=None, tasks_b=None):  # type: ignore[no-untyped-def]
    a = ph.counts_from_arrays(n_a, c_a, tasks=tasks, system="A")
    b = ph.counts_from_arrays(n_b, c_b, tasks=tasks_b if tasks_b is not None else tasks, system="B")
    return a, b


def test_ph_compare_is_the_paired_comparison() -> None:
    # the package passhat.compare must not shadow the function
    import sys

    assert callable(ph.compare) and ph.compare is sys.modules["passhat.compare"].compare


def test_compare_matches_its_array_core() -> None:
    a, b = _pair([5, 5, 4, 6], [1, 5, 2, 0], [5, 5, 4, 6], [3, 5, 2, 6])
    got = ph.compare(a, b, k=[1, 2], n_boot=300, seed=4).table.drop(
        columns=["baseline", "candidate"]
    )
    want = paired_difference(
        [5, 5, 4, 6],
        [1, 5, 2, 0],
        [5, 5, 4, 6],
        [3, 5, 2, 6],
        k=[1, 2],
        n_boot=300,
        seed=named_rng(4, "A", "B"),  # the pair's own stream (issue 33, item 12)
    )
    import pandas as pd

    key = ["k", "metric", "scope"]
    pd.testing.assert_frame_equal(
        got.sort_values(key).reset_index(drop=True), want.sort_values(key).reset_index(drop=True)
    )


def test_difference_equals_difference_of_estimates() -> None:
    trials = ph.load_example("agents")
    cmp = ph.compare(trials, k=[1, 3], seed=0, n_boot=500)
    est = ph.estimate(trials, k=[1, 3])
    for _, r in cmp.table.iterrows():
        want = est.value(r["metric"], r["k"], "guided") - est.value(r["metric"], r["k"], "baseline")
        assert r["difference"] == pytest.approx(want, abs=1e-12)
        assert r["lower"] <= r["difference"] <= r["upper"]
        assert 0 < r["p_value"] <= 1
    assert set(cmp.table["scope"]) == {"benchmark", "population"}
    assert cmp.table["p_method"].str.contains("sign-flip").any()
    assert len(cmp.table) == 2 * 3 * 2  # k × metric × scope


def test_mcnemar_counts_hand_example() -> None:
    # tasks: both pass; only A; only B ×3; both fail; A better rate but both succeed once
    a, b = _pair([1] * 6, [1, 1, 0, 0, 0, 0], [1] * 6, [1, 0, 1, 1, 1, 0])
    d = ph.compare(a, b, k=1, seed=0, n_boot=200).discordant.iloc[0]
    assert (d["only_base"], d["only_cand"], d["ties"]) == (1, 3, 2)
    assert d["mcnemar_p"] == pytest.approx(stats.binomtest(3, 4, 0.5).pvalue)
    a, b = _pair([4, 4], [3, 0], [4, 4], [1, 2])
    d = ph.compare(a, b, k=1, seed=0, n_boot=200).discordant.iloc[0]
    assert (d["only_base"], d["only_cand"], d["base_better"], d["cand_better"]) == (0, 1, 1, 1)
    assert np.isnan(d["mcnemar_p"])  # not single-run data


def test_unmatched_tasks_error_or_intersect() -> None:
    a, b = _pair(
        [5, 5, 5], [1, 2, 3], [5, 5, 5], [1, 2, 3], tasks=["x", "y", "z"], tasks_b=["x", "y", "w"]
    )
    with pytest.raises(ValidationError, match=r"2 task\(s\) not run by both.*z \(only A\)"):
        ph.compare(a, b, k=1)
    cmp = ph.compare(a, b, k=1, intersect=True, n_boot=200, seed=0)
    assert cmp.discordant["dropped_tasks"].iloc[0] == 2
    assert sorted(cmp.dropped["task"]) == ["w", "z"]
    assert (cmp.table["tasks"] == 2).all()


def test_bad_input() -> None:
    a, b = _pair([5, 5], [1, 2], [5, 5], [1, 2], tasks=["x", "y"], tasks_b=["u", "v"])
    with pytest.raises(ValidationError, match="no task in common"):
        ph.compare(a, b, k=1, intersect=True)
    a, b = _pair([5, 3], [1, 2], [5, 5], [1, 2])
    with pytest.raises(ShortTaskError, match="k = 4 exceeds the smallest n = 3"):
        ph.compare(a, b, k=[1, 4])
    with pytest.raises(OptionError, match="ci must"):
        ph.compare(a, b, k=1, ci=0)
    with pytest.raises(OptionError, match="n_boot"):
        ph.compare(a, b, k=1, n_boot=99)
    with pytest.raises(ValidationError, match=r"hold one"):
        ph.compare(a, k=1)


def test_negative_seed_is_an_option_error() -> None:
    data = ph.counts_from_arrays([2, 2, 2], [1, 2, 0])
    with pytest.raises(OptionError, match="seed"):
        ph.compare(data, data, n_boot=100, seed=-1)


def test_baseline_with_several_systems() -> None:
    df = ph.load_example("agents").frame
    third = df[df["system"] == "guided"].assign(system="third")
    import pandas as pd

    trials = ph.Trials.from_frame(pd.concat([df, third]))
    with pytest.raises(OptionError, match="name the baseline"):
        ph.compare(trials, k=1)
    cmp = ph.compare(trials, k=1, baseline="guided", seed=1, n_boot=300)
    assert list(pd.unique(cmp.table["candidate"])) == ["baseline", "third"]
    third_rows = cmp.table[cmp.table["candidate"] == "third"]
    # identical systems: no difference, every interval holds 0 and no test rejects
    assert (third_rows["difference"] == 0).all()
    assert ((third_rows["lower"] <= 0) & (third_rows["upper"] >= 0)).all()
    assert (third_rows["p_value"] > 0.5).all()
    bench = third_rows[third_rows["scope"] == "benchmark"]
    assert (bench["p_value"] == 1).all()  # normal test of an exact zero


def _sim_pair(rng, t, n, pa, pb):  # type: ignore[no-untyped-def]
    nn = np.full(t, n)
    return nn, rng.binomial(n, pa), nn, rng.binomial(n, pb)


def test_aa_false_positive_rate_is_nominal() -> None:
    """A/A: both systems share every task's p; rejections at 5% ≈ 5% (3 MC s.e.)."""
    rng = np.random.default_rng(20)
    reps, t, n = 300, 60, 5
    rej_perm = rej_ci = rej_bench = 0
    for _ in range(reps):
        p = rng.beta(0.6, 0.4, size=t)
        tab = paired_difference(*_sim_pair(rng, t, n, p, p), k=2, n_boot=400, seed=rng)
        r = tab[(tab["metric"] == "pass_hat_k")].set_index("scope")
        rej_perm += r.loc["population", "p_value"] < 0.05
        rej_ci += not (r.loc["population", "lower"] <= 0 <= r.loc["population", "upper"])
        rej_bench += r.loc["benchmark", "p_value"] < 0.05
    tol = 3 * np.sqrt(0.05 * 0.95 / reps)
    for rate in (rej_perm / reps, rej_ci / reps, rej_bench / reps):
        assert rate < 0.05 + tol + 0.01, (rej_perm, rej_ci, rej_bench)


def test_known_shift_detected_at_predicted_rate() -> None:
    """B = A + 0.1 on the logit-free scale (p_B = min(1, p_A + 0.1)); power vs prediction."""
    rng = np.random.default_rng(21)
    t, n, k = 80, 5, 1
    # predicted power: normal approximation with Var(d_i) from a large simulation
    big = 400_000
    p = rng.beta(2, 2, size=big)
    pb = np.minimum(1.0, p + 0.1)
    d = rng.binomial(n, pb) / n - rng.binomial(n, p) / n
    delta, sd = d.mean(), d.std()
    z = stats.norm.isf(0.025)
    shift = delta * np.sqrt(t) / sd
    predicted = stats.norm.sf(z - shift) + stats.norm.cdf(-z - shift)
    reps, hits = 300, 0
    for _ in range(reps):
        pa = rng.beta(2, 2, size=t)
        pb = np.minimum(1.0, pa + 0.1)
        tab = paired_difference(*_sim_pair(rng, t, n, pa, pb), k=k, n_boot=400, seed=rng)
        r = tab[(tab["metric"] == "mean") & (tab["scope"] == "population")].iloc[0]
        hits += r["p_value"] < 0.05
    tol = 3 * np.sqrt(predicted * (1 - predicted) / reps) + 0.05
    assert 0.3 < predicted < 0.95  # a test that can tell
    assert abs(hits / reps - predicted) < tol, (hits / reps, predicted)


def test_min_runs_applies_to_matched_tasks_and_lists_them() -> None:
    """Issue 12 item 7. Oracle: compare on the hand-made subset of tasks that remain."""
    a, b = _pair([4, 2, 4, 4, 4], [3, 1, 2, 4, 0], [4, 4, 4, 1, 4], [4, 2, 1, 1, 3], list("vwxyz"))
    cmp = ph.compare(a, b, k=[1, 2], min_runs=3, n_boot=300, seed=1)
    assert cmp.dropped[["task", "reason"]].values.tolist() == [
        ["w", "A: n = 2 decided runs < min_runs = 3"],
        ["y", "B: n = 1 decided runs < min_runs = 3"],
    ]
    assert cmp.dropped["only"].isna().all()
    # the line gives the reason (it once said 'run by one system only' for every dropped task)
    note = [line for line in repr(cmp).splitlines() if "left out" in line]
    assert note == [
        "left out 2 matched task(s) for both systems: w (A: n = 2 decided runs < min_runs = 3); "
        "y (B: n = 1 decided runs < min_runs = 3)"
    ]
    keep = [0, 2, 4]
    sa, sb = _pair(
        *(np.asarray(v)[keep] for v in ([4, 2, 4, 4, 4], [3, 1, 2, 4, 0])),
        *(np.asarray(v)[keep] for v in ([4, 4, 4, 1, 4], [4, 2, 1, 1, 3])),
        list("vxz"),
    )
    sub = ph.compare(sa, sb, k=[1, 2], n_boot=300, seed=1)
    cols = ["k", "metric", "scope", "base_value", "cand_value", "difference", "lower", "upper"]
    assert cmp.table[cols].equals(sub.table[cols])
    assert set(cmp.table["tasks"]) == {3}
    assert cmp.settings["min_runs"] == 3


def test_short_tasks_excluded_from_both_systems() -> None:
    a, b = _pair([4, 2, 4], [3, 1, 2], [4, 4, 1], [4, 2, 1], list("xyz"))
    cmp = ph.compare(a, b, k=3, on_short="exclude", n_boot=200, seed=0)
    assert cmp.dropped["task"].tolist() == ["y", "z"]
    assert set(cmp.table["tasks"]) == {1}
    with pytest.raises(ShortTaskError, match="k = 3 exceeds the smallest n = 1"):
        ph.compare(a, b, k=3, n_boot=200, seed=0)


def test_task_with_no_decided_run_is_left_out_of_the_pair() -> None:
    """Issue 16 item 3's rule in paired output: a task with n = 0 for one system leaves the pair."""
    a = ph.counts_from_arrays(
        [3, 0, 3], [2, 0, 1], tasks=list("xyz"), system="A", unscored=[0, 3, 0]
    )
    b = ph.counts_from_arrays([3, 3, 3], [3, 1, 1], tasks=list("xyz"), system="B")
    cmp = ph.compare(a, b, k=1, n_boot=200, seed=0)
    assert cmp.dropped[["task", "reason"]].values.tolist() == [
        ["y", "A: no decided run (3 runs unscored)"]
    ]
    with pytest.raises(ValidationError, match="have no decided run"):
        ph.compare(a, b, k=1, n_boot=200, seed=0, unscored_tasks="error")


def test_weight_mismatch_names_the_task_as_text() -> None:
    """Category weights that differ between the two inputs name the task as written: the
    message said "task np.str_('a')"."""
    base = ph.counts_from_arrays([2, 2, 2], [2, 1, 2], tasks=list("abc"), category=list("xyy"))
    cand = ph.counts_from_arrays([2, 2, 2], [1, 1, 1], tasks=list("abc"), category=list("xxy"))
    with pytest.raises(ph.ValidationError, match=r"^task 'a' has weight 1 for .* but 0\.5 for"):
        ph.compare(base, cand, weights="category", n_boot=200)


def test_a_pairs_interval_does_not_depend_on_the_other_candidates() -> None:
    """Issue 33, item 12: each (baseline, candidate) pair draws from a stream derived from the
    seed and the two names, so a candidate's interval is the same with or without others."""
    import passhat as ph

    runs = ph.load_example("leaderboard")
    frame = runs.frame
    two = ph.Trials.from_frame(frame[frame["system"].isin(["baseline", "open-8b"])], where="x")

    def rows(data: ph.Trials) -> pd.DataFrame:
        t = ph.compare(data, baseline="baseline", k=[1, 2], n_boot=300, seed=5).table
        return t[t["candidate"] == "open-8b"].reset_index(drop=True)

    pd.testing.assert_frame_equal(rows(two), rows(runs))  # open-8b comes last of five in runs
