"""passhat.report.sections.categories: the per-category section is the estimate's by-category
result.

Oracle: ``passhat estimate FILE --by category --json`` on the same file with the same k, level,
resamples and seed (``by_category`` and ``category_tests``); absent without a category.
"""

from __future__ import annotations

import pandas as pd
import pytest
from report_testdata import EXTRAS_CSV, results_of

import passhat as ph
from passhat.errors import ValidationError
from passhat.report.sections.categories import category_section


def test_open_table_is_the_population_rows_at_the_largest_k(extras_results, extras_oracle) -> None:
    sec = category_section(extras_results)
    assert sec is not None and sec.status == "ok"
    want = {
        (r["system"], r["category"], r["metric"]): r
        for r in extras_oracle["by_category"]
        if r["scope"] == "population" and r["k"] == 5
    }
    rows = sec.tables[0].rows
    assert len(rows) == 2 * 4
    assert "<i>ops</i> & co" in {r["category"] for r in rows}  # the name, as the data give it
    for r in rows:
        for metric in ("mean", "pass_hat_k", "pass_at_k"):
            w = want[(r["system"], r["category"], metric)]
            assert r[metric] == pytest.approx(w["value"], abs=1e-12)
            assert r[f"{metric}_lower"] == pytest.approx(w["lower"], abs=1e-12)
            assert r[f"{metric}_upper"] == pytest.approx(w["upper"], abs=1e-12)
            assert r["tasks"] == w["tasks"] == 6


def test_tests_table_is_the_permutation_tests(extras_results, extras_oracle) -> None:
    table = category_section(extras_results).tables[1]
    want = pd.DataFrame(extras_oracle["category_tests"])
    assert len(table.rows) == len(want)
    for r, w in zip(table.rows, want.to_dict(orient="records"), strict=True):
        assert r["system"] == w["system"]
        assert r["p_value"] == pytest.approx(w["p_value"], abs=1e-12)
        assert r["holm"] == pytest.approx(w["holm"], abs=1e-12)


def test_every_metric_table_holds_both_scopes(extras_results, extras_oracle) -> None:
    table = category_section(extras_results).tables[2]
    want = {
        (r["system"], r["category"], r["metric"], r["k"], r["scope"]): r
        for r in extras_oracle["by_category"]
    }
    names = {
        "mean": "mean",
        "pass@k": "pass_at_k",
        "pass^k": "pass_hat_k",
        "mean score": "mean_score",
        "best of k": "best_of_k",
        "worst of k": "worst_of_k",
    }
    for r in table.rows:
        k = r["k"] if r["k"] is not None else 1
        for scope in ("benchmark", "population"):
            w = want[(r["system"], r["category"], names[r["metric"]], k, scope)]
            assert (r[f"{scope}_lower"], r[f"{scope}_upper"]) == pytest.approx(
                (w["lower"], w["upper"]), abs=1e-12
            )


def test_interval_columns_name_their_scope_as_every_table_does(extras_results) -> None:
    """The interval columns are headed as the headline's, partial credit's and the grader
    correction's (``scope_columns``: "… benchmark scope (these tasks)", "… population scope
    (expected value over tasks like these)"), and the note names each scope's methods."""
    from passhat.report.sections.headline import headline_section

    table = category_section(extras_results).tables[2]
    labels = {c.key: c.label for c in table.columns}
    head = {c.key: c.label for c in headline_section(extras_results).tables[0].columns}
    assert labels["benchmark"] == head["benchmark"] == "95% interval, benchmark scope (these tasks)"
    assert labels["population"] == head["population"]
    assert labels["population"].endswith("population scope (expected value over tasks like these)")
    methods = extras_results.estimate.by_category.table.groupby("scope")["method"].unique()
    for scope, ms in methods.items():
        assert f"{str(scope).capitalize()} scope: {'; '.join(sorted(ms))}." in table.note


def test_sentence_names_the_lowest_and_highest_category(extras_results) -> None:
    sec = category_section(extras_results)
    rows = [r for r in sec.tables[0].rows if r["system"] == "plain"]
    low = min(rows, key=lambda r: r["pass_hat_k"])
    line = next(s for s in sec.sentences if s.startswith("plain:"))
    assert f"({low['category']})" in line and "permutation test" in line


#: One system, the other data-driven sections off: each report here takes ~0.3 s.
ONLY_BY = {"k": [1, 2], "scores": False, "cost": False}


def _plain() -> pd.DataFrame:
    runs = pd.read_csv(EXTRAS_CSV)
    return runs[runs["system"] == "plain"].reset_index(drop=True)


@pytest.mark.parametrize(
    ("change", "options"),
    [
        (lambda runs: runs.drop(columns="category"), {}),
        (lambda runs: runs, {"by": False}),
        (lambda runs: runs.assign(category="all"), {}),  # one category: nothing to compare
    ],
    ids=["no-column", "turned-off", "one-category"],
)
def test_absent(change, options) -> None:  # type: ignore[no-untyped-def]
    data = ph.Trials.from_frame(change(_plain()))
    assert category_section(results_of(data, **ONLY_BY, **options)) is None


def test_a_task_without_a_category_is_said_and_refused_when_asked() -> None:
    runs = _plain()
    runs.loc[runs["task_id"] == "task_03", "category"] = None
    data = ph.Trials.from_frame(runs)
    sec = category_section(results_of(data, **ONLY_BY))
    assert sec is not None and sec.status == "skipped" and "task_03" in sec.note
    with pytest.raises(ValidationError, match="task_03"):
        results_of(data, **ONLY_BY, by="category")
