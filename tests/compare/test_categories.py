"""compare_by_category: the paired difference per category, Holm, and the test across them.

Oracles: each category's rows are compare() on that category's runs alone (same seed);
p_holm is Holm's adjustment of those p-values (the one Holm of passhat, itself tested
against statsmodels); the test is the permutation F test of the per-task differences
recomputed here from the counts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat import schemas
from passhat.compare.categories import compare_by_category
from passhat.compare.multiplicity import holm
from passhat.errors import ValidationError
from passhat.groups.differ import category_difference
from passhat.scopes import column_values, columns

NUMBERS = ["base_value", "cand_value", "difference", "lower", "upper", "p_value"]


@pytest.fixture(scope="module")
def result() -> ph.compare.CategoryComparison:
    return compare_by_category(ph.load_example("agents"), k=2, n_boot=200, n_perm=500, seed=1)


def test_each_category_is_compare_on_its_tasks(result) -> None:  # type: ignore[no-untyped-def]
    df = ph.load_example("agents").frame
    for cat in ("gmail", "amazon"):
        alone = ph.Trials.from_frame(df[df["category"] == cat])
        want = ph.compare(alone, k=2, n_boot=200, seed=1).table
        got = result.table[result.table["category"] == cat]
        np.testing.assert_array_equal(got[NUMBERS].to_numpy(float), want[NUMBERS].to_numpy(float))


def test_holm_across_categories(result) -> None:  # type: ignore[no-untyped-def]
    t = result.table
    part = t[(t["metric"] == "pass_hat_k") & (t["scope"] == "population")]
    np.testing.assert_allclose(part["p_holm"], holm(part["p_value"].to_numpy(float)))
    assert part["category"].nunique() == 8


def test_the_test_is_the_permutation_f_test_of_the_differences(result) -> None:  # type: ignore[no-untyped-def]
    ds = ph.load_example("agents").counts()
    n, c = ds["n"].values.astype(float), ds["c"].values.astype(float)
    d = column_values(n[1], c[1], columns([2])) - column_values(n[0], c[0], columns([2]))
    labels = pd.factorize(pd.Series(ds["category"].values).astype(str))[0]
    want = category_difference(d, labels, n_perm=500, rng=np.random.default_rng(0))
    got = result.tests.set_index("metric")
    np.testing.assert_allclose(got["statistic"].to_numpy(), want.statistic, rtol=1e-12)
    se = np.sqrt(0.25 / 500)  # two independent 500-relabelling p-values
    assert np.all(np.abs(got["p_value"].to_numpy() - want.p_value) < 6 * se)


def test_document_validates_and_no_category_is_refused(result) -> None:  # type: ignore[no-untyped-def]
    df = ph.load_example("agents").frame
    two = ph.Trials.from_frame(df[df["category"].isin(["gmail", "amazon"])])
    schemas.validate(compare_by_category(two, k=1, n_boot=100, n_perm=100).to_dict())
    assert "category" in result.view().parts[0].frame.columns
    with pytest.raises(ValidationError, match="no category column"):
        compare_by_category(ph.load_example("agents").counts().drop_vars("category"), k=1)


def test_result_shape(result) -> None:  # type: ignore[no-untyped-def]
    doc = result.to_dict()
    assert {"schema", "schema_version", "passhat_version"} <= set(doc)
    assert len(repr(result)) <= 2000
    with pytest.raises(AttributeError):
        result.table = None  # frozen
    df = ph.load_example("agents").frame.copy()
    df.loc[df["category"] == "gmail", "category"] = "<b>mail</b>"
    two = ph.Trials.from_frame(df[df["category"].isin(["<b>mail</b>", "amazon"])])
    html = compare_by_category(two, k=1, n_boot=100, n_perm=100)._repr_html_()
    assert "&lt;b&gt;mail&lt;/b&gt;" in html and "<b>mail</b>" not in html


def _scored(seed: int = 0, tasks: int = 24) -> pd.DataFrame:
    """Two systems' runs with partial-credit scores on tasks in three categories."""
    rng = np.random.default_rng(seed)
    task = np.repeat(np.arange(tasks), 4)
    rows = pd.DataFrame({"task_id": [f"t{t:02d}" for t in task], "trial": np.tile(range(4), tasks),
                         "category": np.array(["x", "y", "z"])[task % 3]})  # fmt: skip
    parts = []
    for s, shift in (("a", 0.0), ("b", 0.15)):
        p = np.clip(rng.uniform(size=tasks)[task] + shift * (task % 3 == 2), 0, 1)
        score = np.round(np.clip(p + rng.normal(0, 0.2, size=task.size), 0, 1), 2)
        parts.append(rows.assign(system=s, score=score, success=score >= 0.5))
    return pd.concat(parts, ignore_index=True)


def test_scores_each_category_is_compare_scores_on_its_tasks() -> None:
    df = _scored()
    res = compare_by_category(ph.Trials.from_frame(df), k=[1, 2], n_boot=200, n_perm=200,
                              seed=4, scores=True)  # fmt: skip
    assert set(res.table["metric"]) == {"mean_score", "best_of_k", "worst_of_k"}
    assert res.settings["scores"] is True
    for cat in ("x", "z"):
        alone = ph.Trials.from_frame(df[df["category"] == cat])
        want = ph.compare_scores(alone, k=[1, 2], n_boot=200, seed=4).table
        got = res.table[res.table["category"] == cat]
        assert got["metric"].tolist() == want["metric"].tolist()
        np.testing.assert_array_equal(got[NUMBERS].to_numpy(float), want[NUMBERS].to_numpy(float))
    schemas.validate(res.to_dict())


def test_scores_one_category_is_the_unsplit_compare_scores() -> None:
    data = ph.Trials.from_frame(_scored().assign(category="all"))
    res = compare_by_category(data, k=2, n_boot=200, n_perm=50, seed=1, scores=True)
    want = ph.compare_scores(data, k=2, n_boot=200, seed=1).table
    np.testing.assert_array_equal(res.table[NUMBERS].to_numpy(float), want[NUMBERS].to_numpy(float))
    assert np.isnan(res.tests["p_value"]).all()


def test_scores_on_01_are_the_pass_fail_rows_and_test() -> None:
    df = _scored(seed=2, tasks=36)
    df["score"] = df["success"].astype(float)
    kw = {"k": [1, 2], "n_boot": 200, "n_perm": 300, "seed": 3}
    plain = compare_by_category(ph.Trials.from_frame(df), **kw)
    scored = compare_by_category(ph.Trials.from_frame(df), scores=True, **kw)
    names = {"mean": "mean_score", "pass_at_k": "best_of_k", "pass_hat_k": "worst_of_k"}
    pop = plain.table[plain.table["scope"] == "population"]
    pop_s = scored.table[scored.table["scope"] == "population"]
    assert pop_s["metric"].tolist() == pop["metric"].map(names).tolist()
    np.testing.assert_allclose(pop_s[NUMBERS].to_numpy(float), pop[NUMBERS].to_numpy(float),
                               atol=1e-12)  # fmt: skip
    np.testing.assert_allclose(scored.tests["statistic"], plain.tests["statistic"], atol=1e-12)
    np.testing.assert_allclose(scored.tests["p_value"], plain.tests["p_value"], atol=1e-12)
    assert scored.tests["metric"].tolist() == plain.tests["metric"].map(names).tolist()


def test_one_category_test_is_said_not_computed() -> None:
    """One category: the test is not computed (p NaN) and its method says so, not "exact (0
    arrangements)"."""
    data = ph.Trials.from_frame(_scored().assign(category="all"))
    res = compare_by_category(data, k=2, n_boot=200, n_perm=50, seed=1)
    assert np.isnan(res.tests["p_value"]).all()
    assert res.tests["method"].str.contains("not computed: fewer than two categories").all()
    assert not res.tests["method"].str.contains("0 arrangements").any()


def test_a_category_one_system_did_not_run_is_named() -> None:
    """b ran no task of category z: without intersect the error is compare's (the tasks only
    a ran, and --intersect), not "no task in common" (they share the x and y tasks); with
    intersect the error names the category that has no common task."""
    df = _scored().drop(columns="score")
    df = df[~((df["system"] == "b") & (df["category"] == "z"))]
    data = ph.Trials.from_frame(df)
    with pytest.raises(ValidationError, match=r"not run by both 'a' and 'b'.*--intersect"):
        compare_by_category(data, k=1, n_boot=100, n_perm=50)
    with pytest.raises(ValidationError, match=r"category 'z': .*no task in common"):
        compare_by_category(data, k=1, n_boot=100, n_perm=50, intersect=True)
