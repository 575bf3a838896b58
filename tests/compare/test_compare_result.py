"""The shape of :class:`passhat.Comparison` (passhat.compare.result): a frozen result whose
JSON document, table and view are those ``passhat compare`` printed before.

Oracles: the document's keys as the command wrote them before (plus the three header keys),
the result's own table, the data's provenance (passhat.trials.provenance), and
passhat.exclusions.default_ks for the default k.
"""

from __future__ import annotations

import warnings
from dataclasses import FrozenInstanceError

import pytest

import passhat as ph
from passhat._result import MAX_REPR
from passhat.exclusions import default_ks
from passhat.trials import provenance

HOSTILE = "<b onmouseover=x>sys</b>"


@pytest.fixture(scope="module")
def cmp(agents_trials: ph.Trials) -> ph.Comparison:
    return ph.compare(agents_trials, k=[1, 2], n_boot=200, seed=0)


def test_document_has_the_header_and_the_keys_the_command_wrote(
    cmp: ph.Comparison, agents_trials: ph.Trials
) -> None:
    doc = cmp.to_dict()
    head = ["schema", "schema_version", "passhat_version"]
    body = ["input", "settings", "comparison", "discordant", "dropped", "notes"]
    assert list(doc) == head + body
    assert (doc["schema"], doc["schema_version"]) == ("passhat.comparison", 1)
    assert doc["input"] == {"base": provenance(agents_trials)}
    assert len(doc["comparison"]) == len(cmp.table) == 12  # 2 k × 3 metrics × 2 scopes
    got = [r["difference"] for r in doc["comparison"]]  # JSON keeps 12 significant digits
    assert got == pytest.approx(cmp.table["difference"].tolist(), rel=1e-11)
    assert "method" not in doc["settings"]  # --ci-method is gone: it chose nothing


def test_two_inputs_record_both_sources(agents_trials: ph.Trials) -> None:
    f = agents_trials.frame
    a = ph.Trials.from_frame(f[f["system"] == "baseline"])
    b = ph.Trials.from_frame(f[f["system"] == "guided"])
    doc = ph.compare(a, b, k=1, n_boot=100).to_dict()
    assert set(doc["input"]) == {"base", "cand"}


def test_frozen_frame_and_view(cmp: ph.Comparison) -> None:
    with pytest.raises(FrozenInstanceError):
        cmp.table = cmp.table  # type: ignore[misc]
    frame = cmp.to_frame()
    assert frame.equals(cmp.table) and frame is not cmp.table
    view = cmp.view()
    assert view.min_width == 120
    first = view.parts[0]
    assert (
        first.title == "guided − baseline: paired difference on 168 matched tasks (0.95 intervals)"
    )
    assert list(first.frame.columns) == [
        "k", "metric", "baseline", "guided", "difference",
        "population", "p (pop.)", "benchmark", "p (bench.)",
    ]  # fmt: skip
    assert first.left == {"metric"}  # a system named "baseline" stays right-aligned
    assert view.parts[-1].lines == ("sign flips and posterior draws: 200, seed 0",)
    assert len(repr(cmp)) <= MAX_REPR


def test_names_are_escaped_in_html(agents_trials: ph.Trials) -> None:
    f = agents_trials.frame
    hostile = ph.Trials.from_frame(f.assign(system=f["system"].replace("guided", HOSTILE)))
    html = ph.compare(hostile, k=1, n_boot=100)._repr_html_()
    assert HOSTILE not in html and "&lt;b onmouseover=x&gt;sys&lt;/b&gt;" in html


def test_default_k_is_the_one_default_rule(agents_trials: ph.Trials) -> None:
    cmp = ph.compare(agents_trials, n_boot=100)
    assert cmp.settings["k"] == default_ks(agents_trials) == [1, 2, 5]
    assert sorted(set(cmp.table["k"])) == [1, 2, 5]


def test_method_is_deprecated_and_changes_nothing(agents_trials: ph.Trials) -> None:
    with pytest.warns(DeprecationWarning, match=r"compare\(method=...\) has no effect"):
        old = ph.compare(agents_trials, k=1, n_boot=100, method="percentile")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = ph.compare(agents_trials, k=1, n_boot=100)
    assert old.table.equals(new.table)
    with pytest.raises(ph.OptionError, match="method must be one of"):
        ph.compare(agents_trials, k=1, n_boot=100, method="bootstrap")  # type: ignore[arg-type]


# ------------------------------------------------------------------ the table for papers
def test_paper_table_holds_the_comparison_numbers_and_names_its_scope() -> None:
    from tests.paper_cells import close, markdown_rows, numbers

    cmp = ph.compare(ph.load_example("agents"), k=[1, 2], n_boot=200, seed=0)
    for scope in ("population", "benchmark"):
        text = cmp.to_markdown(scope=scope)
        rows = markdown_rows(text)
        assert [r["metric"] for r in rows] == ["mean", "pass@2", "pass^2"]  # pass@1 = mean
        assert list(rows[0]) == ["metric", "baseline", "guided", "difference", "p"]
        t = cmp.table[cmp.table["scope"] == scope]
        wanted = [("mean", 1), ("pass_at_k", 2), ("pass_hat_k", 2)]
        for r, (metric, k) in zip(rows, wanted, strict=True):
            row = t[(t["metric"] == metric) & (t["k"] == k)].iloc[0]
            d, lo, hi = numbers(r["difference"])
            assert close(numbers(r["baseline"])[0], row["base_value"])
            assert close(numbers(r["guided"])[0], row["cand_value"])
            assert (
                close(d, row["difference"]) and close(lo, row["lower"]) and close(hi, row["upper"])
            )
            p = row["p_value"]
            assert r["p"] == ("<0.0001" if p < 1e-4 else f"{p:.4f}")
        assert f"{scope} scope" in text.splitlines()[-1]
        assert "guided − baseline on 168 matched tasks" in text
    with pytest.raises(ph.OptionError, match="scope must be one of population, benchmark"):
        cmp.to_latex(scope="predictive")


def test_paper_table_of_several_candidates_says_the_p_values_are_per_pair() -> None:
    from tests.paper_cells import markdown_rows

    cmp = ph.compare(ph.load_example("leaderboard"), baseline="baseline", k=2, n_boot=100)
    text = cmp.to_markdown()
    rows = markdown_rows(text)
    assert list(rows[0])[:2] == ["candidate", "metric"] and len(rows) == 5 * 3
    assert "not adjusted across the 5 candidates" in text
    assert cmp.to_latex().count("\\midrule") == 1 + 4  # the header's, then one per candidate
