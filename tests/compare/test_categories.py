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
