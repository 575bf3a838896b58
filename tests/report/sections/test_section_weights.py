"""passhat.report.sections.weights: with task weights the report says, section by section,
which numbers are weighted and why the others are not.

Oracles: the results' own records (each computation's ``weights`` setting) and, for the
numbers, ``passhat.estimate`` / ``passhat.rank`` with the same weights: the report's headline
and leaderboard values are theirs, and differ from the unweighted ones.
"""

from __future__ import annotations

import pandas as pd
import pytest
from report_testdata import EXTRAS_CSV, results_of

import passhat as ph
from passhat.report.assemble import report_sections
from passhat.report.sections.weights import weights_table

#: Weights that differ from equal: one task five times the others.
HEAVY = "task_03"


def _data() -> ph.Trials:
    return ph.read(EXTRAS_CSV)


def _weights(data: ph.Trials) -> dict[str, float]:
    tasks = sorted({str(t) for t in data.frame["task_id"]})
    return {t: 5.0 if t == HEAVY else 1.0 for t in tasks}


def test_no_table_without_weights() -> None:
    res = results_of(_data(), k=[1, 2], scores=False, by=False, cost=False)
    assert weights_table(res) is None
    data = next(s for s in report_sections(res) if s.id == "data")
    assert "data_weights" not in [t.id for t in data.tables]
    assert not any("Task weights" in s for s in data.sentences)


def test_each_row_follows_what_its_result_recorded() -> None:
    data = _data()
    res = results_of(data, k=[1, 2], weights=_weights(data), scores=False, cost=False)
    rows = {r["section"]: (r["weighted"], r["why"]) for r in weights_table(res).rows}
    assert res.estimate.settings["weights"] == res.spread.settings["weights"] == "mapping"
    assert rows["2. Headline"][0] == rows["3. Clustered vs uniform spread"][0] == "yes"
    assert rows["By category"][0] == "yes" and "weighs tasks equally" in rows["By category"][1]
    assert rows["1. Data"][0] == rows["5. Flaky tasks"][0] == "not applicable"
    assert "4. Model" not in rows and "6. What to run next" not in rows  # not computed here
    secs = {s.id: s for s in report_sections(res)}
    said = [s for s in secs["data"].sentences if s.startswith("Task weights: mapping")]
    assert len(said) == 1 and said[0] in secs["summary"].sentences  # the summary repeats it


def test_headline_values_are_the_weighted_estimate() -> None:
    data = _data()
    w = _weights(data)
    res = results_of(data, k=[1, 2], weights=w, scores=False, by=False, cost=False)
    want = ph.estimate(data, k=[1, 2], weights=w)
    plain = ph.estimate(data, k=[1, 2])
    for system in ("plain",):
        got = res.estimate.value("pass_hat_k", 2, system)
        assert got == pytest.approx(want.value("pass_hat_k", 2, system), rel=1e-12)
        assert got != pytest.approx(plain.value("pass_hat_k", 2, system), rel=1e-6)


@pytest.mark.integration  # fits the model (grid, stacked): ~3-10 s
def test_model_and_plan_say_they_are_not_weighted_in_full() -> None:
    """A report with the model (grid) and the plan: the model is weighted in its benchmark
    scope only, the plan not at all, and both sections say so in a sentence."""
    data = _data()
    plain = data.frame[data.frame["system"] == "plain"].reset_index(drop=True)
    one = ph.Trials.from_frame(plain)
    res = results_of(
        one, k=[1, 2], weights="category", scores=False, by=False, cost=False, model=True,
        plan=True,
    )  # fmt: skip
    assert res.model is not None and res.model.weights == "category"
    rows = {r["section"]: r["weighted"] for r in weights_table(res).rows}
    assert rows["4. Model"] == "benchmark scope only"
    assert rows["6. What to run next"] == "no"
    secs = {s.id: s for s in report_sections(res)}
    assert any("population scope is the unweighted model" in s for s in secs["model"].sentences)
    assert any(s.startswith("Not weighted: the planner") for s in secs["plan"].sentences)


def test_leaderboard_is_ranked_with_the_weights() -> None:
    """Three systems: the report's ranking is rank() with the same weights."""
    data = _data().frame
    third = data[data["system"] == "plain"].assign(system="third")
    three = ph.Trials.from_frame(pd.concat([data, third], ignore_index=True))
    w = _weights(three)
    res = results_of(three, k=[1, 2], weights=w, scores=False, by=False, cost=False)
    assert res.ranking is not None and res.ranking.settings["weights"] == "mapping"
    rows = {r["section"]: r["weighted"] for r in weights_table(res).rows}
    assert rows["Leaderboard"] == "yes"
    want = ph.rank(three, k=[1, 2], weights=w, n_boot=200, seed=res.seeds.ranking, ci=0.95,
                   intersect=True)  # fmt: skip
    pd.testing.assert_frame_equal(res.ranking.table, want.table)
