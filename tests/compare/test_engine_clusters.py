"""Clustered tasks in the paired comparison: cluster-level sign flips and the cluster draws.

Oracles: brute-force enumeration of all 2^G cluster sign patterns (p-value of the weighted
mean difference, and the test inverted at the interval's ends); the task-level engine (one
task per cluster must give today's answer bit for bit, on every path: enumerated flips,
random flips, the few-differ path, shared flips); the Monte-Carlo error of a random-flip
p-value, sqrt(p (1 − p) / n).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.compare import paired_difference, paired_table

NUMBERS = ["difference", "lower", "upper", "p_value", "base_value", "cand_value"]


def _clustered_counts(
    g_n: int, per: int, seed: int, runs: int = 4, shift: float = 0.15
) -> tuple[np.ndarray, ...]:
    """Two systems' counts on g_n clusters of ``per`` tasks whose rates share a cluster
    effect (the candidate's gain varies by cluster)."""
    rng = np.random.default_rng(seed)
    u = np.repeat(rng.normal(0.0, 1.0, g_n), per)
    gain = np.repeat(rng.normal(shift, 0.6, g_n), per)
    p_a = 1 / (1 + np.exp(-(u + rng.normal(0, 0.3, u.size))))
    p_b = 1 / (1 + np.exp(-(u + gain + rng.normal(0, 0.3, u.size))))
    n = np.full(u.size, runs)
    groups = np.repeat(np.arange(g_n), per)
    return n, rng.binomial(runs, p_a), n, rng.binomial(runs, p_b), groups


def _brute_p(d_g: np.ndarray, w_g: np.ndarray, delta: float = 0.0) -> float:
    """P(|Σ s_g (D_g − δ W_g)| ≥ |Σ (D_g − δ W_g)|) over every sign pattern s ∈ {±1}^G."""
    x = d_g - delta * w_g
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=x.size)))
    stat = signs @ x
    return float(np.mean(np.abs(stat) >= abs(x.sum()) - 1e-12))


def _cluster_sums(n, c_a, c_b, groups):  # type: ignore[no-untyped-def]
    d = (c_b - c_a) / n  # the mean's per-task difference (equal weights)
    g_n = int(groups.max()) + 1
    return np.bincount(groups, d / d.size, g_n), np.bincount(groups, np.full(d.size, 1 / d.size))


def _population(r: pd.DataFrame, metric: str = "mean") -> pd.Series:
    return r[(r["scope"] == "population") & (r["metric"] == metric)].iloc[0]


def test_enumerated_cluster_flips_equal_brute_force_and_invert_it() -> None:
    n, ca, nb, cb, groups = _clustered_counts(12, 3, seed=3)
    r = paired_difference(n, ca, nb, cb, k=1, ci=0.9, n_boot=2000, seed=0, clusters=groups)
    row = _population(r)
    # clusters holding the same task categories are one category: fewer than 2^12 rows
    assert "exact (" in row["p_method"] and "12 clusters" in row["method"]
    d_g, w_g = _cluster_sums(n, ca, cb, groups)
    assert row["p_value"] == pytest.approx(_brute_p(d_g, w_g), abs=1e-12)
    # the interval is every shift the brute-force test does not reject (α = 0.1)
    eps = 1e-6
    assert _brute_p(d_g, w_g, row["lower"] - eps) <= 0.1 < _brute_p(d_g, w_g, row["lower"] + eps)
    assert _brute_p(d_g, w_g, row["upper"] + eps) <= 0.1 < _brute_p(d_g, w_g, row["upper"] - eps)


def test_random_cluster_flips_match_exact_enumeration_within_mc_error() -> None:
    n, ca, nb, cb, groups = _clustered_counts(16, 3, seed=5, runs=8, shift=0.1)
    n_boot = 20_000
    r = paired_difference(n, ca, nb, cb, k=1, ci=0.9, n_boot=n_boot, seed=1, clusters=groups)
    row = _population(r)
    assert "random sign flips" in row["p_method"]  # 2^16 patterns: too many to enumerate
    exact = _brute_p(*_cluster_sums(n, ca, cb, groups))
    assert 0.02 < exact < 0.98
    assert abs(row["p_value"] - exact) <= 4 * np.sqrt(exact * (1 - exact) / n_boot)


@pytest.mark.parametrize(
    ("g_n", "shift", "path"),
    [(12, 0.15, "exact"), (60, 0.15, "random sign flips"), (40, 0.0, "Bayesian bootstrap")],
)
def test_one_task_per_cluster_is_the_task_level_answer(g_n: int, shift: float, path: str) -> None:
    n, ca, nb, cb, _ = _clustered_counts(g_n, 1, seed=7, shift=shift)
    if path == "Bayesian bootstrap":  # fewer than 10 tasks differ
        cb = ca.copy()
        cb[:6] = np.minimum(ca[:6] + 1, 4)
    args = {"k": [1, 2], "ci": 0.9, "n_boot": 3000, "seed": 4}
    plain = paired_difference(n, ca, nb, cb, **args)
    one = paired_difference(n, ca, nb, cb, clusters=[f"g{i}" for i in range(g_n)], **args)
    pd.testing.assert_frame_equal(plain[NUMBERS], one[NUMBERS])
    assert any(path in m for m in one["method"].tolist() + one["p_method"].tolist())


def test_shared_flips_one_task_per_cluster_equal_the_task_flips() -> None:
    rng = np.random.default_rng(2)
    n = np.full((3, 70), 3)
    c = rng.binomial(3, rng.uniform(0.1, 0.9, (3, 70)))
    args = {"ci": 0.9, "n_boot": 2000, "shared_flips": True}
    pairs = [(0, 1), (0, 2), (1, 2)]
    plain = paired_table(n, c, np.ones(70), pairs, [1, 2], rng=np.random.default_rng(0), **args)
    one = paired_table(
        n, c, np.ones(70), pairs, [1, 2], rng=np.random.default_rng(0), clusters=np.arange(70),
        **args,
    )  # fmt: skip
    assert plain["p_method"].str.contains("shared by 3 pairs").any()
    pd.testing.assert_frame_equal(plain[NUMBERS], one[NUMBERS])


def test_shared_cluster_flips_match_each_pairs_own_cluster_flips() -> None:
    """Shared flips and a pair's own flips are the same random-flip test: on one pair's
    data their p-values agree within twice the Monte-Carlo error of each."""
    n, ca, _, cb, groups = _clustered_counts(30, 3, seed=11, shift=0.1)
    cc = np.clip(ca + (groups % 3 == 0), 0, 4)
    counts = np.vstack([ca, cb, cc])
    nn = np.vstack([n, n, n])
    args = {"ci": 0.9, "n_boot": 20_000, "clusters": groups}
    shared = paired_table(
        nn, counts, np.ones(n.size), [(0, 1), (0, 2)], [1], rng=np.random.default_rng(0),
        shared_flips=True, **args,
    )  # fmt: skip
    own = paired_table(
        nn, counts, np.ones(n.size), [(0, 1)], [1], rng=np.random.default_rng(1), **args
    )
    p_s = float(_population(shared[(shared["a"] == 0) & (shared["b"] == 1)])["p_value"])
    p_o = float(_population(own)["p_value"])
    assert "shared by 2 pairs" in _population(shared)["p_method"]
    assert abs(p_s - p_o) <= 4 * np.sqrt(p_o * (1 - p_o) / 20_000) + 1e-4


def test_clusters_widen_the_population_scope_only() -> None:
    n, ca, nb, cb, groups = _clustered_counts(25, 4, seed=9)
    args = {"k": [1, 2], "ci": 0.9, "n_boot": 4000, "seed": 2}
    plain = paired_difference(n, ca, nb, cb, **args)
    clus = paired_difference(n, ca, nb, cb, clusters=groups, **args)
    bench = plain["scope"] == "benchmark"
    pd.testing.assert_frame_equal(plain.loc[bench, NUMBERS], clus.loc[bench, NUMBERS])
    width = (clus["upper"] - clus["lower"])[~bench].to_numpy()
    assert np.all(width > (plain["upper"] - plain["lower"])[~bench].to_numpy())


def test_few_clusters_differ_use_the_cluster_bayesian_bootstrap() -> None:
    n, ca, nb, cb, groups = _clustered_counts(8, 5, seed=13)
    r = paired_difference(n, ca, nb, cb, k=1, ci=0.9, n_boot=3000, seed=0, clusters=groups)
    row = _population(r)
    assert "matched clusters" in row["method"] and "fewer than 10 clusters" in row["method"]
    lo, hi, p = row["lower"], row["upper"], row["p_value"]
    assert (lo > 0 or hi < 0) == (p <= 0.1)


def test_bad_cluster_labels_are_refused() -> None:
    with pytest.raises(ph.ValidationError, match="one cluster label per task"):
        paired_difference([4, 4], [1, 2], [4, 4], [2, 2], clusters=["a", None])
    with pytest.raises(ph.ValidationError, match="one cluster label per task"):
        paired_difference([4, 4], [1, 2], [4, 4], [2, 2], clusters=["a"])
