"""rank() on clustered tasks: the paired cluster bootstrap and cluster sign flips.

Oracles: one task per cluster gives the task-level ranking bit for bit (draws, intervals,
pairwise p-values); the cluster bootstrap's draws are the weighted means over clusters drawn
with replacement (recomputed here from the drawn counts of the same generator); clusters
widen the value intervals where the clusters carry the variance.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import passhat as ph
from passhat.rank.engine import paired_draws, resample_counts


def _counts(g_n: int = 30, per: int = 3, seed: int = 0) -> ph.Trials:
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(g_n):
        u = rng.normal(0, 1.2)
        for t in range(per):
            for name, shift in (("a", 0.0), ("b", 0.3), ("c", 0.6)):
                p = 1 / (1 + np.exp(-(u + shift + rng.normal(0, 0.3))))
                rows += [(name, f"g{g}-t{t}", r, int(rng.random() < p), f"r{g}") for r in range(4)]
    return ph.Trials.from_frame(
        pd.DataFrame(rows, columns=["system", "task_id", "trial", "success", "cluster"])
    )


def test_cluster_draws_are_weighted_means_over_drawn_clusters() -> None:
    rng = np.random.default_rng(3)
    n = np.full((2, 12), 4.0)
    c = rng.integers(0, 5, (2, 12)).astype(float)
    groups = np.repeat(np.arange(4), 3)
    d = paired_draws(
        n, c, np.ones(12), [("mean", 1)], n_boot=50, rng=np.random.default_rng(0), clusters=groups
    )
    m = resample_counts(4, 50, np.random.default_rng(0))[:, groups]  # the same draws
    expect = (m @ (c / n).T) / m.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(d[:, :, 0], expect, rtol=1e-12)


def test_one_task_per_cluster_is_the_task_level_ranking() -> None:
    trials = _counts(seed=1)
    ds = trials.counts()
    one = ds.assign_coords(cluster=("task", [f"x{i}" for i in range(ds.sizes["task"])]))
    plain = ph.rank(ds.drop_vars("cluster"), k=[1, 2], n_boot=400, seed=0)
    single = ph.rank(one, k=[1, 2], n_boot=400, seed=0)
    np.testing.assert_array_equal(plain.draws, single.draws)
    cols = ["value", "lower", "upper", "rank_lower", "rank_upper", "group"]
    pd.testing.assert_frame_equal(plain.table[cols], single.table[cols])
    pd.testing.assert_frame_equal(
        plain.pairs[["lower", "upper", "p_value", "p_holm"]],
        single.pairs[["lower", "upper", "p_value", "p_holm"]],
    )


def test_clusters_are_resampled_counted_and_noted() -> None:
    trials = _counts(seed=2)
    clus = ph.rank(trials, k=2, n_boot=400, seed=0)
    alone = ph.rank(trials.counts().drop_vars("cluster"), k=2, n_boot=400, seed=0)
    assert clus.settings["cluster"] is True and clus.settings["clusters"] == 30
    assert alone.settings["cluster"] is False and alone.settings["clusters"] is None
    assert "paired cluster bootstrap" in clus.settings["engine_label"]
    assert any("ranked tasks: 30 clusters" in n for n in clus.notes)
    assert not any("only 30" in n for n in clus.notes)  # 30 ≥ 20: no warning
    width = (clus.table["upper"] - clus.table["lower"]).to_numpy()
    assert np.all(width > (alone.table["upper"] - alone.table["lower"]).to_numpy())
    pop = clus.pairs[clus.pairs["scope"] == "population"]
    assert pop["method"].str.contains("cluster sign-flip test (30 clusters)", regex=False).all()
