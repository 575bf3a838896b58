"""passhat.report.results / build.compute_results: every result of the report, computed once,
with one seed stream.

Oracles: each result equals its own API call with the report's seed (passhat.estimate,
passhat.spread, passhat.compare, passhat.rank, passhat.fit on the report's matched tasks);
the compute functions counted while the report is built (each runs once, and the sections
run none of them).
"""

from __future__ import annotations

import dataclasses
import importlib

import pandas as pd
import pytest
from report_testdata import results_of

import passhat as ph
from passhat.report.assemble import assemble_report
from passhat.report.results import ReportSeeds

build = importlib.import_module("passhat.report.build")  # ph.report is a function


def test_each_result_is_its_own_api_call_with_the_reports_seed() -> None:
    data = ph.load_example("agents")
    opts = {"ci": 0.9, "n_boot": 300, "seed": 5}
    res = results_of(data, k=[1, 5], model=True, **opts)
    assert res.seeds == ReportSeeds.from_seed(5)
    assert {f.name: getattr(res.seeds, f.name) for f in dataclasses.fields(res.seeds)} == {
        "estimate": 5,
        "spread": 5,
        "curve": 5,
        "comparison": 5,
        "ranking": 5,
        "fit": 5,
        "inflated": 5,
        "grader": 5,
        "cost_comparison": 5,
    }
    est = ph.estimate(data, k=[1, 5], matched=True, predictive=168, **opts)
    pd.testing.assert_frame_equal(res.estimate.table, est.table)
    sp = ph.spread(res.counts, k=[1, 5], **opts)
    pd.testing.assert_frame_equal(res.spread.table, sp.table)
    cmp = ph.compare(res.counts, k=[1, 5], intersect=True, baseline="baseline", **opts)
    pd.testing.assert_frame_equal(res.comparison.table, cmp.table)
    fit = ph.fit(res.counts, k=[1, 5], seed=5, method="grid", progress=False)
    pd.testing.assert_frame_equal(res.model.summary, fit.summary(k=[1, 5], ci=0.9))
    assert res.ranking is None  # two systems: the paired comparison says it
    costs = ph.compare_cost(data, k=[1, 5], intersect=True, baseline="baseline", **opts)
    pd.testing.assert_frame_equal(res.cost_comparison.table, costs.table)
    # the curve: one estimate per two k, each with the report's seed
    curve = res.curve[(res.curve["k"] == 5) & (res.curve["metric"] == "pass_hat_k")]
    five = ph.estimate(res.counts, k=[5], on_short="exclude", **opts).table
    want = five[(five["metric"] == "pass_hat_k") & (five["scope"] == "population")]
    assert curve["lower"].tolist() == want["lower"].tolist()


def test_the_ranking_is_ranks_with_the_reports_seed() -> None:
    data = ph.load_example("leaderboard")
    res = results_of(data, k=[1, 5], n_boot=300, seed=2)
    want = ph.rank(res.counts, k=[1, 5], ci=0.95, n_boot=300, seed=2, intersect=True)
    pd.testing.assert_frame_equal(res.ranking.table, want.table)


def test_each_computation_runs_once_and_the_sections_run_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    names = ("estimate", "spread", "compare", "compare_cost", "fit", "next_runs", "design",
             "slices")  # fmt: skip
    calls: dict[str, int] = dict.fromkeys(names, 0)
    for name in names:
        real = getattr(build, name)

        def counted(*args, _real=real, _name=name, **kwargs):  # type: ignore[no-untyped-def]
            calls[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(build, name, counted)
    res = results_of(ph.load_example("agents"), k=[1, 5], model=True, plan=True)
    # one of each; the planner's batch and design once per system
    assert calls == {**dict.fromkeys(names, 1), "next_runs": 2, "design": 2}

    def refuse(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("a section computed")

    for name in names:
        monkeypatch.setattr(build, name, refuse)
    rd = assemble_report(res)
    assert [s.id for s in rd.sections][1:] == [
        "data",
        "headline",
        "by_category",  # the bundled agents carry a category and a cost per run
        "cost",
        "cost_comparison",  # and two systems
        "spread",
        "model",
        "flaky",
        "plan",
    ]


def test_results_are_frozen_and_say_what_they_hold() -> None:
    res = results_of(ph.load_example("abcd"), k=[1, 2])
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.estimate = None  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.settings.seed = 3  # type: ignore[misc]
    text = repr(res)
    assert text == "ReportResults(1 system(s), k = 1, 2, seed 0: estimate, spread, curve, slices)"


def test_unknown_options_and_bad_levels_are_refused_before_the_work() -> None:
    from passhat.errors import OptionError

    with pytest.raises(TypeError, match="unexpected keyword argument 'confidence'"):
        build.compute_results(ph.load_example("abcd"), confidence=0.9)  # type: ignore[call-arg]
    with pytest.raises(OptionError, match="ci must lie strictly between 0 and 1"):
        build.compute_results(ph.load_example("abcd"), ci=1.5)
