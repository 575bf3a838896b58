"""passhat.report.build: which sections, in which order, the stamp, reproducibility, traces.

Oracles: the estimators (every number in results.json is the number they compute),
τ-bench's published leaderboard (pass^1..4 = 0.420, 0.273, 0.220, 0.200) for the real data,
and passhat.divergence itself for the traces (the report must show what it computes).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from report_testdata import malicious_trials

import passhat as ph
from passhat.errors import OptionError
from passhat.report.build import build_report_data
from passhat.report.render import results_json

FAST = {"model": False, "plan": False, "n_boot": 200}


def test_sections_in_order_and_the_skipped_model_says_so(example_report) -> None:
    rd = example_report.data
    ids = [s.id for s in rd.sections]
    # the bundled agents carry a category and a cost per run: those sections are detected
    assert ids == [
        "summary", "data", "headline", "by_category", "cost", "cost_comparison", "spread",
        "model", "flaky", "plan",
    ]  # fmt: skip
    assert rd.section("model").status == "skipped"
    assert rd.section("model").note == "The model was not run (--no-model)."
    with pytest.raises(KeyError):
        rd.section("divergence")


def test_stamp_names_input_seed_settings_and_versions(example_report) -> None:
    doc = json.loads(example_report.paths.json.read_text(encoding="utf-8"))
    stamp = doc["stamp"]
    assert stamp["seed"] == 0 and stamp["settings"]["k"] == [1, 2, 5]
    assert len(stamp["input"]["sha256"]) == 64 and stamp["versions"]["passhat"]
    assert "202" not in json.dumps(stamp["settings"])  # no dates in the settings
    assert stamp["notes"] == [
        "intervals: 10000 resamples or posterior draws, seed 0 "
        "(each row's method names the one the rule picked)"
    ]


@pytest.mark.parametrize(
    "compare_models",
    [False, pytest.param(True, marks=pytest.mark.integration)],  # True: the inflated model, NUTS
)
def test_results_json_byte_identical_same_seed(tmp_path: Path, compare_models: bool) -> None:
    trials = malicious_trials()
    opts = {"k": [1, 5], "model": True, "n_boot": 300, "compare_models": compare_models}
    written = ph.report(trials, tmp_path / "a", seed=3, **opts).paths.json.read_bytes()
    again = results_json(build_report_data(trials, seed=3, **opts)).encode("utf-8")
    other = results_json(build_report_data(trials, seed=4, **opts)).encode("utf-8")
    assert written == again
    assert written != other  # the seed matters (bootstrap and posterior draws)


def test_count_table_input_and_no_intervals(tmp_path: Path) -> None:
    counts = ph.counts_from_arrays([5] * 6, [5, 5, 0, 2, 4, 3], tasks=list("ABCDEF"))
    res = ph.report(counts, tmp_path, k=[1, 2], model=False, ci=None)
    head = res.data.section("headline")
    assert "not available" in head.tables[0].note
    assert [t.id for t in res.data.section("data").tables][:2] == [
        "data_systems",
        "data_runs_per_task",
    ]
    assert res.paths.html.exists()


def test_tau_bench_report_matches_leaderboard(tau_airline_path: Path, tmp_path: Path) -> None:
    trials = ph.read(tau_airline_path)
    res = ph.report(trials, tmp_path, k=[1, 2, 3, 4], model=False, plan=False, n_boot=500)
    doc = json.loads(res.paths.json.read_text(encoding="utf-8"))
    head = next(s for s in doc["sections"] if s["id"] == "headline")["tables"][0]["rows"]
    got = {r["k"]: r["value"] for r in head if r["metric"] == "pass^k"}
    got[1] = next(r["value"] for r in head if r["metric"] == "mean")
    # τ-bench's published gpt-4o airline leaderboard
    assert [round(got[k], 3) for k in (1, 2, 3, 4)] == [0.420, 0.273, 0.220, 0.200]
    curve = pd.DataFrame(doc["figure_data"]["curve"])
    assert sorted(curve["k"].unique()) == [1, 2, 3, 4]
    hat = curve[curve["metric"] == "pass_hat_k"].sort_values("k")["value"].to_numpy()
    assert np.all(np.diff(hat) <= 0)
    assert re.search(r"pass\^4 is [0-9.]+× what a uniform spread", res.paths.html.read_text())


def test_unknown_baseline_is_refused() -> None:
    with pytest.raises(
        OptionError, match=r"baseline 'nope' is not a system .*have baseline, guided"
    ):
        build_report_data(ph.load_example("agents"), k=[1, 2], baseline="nope", **FAST)


def test_traces_give_the_divergence_section_of_passhat_divergence(tau_airline_path: Path) -> None:
    trials = ph.read(tau_airline_path)
    traces = ph.read_traces(tau_airline_path)
    for tolerate in (False, True):
        got = build_report_data(
            trials, k=[1, 2], traces=traces, tolerate_extra_lookups=tolerate, **FAST
        )
        div = ph.divergence(traces, tolerate_extra_lookups=tolerate)
        want = build_report_data(trials, k=[1, 2], divergence=div, **FAST)
        assert got.section("divergence").to_json() == want.section("divergence").to_json()
        assert got.divergence.table.equals(div.table)


def test_traces_of_other_runs_are_refused(tau_airline_path: Path) -> None:
    traces = ph.read_traces(tau_airline_path)  # tasks "0" … "49"
    with pytest.raises(OptionError) as err:
        build_report_data(ph.load_example("agents"), k=[1, 2], traces=traces, **FAST)
    msg = str(err.value)
    assert msg.startswith(f"traces {tau_airline_path}: none of its 50 task(s) (e.g. 0, 1, 10)")
    assert "among the tasks of agents (e.g. amazon_" in msg
    assert msg.endswith("give the trace file of the same runs")


def test_traces_options_are_checked() -> None:
    data = ph.load_example("abcd")
    with pytest.raises(OptionError, match=r"^tolerate_extra_lookups needs traces$"):
        build_report_data(data, k=[1, 2], tolerate_extra_lookups=True, **FAST)
    steps = pd.DataFrame({"task_id": ["A"], "trial": [0], "action": ["lookup"]})
    outcomes = pd.DataFrame({"task_id": ["A"], "trial": [0], "success": [True]})
    traces = ph.Traces.from_frames(steps, outcomes)
    with pytest.raises(OptionError, match="traces= or divergence=, not both"):
        build_report_data(data, k=[1, 2], traces=traces, divergence=object(), **FAST)
