"""passhat.report.report, the public entry point: computes, writes, and reads a trace path.

Oracle: build_report_data and passhat.divergence called directly (report() adds only the
reading of a trace path and the writing of the files).
"""

from __future__ import annotations

import json
from pathlib import Path

import passhat as ph
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
