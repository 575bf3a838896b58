"""Tests of passhat.estimate (the benchmark table). Every expected value names its oracle.

Oracles used here:
- brute force per task (see estimator_oracles), then the plain or weighted
  average over tasks, exactly (Fraction);
- the seeds (shared/seeds/*.txt): the four-task A–D example and two agents at 50%;
- τ-bench's published leaderboard for gpt-4o airline (pass^1..4);
- exact integer arithmetic with math.comb / fractions.Fraction for large n;
- for the intervals attached with ``ci``: their own properties (value inside,
  population wider than benchmark, reproducible with a seed) and τ-bench's values.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from estimator_oracles import TOL, brute_force, close, exact_hat, random_tasks, rel, weighted
from passhat.errors import OptionError


# ------------------------------------------------------------ macro average
@pytest.mark.parametrize("seed", range(4))
def test_macro_average_with_unequal_n(seed: int) -> None:
    """Oracle: brute force per task, then the plain average over tasks (unequal n)."""
    rng = np.random.default_rng(100 + seed)
    n, c = random_tasks(rng, 30, n_min=4)
    ks = [1, 2, 3, 4]
    ds = ph.counts_from_arrays(n, c)
    est = ph.estimate(ds, k=ks)
    for k in ks:
        exact = [brute_force(int(nn), int(cc), k) for nn, cc in zip(n, c, strict=True)]
        macro_hat = sum(e[0] for e in exact) / len(exact)
        macro_at = sum(e[1] for e in exact) / len(exact)
        macro_mean = sum(Fraction(int(cc), int(nn)) for nn, cc in zip(n, c, strict=True)) / len(n)
        assert close(est.value("pass_hat_k", k), macro_hat)
        assert close(est.value("pass_at_k", k), macro_at)
        assert close(est.value("mean", k), macro_mean)


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
        assert close(est.value("pass_hat_k", k), weighted([e[0] for e in exact], fw))
        assert close(est.value("pass_at_k", k), weighted([e[1] for e in exact], fw))
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
    assert close(est.value("pass_hat_k", 2), weighted([e[0] for e in exact], fw))
    assert close(est.value("pass_at_k", 2), weighted([e[1] for e in exact], fw))
    # a mapping category → weight
    cw = {"x": 3, "y": 1, "z": 2}
    est = ph.estimate(ds, k=2, weights=cw)
    fw = [Fraction(cw[cat], sizes[cat]) for cat in cats]
    assert close(est.value("pass_hat_k", 2), weighted([e[0] for e in exact], fw))
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
    assert close(est.value("pass_hat_k", 3), weighted([e[0] for e in exact], fw))
    assert close(est.value("pass_at_k", 3), weighted([e[1] for e in exact], fw))
    with pytest.raises(ph.OptionError, match="no weight given"):
        ph.estimate(ds, k=3, weights={"t0": 1.0})
    with pytest.raises(ph.OptionError, match="non-negative"):
        ph.estimate(ds, k=3, weights={t: -1.0 for t in tasks})


def test_weights_summing_to_zero_or_not_numbers_are_refused() -> None:
    """A zero total weight has no weighted average: an error naming the system, never the
    silent 0.0 (and NaN benchmark intervals) it gave; a weight that is not a number, or a
    negative category weight, is an OptionError rather than a ValueError or a silent use."""
    ds = ph.counts_from_arrays([4, 4, 4], [1, 2, 4], tasks=["a", "b", "c"], category=list("xxy"))
    for w in ({"a": 0, "b": 0, "c": 0}, {"x": 0, "y": 0}):
        with pytest.raises(ph.ValidationError, match="'system' has weight 0"):
            ph.estimate(ds, weights=w)
    # the zero-weight tasks are left out once exclusions leave only them
    with pytest.raises(ph.ValidationError, match="has weight 0"):
        ph.estimate(
            ph.counts_from_arrays([4, 1], [1, 1], tasks=["a", "b"]),
            k=2,
            on_short="exclude",
            weights={"a": 0, "b": 1},
        )
    declared = ph.Trials.from_frame(
        pd.DataFrame({"task_id": list("aabb"), "weight": [0] * 4, "success": [1, 0, 1, 1]})
    )
    with pytest.raises(ph.ValidationError, match="has weight 0"):
        ph.estimate(declared, weights="declared", ci=0.9, n_boot=200)
    for bad in ({"a": "q", "b": 1, "c": 1}, {"a": True, "b": 1, "c": 1}, {"x": "q", "y": 1}):
        with pytest.raises(ph.OptionError, match="finite and non-negative number"):
            ph.estimate(ds, weights=bad)
    for bad_cat in ({"x": -1, "y": 1}, {"x": float("nan"), "y": 1}):
        with pytest.raises(ph.OptionError, match="finite and non-negative"):
            ph.estimate(ds, weights=bad_cat)
    # one task at weight 0 is fine: the average is over the others (oracle: task c alone, 4/4)
    assert ph.estimate(ds, weights={"a": 0, "b": 0, "c": 2}).value("mean", 1) == 1.0


def test_category_weights_stay_equal_per_category_after_exclusions() -> None:
    # c1: t1 (1/2) and t4 (no decided run, excluded); c2: t2 (1/1), t3 (2/2).
    # Oracle (weights='category': every category the same total weight, shared by its
    # tasks): t1 carries c1's half alone → mean = 0.5·0.5 + 0.25·1 + 0.25·1 = 0.75.
    frame = {
        "system": ["A"] * 6,
        "task_id": ["t1", "t1", "t2", "t3", "t3", "t4"],
        "trial": [0, 1, 0, 0, 1, 0],
        "success": [True, False, True, True, True, None],
        "category": ["c1", "c1", "c2", "c2", "c2", "c1"],
    }
    trials = ph.Trials.from_frame(pd.DataFrame(frame), where="test")
    est = ph.estimate(trials, k=1, weights="category", on_short="exclude", min_runs=1)
    assert est.wide()["mean"].iloc[0] == pytest.approx(0.75)
    assert np.isclose(est.table["value"], 0.75).all()


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
        assert rel(est.value("pass_hat_k", k), exact) < 1e-9


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


# ---------------------------------------------------------- short and excluded tasks
def test_short_tasks_are_named() -> None:
    """Oracle: the rule k ≤ n for every task (DESIGN: never a silent 0 or NaN)."""
    ds = ph.counts_from_arrays([5, 2, 3, 5], [3, 1, 3, 5], tasks=["a", "b", "c", "d"])
    with pytest.raises(ph.ShortTaskError, match=r"b \(n=2\), c \(n=3\)") as info:
        ph.estimate(ds, k=[1, 4])
    assert [t for _, t, _ in info.value.tasks] == ["b", "c"]


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


def test_task_with_no_decided_run_is_left_out_or_refused() -> None:
    """Oracle: the data model (unscored runs are not in n; n = 0 has no estimate) and issue 16
    item 3: one rule for estimate and fit, default "exclude", stated in the notes."""
    df = pd.DataFrame(
        {
            "task_id": ["a"] * 3 + ["b"] * 3,
            "trial": [0, 1, 2] * 2,
            "success": [True, True, False, None, None, None],
        }
    )
    trials = ph.Trials.from_frame(df)
    est = ph.estimate(trials, k=1)  # was a ShortTaskError about k = 1 > n = 0
    assert est.settings["unscored_tasks"] == "exclude"
    assert est.excluded["task"].tolist() == ["b"]
    assert est.excluded["reason"].tolist() == ["no decided run (3 runs unscored)"]
    assert int(est.excluded["unscored"].iloc[0]) == 3
    assert close(est.value("mean", 1), Fraction(2, 3))
    assert int(est.summary["unscored"].iloc[0]) == 3
    assert any("no decided run" in n and "b (system)" in n for n in est.notes)
    with pytest.raises(ph.ValidationError, match=r"1 task\(s\) have no decided run .*: b \(system"):
        ph.estimate(trials, k=1, unscored_tasks="error")
    with pytest.raises(ph.OptionError, match="unscored_tasks must be one of exclude, error"):
        ph.estimate(trials, k=1, unscored_tasks="impute")  # type: ignore[arg-type]


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


def test_error_when_exclusions_leave_no_task() -> None:
    """Every task short of --min-runs: a clear ShortTaskError, not an empty table (KeyError)."""
    ds = ph.counts_from_arrays([3, 3], [1, 2], tasks=["a", "b"])
    with pytest.raises(ph.ShortTaskError, match="no task of system"):
        ph.estimate(ds, k=2, min_runs=4, on_short="exclude")


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("k", [0, -2, 1.5, "2", True, [1, 0], []])
def test_estimate_k_must_be_whole_and_positive(k) -> None:
    """Oracle: the rule k ≥ 1, whole (bool and strings are not k)."""
    with pytest.raises(ph.OptionError, match="k must"):
        ph.estimate(ph.load_example("abcd"), k=k)


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


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, "x"])
def test_ci_outside_unit_interval_is_an_option_error(bad: object) -> None:
    with pytest.raises(OptionError, match="ci must"):
        ph.estimate(ph.load_example("abcd"), k=2, ci=bad)  # type: ignore[arg-type]


def test_bad_n_boot() -> None:
    with pytest.raises(OptionError, match="n_boot must be"):
        ph.estimate(ph.load_example("abcd"), k=2, ci=0.95, n_boot=50)


def test_negative_seed_is_an_option_error() -> None:
    data = ph.counts_from_arrays([2, 2, 2], [1, 2, 0])
    with pytest.raises(OptionError, match="seed"):
        ph.estimate(data, k=1, ci=0.9, n_boot=100, seed=-1)


# ---------------------------------------------------------- per task, intervals
def test_per_task_is_built_lazily_and_matches_the_table() -> None:
    """Benchmark values come from distinct (n, c) pairs; the per-task expansion agrees."""
    rng = np.random.default_rng(7)
    n = rng.integers(5, 12, size=300)
    c = rng.binomial(n, rng.beta(0.6, 0.4, size=300))
    est = ph.estimate(ph.counts_from_arrays(n, c), k=[1, 3, 5])
    assert "per_task" not in vars(est)  # a cached property, not built yet
    per = est.per_task
    for metric in ("mean", "pass_at_k", "pass_hat_k"):
        direct = per[metric].values[0].mean(axis=0)
        table = est.table[est.table["metric"] == metric]["value"].to_numpy()
        np.testing.assert_allclose(table, direct, rtol=0, atol=1e-14)


def test_estimate_ci_table_has_both_scopes() -> None:
    est = ph.estimate(ph.load_example("agents"), k=[1, 2], ci=0.9, n_boot=500, seed=0)
    t = est.table
    assert {"lower", "upper", "scope", "method"} <= set(t.columns)
    assert len(t) == 2 * 2 * 3 * 2  # systems × k × metrics × scopes
    assert set(t["scope"]) == {"benchmark", "population"}
    assert ((t["lower"] <= t["value"]) & (t["value"] <= t["upper"])).all()
    # population (adds task sampling) is wider than benchmark (within-task only)
    w = t.pivot_table(index=["system", "k", "metric"], columns="scope", values="upper") - (
        t.pivot_table(index=["system", "k", "metric"], columns="scope", values="lower")
    )
    assert (w["population"] > w["benchmark"]).all()
    again = ph.estimate(ph.load_example("agents"), k=[1, 2], ci=0.9, n_boot=500, seed=0)
    pd.testing.assert_frame_equal(t, again.table)
    # without ci the table keeps its old shape
    assert "scope" not in ph.estimate(ph.load_example("agents"), k=1).table.columns


def test_estimate_per_task_table_and_flaky_shares() -> None:
    est = ph.estimate(ph.load_example("abcd"), k=2)
    tasks = est.tasks
    assert tasks["flaky"].tolist() == [False, True, True, False]
    s = est.summary.iloc[0]
    assert (s["flaky_share"], s["all_pass_share"], s["all_fail_share"]) == (0.5, 0.25, 0.25)
    assert tasks["included"].all()


def test_estimate_ci_on_tau_bench(tau_airline_path) -> None:  # type: ignore[no-untyped-def]
    est = ph.estimate(ph.read(tau_airline_path), k=[1, 2, 3, 4], ci=0.95, n_boot=2000, seed=0)
    t = est.table[est.table["metric"] == "pass_hat_k"]
    pop = t[t["scope"] == "population"]
    # τ-bench's published pass^1..4 for gpt-4o airline
    np.testing.assert_allclose(pop["value"], [0.420, 0.273, 0.220, 0.200], atol=5e-4)
    assert ((pop["lower"] < pop["value"]) & (pop["value"] < pop["upper"])).all()
    bench = t[t["scope"] == "benchmark"]
    # k ≥ 3 with n = 4 < 2k: no unbiased variance estimate; the model's, labelled in method
    assert bench["method"].str.contains("model-based variance").tolist() == [
        False,
        False,
        True,
        True,
    ]


def test_value_with_intervals_and_scope() -> None:
    """Issue 12 item 4: est.value("pass_hat_k", 4, system=...) raised "found 2" once intervals
    were requested (a benchmark and a population row match). Oracle: the estimate without
    intervals (the point value does not depend on the scope) and the table's own rows."""
    trials = ph.load_example("agents")
    plain = ph.estimate(trials, k=[1, 4])
    est = ph.estimate(trials, k=[1, 4], ci=0.9, n_boot=300)
    for system in ("baseline", "guided"):
        v = plain.value("pass_hat_k", 4, system=system)
        assert est.value("pass_hat_k", 4, system=system) == v
        for scope in ("benchmark", "population"):
            assert est.value("pass_hat_k", 4, system=system, scope=scope) == v
            row = est.table[
                (est.table["system"] == system)
                & (est.table["k"] == 4)
                & (est.table["metric"] == "pass_hat_k")
                & (est.table["scope"] == scope)
            ].iloc[0]
            assert est.interval("pass_hat_k", 4, system, scope=scope) == (
                row["lower"],
                row["upper"],
            )
    with pytest.raises(OptionError, match="scope must be one of benchmark, population"):
        est.value("pass_hat_k", 4, system="guided", scope="both")
    with pytest.raises(OptionError, match=r"2 systems \(baseline, guided\): name the system"):
        est.value("pass_hat_k", 4)
    with pytest.raises(OptionError, match="no value for metric='pass_hat_k', k=3"):
        est.value("pass_hat_k", 3, system="guided")
    with pytest.raises(OptionError, match="no intervals: give ci="):
        plain.interval("mean", 1, "guided", scope="population")
    with pytest.raises(TypeError):
        est.interval("mean", 1, "guided")  # type: ignore[call-arg]  # the scope must be named


def test_tasks_of_weight_zero_are_listed_not_counted(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A weight column giving tasks C and D weight 0 printed tasks 4, runs 20 and no note,
    though only A and B entered the averages. Oracle: the seeds' four tasks by hand (A 5/5,
    B 4/5: mean 0.9, pass^2 = (1 + 0.6) / 2 = 0.8) and the estimate of A and B alone."""
    from passhat.cli import main

    f = tmp_path / "w.csv"
    f.write_text("task_id,n,c,weight\nA,5,5,1\nB,5,4,1\nC,5,2,0\nD,5,0,0\n")
    est = ph.estimate(ph.read(f), k=2, weights="declared", ci=0.9, n_boot=500)
    alone = ph.estimate(ph.counts_from_arrays([5, 5], [5, 4], tasks=["A", "B"]), k=2, ci=0.9,
                        n_boot=500)  # fmt: skip
    wide = est.wide().iloc[0]
    assert wide["mean"] == pytest.approx(0.9) and wide["pass_hat_k"] == pytest.approx(0.8)
    assert set(est.table["tasks"]) == {2} and int(est.summary["runs"].iloc[0]) == 10
    assert est.excluded["task"].tolist() == ["C", "D"]
    assert set(est.excluded["reason"]) == {"weight 0: counts toward no average"}
    note = "2 task(s) have weight 0 and are left out of every average and of the task count: C, D"
    assert note in est.notes
    cols = ["metric", "scope", "lower", "upper"]  # the intervals are those of A and B alone
    pd.testing.assert_frame_equal(est.table[cols], alone.table[cols])
    assert main(["estimate", str(f), "--weights", "declared", "--k", "2"]) == 0
    assert note in capsys.readouterr().out


def test_weight_zero_in_compare_rank_and_spread_is_said() -> None:
    """compare and rank left weight-0 tasks out of their averages and task counts without a
    word (compare's discordant counts still held them); spread said nothing either. Oracle:
    the same comparison of the tasks of positive weight only."""
    trials = ph.load_example("agents")
    half = {t: (0 if i % 2 else 1) for i, t in enumerate(trials.tasks)}
    kept = [t for t, w in half.items() if w]
    cmp = ph.compare(trials, k=1, weights=half, n_boot=300)
    ref = ph.compare(
        ph.Trials.from_frame(trials.frame[trials.frame["task_id"].isin(kept)]), k=1, n_boot=300
    )
    assert set(cmp.table["tasks"]) == {84} and cmp.discordant["tasks"].tolist() == [84]
    pd.testing.assert_frame_equal(cmp.discordant, ref.discordant)
    assert (cmp.dropped["reason"] == "weight 0: counts toward no average").sum() == 84
    assert any(n.startswith("baseline vs guided: 84 task(s) have weight 0") for n in cmp.notes)
    rk = ph.rank(trials, k=1, weights=half, n_boot=300)
    assert any(n.startswith("84 task(s) have weight 0") for n in rk.notes)
    sp = ph.spread(trials, k=[1, 2], weights=half)
    assert set(sp.table["tasks"]) == {84}
    assert any(n.startswith("84 task(s) have weight 0") for n in sp.notes)


# ----------------------------------------------------------------- clustered tasks
def _clustered_frame(clusters: int = 8, per: int = 5, seed: int = 1) -> pd.DataFrame:
    """Tasks in clusters sharing their rate; 6 runs each; a ``cluster`` column."""
    rng = np.random.default_rng(seed)
    rate = rng.beta(1, 1, size=clusters)
    rows = [
        ("A", f"c{g}-t{t}", r, bool(rng.random() < rate[g]), "ok", f"c{g}")
        for g in range(clusters)
        for t in range(per)
        for r in range(6)
    ]
    return pd.DataFrame(
        rows, columns=["system", "task_id", "trial", "success", "status", "cluster"]
    )


def test_a_cluster_column_is_used_by_default_and_said() -> None:
    tr = ph.Trials.from_frame(_clustered_frame())
    est = ph.estimate(tr, k=2, ci=0.9, n_boot=500)
    pop = est.table[est.table["scope"] == "population"]
    # below 20 clusters: the cluster jackknife logit-t interval (or Clopper–Pearson where it is
    # undefined), named with its rule (studies/cluster_coverage)
    jack = pop["method"].str.startswith("cluster jackknife logit-t interval")
    assert jack.any() and (jack | pop["method"].str.contains("Clopper–Pearson")).all()
    assert pop["method"].str.contains("8 clusters").all()
    assert pop["method"][jack].str.contains("over 8 clusters, G − 1 = 7 degrees of freedom").all()
    assert pop["method"].str.contains("rule: fewer than 20 clusters").all()
    assert est.settings["cluster"] is True and est.settings["clusters"] == {"A": 8}
    assert any("clustered tasks (A: 8 clusters)" in n for n in est.notes)
    # the note names the interval the method column names, not a plain t interval
    assert any(
        "only 8 clusters" in n and "cluster jackknife logit-t interval" in n for n in est.notes
    )
    off = ph.estimate(tr.counts().drop_vars("cluster"), k=2, ci=0.9, n_boot=500)
    assert not off.table["method"].dropna().str.contains("cluster").any()
    assert off.settings["cluster"] is False and off.settings["clusters"] == {}
    assert not any("cluster" in n for n in off.notes)
    bench = est.table["scope"] == "benchmark"
    assert np.allclose(
        est.table.loc[bench, ["lower", "upper"]], off.table.loc[bench, ["lower", "upper"]]
    )
    assert est.table["value"].tolist() == off.table["value"].tolist()  # the values do not move


def test_a_count_table_without_a_cluster_value_is_refused() -> None:
    """A count table built by hand with a missing cluster: an error naming the task."""
    ds = ph.counts_from_arrays([4, 4], [1, 3], tasks=["a", "b"])
    ds = ds.assign_coords(cluster=("task", np.array(["g1", None], dtype=object)))
    with pytest.raises(ph.ValidationError, match="task 'b' has no cluster"):
        ph.estimate(ds, k=2, ci=0.9, n_boot=200)


def test_one_task_per_cluster_estimate_equals_the_unclustered_one() -> None:
    """estimate's oracle: a cluster per task gives today's interval at the same seed."""
    rng = np.random.default_rng(0)
    c = rng.binomial(5, rng.beta(1.2, 1.2, size=60))
    ds = ph.counts_from_arrays(np.full(60, 5), c)
    ds_cl = ds.assign_coords(cluster=("task", [f"g{i}" for i in range(60)]))
    a = ph.estimate(ds, k=[1, 2], ci=0.9, n_boot=1000, seed=5).table
    b = ph.estimate(ds_cl, k=[1, 2], ci=0.9, n_boot=1000, seed=5).table
    assert a["method"].str.startswith("task bootstrap").sum() == 6  # the rule's bootstrap
    assert np.array_equal(a[["lower", "upper"]].to_numpy(), b[["lower", "upper"]].to_numpy())


def test_one_cluster_has_no_population_interval_and_says_why() -> None:
    df = _clustered_frame(clusters=1, per=40)
    est = ph.estimate(ph.Trials.from_frame(df), k=2, ci=0.9, n_boot=200)
    pop = est.table[est.table["scope"] == "population"]
    assert pop[["lower", "upper"]].isna().all().all()
    assert any(n.startswith("one cluster only (A)") for n in est.notes)
    assert not any(n.startswith("only ") for n in est.notes)


def test_scores_with_clusters_say_their_intervals_do_not_resample_clusters() -> None:
    df = _clustered_frame(clusters=6, per=6)
    tr = ph.Trials.from_frame(df.assign(score=df["success"].astype(float)))
    est = ph.estimate(tr, k=2, ci=0.9, n_boot=200, scores=True)
    assert any("still treat the tasks as independent" in n for n in est.notes)
    assert not any("still" in n for n in ph.estimate(tr, k=2, ci=0.9, n_boot=200).notes)
