"""rank(..., by="category"): the leaderboard per category and the test across categories.

Oracles: each category's rows (leaderboard and pairs) are rank() of that category's tasks
alone with the same options and seed; with one category they are the un-split leaderboard;
on 0/1 scores, rank(scores=True, by=...) gives the pass/fail rows to 1e-12; the test is
groups.differ.order_difference of the per-task values recomputed here from the counts (itself
checked against brute force and against compare --by's test in tests/groups/test_differ.py).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat import schemas
from passhat.errors import OptionError, ValidationError
from passhat.groups.differ import order_difference
from passhat.scopes import column_values

BOARD = ["value", "lower", "upper", "rank", "rank_lower", "rank_upper", "share_first"]
PAIRS = ["difference", "lower", "upper", "p_value", "p_holm"]


def _runs(cats: dict[str, int], systems: int = 3, runs: int = 4, seed: int = 0) -> pd.DataFrame:
    """Synthetic runs: tasks per category, a system effect, a score in [0, 1] per run."""
    rng = np.random.default_rng(seed)
    rows = []
    t = 0
    for cat, n_tasks in cats.items():
        for _ in range(n_tasks):
            difficulty = rng.normal()
            for s in range(systems):
                p = 1 / (1 + np.exp(-(difficulty + 0.4 * s)))
                for r in range(runs):
                    score = float(np.clip(rng.normal(p, 0.25), 0, 1))
                    rows.append((f"s{s}", f"t{t:03d}", r, round(score, 2), cat))
            t += 1
    df = pd.DataFrame(rows, columns=["system", "task_id", "trial", "score", "category"])
    df["success"] = df["score"] >= 0.5
    return df


@pytest.fixture(scope="module")
def board() -> ph.Ranking:
    return ph.rank(ph.load_example("leaderboard"), k=[1, 2], metrics=["mean", "pass_hat_k"],
                   n_boot=300, seed=3, by="category")  # fmt: skip


def test_each_category_is_rank_of_its_tasks(board: ph.Ranking) -> None:
    df = ph.load_example("leaderboard").frame
    by = board.by_category
    assert by is not None
    for cat in ("booking", "search"):  # 24 tasks (posterior path) and 32 (paired bootstrap)
        alone = ph.rank(ph.Trials.from_frame(df[df["category"] == cat]), k=[1, 2],
                        metrics=["mean", "pass_hat_k"], n_boot=300, seed=3)  # fmt: skip
        got = by.table[by.table["category"] == cat]
        assert got["system"].tolist() == alone.table["system"].tolist()
        assert got["group"].tolist() == alone.table["group"].tolist()
        np.testing.assert_array_equal(
            got[BOARD].to_numpy(float), alone.table[BOARD].to_numpy(float)
        )
        pairs = by.pairs[by.pairs["category"] == cat]
        np.testing.assert_array_equal(
            pairs[PAIRS].to_numpy(float), alone.pairs[PAIRS].to_numpy(float)
        )
        assert set(got["method"]) == {alone.settings["value_interval"]}


def test_one_category_is_the_unsplit_leaderboard() -> None:
    df = ph.load_example("leaderboard").frame.assign(category="all")
    data = ph.Trials.from_frame(df)
    r = ph.rank(data, k=2, metrics=["pass_hat_k"], n_boot=200, seed=1, by="category")
    assert r.by_category is not None
    np.testing.assert_array_equal(r.by_category.table[BOARD].to_numpy(float),
                                  r.table[BOARD].to_numpy(float))  # fmt: skip
    assert np.isnan(r.by_category.tests["p_value"]).all()  # one category: nothing to test


def test_the_test_is_order_difference_of_the_per_task_values(board: ph.Ranking) -> None:
    ds = ph.load_example("leaderboard").counts()
    n, c = ds["n"].values.astype(float), ds["c"].values.astype(float)
    cols = [("mean", 1), ("pass_hat_k", 2)]
    vals = np.stack([column_values(n[s], c[s], cols) for s in range(n.shape[0])], axis=1)
    labels = pd.factorize(pd.Series(ds["category"].values).astype(str))[0]
    want = order_difference(vals, labels, n_perm=300, rng=np.random.default_rng(0))
    t = board.by_category.tests  # type: ignore[union-attr]
    assert t[["metric", "k"]].values.tolist() == [["mean", 1], ["pass_hat_k", 2]]
    np.testing.assert_allclose(t["statistic"], want.statistic, rtol=1e-12)
    se = np.sqrt(0.25 / 300)  # two independent 300-relabelling p-values
    assert np.all(np.abs(t["p_value"].to_numpy() - want.p_value) < 6 * se)
    p = t["p_value"].to_numpy()
    np.testing.assert_allclose(t["holm"], np.minimum(1, np.maximum.accumulate(
        np.sort(p) * [2, 1]))[np.argsort(np.argsort(p))])  # fmt: skip


def test_scores_on_01_are_the_pass_fail_rows() -> None:
    df = _runs({"x": 30, "y": 31})
    df["score"] = df["success"].astype(float)
    data = ph.Trials.from_frame(df)
    kw = {"k": [1, 2], "n_boot": 200, "seed": 2, "by": "category"}
    plain = ph.rank(data, **kw).by_category
    scored = ph.rank(data, scores=True, **kw).by_category
    assert plain is not None and scored is not None
    names = {"mean": "mean_score", "pass_at_k": "best_of_k", "pass_hat_k": "worst_of_k"}
    assert scored.table["metric"].tolist() == plain.table["metric"].map(names).tolist()
    np.testing.assert_allclose(scored.table[BOARD].to_numpy(float),
                               plain.table[BOARD].to_numpy(float), atol=1e-12)  # fmt: skip
    np.testing.assert_allclose(scored.tests["statistic"], plain.tests["statistic"], atol=1e-12)


def test_scores_by_category_is_rank_scores_of_each_category() -> None:
    df = _runs({"x": 30, "y": 30}, seed=4)
    r = ph.rank(ph.Trials.from_frame(df), k=2, scores=True, n_boot=200, seed=0,
                by="category")  # fmt: skip
    alone = ph.rank(ph.Trials.from_frame(df[df["category"] == "y"]), k=2, scores=True,
                    n_boot=200, seed=0)  # fmt: skip
    got = r.by_category.table  # type: ignore[union-attr]
    got = got[got["category"] == "y"]
    assert set(got["metric"]) == {"mean_score", "best_of_k", "worst_of_k"}
    np.testing.assert_array_equal(got[BOARD].to_numpy(float), alone.table[BOARD].to_numpy(float))


def test_refusals_name_the_option() -> None:
    data = ph.load_example("leaderboard")
    with pytest.raises(OptionError, match=r"by ranks each category.*engine 'joint'"):
        ph.rank(data, engine="joint", by="category")
    with pytest.raises(OptionError, match="must be one of category"):
        ph.rank(data, by="status")
    small = ph.Trials.from_frame(_runs({"x": 30, "y": 10}))
    with pytest.raises(OptionError, match="scores with by: category 'y' has 10 ranked"):
        ph.rank(small, k=1, scores=True, n_boot=100, by="category")
    nocat = ph.Trials.from_frame(_runs({"x": 5}).drop(columns="category"))
    with pytest.raises(ValidationError, match="no category column"):
        ph.rank(nocat, k=1, n_boot=100, by="category")


def test_result_shape(board: ph.Ranking) -> None:
    by = board.by_category
    assert by is not None
    doc = by.to_dict()
    assert doc["schema"] == "passhat.ranking_by" and {"schema_version", "passhat_version"} <= set(
        doc
    )
    schemas.validate(doc)
    schemas.validate(board.to_dict())
    assert {"by_category", "category_pairs", "category_tests"} <= set(board.to_dict())
    assert len(repr(by)) <= 2000
    titles = [p.title for p in by.view().parts]
    assert titles[0] == "mean by category (0.95 intervals)" and "permutation" in titles[-1]
    assert len(board.view().parts) == len(titles) + 3  # the overall mean, pass^2, the lines
    with pytest.raises(dataclasses.FrozenInstanceError):
        by.by = "x"  # type: ignore[misc]


def test_html_escapes_category_names() -> None:
    df = ph.load_example("leaderboard").frame
    df = df.assign(category=df["category"].replace({"booking": "<b>book</b>"}))
    r = ph.rank(ph.Trials.from_frame(df), k=1, metrics=["mean"], n_boot=100,
                by="category")  # fmt: skip
    html = r.by_category._repr_html_()  # type: ignore[union-attr]
    assert "&lt;b&gt;book&lt;/b&gt;" in html and "<b>book</b>" not in html


def test_clustered_category_is_rank_of_its_clustered_tasks() -> None:
    df = ph.load_example("leaderboard").frame
    df = df[df["system"].isin(["frontier", "mini", "open-8b"])]
    num = df["task_id"].str.extract(r"(\d+)$")[0].astype(int)
    df = df.assign(cluster=(num // 3).astype(str))  # clusters of three tasks
    kw = {"k": 2, "metrics": ["pass_hat_k"], "n_boot": 200, "seed": 5}
    r = ph.rank(ph.Trials.from_frame(df), by="category", **kw)
    by = r.by_category
    assert by is not None and by.notes[-1].startswith("the test across category values")
    alone = ph.rank(ph.Trials.from_frame(df[df["category"] == "refund"]), **kw)
    assert alone.settings["cluster"]
    got = by.table[by.table["category"] == "refund"]
    np.testing.assert_array_equal(got[BOARD].to_numpy(float), alone.table[BOARD].to_numpy(float))


def test_one_category_test_is_said_not_computed() -> None:
    """One category: no relabelling can differ, so the test is not computed (p NaN) and its
    method says so, instead of "exact over all 0 arrangements"."""
    runs = _runs({"only": 12})
    r = ph.rank(ph.Trials.from_frame(runs.drop(columns="score")), k=1, n_boot=100, by="category")
    assert r.by_category is not None
    t = r.by_category.tests
    assert t["p_value"].isna().all()
    assert t["method"].str.contains("not computed: fewer than two categories").all()
    assert not t["method"].str.contains("0 arrangements").any()


def test_paper_caption_names_the_intervals_that_are_not_the_method() -> None:
    """A category of one task whose runs all pass gets estimate's bound, not the posterior's
    interval: the terminal says so ('except ...'), and now the --markdown/--latex caption of
    the per-category table does too (it named only the category's method)."""
    rows = [
        {"system": s, "task_id": f"t{t}", "trial": r, "category": "solo" if t == 0 else "rest",
         "success": 1 if t == 0 else int((t + r + i) % 3 != 0)}
        for i, s in enumerate(["x", "y", "z"]) for t in range(7) for r in range(3)
    ]  # fmt: skip
    r = ph.rank(ph.Trials.from_frame(pd.DataFrame(rows)), k=1, metrics=["mean"], n_boot=200,
                by="category").by_category  # fmt: skip
    assert r is not None
    odd = r.table[r.table["interval"] != "marginal"]
    assert set(odd["category"]) == {"solo"}  # the oracle: the rows' own interval rules
    caption = r.to_markdown().split("Table: ")[-1]
    for system, rule in zip(odd["system"], odd["interval"], strict=True):
        assert f"solo {system}: {rule}" in caption
