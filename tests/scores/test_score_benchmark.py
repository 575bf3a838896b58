"""``passhat.estimate(..., scores=True)``: the score rows, their intervals and the curve.

Oracles: brute force over every k-subset of each task's runs (itertools.combinations);
today's pass@k / pass^k rows (values and both scopes' intervals) on 0/1 scores; the curve
at threshold t against ``estimate`` on success = score ≥ t; the area under the step curve
against the expected worst / best of k; coverage with known truth (a three-point score law
per task, truths computed exactly).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.errors import OptionError, ValidationError
from passhat.scores.intervals import score_columns, score_scope_intervals, task_columns


def _frame(seed: int = 0, *, systems: tuple[str, ...] = ("A", "B"), tasks: int = 9) -> pd.DataFrame:
    """Scores on a grid of fifths, n from 3 to 6 per task, one unscored run per system."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in systems:
        for t in range(tasks):
            n = int(rng.integers(3, 7))
            for r in range(n):
                x = float(rng.integers(0, 6)) / 5
                rows.append({"system": s, "task_id": f"t{t}", "trial": r, "score": x,
                             "success": x >= 0.6})  # fmt: skip
        rows.append({"system": s, "task_id": "t0", "trial": 99, "score": np.nan,
                     "success": None})  # fmt: skip
    return pd.DataFrame(rows)


def _brute(df: pd.DataFrame, k: int, fn: object) -> dict[str, float]:
    """Per system: the mean over tasks of the mean of fn(k-subset) over every k-subset."""
    out = {}
    for s, sub in df[df["success"].notna()].groupby("system"):
        per_task = []
        for _t, runs in sub.groupby("task_id"):
            xs = runs["score"].tolist()
            per_task.append(np.mean([fn(c) for c in itertools.combinations(xs, k)]))  # type: ignore[operator]
        out[str(s)] = float(np.mean(per_task))
    return out


@pytest.mark.parametrize("k", [1, 2, 3])
def test_best_and_worst_of_k_match_brute_force_over_subsets(k: int) -> None:
    df = _frame()
    est = ph.estimate(ph.Trials.from_frame(df), k=[k], scores=True)
    got = est.table.set_index(["system", "metric"])["value"]
    for metric, fn in (("worst_of_k", min), ("best_of_k", max)):
        for s, v in _brute(df, k, fn).items():
            assert got[(s, metric)] == pytest.approx(v, abs=1e-12)
    for s, v in _brute(df, 1, lambda c: c[0]).items():
        assert got[(s, "mean_score")] == pytest.approx(v, abs=1e-12)


def test_zero_one_scores_equal_pass_at_k_and_pass_hat_k_with_intervals() -> None:
    df = _frame(1, tasks=35)
    df["score"] = np.where(df["success"].isna(), np.nan, (df["score"] >= 0.6).astype(float))
    est = ph.estimate(ph.Trials.from_frame(df), k=[1, 2, 3], scores=True, ci=0.9, n_boot=300,
                      seed=3)  # fmt: skip
    t = est.table.set_index(["system", "k", "metric", "scope"])
    for new, old in (("mean_score", "mean"), ("best_of_k", "pass_at_k"),
                     ("worst_of_k", "pass_hat_k")):  # fmt: skip
        a = t.xs(new, level="metric")[["value", "lower", "upper"]]
        b = t.xs(old, level="metric")[["value", "lower", "upper"]]
        pd.testing.assert_frame_equal(a, b.loc[a.index])
    assert any("is 0 or 1" in n for n in est.notes)


def test_curve_at_a_threshold_is_estimate_with_that_cut() -> None:
    df = _frame(2)
    est = ph.estimate(ph.Trials.from_frame(df), k=[1, 2], scores=[0.4, 0.8])
    assert est.curve is not None
    curve = est.curve.to_frame().set_index(["system", "threshold", "k"])
    for cut in (0.4, 0.8):
        cutdf = df.assign(success=np.where(df["success"].isna(), None, df["score"] >= cut))
        ref = ph.estimate(ph.Trials.from_frame(cutdf), k=[1, 2]).wide().set_index(["system", "k"])
        for (s, kv), row in ref.iterrows():
            got = curve.loc[(s, cut, kv)]
            assert got["pass_hat_k"] == pytest.approx(row["pass_hat_k"], abs=1e-12)
            assert got["pass_at_k"] == pytest.approx(row["pass_at_k"], abs=1e-12)


def test_area_under_the_step_curve_is_the_worst_and_best_of_k() -> None:
    # scores on fifths: pass^k(t) is constant on (v_{j-1}, v_j], so the integral over [0, 1]
    # is Σ (v_j − v_{j−1})·curve(v_j) over the curve's own thresholds (the distinct scores)
    est = ph.estimate(ph.Trials.from_frame(_frame(3)), k=[2, 3], scores=True)
    assert est.curve is not None
    wide = est.wide().set_index(["system", "k"])
    for (s, kv), g in est.curve.to_frame().groupby(["system", "k"]):
        v = g["threshold"].to_numpy()
        step = np.diff(np.concatenate([[0.0], v]))
        assert step @ g["pass_hat_k"].to_numpy() == pytest.approx(wide.loc[(s, kv), "worst_of_k"])
        assert step @ g["pass_at_k"].to_numpy() == pytest.approx(wide.loc[(s, kv), "best_of_k"])


def test_intervals_name_both_scopes_and_how() -> None:
    est = ph.estimate(ph.Trials.from_frame(_frame(4, tasks=40)), k=[1, 3], scores=True, ci=0.9,
                      n_boot=200, seed=1)  # fmt: skip
    rows = est.table[est.table["metric"].isin(["best_of_k", "worst_of_k", "mean_score"])]
    assert set(rows["scope"]) == {"benchmark", "population"}
    assert rows["lower"].le(rows["value"] + 1e-12).all() and rows["upper"].ge(rows["value"]).all()
    bench = rows[rows["scope"] == "benchmark"]["method"]
    assert bench.str.contains("within-task variance of each task's U-statistic").all()
    assert rows[rows["scope"] == "population"]["method"].str.contains("bootstrap").all()


def test_analytic_score_intervals_are_the_logit_t_of_the_per_task_values() -> None:
    """ci_method="analytic" on partial-credit scores: where the rule would bootstrap, the
    population interval is the logit-t interval of the per-task values (oracle: the hand
    computation with scipy's t on T − 1 df); the benchmark scope is unchanged."""
    from scipy import special, stats

    rng = np.random.default_rng(7)
    vals = rng.beta(2.0, 3.0, size=(60, 1))
    var = np.full((60, 1), 0.01)
    n, w, cols = np.full(60, 4.0), np.ones(60), [("mean_score", 1)]
    opts = {"ci": 0.9, "n_boot": 300}
    ana = score_scope_intervals(vals, var, n, w, cols, rng=rng, ci_method="analytic", **opts)
    bca = score_scope_intervals(vals, var, n, w, cols, rng=rng, **opts)
    pop = ana[ana["scope"] == "population"].iloc[0]
    v = vals[:, 0]
    half = stats.t.ppf(0.95, 59) * stats.sem(v) / (v.mean() * (1 - v.mean()))
    hand = special.expit(special.logit(v.mean()) + np.array([-half, half]))
    assert (pop["lower"], pop["upper"]) == pytest.approx(tuple(hand), rel=1e-10)
    assert (
        pop["method"].startswith("analytic logit-t interval")
        and "ci_method analytic" in pop["method"]
    )
    assert ana[ana["scope"] == "benchmark"].equals(bca[bca["scope"] == "benchmark"])


def test_missing_or_out_of_range_scores_are_errors_naming_the_run() -> None:
    df = _frame(5)
    bad = df.copy()
    bad.loc[3, "score"] = 1.5
    with pytest.raises(ValidationError, match=r"task 't\d+' \(system 'A'\), trial \d+: score 1.5"):
        ph.estimate(ph.Trials.from_frame(bad), k=[1], scores=True)
    gone = df.copy()
    gone.loc[4, "score"] = np.nan
    with pytest.raises(ValidationError, match="a decided run has no score"):
        ph.estimate(ph.Trials.from_frame(gone), k=[1], scores=True)
    with pytest.raises(ValidationError, match="no score column"):
        ph.estimate(ph.Trials.from_frame(df.drop(columns="score")), k=[1], scores=True)
    with pytest.raises(OptionError, match="count table"):
        ph.estimate(ph.Trials.from_frame(df).counts(), k=[1], scores=True)
    with pytest.raises(OptionError, match="scores must be True, False or a sequence"):
        ph.estimate(ph.Trials.from_frame(df), k=[1], scores="yes")  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="scores' thresholds must be finite"):
        ph.estimate(ph.Trials.from_frame(df), k=[1], scores=[0.5, float("nan")])
    with pytest.raises(OptionError, match="curve needs scores"):
        ph.estimate(ph.Trials.from_frame(df), k=[1]).view(curve=True)


def test_unscored_runs_stay_out_of_n_and_are_counted() -> None:
    est = ph.estimate(ph.Trials.from_frame(_frame(6)), k=[1], scores=True)
    assert est.summary.set_index("system")["unscored"].tolist() == [1, 1]


def _three_point(t: int, rng: np.random.Generator) -> np.ndarray:
    return rng.dirichlet([0.7, 0.6, 0.9], size=t)  # P(0), P(1/2), P(1)


def _truth_worst(p: np.ndarray, k: int) -> np.ndarray:
    # E min of k on {0, ½, 1}: ½·P(min ≥ ½) + ½·P(min = 1) = ½(p½ + p1)^k + ½·p1^k
    return 0.5 * (p[:, 1] + p[:, 2]) ** k + 0.5 * p[:, 2] ** k


def test_coverage_with_known_truth_small_scale() -> None:
    """Nominal 90%; 300 replicates (MC SE 0.017): each scope's coverage ≥ 0.85 for the worst
    of 2 on a three-point law (40 tasks, 6 runs: the unbiased variance branch)."""
    rng = np.random.default_rng(20261206)
    reps, t, n, k = 300, 40, 6, 2
    cols = score_columns([k])
    fixed = _three_point(t, rng)
    bench_truth = _truth_worst(fixed, k).mean()
    # the population truth: E over Dirichlet laws, by a large Monte-Carlo mean (SE ≈ 4e-4)
    pop_truth = _truth_worst(_three_point(200_000, rng), k).mean()
    hits = {"benchmark": 0, "population": 0}
    for _ in range(reps):
        for scope, laws, truth in (("benchmark", fixed, bench_truth),
                                   ("population", _three_point(t, rng), pop_truth)):  # fmt: skip
            u = rng.uniform(size=(t, n))
            c = np.cumsum(laws, axis=1)
            x = np.sort(np.where(u < c[:, [0]], 0.0, np.where(u < c[:, [1]], 0.5, 1.0)), axis=1)
            vals, var = task_columns([(n, np.arange(t), x)], t, cols)
            iv = score_scope_intervals(vals, var, np.full(t, float(n)), np.ones(t), cols, ci=0.9,
                                       n_boot=300, rng=rng)  # fmt: skip
            row = iv[(iv["metric"] == "worst_of_k") & (iv["scope"] == scope)].iloc[0]
            hits[scope] += int(row["lower"] <= truth <= row["upper"])
    for scope, h in hits.items():
        assert h / reps >= 0.85, (scope, h / reps)


def test_predictive_scope_is_absent_for_scores_and_said() -> None:
    est = ph.estimate(ph.Trials.from_frame(_frame(7, tasks=30)), k=[2], scores=True, ci=0.9,
                      n_boot=200, predictive=40)  # fmt: skip
    t = est.table
    assert set(t[t["metric"] == "worst_of_k"]["scope"]) == {"benchmark", "population"}
    assert "predictive" in set(t[t["metric"] == "pass_hat_k"]["scope"])
    assert any("no new-benchmark interval" in n for n in est.notes)
    assert "—" in repr(est)
