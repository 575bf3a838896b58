"""compare() on clustered tasks: the cluster coordinate is used, counted, noted and dropped.

Oracles: the same comparison without the coordinate (benchmark scope and values unchanged),
paired_difference on the arrays with the same clusters (the entry point passes them through).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import passhat as ph
from passhat._validate import named_rng
from passhat.compare import paired_difference


def _trials(g_n: int = 12, per: int = 4, seed: int = 0) -> ph.Trials:
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(g_n):
        u, gain = rng.normal(0, 1), rng.normal(0.3, 0.8)
        for t in range(per):
            for name, shift in (("base", 0.0), ("new", gain)):
                p = 1 / (1 + np.exp(-(u + shift + rng.normal(0, 0.3))))
                rows += [
                    (name, f"g{g}-t{t}", r, int(rng.random() < p), f"repo{g}") for r in range(4)
                ]
    df = pd.DataFrame(rows, columns=["system", "task_id", "trial", "success", "cluster"])
    return ph.Trials.from_frame(df)


def test_compare_uses_the_cluster_coordinate() -> None:
    trials = _trials()
    cmp = ph.compare(trials, k=[1, 2], ci=0.9, n_boot=2000, seed=0)
    assert cmp.settings["cluster"] is True and cmp.settings["clusters"] == {"new": 12}
    pop = cmp.table[cmp.table["scope"] == "population"]
    assert pop["method"].str.contains("cluster sign-flip test (12 clusters)", regex=False).all()
    assert any("base vs new: 12 clusters" in n for n in cmp.notes)
    assert any("only 12 clusters" in n and "below 20 clusters" in n for n in cmp.notes)
    ds = trials.counts()
    n, c = ds["n"].values, ds["c"].values
    direct = paired_difference(
        n[0], c[0], n[1], c[1], k=[1, 2], ci=0.9, n_boot=2000,
        seed=named_rng(0, "base", "new"),
        clusters=ds["cluster"].values,
    )  # fmt: skip
    cols = ["difference", "lower", "upper", "p_value"]
    key = ["k", "metric", "scope"]
    got = cmp.table.sort_values(key)[cols].to_numpy()
    np.testing.assert_array_equal(got, direct.sort_values(key)[cols].to_numpy())


def test_dropping_the_coordinate_treats_tasks_as_independent() -> None:
    trials = _trials()
    clus = ph.compare(trials, k=2, ci=0.9, n_boot=2000, seed=0)
    alone = ph.compare(trials.counts().drop_vars("cluster"), k=2, ci=0.9, n_boot=2000, seed=0)
    assert alone.settings["cluster"] is False and alone.settings["clusters"] == {}
    assert not any("cluster" in n for n in alone.notes)
    bench = clus.table["scope"] == "benchmark"
    cols = ["difference", "lower", "upper", "p_value"]
    pd.testing.assert_frame_equal(clus.table.loc[bench, cols], alone.table.loc[bench, cols])
    assert not alone.table["method"].str.contains("cluster").any()
    wide = (clus.table["upper"] - clus.table["lower"])[~bench]
    assert (
        wide.to_numpy() > (alone.table["upper"] - alone.table["lower"])[~bench].to_numpy()
    ).all()


def test_clusters_of_two_inputs_are_merged() -> None:
    df = _trials().frame
    a = ph.Trials.from_frame(df[df["system"] == "base"])
    b = ph.Trials.from_frame(df[df["system"] == "new"].drop(columns="cluster"))
    cmp = ph.compare(a, b, k=1, ci=0.9, n_boot=500, seed=0)
    assert cmp.settings["clusters"] == {"new": 12}
