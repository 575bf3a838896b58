"""Tests of passhat.compare.engine and weighted paired comparisons (issues 11.3 and 16.4).

Oracles: brute force over all 2^T sign vectors of the tasks (the exact
weighted sign-flip p-value and the shifts it does not reject), the benchmark
normal interval summed by hand from each task's unbiased variance estimates
with the declared or per-category weights, and the per-pair calls for the
many-pair table. Under H0 (both systems share every task's rate) the test
must reject at most at its level, and interval and test must agree on every
replicate.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import passhat as ph
from passhat._validate import named_rng
from passhat.compare import paired_difference
from passhat.compare.engine import draw_interval, error_interval, paired_table
from passhat.errors import ValidationError


def _brute_p(d: np.ndarray, w: np.ndarray, delta: float = 0.0) -> float:
    x = w * (d - delta)
    obs = abs(x.sum())
    hits = sum(
        abs(np.dot(s, x)) >= obs - 1e-12 for s in itertools.product((-1.0, 1.0), repeat=d.size)
    )
    return hits / 2**d.size


def _pair(n_a, c_a, n_b, c_b, category=None, weight=None):  # type: ignore[no-untyped-def]
    tasks = [f"t{i}" for i in range(len(n_a))]
    a = ph.counts_from_arrays(n_a, c_a, tasks=tasks, system="A", category=category, weight=weight)
    b = ph.counts_from_arrays(n_b, c_b, tasks=tasks, system="B", category=category, weight=weight)
    return a, b


def test_population_sign_flip_with_category_weights_matches_brute_force() -> None:
    # 12 tasks, 11 differ (≥ 10: the sign-flip branch), two categories of unequal size
    n = [4] * 12
    c_a = [0, 1, 2, 4, 1, 0, 3, 2, 1, 0, 4, 2]
    c_b = [1, 3, 2, 3, 4, 2, 4, 4, 0, 3, 4, 3]
    cat = ["x"] * 8 + ["y"] * 4
    a, b = _pair(n, c_a, n, c_b, category=cat)
    cmp = ph.compare(a, b, k=1, ci=0.9, seed=0, weights="category")
    row = cmp.table[(cmp.table["metric"] == "mean") & (cmp.table["scope"] == "population")].iloc[0]
    w = np.array([1 / 8] * 8 + [1 / 4] * 4)
    d = (np.array(c_b) - np.array(c_a)) / 4
    assert "exact" in row["p_method"]
    assert row["difference"] == pytest.approx(float(w @ d / w.sum()))
    assert row["p_value"] == pytest.approx(_brute_p(d, w), abs=1e-12)
    # the interval: every shift the brute-force test does not reject
    for delta in np.linspace(row["lower"] + 1e-6, row["upper"] - 1e-6, 5):
        assert _brute_p(d, w, delta) > 0.1 - 1e-12
    for delta in (row["lower"] - 1e-6, row["upper"] + 1e-6):
        assert _brute_p(d, w, delta) <= 0.1 + 1e-12
    # the same as the array core with explicit weights
    # (issue 33, item 12: the pair's stream is derived from the seed and the two names)
    direct = paired_difference(n, c_a, n, c_b, k=1, ci=0.9, seed=named_rng(0, "A", "B"), weights=w)
    got = cmp.table.drop(columns=["baseline", "candidate"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(got, direct.reset_index(drop=True))


def test_benchmark_normal_with_declared_weights_matches_hand_sum() -> None:
    rng = np.random.default_rng(3)
    t = 60
    n = rng.integers(4, 8, size=t)
    p = rng.beta(1, 1, size=t)
    c_a, c_b = rng.binomial(n, p), rng.binomial(n, np.clip(p + 0.1, 0, 1))
    w = rng.choice([0.5, 1.0, 2.0], size=t)
    a, b = _pair(n, c_a, n, c_b, weight=w)
    cmp = ph.compare(a, b, k=2, ci=0.9, seed=1, weights="declared")
    row = cmp.table[
        (cmp.table["metric"] == "pass_hat_k") & (cmp.table["scope"] == "benchmark")
    ].iloc[0]
    assert row["method"].startswith("normal")
    d = ph.pass_hat_k(n, c_b, 2) - ph.pass_hat_k(n, c_a, 2)
    var = ph.pass_hat_k_variance_estimate(n, c_a, 2) + ph.pass_hat_k_variance_estimate(n, c_b, 2)
    est = float(w @ d / w.sum())
    se = float(np.sqrt(np.sum(w**2 * var)) / w.sum())
    z = stats.norm.isf(0.05)
    assert row["difference"] == pytest.approx(est)
    assert row["lower"] == pytest.approx(est - z * se, rel=1e-9)
    assert row["upper"] == pytest.approx(est + z * se, rel=1e-9)
    assert row["p_value"] == pytest.approx(2 * stats.norm.sf(abs(est) / se), rel=1e-9)
    # unweighted differs (the weights matter)
    plain = ph.compare(a, b, k=2, ci=0.9, seed=1)
    prow = plain.table[
        (plain.table["metric"] == "pass_hat_k") & (plain.table["scope"] == "benchmark")
    ].iloc[0]
    assert prow["difference"] != pytest.approx(est)


def test_weights_must_agree_between_the_systems() -> None:
    tasks = ["t0", "t1", "t2"]
    a = ph.counts_from_arrays([3] * 3, [1, 2, 3], tasks=tasks, system="A", weight=[1.0, 2.0, 1.0])
    b = ph.counts_from_arrays([3] * 3, [2, 2, 3], tasks=tasks, system="B", weight=[1.0, 3.0, 1.0])
    with pytest.raises(ValidationError, match="t1"):
        ph.compare(a, b, weights="declared", n_boot=200, seed=0)


def test_many_pairs_table_equals_pair_by_pair() -> None:
    rng = np.random.default_rng(8)
    t = 40
    n = np.full((3, t), 5)
    p = rng.beta(1, 1, size=t)
    c = rng.binomial(n, np.vstack([p, np.clip(p + 0.1, 0, 1), p]))
    w = np.ones(t)
    many = paired_table(n, c, w, [(0, 1), (0, 2), (1, 2)], [1, 3], ci=0.9, n_boot=500, rng=rng)
    for ia, ib in [(0, 1), (0, 2), (1, 2)]:
        one = paired_table(
            n[[ia, ib]], c[[ia, ib]], w, [(0, 1)], [1, 3], ci=0.9, n_boot=500, rng=rng
        )
        part = many[(many["a"] == ia) & (many["b"] == ib)].reset_index(drop=True)
        # deterministic columns agree exactly; the normal benchmark rows entirely
        for col in ("difference", "base_value", "cand_value", "method"):
            assert part[col].tolist() == one[col].tolist()
        normal = part["method"].str.startswith("normal")
        np.testing.assert_allclose(part.loc[normal, "lower"], one.loc[normal, "lower"])


def test_draw_interval_is_consistent_with_its_p_value() -> None:
    rng = np.random.default_rng(9)
    for _ in range(300):
        m = int(rng.integers(50, 400))
        d = rng.normal(rng.normal(0, 0.3), 0.2, size=m)
        level = float(rng.choice([0.8, 0.9, 0.95]))
        lo, hi, p = draw_interval(d, ci=level)
        assert (lo > 0 or hi < 0) == (p <= 1 - level)


def test_h0_interval_and_test_agree_and_size_is_at_most_alpha() -> None:
    """H0 with few discordant tasks: strong agent, both builds share every task's rate."""
    rng = np.random.default_rng(10)
    reps, t, alpha = 150, 20, 0.1
    rejections: dict[tuple[str, int, str], int] = {}
    for _ in range(reps):
        p = rng.beta(5, 0.2, size=t)
        n = np.full((2, t), 3)
        c = rng.binomial(n, np.vstack([p, p]))
        tab = paired_table(n, c, np.ones(t), [(0, 1)], [1, 3], ci=1 - alpha, n_boot=400, rng=rng)
        for r in tab.itertuples():
            excluded = bool(r.lower > 0 or r.upper < 0)
            assert excluded == bool(r.p_value <= alpha), r
            key = (r.metric, r.k, r.scope)
            rejections[key] = rejections.get(key, 0) + int(r.p_value <= alpha)
    se = np.sqrt(alpha * (1 - alpha) / reps)
    for key, rej in rejections.items():
        assert rej / reps <= alpha + 3 * se, (key, rej / reps)


def test_category_weights_with_min_runs_equal_the_comparison_without_the_left_out_task() -> None:
    """Weights (issue 16.4) and main's matched exclusions together: a task with too few runs
    for one system is left out for both, and the category weights are those of the tasks left.
    Oracle: the same comparison on the data with that task removed by hand."""
    n_a = [4, 4, 4, 4, 4, 4, 2, 4, 4, 4, 4, 4]
    n_b = [4] * 12
    c_a = [0, 1, 2, 4, 1, 0, 1, 2, 1, 0, 4, 2]
    c_b = [1, 3, 2, 3, 4, 2, 2, 4, 0, 3, 4, 3]
    cat = ["x"] * 8 + ["y"] * 4
    a, b = _pair(n_a, c_a, n_b, c_b, category=cat)
    cmp = ph.compare(a, b, k=[1, 2], ci=0.9, seed=0, weights="category", min_runs=3)
    assert cmp.dropped["task"].tolist() == ["t6"]
    keep = [i for i in range(12) if i != 6]

    def pick(xs):  # type: ignore[no-untyped-def]
        return [xs[i] for i in keep]

    a2, b2 = _pair(pick(n_a), pick(c_a), pick(n_b), pick(c_b), category=pick(cat))
    want = ph.compare(a2, b2, k=[1, 2], ci=0.9, seed=0, weights="category")
    cols = ["k", "metric", "scope", "difference", "lower", "upper", "p_value"]
    pd.testing.assert_frame_equal(cmp.table[cols], want.table[cols])
    # the category weights of the tasks left: 7 tasks of x and 4 of y, each category half
    w = np.array([1 / 7] * 7 + [1 / 4] * 4)
    d = (np.array(pick(c_b)) - np.array(pick(c_a))) / 4
    row = cmp.table[(cmp.table["metric"] == "mean") & (cmp.table["scope"] == "population")]
    assert row["difference"].iloc[0] == pytest.approx(float(w @ d / w.sum()))


@pytest.mark.parametrize(("failures", "exact_p"), [(2, 0.5), (3, 0.25)])
def test_benchmark_posterior_does_not_reject_what_the_exact_conditional_test_accepts(
    failures: int, exact_p: float
) -> None:
    """20 tasks × 3 runs; B passes every run, A fails one run on each of ``failures`` tasks.
    Oracle: the exact conditional test of "each task has one rate in both systems" (each
    task's 6 runs shuffled between the systems, the statistic |Σ (c_B − c_A)|): every
    failure lands in A or in B with probability 1/2, so p = P(all in one system) =
    2 / 2^failures. The benchmark-scope posterior test must not reject at α = 0.1 either.
    With a population fitted to each system separately it did (p = 0.02–0.13 here: the
    all-pass system's posterior hugged 1 on every task), and rejected 16–19% under H0 near
    the boundary in the coverage study of issue 11."""
    t = 20
    nn = np.full((2, t), 3)
    c = nn.copy()
    c[0, :failures] -= 1
    tab = paired_table(
        nn, c, np.ones(t), [(0, 1)], [1, 3], ci=0.9, n_boot=4000, rng=np.random.default_rng(3)
    )
    bench = tab[tab["scope"] == "benchmark"]
    assert bench["method"].str.contains("posterior").all()
    assert exact_p == 2 / 2**failures
    assert (bench["p_value"] > 0.1).all(), bench[["metric", "k", "p_value"]]
    assert ((bench["lower"] <= 0) & (bench["upper"] >= 0)).all()


@pytest.mark.parametrize(("runs", "tasks"), [(4, 10), (6, 10), (3, 10)])
def test_benchmark_pass_hat_k_does_not_reject_what_the_exact_conditional_test_accepts(
    runs: int, tasks: int
) -> None:
    """B passes every run, A fails one run on each of 3 tasks; pass^2 at 3–6 runs per task.
    Oracle: the exact conditional test of "each task has one rate in both systems" (each
    task's runs shuffled between the systems): one failure per task changes pass^2 by the
    same k/n on that task, so the statistic |Σ (U_B − U_A)| depends only on how many of the
    3 failures land in each system, and p = P(all in one system) = 2 / 2^3 = 0.25. The
    continuity correction by the smallest step 1/C(n, 2) (reached only at c = 1) rejected
    here at p = 0.083–0.099; the largest step one success makes (k/n near all-pass) gives
    p ≈ 0.18–0.22, and the mean's p stays that of the exact test (≈ 0.25)."""
    nn = np.full((2, tasks), runs)
    c = nn.copy()
    c[0, :3] -= 1
    tab = paired_table(
        nn, c, np.ones(tasks), [(0, 1)], [2], ci=0.9, n_boot=4000, rng=np.random.default_rng(3)
    )
    bench = tab[tab["scope"] == "benchmark"]
    hat = bench[bench["metric"] == "pass_hat_k"].iloc[0]
    assert hat["p_value"] > 0.1, hat[["p_value", "lower", "upper"]]
    assert hat["lower"] <= 0 <= hat["upper"]
    mean = bench[bench["metric"] == "mean"].iloc[0]
    assert mean["p_value"] == pytest.approx(0.25, abs=0.05)


def test_shared_flips_agree_with_per_pair_flips_within_monte_carlo_error() -> None:
    # oracle: today's per-pair engine (its own random flips per pair); shared flips change
    # the random stream only, so p-values agree within Monte-Carlo error of both, interval
    # ends within a few Monte-Carlo standard errors, and everything else exactly
    rng = np.random.default_rng(21)
    s_n, t = 4, 60
    n = np.full((s_n, t), 5)
    p = rng.beta(1, 1, size=t)
    lift = np.array([0.0, 0.03, 0.08, 0.15])
    c = rng.binomial(n, np.clip(p[None, :] + lift[:, None], 0, 1))
    w = np.ones(t)
    pairs = [(a, b) for a in range(s_n) for b in range(a + 1, s_n)]
    b = 6000
    old = paired_table(n, c, w, pairs, [1, 3], ci=0.9, n_boot=b, rng=np.random.default_rng(1))
    new = paired_table(
        n, c, w, pairs, [1, 3], ci=0.9, n_boot=b, rng=np.random.default_rng(1), shared_flips=True
    )
    for col in ("a", "b", "k", "metric", "scope", "difference", "method", "tasks"):
        assert new[col].tolist() == old[col].tolist()
    flip = old["p_method"].str.contains("random sign flips")
    assert flip.sum() >= 10  # the comparison covers the shared path
    assert new.loc[flip, "p_method"].str.contains(f"shared by {len(pairs)} pairs").all()
    po, pn = old.loc[flip, "p_value"].to_numpy(), new.loc[flip, "p_value"].to_numpy()
    pm = np.clip((po + pn) / 2, 1 / b, 1)
    assert (np.abs(pn - po) <= 4.5 * np.sqrt(2 * pm * (1 - pm) / b) + 2 / b).all()
    for end in ("lower", "upper"):
        assert np.abs(new.loc[flip, end] - old.loc[flip, end]).max() < 0.02
    normal = old["method"].str.startswith("normal")
    np.testing.assert_allclose(new.loc[normal, "lower"], old.loc[normal, "lower"])
    # the interval excludes 0 exactly when the test rejects, on the shared path too
    rows = new.loc[flip]
    assert ((rows["lower"] > 0) | (rows["upper"] < 0)).tolist() == (rows["p_value"] <= 0.1).tolist()


def test_shared_flips_keep_enumerated_pairs_and_a_single_pair_unchanged() -> None:
    rng = np.random.default_rng(4)
    n = np.full((3, 12), 3)
    c = rng.integers(0, 4, size=(3, 12))
    pairs = [(0, 1), (0, 2), (1, 2)]
    for prs in (pairs, pairs[:1]):
        old = paired_table(
            n, c, np.ones(12), prs, [1, 2], ci=0.9, n_boot=300, rng=np.random.default_rng(0)
        )
        new = paired_table(
            n,
            c,
            np.ones(12),
            prs,
            [1, 2],
            ci=0.9,
            n_boot=300,
            rng=np.random.default_rng(0),
            shared_flips=True,
        )
        pd.testing.assert_frame_equal(new, old)
    big = np.full((2, 80), 4)
    cb = rng.integers(0, 5, size=(2, 80))
    one = [(0, 1)]
    old = paired_table(
        big, cb, np.ones(80), one, [1], ci=0.9, n_boot=300, rng=np.random.default_rng(0)
    )
    new = paired_table(
        big,
        cb,
        np.ones(80),
        one,
        [1],
        ci=0.9,
        n_boot=300,
        rng=np.random.default_rng(0),
        shared_flips=True,
    )
    pd.testing.assert_frame_equal(new, old)


@pytest.mark.parametrize("shift", [0.0, 0.15])
def test_k1_metrics_are_one_estimand_with_one_answer(shift: float) -> None:
    # pass@1 = pass^1 = the mean success: below 30 tasks (posterior draws in both scopes, and
    # fewer than 10 differing tasks at shift 0) they got separate draws and p-values that
    # disagreed (0.149 / 0.156 / 0.154 for the same difference)
    rng = np.random.default_rng(3)
    T = 12
    p = rng.beta(2, 1, size=T)
    tasks = [f"t{i}" for i in range(T)]
    a = ph.counts_from_arrays([4] * T, rng.binomial(4, p), tasks=tasks, system="a")
    b = ph.counts_from_arrays(
        [4] * T, rng.binomial(4, np.clip(p + shift, 0, 1)), tasks=tasks, system="b"
    )
    t = ph.compare(a, b, k=[1, 3], seed=0).table
    for scope in ("benchmark", "population"):
        rows = t[(t["scope"] == scope) & (t["k"] == 1)].set_index("metric")
        for metric in ("pass_at_k", "pass_hat_k"):
            for col in ("difference", "lower", "upper", "p_value"):
                assert rows.loc[metric, col] == pytest.approx(rows.loc["mean", col], abs=1e-9)
    # k = 3 is another estimand: its own draws
    k3 = t[(t["scope"] == "benchmark") & (t["k"] == 3)].set_index("metric")
    assert k3.loc["pass_hat_k", "p_value"] != k3.loc["mean", "p_value"]


def test_error_interval_excludes_zero_exactly_when_p_is_at_most_alpha() -> None:
    rng = np.random.default_rng(21)
    for _ in range(300):
        m = int(rng.integers(50, 400))
        e = rng.normal(0, rng.uniform(0.01, 0.2), size=m)
        est = float(rng.normal(0, 0.15))
        step = float(rng.choice([0.0, 0.01, 0.05]))
        level = float(rng.choice([0.8, 0.9, 0.95]))
        lo, hi, p = error_interval(est, e, ci=level, step=step)
        assert lo <= est <= hi
        assert (lo > 0 or hi < 0) == (p <= 1 - level)


def test_estimate_error_draws_have_mean_zero_and_the_posterior_expected_variance() -> None:
    """Oracle: E[e] = 0 (U is unbiased given p) and Var(e) = E Var(ΣwU | p) + 0, i.e. the
    posterior mean of Σ w_i² Var(U_i | p_i) / (Σw)², summed from expected_task_variance."""
    from passhat.betabinom import posterior_grid
    from passhat.hierarchical import estimate_error_draws, expected_task_variance

    n = np.array([3, 3, 5, 5, 4])
    c = np.array([0, 3, 2, 5, 1])
    freq = np.array([2, 3, 1, 4, 2])
    w = np.array([1.0, 1.0, 2.0, 0.5, 1.0])
    nodes = posterior_grid(n, c, freq, size=64).nodes()
    rng = np.random.default_rng(4)
    m = 40_000
    for col in [("mean", 1), ("pass_hat_k", 3), ("pass_at_k", 2)]:
        e = estimate_error_draws(nodes, n, c, w, freq, [col], pick=nodes.sample(m, rng), rng=rng)
        e = e[:, 0]
        var = float(expected_task_variance(nodes, n, c, [col])[:, 0] @ (freq * w**2))
        var /= float(freq @ w) ** 2
        assert abs(e.mean()) < 4 * np.sqrt(var / m), col
        # the variance of a sample variance: about var * sqrt(2 / m) for near-normal draws
        assert e.var() == pytest.approx(var, rel=6 * np.sqrt(2 / m) + 0.02), col


@pytest.mark.parametrize(
    ("shift", "k"),
    [
        (0.2, 1),
        pytest.param(0.2, 3, marks=pytest.mark.slow),
        pytest.param(-0.1, 3, marks=pytest.mark.slow),
    ],
)
def test_small_benchmark_interval_covers_a_true_difference(shift: float, k: int) -> None:
    """Below 30 tasks the benchmark scope simulates the estimate's error from the pooled
    posterior. Oracle: the true difference over these tasks, Σ (g(p_B) − g(p_A)) / T with the
    simulated rates. The earlier pooled-posterior difference covered 0.2 in 22% of replicates
    at 20 tasks × 3 runs; 90% nominal must reach 0.90 − 3 MC standard errors.

    The pass^3 cases (k = n = 3, about 40 s each on 2 cores) are ``slow``: the committed
    ``studies/compare_coverage`` run covers the same regime in its cells at 20 tasks × 3
    runs, pass^3, benchmark scope (Beta(1, 1) uniform with logit +1: 0.973; Beta(5, 0.2)
    near 1 with logit −1: 0.967; 150 replicates each, MC s.e. 0.024; the shifts there are on
    the logit scale, here additive), and the default suite
    checks every cell of that run (``tests/test_compare_coverage_study.py::
    test_full_report_meets_the_goal``); the mean case stays here as the regression guard."""
    rng = np.random.default_rng(30 + k)
    reps, t, level = 200, 20, 0.9
    hits = 0
    metric = "mean" if k == 1 else "pass_hat_k"
    for _ in range(reps):
        p_a = rng.beta(2, 2, size=t) if shift > 0 else rng.beta(5, 0.5, size=t)
        p_b = np.clip(p_a + shift, 0, 1)
        n = np.full((2, t), 3)
        c = rng.binomial(n, np.vstack([p_a, p_b]))
        tab = paired_table(n, c, np.ones(t), [(0, 1)], [k], ci=level, n_boot=400, rng=rng)
        row = tab[(tab["scope"] == "benchmark") & (tab["metric"] == metric)].iloc[0]
        assert "simulated from the hierarchical posterior" in row["method"]
        truth = float(np.mean(p_b**k - p_a**k))
        hits += int(row["lower"] <= truth <= row["upper"])
    se = np.sqrt(level * (1 - level) / reps)
    assert hits / reps >= level - 3 * se


def test_zero_weight_tasks_left_out_are_named_in_the_notes() -> None:
    """Declared weight 0 leaves a task out of the paired computation (the table's ``tasks``
    counts 9 of 12); that used to be silent. Oracle: the same comparison with those three
    tasks removed by hand gives the same rows."""
    n = [3] * 12
    c_a = [3, 2, 1, 3, 2, 3, 1, 3, 2, 3, 3, 2]
    c_b = [0, 3, 3, 3, 3, 3, 2, 3, 3, 3, 3, 3]
    weight = [0.0, 0.0, 0.0] + [1.0] * 9
    a, b = _pair(n, c_a, n, c_b, weight=weight)
    cmp = ph.compare(a, b, k=[1], ci=0.9, seed=0, weights="declared")
    assert (cmp.table["tasks"] == 9).all()
    note = [x for x in cmp.notes if "weight 0" in x]
    assert note == [
        "A vs B: 3 task(s) have weight 0 and are left out of every average and of the task "
        "count: t0, t1, t2"
    ]
    a2, b2 = _pair(n[3:], c_a[3:], n[3:], c_b[3:], weight=weight[3:])
    want = ph.compare(a2, b2, k=[1], ci=0.9, seed=0, weights="declared")
    cols = ["metric", "scope", "difference", "lower", "upper", "p_value"]
    pd.testing.assert_frame_equal(cmp.table[cols], want.table[cols])
    assert not [x for x in want.notes if "weight 0" in x]


def test_distinct_pairs_equal_numpy_unique_of_the_rows() -> None:
    # oracle: np.unique(axis=0), which _System used before (same order, inverse and counts)
    from passhat.compare.engine import _distinct_pairs

    g = np.random.default_rng(2)
    n = g.integers(1, 6, size=500).astype(float)
    c = np.minimum(g.integers(0, 6, size=500), n).astype(float)
    keys, inv, freq = np.unique(
        np.column_stack([n, c]), axis=0, return_inverse=True, return_counts=True
    )
    nj, cj, inv2, freq2 = _distinct_pairs(n, c)
    np.testing.assert_array_equal(np.column_stack([nj, cj]), keys)
    np.testing.assert_array_equal(inv2, np.ravel(inv))
    np.testing.assert_array_equal(freq2, freq)
