"""``estimate(..., by="category")``. Oracles: each category's rows (values and both scopes'
intervals) equal ``estimate`` on that category's tasks alone; bad input names the rule."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.errors import OptionError, ValidationError


def _runs(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for s, shift in (("A", 0.0), ("B", 0.2)):
        for t in range(36):
            cat = ("web", "code", "math<x>")[t % 3]
            p = min(0.95, rng.uniform(0.1, 0.8) + shift * (cat == "code"))
            rows += [{"system": s, "task_id": f"t{t}", "trial": r, "category": cat,
                      "success": bool(rng.uniform() < p)} for r in range(4)]  # fmt: skip
    return pd.DataFrame(rows)


def test_each_category_equals_estimate_on_its_tasks() -> None:
    df = _runs()
    est = ph.estimate(ph.Trials.from_frame(df), k=[1, 2], by="category", ci=0.9, n_boot=300,
                      seed=4)  # fmt: skip
    assert est.by_category is not None
    got = est.by_category.to_frame()
    for cat, sub in df.groupby("category"):
        ref = ph.estimate(ph.Trials.from_frame(sub), k=[1, 2], ci=0.9, n_boot=300, seed=4).table
        mine = got[got["category"] == cat].drop(columns="category").reset_index(drop=True)
        pd.testing.assert_frame_equal(mine[ref.columns], ref, check_dtype=False)


def test_tests_cover_each_system_metric_and_k_once() -> None:
    est = ph.estimate(ph.Trials.from_frame(_runs(1)), k=[1, 2, 3], by="category")
    assert est.by_category is not None
    t = est.by_category.tests
    assert t[["system", "metric", "k"]].values.tolist() == [
        [s, m, k] for s in ("A", "B") for m, k in
        (("mean", 1), ("pass_at_k", 2), ("pass_at_k", 3), ("pass_hat_k", 2), ("pass_hat_k", 3))
    ]  # fmt: skip
    assert (t["categories"] == 3).all() and (t["tasks"] == 36).all()
    assert t["p_value"].between(0, 1).all() and (t["holm"] >= t["p_value"]).all()
    assert t["method"].str.contains("permutation F test, 9999 random relabellings").all()


def test_by_needs_a_category_for_every_task() -> None:
    df = _runs()
    with pytest.raises(ValidationError, match="no category column"):
        ph.estimate(ph.Trials.from_frame(df.drop(columns="category")), k=[1], by="category")
    df.loc[df["task_id"] == "t5", "category"] = None
    with pytest.raises(ValidationError, match=r"1 task\(s\) have no category \(e.g. 't5'\)"):
        ph.estimate(ph.Trials.from_frame(df), k=[1], by="category")
    with pytest.raises(OptionError, match="by must be one of category"):
        ph.estimate(ph.Trials.from_frame(_runs()), k=[1], by="system")


def test_result_document_view_and_frozen() -> None:
    est = ph.estimate(ph.Trials.from_frame(_runs()), k=[1, 2], by="category")
    res = est.by_category
    assert res is not None
    doc = res.to_dict()
    assert doc["schema"] == "passhat.estimate_by" and {"by_category", "category_tests"} <= set(doc)
    full = est.to_dict()
    assert full["settings"]["by"] == "category" and len(full["category_tests"]) == 6
    assert "math&lt;x&gt;" in res._repr_html_() and "math<x>" not in res._repr_html_()
    assert len(repr(res)) <= 2000 and "permutation F test" in repr(est.view().parts[-1])
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.by = "x"  # type: ignore[misc]


def test_scores_per_category_equal_estimate_on_its_runs() -> None:
    df = _runs(2)
    df["score"] = np.where(df["success"], 1.0, 0.5 * (df["trial"] % 2))
    est = ph.estimate(ph.Trials.from_frame(df), k=[1, 2], by="category", scores=True, ci=0.9,
                      n_boot=200, seed=3)  # fmt: skip
    assert est.by_category is not None
    got = est.by_category.to_frame()
    assert {"mean_score", "best_of_k", "worst_of_k"} <= set(got["metric"])
    for cat, sub in df.groupby("category"):
        ref = ph.estimate(ph.Trials.from_frame(sub), k=[1, 2], scores=True, ci=0.9, n_boot=200,
                          seed=3).table  # fmt: skip
        mine = got[got["category"] == cat].drop(columns="category").reset_index(drop=True)
        pd.testing.assert_frame_equal(mine[ref.columns], ref, check_dtype=False)


def test_score_metrics_join_the_tests_with_brute_force_values() -> None:
    import itertools

    from passhat.groups.differ import between_ss

    df = _runs(4)
    df["score"] = np.where(df["success"], 1.0, 0.25 * (df["trial"] % 3))
    est = ph.estimate(ph.Trials.from_frame(df), k=[1, 3], by="category", scores=True)
    assert est.by_category is not None
    t = est.by_category.tests.set_index(["system", "metric", "k"])
    assert ("A", "best_of_k", 1) not in t.index  # best of 1 is the mean score's test
    for s, sub in df.groupby("system"):
        per = sub.groupby("task_id", sort=False)
        worst = np.array([np.mean([min(c) for c in itertools.combinations(g["score"], 3)])
                          for _t, g in per])  # fmt: skip
        cats = pd.factorize(per["category"].first())[0]
        b = between_ss(worst[:, None], cats[None, :], 3)[0, 0]
        assert t.loc[(s, "worst_of_k", 3), "statistic"] == pytest.approx(b)


def test_one_category_with_scores_is_the_unsplit_estimate() -> None:
    df = _runs().assign(category="all")
    df["score"] = np.where(df["success"], 1.0, 0.25 * (df["trial"] % 3))
    est = ph.estimate(ph.Trials.from_frame(df), k=[1, 2], by="category", scores=True, ci=0.9,
                      n_boot=200, seed=2)  # fmt: skip
    got = est.by_category.to_frame().drop(columns="category")  # type: ignore[union-attr]
    want = est.table
    key = ["system", "k", "metric", "scope"]
    merged = want.merge(got, on=key, suffixes=("", "_by"))
    assert len(merged) == len(want) == len(got)
    for col in ("value", "lower", "upper"):
        np.testing.assert_allclose(merged[f"{col}_by"], merged[col], rtol=0, atol=1e-12)


def test_scores_on_01_by_category_are_the_pass_fail_rows() -> None:
    df = _runs(seed=3)
    df["score"] = df["success"].astype(float)
    est = ph.estimate(ph.Trials.from_frame(df), k=[1, 2], by="category", scores=True, ci=0.9,
                      n_boot=200, seed=1)  # fmt: skip
    t = est.by_category.to_frame()  # type: ignore[union-attr]
    key = ["system", "category", "k", "scope"]
    pairs = {"mean_score": "mean", "best_of_k": "pass_at_k", "worst_of_k": "pass_hat_k"}
    for score, plain in pairs.items():
        a = t[t["metric"] == score].set_index(key).sort_index()
        b = t[t["metric"] == plain].set_index(key).sort_index()
        if score == "mean_score":
            a, b = a.xs(1, level="k"), b.xs(1, level="k")
        assert len(a) == len(b) > 0
        np.testing.assert_allclose(a["value"], b["value"], rtol=0, atol=1e-12)


def test_one_category_test_is_said_not_computed() -> None:
    """One category: the test is not computed (p NaN) and its method says so, not "exact
    over all 0 arrangements"."""
    est = ph.estimate(ph.Trials.from_frame(_runs().assign(category="all")), k=[1, 2],
                      by="category")  # fmt: skip
    assert est.by_category is not None
    t = est.by_category.tests
    assert t["p_value"].isna().all()
    assert t["method"].str.contains("not computed: fewer than two categories").all()
    assert not t["method"].str.contains("0 arrangements").any()
