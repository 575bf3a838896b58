"""compare_cost: what each system pays on matched tasks, and the paired difference and ratio.

Oracles: each system's values recomputed with pandas from the runs and brute-force pass^k over
k-subsets; on fully matched data they equal ``estimate(...).cost``; the bootstrap's ends
against the exact bootstrap distribution enumerated over all T^T resamples of a small
benchmark (tolerance from the Monte-Carlo error of a percentile); the pairing (two identical
systems give difference 0 and ratio 1 in every resample, where an unpaired bootstrap would
not); one task per cluster equals the task bootstrap bit for bit; bad costs are errors naming
the run.
"""

from __future__ import annotations

import dataclasses
import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.compare.cost import _percentile, _ratios, _task_rows, pair_bootstrap
from passhat.errors import OptionError, ShortTaskError, ValidationError


def _runs(seed: int = 0, tasks: int = 10, cluster: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for s, p, scale in (("base", 0.55, 0.10), ("new<b>", 0.7, 0.14)):
        for t in range(tasks):
            for r in range(int(rng.integers(3, 6))):
                unscored = rng.uniform() < 0.08
                rows.append({"system": s, "task_id": f"t{t}", "trial": r,
                             "success": None if unscored else bool(rng.uniform() < p),
                             "cost": float(rng.gamma(2.0, scale)),
                             "cluster": f"g{t // 3}"})  # fmt: skip
    df = pd.DataFrame(rows)
    return df if cluster else df.drop(columns="cluster")


def _brute(sub: pd.DataFrame, k: int) -> tuple[float, float, float]:
    """Mean over tasks of (cost per run, success rate, pass^k by k-subsets) of one system."""
    cpr = sub.groupby("task_id")["cost"].mean()
    dec = sub[sub["success"].notna()]
    rate = dec.groupby("task_id")["success"].mean()
    hat = dec.groupby("task_id")["success"].apply(
        lambda g: np.mean([all(c) for c in itertools.combinations(g.tolist(), k)])
    )
    return float(cpr.mean()), float(rate.mean()), float(hat.mean())


def test_values_match_their_definitions() -> None:
    df = _runs()
    r = ph.compare_cost(ph.Trials.from_frame(df), k=[1, 2], n_boot=100, baseline="base")
    got = r.table.set_index(["metric", "k"])
    for k in (1, 2):
        (cb, mb, hb), (cc, mc, hc) = (_brute(df[df["system"] == s], k) for s in ("base", "new<b>"))
        for metric, vb, vc in (
            ("cost_per_all_k_pass", k * cb / hb, k * cc / hc),
            ("pass_hat_k_per_cost", hb / (k * cb), hc / (k * cc)),
        ):
            row = got.loc[(metric, k)]
            assert row["base_value"] == pytest.approx(vb, rel=1e-12)
            assert row["cand_value"] == pytest.approx(vc, rel=1e-12)
            assert row["difference"] == pytest.approx(vc - vb, rel=1e-12)
            assert row["ratio"] == pytest.approx(vc / vb, rel=1e-12)
    run = r.table[r.table["metric"] == "cost_per_success"].iloc[0]
    (cb, mb, _), (cc, mc, _) = (_brute(df[df["system"] == s], 1) for s in ("base", "new<b>"))
    assert run["base_value"] == pytest.approx(cb / mb)
    assert run["cand_value"] == pytest.approx(cc / mc)


def test_values_equal_estimates_cost_table() -> None:
    trials = ph.load_example("agents")
    r = ph.compare_cost(trials, k=[1, 2], n_boot=100)
    est = ph.estimate(trials, k=[1, 2]).cost
    assert est is not None
    e = est.to_frame().set_index(["system", "k"])
    got = r.table.set_index(["metric", "k"])
    for k in (1, 2):
        for metric in ("cost_per_all_k_pass", "pass_hat_k_per_cost"):
            want = e.loc[("baseline", k), metric], e.loc[("guided", k), metric]
            assert got.loc[(metric, k), "base_value"] == pytest.approx(want[0])
            assert got.loc[(metric, k), "cand_value"] == pytest.approx(want[1])


def test_interval_matches_the_exact_bootstrap_distribution() -> None:
    """T = 5 tasks: all 5^5 = 3125 equally likely resamples enumerated give the bootstrap
    distribution exactly; the percentile ends from 20,000 random resamples must fall between
    its quantiles at p ∓ 4·√(p(1−p)/B) (the Monte-Carlo error of a percentile's level)."""
    rng = np.random.default_rng(3)
    t, ks, ci, b = 5, [2], 0.8, 20_000
    n = np.full(t, 4.0)
    xb = _task_rows(n, rng.integers(1, 5, t).astype(float), rng.uniform(0.5, 2, t), ks)
    xc = _task_rows(n, rng.integers(2, 5, t).astype(float), rng.uniform(0.5, 2, t), ks)
    idx = np.array(list(itertools.product(range(t), repeat=t)))
    exact = _ratios(xc[idx].sum(axis=1), ks) - _ratios(xb[idx].sum(axis=1), ks)
    boot = pair_bootstrap(xb, xc, np.arange(t), ks, n_boot=b, rng=np.random.default_rng(0))
    lo, hi, undefined = _percentile(boot, ci)
    assert not undefined.any()
    for j in range(exact.shape[1]):
        for got, p in ((lo[j, 0], (1 - ci) / 2), (hi[j, 0], (1 + ci) / 2)):
            tol = 4 * np.sqrt(p * (1 - p) / b)
            a, z = np.quantile(exact[:, j], [p - tol, p + tol], method="inverted_cdf")
            assert a <= got <= z, (j, p, a, got, z)


def test_identical_systems_keep_the_pairing() -> None:
    df = _runs()
    twin = df[df["system"] == "base"].assign(system="twin")
    r = ph.compare_cost(ph.Trials.from_frame(pd.concat([df[df["system"] == "base"], twin])),
                        k=[1, 2], n_boot=300)  # fmt: skip
    t = r.table
    ok = t[t["difference_undefined"] == 0]
    assert len(ok) >= 4 and (t["ratio_undefined"] == 0).sum() >= 4
    assert (ok[["difference", "difference_lower", "difference_upper"]] == 0).all().all()
    ok = t[t["ratio_undefined"] == 0]
    assert (ok[["ratio", "ratio_lower", "ratio_upper"]] == 1).all().all()
    # a resample with no all-2-pass for either (∞ − ∞, 0 / 0) is counted and makes the
    # interval unbounded
    for col in ("difference", "ratio"):
        bad = t[t[f"{col}_undefined"] > 0]
        assert len(bad) and (bad[f"{col}_lower"] == (-np.inf if col == "difference" else 0)).all()
        assert (bad[f"{col}_upper"] == np.inf).all()


def test_one_task_per_cluster_is_the_task_bootstrap() -> None:
    df = _runs(cluster=True)
    plain = ph.compare_cost(ph.Trials.from_frame(df.drop(columns="cluster")), k=2, n_boot=300)
    own = ph.compare_cost(ph.Trials.from_frame(df.assign(cluster=df["task_id"])), k=2, n_boot=300)
    pd.testing.assert_frame_equal(plain.table.drop(columns="interval"),
                                  own.table.drop(columns="interval"))  # fmt: skip
    assert plain.table["interval"].iloc[0].startswith("symmetric bootstrap-t over 10 matched")
    assert own.table["interval"].iloc[0].startswith("symmetric bootstrap-t over 10 clusters")
    assert own.settings.clusters == {"base vs new<b>": 10}


def test_clusters_are_resampled_whole() -> None:
    """Whole clusters are drawn: with 3-task clusters the resampled task count moves in steps
    of the clusters' sizes, and the result differs from the task bootstrap."""
    df = _runs(cluster=True)
    tasks = np.arange(10)
    groups = tasks // 3  # sizes 3, 3, 3, 1
    x = _task_rows(np.full(10, 4.0), np.full(10, 2.0), np.ones(10), [1])
    base = x.copy()
    base[:, 1] = 1.0 + tasks  # a task's cost tells it apart
    out = pair_bootstrap(base, x, groups, [1], n_boot=200, rng=np.random.default_rng(1))
    assert np.isfinite(out).all()
    clustered = ph.compare_cost(ph.Trials.from_frame(df), k=2, n_boot=300)
    plain = ph.compare_cost(ph.Trials.from_frame(df.drop(columns="cluster")), k=2, n_boot=300)
    assert clustered.settings.clusters == {"base vs new<b>": 4}
    assert not np.allclose(clustered.table["difference_lower"], plain.table["difference_lower"])
    assert any(n.startswith("few clusters (base vs new<b>: 4)") for n in clustered.all_notes())
    assert not any("only 4 clusters" in n for n in clustered.all_notes())


def test_undefined_resamples_make_the_interval_unbounded() -> None:
    lo, hi, und = _percentile(np.array([[1.0], [np.nan], [2.0], [np.inf]]), 0.9)
    assert und.tolist() == [1] and lo[0] == -np.inf and hi[0] == np.inf
    lo, hi, und = _percentile(np.array([[1.0], [3.0], [2.0], [np.inf]]), 0.5)
    assert und.tolist() == [0] and lo[0] == 1.0 and hi[0] == 3.0  # no interpolation


def test_missing_costs_are_counted_and_said() -> None:
    df = _runs()
    df.loc[[0, 1], "cost"] = np.nan  # two runs of base's first task
    every = df["task_id"].eq("t1") & df["system"].eq("new<b>")
    df.loc[every, "cost"] = np.nan  # one task with no cost for the candidate
    r = ph.compare_cost(ph.Trials.from_frame(df), k=1, n_boot=100, baseline="base")
    m = r.missing.set_index("system")
    assert m.loc["base", "runs_without_cost"] == 2
    assert m.loc["new<b>", "runs_without_cost"] == int(every.sum())
    assert m.loc["new<b>", "tasks_without_cost"] == 1
    assert r.dropped["task"].tolist() == ["t1"] and "new<b>" in r.dropped["reason"].iloc[0]
    assert (r.table["tasks"] == 9).all()
    notes = " ".join(r.all_notes())
    assert (
        "runs without a cost (base: 2 runs, 0 tasks with none; new<b>: " in notes
        and "left out" in notes
    )
    cpr = r.table.set_index("metric").loc["cost_per_run", "base_value"]
    kept = df[(df["system"] == "base") & (df["task_id"] != "t1")]
    assert cpr == pytest.approx(float(kept.groupby("task_id")["cost"].mean().mean()))


def test_a_task_with_every_run_unscored_is_left_out_and_listed() -> None:
    """As compare and estimate --cost do (unscored_tasks='exclude'): a matched task with no
    decided run for a system is left out of the pair and listed, not refused as "k exceeds
    n = 0"; the values are those of the other tasks."""
    df = _runs()
    gone = df["task_id"].eq("t2") & df["system"].eq("base")
    df.loc[gone, "success"] = None  # every base run of t2 unscored (each with a cost)
    r = ph.compare_cost(ph.Trials.from_frame(df), k=1, n_boot=100, baseline="base")
    assert r.dropped["task"].tolist() == ["t2"]
    assert "base" in r.dropped["reason"].iloc[0] and "unscored" in r.dropped["reason"].iloc[0]
    assert (r.table["tasks"] == 9).all()
    kept = df[df["task_id"] != "t2"]
    (cb, mb, _), (cc, mc, _) = (_brute(kept[kept["system"] == s], 1) for s in ("base", "new<b>"))
    row = r.table.set_index("metric").loc["cost_per_success"]
    assert row["base_value"] == pytest.approx(cb / mb, rel=1e-12)
    assert row["cand_value"] == pytest.approx(cc / mc, rel=1e-12)


def test_bad_costs_are_errors_naming_the_run() -> None:
    df = _runs()
    df.loc[5, "cost"] = -0.5
    row = df.loc[5]
    with pytest.raises(ValidationError, match=rf"task '{row['task_id']}' .* trial {row['trial']}: "
                       r"cost -0.5 is negative"):  # fmt: skip
        ph.compare_cost(ph.Trials.from_frame(df), k=1, n_boot=100)
    with pytest.raises(OptionError, match="needs a cost column"):
        ph.compare_cost(ph.Trials.from_frame(_runs().drop(columns="cost")), k=1, n_boot=100)
    with pytest.raises(OptionError, match="count table"):
        ph.compare_cost(ph.load_example("agents").counts(), k=1, n_boot=100)
    with pytest.raises(ShortTaskError):
        ph.compare_cost(ph.Trials.from_frame(_runs()), k=6, n_boot=100)


def test_result_shape() -> None:
    r = ph.compare_cost(ph.Trials.from_frame(_runs()), k=[1, 2], n_boot=100)
    doc = r.to_dict()
    assert list(doc)[:3] == ["schema", "schema_version", "passhat_version"]
    assert doc["schema"] == "passhat.comparison_cost" and doc["settings"]["k"] == [1, 2]
    assert doc["cost"][0]["k"] is None and doc["cost"][2]["k"] == 1
    assert len(repr(r)) <= 2000 and "new&lt;b&gt;" in r._repr_html_()
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.table = r.table  # type: ignore[misc]
    assert r.to_frame() is not r.table and "cost / all-2-pass" in str(r)
    assert any(n.startswith("few matched tasks (base vs new<b>: 10)") for n in r.all_notes())
    big = ph.compare_cost(ph.load_example("agents"), k=1, n_boot=100)
    assert not any("few matched tasks" in n for n in big.all_notes())


def test_one_matched_task_says_why_there_is_no_interval() -> None:
    """One task (no clusters): the bootstrap has nothing to resample; the ends are missing and
    a note says why (as the one-cluster case does), not only that they "may be too narrow"."""
    df = _runs(tasks=1)
    r = ph.compare_cost(ph.Trials.from_frame(df), k=1, n_boot=100, baseline="base")
    assert r.table[["difference_lower", "ratio_upper"]].isna().all().all()
    assert any(n.startswith("one matched task (base vs new<b>)") for n in r.all_notes())
    two = ph.compare_cost(ph.Trials.from_frame(_runs(tasks=2)), k=1, n_boot=100)
    assert not any(n.startswith("one matched task") for n in two.all_notes())


def test_extreme_costs_warn_nothing() -> None:
    """A subnormal cost (1e-320: pass^k / cost overflows to ∞) prints no numpy RuntimeWarning
    on stderr; the values are ∞ as the division defines them."""
    df = _runs()
    df.loc[df["system"] == "base", "cost"] = 1e-320
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = ph.compare_cost(ph.Trials.from_frame(df), k=1, n_boot=100, baseline="base")
    row = r.table.set_index("metric").loc["pass_hat_k_per_cost"]
    assert row["base_value"] == np.inf and row["ratio"] == 0.0


# ------------------------------------------------------------------------------ task weights
def test_equal_weights_give_the_unweighted_result_exactly() -> None:
    trials = ph.Trials.from_frame(_runs())
    plain = ph.compare_cost(trials, k=[1, 2], n_boot=300, baseline="base")
    equal = ph.compare_cost(trials, k=[1, 2], n_boot=300, baseline="base", weights="equal")
    pd.testing.assert_frame_equal(plain.table, equal.table)
    assert plain.settings.weights == equal.settings.weights == "equal"


def test_weighted_values_equal_estimates_weighted_cost_table() -> None:
    """Oracle: ``estimate(weights="category").cost`` (each system's weighted cost per run,
    mean success and pass^k) on the agents example, where every task is matched."""
    trials = ph.load_example("agents")
    r = ph.compare_cost(trials, k=[1, 2], n_boot=200, weights="category")
    est = ph.estimate(trials, k=[1, 2], weights="category").cost
    unweighted = ph.compare_cost(trials, k=[1, 2], n_boot=200)
    assert est is not None and r.settings.weights == "category"
    e = est.to_frame().set_index(["system", "k"])
    got = r.table.set_index(["metric", "k"])
    for k in (1, 2):
        for metric in ("cost_per_all_k_pass", "pass_hat_k_per_cost"):
            want = e.loc[("baseline", k), metric], e.loc[("guided", k), metric]
            assert got.loc[(metric, k), "base_value"] == pytest.approx(want[0], rel=1e-12)
            assert got.loc[(metric, k), "cand_value"] == pytest.approx(want[1], rel=1e-12)
    run = r.table[r.table["metric"] == "cost_per_run"].iloc[0]
    assert run["base_value"] == pytest.approx(e.loc[("baseline", 1), "cost_per_run"], rel=1e-12)
    assert run["base_value"] != pytest.approx(unweighted.table["base_value"].iloc[0], rel=1e-6)
    assert "weighted mean cost per run" in str(r.view())


def test_integer_weights_equal_duplicated_tasks_in_value() -> None:
    """Weight 3 on a task gives the values of that task run three times as three tasks."""
    df = _runs(seed=4, tasks=6)
    weights = {f"t{t}": (3.0 if t == 2 else 1.0) for t in range(6)}
    dup = pd.concat(
        [df, *(df[df["task_id"] == "t2"].assign(task_id=f"t2_copy{i}") for i in range(2))],
        ignore_index=True,
    )
    r = ph.compare_cost(ph.Trials.from_frame(df), k=[1, 2], n_boot=100, weights=weights,
                        baseline="base")  # fmt: skip
    d = ph.compare_cost(ph.Trials.from_frame(dup), k=[1, 2], n_boot=100, baseline="base")
    for col in ("base_value", "cand_value", "difference", "ratio"):
        assert r.table[col].to_numpy() == pytest.approx(d.table[col].to_numpy(), rel=1e-12)


def test_weighted_interval_matches_the_exact_weighted_bootstrap() -> None:
    """T = 5 weighted tasks: the exact distribution over all 5^5 resamples, each drawn task
    bringing its weight (Σ w·x / Σ w per resample, computed here by indexing), against the
    ends of 20,000 resamples of compare's bootstrap on the weighted rows (tolerance: the
    Monte-Carlo error of a percentile's level, as above)."""
    rng = np.random.default_rng(7)
    t, ks, ci, b = 5, [2], 0.8, 20_000
    n = np.full(t, 4.0)
    w = np.array([1.0, 4.0, 0.5, 2.0, 1.0])
    xb = _task_rows(n, rng.integers(1, 5, t).astype(float), rng.uniform(0.5, 2, t), ks)
    xc = _task_rows(n, rng.integers(2, 5, t).astype(float), rng.uniform(0.5, 2, t), ks)
    idx = np.array(list(itertools.product(range(t), repeat=t)))
    ww = w[idx][..., None]
    exact = _ratios((xc[idx] * ww).sum(axis=1), ks) - _ratios((xb[idx] * ww).sum(axis=1), ks)
    boot = pair_bootstrap(xb * w[:, None], xc * w[:, None], np.arange(t), ks, n_boot=b,
                          rng=np.random.default_rng(0))  # fmt: skip
    lo, hi, undefined = _percentile(boot, ci)
    assert not undefined.any()
    for j in range(exact.shape[1]):
        for got, p in ((lo[j, 0], (1 - ci) / 2), (hi[j, 0], (1 + ci) / 2)):
            tol = 4 * np.sqrt(p * (1 - p) / b)
            a, z = np.quantile(exact[:, j], [p - tol, p + tol], method="inverted_cdf")
            assert a <= got <= z, (j, p, a, got, z)


def test_weight_zero_tasks_are_left_out_and_listed() -> None:
    df = _runs(seed=2, tasks=8)
    weights = {f"t{t}": (0.0 if t == 0 else 1.0) for t in range(8)}
    r = ph.compare_cost(ph.Trials.from_frame(df), k=1, n_boot=100, weights=weights,
                        baseline="base")  # fmt: skip
    without = ph.compare_cost(ph.Trials.from_frame(df[df["task_id"] != "t0"]), k=1,
                              n_boot=100, baseline="base")  # fmt: skip
    assert "t0" in set(r.dropped["task"]) and int(r.table["tasks"].iloc[0]) == 7
    assert r.table["base_value"].to_numpy() == pytest.approx(without.table["base_value"].to_numpy())
