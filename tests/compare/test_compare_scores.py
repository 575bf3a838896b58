"""compare_scores: the paired difference of partial-credit scores.

Oracles: on 0/1 scores the population rows equal compare's pass@k / pass^k rows (values to
1e-12, same p-values), and the benchmark rows equal them where every task has n ≥ 2k runs
(both are the unbiased within-task variances there); each system's values equal
estimate(scores=True)'s mean score and best / worst of k; on clustered tasks the cluster
sign flips are used.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.errors import OptionError

NUMBERS = ["base_value", "cand_value", "difference", "lower", "upper", "p_value"]
RENAME = {"mean": "mean_score", "pass_at_k": "best_of_k", "pass_hat_k": "worst_of_k"}


def _zero_one() -> ph.Trials:
    df = ph.load_example("agents").frame.copy()
    df["score"] = df["success"].astype(float)
    return ph.Trials.from_frame(df)


def _partial(seed: int = 5, cluster: bool = False) -> ph.Trials:
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(40):
        d = rng.uniform(0.2, 0.8)
        for system, up in (("base", 0.0), ("new", 0.15)):
            for r in range(4):
                s = float(np.round(rng.beta(2 * (d + up), 2 * (1 - d)), 2))
                rows.append((system, f"t{t:02d}", r + 1, s >= 0.5, s, f"g{t // 4}"))
    cols = ["system", "task_id", "trial", "success", "score", "cluster"]
    df = pd.DataFrame(rows, columns=cols)
    return ph.Trials.from_frame(df if cluster else df.drop(columns="cluster"))


def test_zero_one_scores_are_todays_comparison() -> None:
    args = {"k": [1, 2, 5], "ci": 0.9, "n_boot": 2000, "seed": 3}
    plain = ph.compare(ph.load_example("agents"), **args).table
    sc = ph.compare_scores(_zero_one(), **args).table
    assert (plain["metric"].map(RENAME) == sc["metric"]).all()
    pop = plain["scope"] == "population"
    np.testing.assert_allclose(
        sc.loc[pop, NUMBERS].to_numpy(float), plain.loc[pop, NUMBERS].to_numpy(float), atol=1e-12
    )
    two_k = ~pop & (plain["k"] <= 2)  # n = 5 ≥ 2k: unbiased variances in both
    np.testing.assert_allclose(
        sc.loc[two_k, NUMBERS].to_numpy(float),
        plain.loc[two_k, NUMBERS].to_numpy(float),
        atol=1e-12,
    )


def test_values_are_estimates_of_each_system() -> None:
    trials = _partial()
    cmp = ph.compare_scores(trials, k=2, ci=0.9, n_boot=500)
    est = ph.estimate(trials, k=2, scores=True).table
    for metric in ("mean_score", "best_of_k", "worst_of_k"):
        row = cmp.table[(cmp.table["metric"] == metric) & (cmp.table["scope"] == "population")]
        want = est[est["metric"] == metric].set_index("system")["value"]
        assert row["base_value"].iloc[0] == pytest.approx(want["base"], abs=1e-12)
        assert row["cand_value"].iloc[0] == pytest.approx(want["new"], abs=1e-12)
    assert cmp.settings["scores"] is True
    assert all(
        (r["lower"] > 0 or r["upper"] < 0) == (r["p_value"] <= 0.1) for _, r in cmp.table.iterrows()
    )


def test_clustered_scores_flip_clusters() -> None:
    cmp = ph.compare_scores(_partial(cluster=True), k=2, ci=0.9, n_boot=500)
    pop = cmp.table[cmp.table["scope"] == "population"]
    assert pop["method"].str.contains("10 clusters").all()
    assert cmp.settings["clusters"] == {"new": 10}


def test_count_tables_are_refused() -> None:
    with pytest.raises(OptionError, match="needs runs with a score each"):
        ph.compare_scores(ph.load_example("agents").counts(), k=1)


def test_documents_validate_against_the_published_schema() -> None:
    from passhat import schemas

    schemas.validate(ph.compare_scores(_partial(cluster=True), k=2, n_boot=200).to_dict())
    schemas.validate(ph.rank(_partial(cluster=True), k=2, n_boot=200).to_dict())
    schemas.validate(ph.compare(_partial(cluster=True), k=2, n_boot=200).to_dict())
