"""passhat.report.extras: which data-driven sections the report computes, from the options and
the data's columns, and what the report says of clustered tasks.

Oracle: the fixture's columns (scores in quarters, 4 categories, 6 clusters, a cost per run),
the bundled examples' columns (agents: category and cost; tau-airline: 0/1 scores; abcd:
none), and ``passhat estimate --json`` on the same file for the clustered headline.
"""

from __future__ import annotations

import pytest
from report_testdata import EXTRAS_CSV, results_of

import passhat as ph
from passhat.errors import OptionError
from passhat.report.assemble import report_stamp
from passhat.report.extras import plan_extras
from passhat.report.render import render_html, render_markdown


@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("abcd", (False, False, False)),
        ("tau-airline", (False, False, False)),  # 0/1 scores: no partial credit
        ("agents", (False, True, True)),
        ("leaderboard", (False, True, False)),
    ],
)
def test_detected_from_the_bundled_examples(name: str, want: tuple[bool, ...]) -> None:
    ex = plan_extras(ph.load_example(name), scores=None, by=None, cost=None).extras
    assert (ex.scores, ex.by_category, ex.cost) == want
    assert ex.skipped == ()


def test_detected_from_the_fixture_and_turned_off() -> None:
    data = ph.read(EXTRAS_CSV)
    on = plan_extras(data, scores=None, by=None, cost=None)
    assert (on.scores, on.by, on.extras.cost) == (True, "category", True)
    off = plan_extras(data, scores=False, by=False, cost=False)
    assert (off.scores, off.by, off.extras.cost) == (False, None, False)
    assert plan_extras(data, scores=[0.5, 1], by=None, cost=None).scores == [0.5, 1.0]


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"scores": "yes"}, "scores must be"),
        ({"by": "task"}, "by must be"),
        ({"cost": "yes"}, "cost must be"),
    ],
)
def test_bad_options_are_refused(options: dict, words: str) -> None:  # type: ignore[type-arg]
    opts = {"scores": None, "by": None, "cost": None, **options}
    with pytest.raises(OptionError, match=words):
        plan_extras(ph.load_example("abcd"), **opts)


def test_cost_asked_of_data_without_one_is_refused() -> None:
    with pytest.raises(OptionError, match="cost needs runs with a cost column"):
        plan_extras(ph.load_example("abcd"), scores=None, by=None, cost=True)


def test_bundled_agents_report_gains_the_category_and_cost_sections() -> None:
    res = results_of(ph.load_example("agents"), k=[1, 2])
    from passhat.report.assemble import report_sections

    ids = [s.id for s in report_sections(res)]
    assert ids[1:7] == ["data", "headline", "by_category", "cost", "cost_comparison", "spread"]
    settings = report_stamp(res)["settings"]
    assert settings["by"] == {"asked": None, "shown": True}
    assert "scores" not in settings and "clusters" not in settings


def test_abcd_stamp_records_nothing_new() -> None:
    settings = report_stamp(results_of(ph.load_example("abcd"), k=[1, 2]))["settings"]
    assert not {"scores", "by", "cost", "clusters"} & set(settings)


def test_clustered_headline_follows_the_estimate_on_clusters(extras_results, extras_oracle) -> None:
    """The headline's population intervals are estimate's (below 20 clusters the
    cluster jackknife logit-t interval); the headline names the clusters and the rule below 20; the
    summary repeats the warning."""
    from passhat.report.assemble import report_sections

    pop = {
        (r["system"], r["metric"], r["k"]): r
        for r in extras_oracle["estimates"]
        if r["scope"] == "population"
    }
    head_rows = extras_results.estimate.table
    rows = head_rows[(head_rows["scope"] == "population") & (head_rows["metric"] == "pass_hat_k")]
    for r in rows.to_dict(orient="records"):
        w = pop[(r["system"], "pass_hat_k", r["k"])]
        assert (r["lower"], r["upper"]) == pytest.approx((w["lower"], w["upper"]), abs=1e-12)
        assert r["method"] == w["method"] and "6 clusters" in r["method"]
        assert r["method"].startswith(("cluster jackknife logit-t", "Clopper–Pearson", "exact"))
    sections = {s.id: s for s in report_sections(extras_results)}
    head = sections["headline"].sentences
    assert any("plain: 6, tuned<b>: 6 clusters" in s for s in head)
    warning = next(s for s in head if s.startswith("Warning: only 6 clusters"))
    assert "below 20 clusters" in warning
    assert warning in sections["summary"].sentences
    assert report_stamp(extras_results)["settings"]["clusters"] == {"plain": 6, "tuned<b>": 6}
    # what the headline says of the other sections is what they did: the comparison flips clusters
    said = next(s for s in head if s.startswith("The tasks are clustered"))
    assert "The paired comparison, the leaderboard and the cost comparison use the clusters" in said
    cmp = extras_results.comparison.table
    assert cmp.loc[cmp["scope"] == "population", "method"].str.contains("cluster").all()


def test_no_cluster_sentences_without_a_cluster_column() -> None:
    import pandas as pd

    from passhat.report.sections.headline import headline_section

    runs = pd.read_csv(EXTRAS_CSV)
    data = ph.Trials.from_frame(runs[runs["system"] == "plain"].drop(columns="cluster"))
    res = results_of(data, k=[1, 2], scores=False, by=False, cost=False)
    assert res.clusters is None
    assert not any("cluster" in s for s in headline_section(res).sentences)


def test_names_from_the_data_are_escaped(extras_data) -> None:
    html = render_html(extras_data, {})
    assert "<i>ops</i>" not in html and "tuned<b>" not in html
    assert "&lt;i&gt;ops&lt;/i&gt; &amp; co" in html and "tuned&lt;b&gt;" in html
    md = render_markdown(extras_data, {}).split("## Reproducibility")[0]  # stamp: code spans
    assert "<i>ops</i>" not in md and "tuned<b>" not in md
    assert "&lt;i&gt;ops&lt;/i&gt; &amp; co" in md
