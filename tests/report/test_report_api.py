"""passhat.report.report, the public entry point: computes, writes, and reads a trace path.

Oracle: build_report_data and passhat.divergence called directly (report() adds only the
reading of a trace path and the writing of the files).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import passhat as ph
from passhat.errors import OptionError
from passhat.report import Report, ReportData, build_report_data
from passhat.report.render import results_json


def test_report_writes_what_the_builder_computes(tmp_path: Path) -> None:
    res = ph.report(ph.load_example("abcd"), tmp_path / "out", k=[1, 2], model=False, seed=1)
    assert isinstance(res, Report) and isinstance(res.data, ReportData)
    assert res.paths.out_dir == tmp_path / "out"
    for path in (res.paths.html, res.paths.markdown, res.paths.json, *res.paths.figures):
        assert path.is_file() and path.is_relative_to(tmp_path / "out")
    again = build_report_data(ph.load_example("abcd"), k=[1, 2], model=False, seed=1)
    assert res.paths.json.read_text(encoding="utf-8") == results_json(again)


def test_report_reads_a_trace_path(tau_airline_path: Path, tmp_path: Path) -> None:
    opts = {"k": [1, 2], "model": False, "plan": False, "n_boot": 200}
    trials = ph.read(tau_airline_path)
    by_path = ph.report(trials, tmp_path / "a", traces=tau_airline_path, **opts)
    by_object = ph.report(
        trials, tmp_path / "b", traces=ph.read_traces(str(tau_airline_path)), **opts
    )
    div = ph.divergence(ph.read_traces(tau_airline_path))
    given = ph.report(trials, tmp_path / "c", divergence=div, **opts)
    sections = [
        next(s for s in json.loads(r.paths.json.read_text())["sections"] if s["id"] == "divergence")
        for r in (by_path, by_object, given)
    ]
    assert sections[0] == sections[1] == sections[2]
    assert sections[0]["tables"][0]["rows"]  # the τ-bench file has flaky tasks


def _with_unscored_runs() -> ph.Trials:
    """The agents example with the last run of two tasks unscored (4 decided runs there)."""
    t = ph.load_example("agents")
    df = t.frame.copy()
    for task in df["task_id"].unique()[:2]:
        idx = df.index[(df["task_id"] == task) & (df["system"] == "baseline")][-1]
        df.loc[idx, ["success", "status"]] = [None, "grader_error"]
    return ph.Trials.from_frame(df)


def test_report_without_k_uses_the_cli_default(tmp_path: Path) -> None:
    """Issue 12 item 5: ph.report(trials, dir) raised ShortTaskError (k = 5 > n = 4) while the
    CLI capped k at the fewest decided runs; both use passhat.exclusions.default_ks."""
    from passhat.cli import main

    trials = _with_unscored_runs()
    res = ph.report(trials, tmp_path / "api", model=False, plan=False)
    assert res.data.stamp["settings"]["k"] == [1, 2, 4]
    path = tmp_path / "runs.csv"
    trials.frame.to_csv(path, index=False)
    assert main(["report", str(path), "-o", str(tmp_path / "cli"), "--no-model", "--no-plan"]) == 0
    doc = json.loads((tmp_path / "cli" / "results.json").read_text(encoding="utf-8"))
    assert doc["stamp"]["settings"]["k"] == [1, 2, 4]


def test_report_min_runs_applies_to_matched_tasks(tmp_path: Path) -> None:
    """Issue 12 item 7: with --min-runs, both systems are reported on the same tasks."""
    trials = _with_unscored_runs()
    res = ph.report(trials, tmp_path / "r", k=[1, 5], min_runs=5, on_short="exclude", model=False)
    est = ph.estimate(trials, k=[1, 5], min_runs=5, on_short="exclude", matched=True)
    sizes = res.data.section("data").tables[0].rows
    assert [r["included"] for r in sizes] == [166, 166]
    assert est.summary["tasks"].tolist() == [166, 166]
    notes = res.data.stamp["notes"]
    assert "excluded 2 task(s): n = 4 decided runs < min_runs = 5" in notes
    assert "excluded 2 task(s): matched tasks: left out for another system" in notes
    cmp_rows = res.data.section("headline").tables[-1].rows
    assert cmp_rows and {r.get("tasks", 166) for r in cmp_rows} == {166}


@pytest.mark.parametrize("out", [None, 3, ""])
def test_report_without_a_directory_path_is_an_option_error(out: object) -> None:
    """ph.report(data, None) raised a bare TypeError from os.fspath."""
    with pytest.raises(OptionError, match=r"\(-o DIR, out_dir\) must be a non-empty path"):
        ph.report(ph.load_example("abcd"), out, model=False)  # type: ignore[arg-type]
