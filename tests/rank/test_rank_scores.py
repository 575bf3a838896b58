"""rank(scores=True): a leaderboard of partial-credit scores.

Oracles: on 0/1 scores it is today's ranking to 1e-12 (draws, values, intervals, rank sets,
letters, pairwise p-values); each value is estimate(scores=True)'s; the engines without a
score model and too few tasks are refused by one line.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.errors import OptionError

COLS = ["value", "lower", "upper", "rank_lower", "rank_upper"]


def _zero_one() -> ph.Trials:
    df = ph.load_example("leaderboard").frame.copy()
    df["score"] = df["success"].map({True: 1.0, False: 0.0})
    return ph.Trials.from_frame(df)


def test_zero_one_scores_are_todays_leaderboard() -> None:
    plain = ph.rank(ph.load_example("leaderboard"), k=[1, 2], n_boot=600, seed=0)
    sc = ph.rank(_zero_one(), k=[1, 2], n_boot=600, seed=0, scores=True)
    np.testing.assert_allclose(sc.draws, plain.draws, atol=1e-12)
    np.testing.assert_allclose(
        sc.table[COLS].to_numpy(float), plain.table[COLS].to_numpy(float), atol=1e-12
    )
    assert (sc.table["group"] == plain.table["group"]).all()
    p_cols = ["lower", "upper", "p_value", "p_holm"]
    np.testing.assert_allclose(
        sc.pairs[p_cols].to_numpy(float), plain.pairs[p_cols].to_numpy(float), atol=1e-12
    )
    rename = {"mean": "mean_score", "pass_at_k": "best_of_k", "pass_hat_k": "worst_of_k"}
    assert (plain.table["metric"].map(rename) == sc.table["metric"]).all()
    assert sc.settings["scores"] is True and sc.settings["headline"] == ("worst_of_k", 2)


def test_values_are_each_systems_score_estimates() -> None:
    rng = np.random.default_rng(4)
    rows = [
        (s, f"t{t}", r, None, float(np.round(rng.beta(2 + i, 2), 2)))
        for i, s in enumerate(("a", "b", "c"))
        for t in range(35)
        for r in range(3)
    ]
    df = pd.DataFrame(rows, columns=["system", "task_id", "trial", "success", "score"])
    df["success"] = df["score"] >= 0.5
    trials = ph.Trials.from_frame(df)
    r = ph.rank(trials, k=2, metrics=["worst_of_k"], n_boot=300, scores=True)
    est = ph.estimate(trials, k=2, scores=True).table
    want = est[est["metric"] == "worst_of_k"].set_index("system")["value"]
    got = r.table.set_index("system")["value"]
    np.testing.assert_allclose(got[want.index].to_numpy(), want.to_numpy(), atol=1e-12)


def test_refused_without_the_bootstrap_or_enough_tasks() -> None:
    with pytest.raises(OptionError, match="at least 30 common tasks"):
        df = _zero_one().frame
        small = ph.Trials.from_frame(df[df["task_id"].isin(sorted(df["task_id"].unique())[:10])])
        ph.rank(small, k=1, scores=True, n_boot=200)
    with pytest.raises(OptionError, match="needs runs with a score each"):
        ph.rank(ph.load_example("leaderboard").counts(), k=1, scores=True, n_boot=200)


def test_scores_document_validates() -> None:
    from passhat import schemas

    schemas.validate(ph.rank(_zero_one(), k=2, n_boot=200, scores=True).to_dict())
