"""passhat.report.result.Report: the result of ph.report shows itself as ``passhat report``
prints it, its document is ``passhat report --json``, and it is frozen.

Oracles: the report's own document (the summary section's sentences, the stamp's settings,
the files written); the JSON keys the command printed before issue 27 (plus the header).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from report_testdata import MALICIOUS_SYSTEM

from passhat._result import MAX_REPR, SCHEMA_VERSION
from passhat.report import Report

#: The keys of ``passhat report --json`` before issue 27; the document adds its header.
KEYS = ["input", "out_dir", "files", "seed", "settings", "summary", "sections", "notes"]


def test_to_dict_is_the_json_of_the_command_with_a_header(example_report: Report) -> None:
    doc = example_report.to_dict()
    assert list(doc) == ["schema", "schema_version", "passhat_version", *KEYS]
    assert (doc["schema"], doc["schema_version"]) == ("passhat.report", SCHEMA_VERSION)
    assert doc["settings"] == example_report.data.stamp["settings"]
    assert doc["summary"] == example_report.data.section("summary").sentences
    assert doc["files"]["html"] == str(example_report.paths.html)
    for key in ("html", "markdown", "json", "tasks"):
        assert Path(doc["files"][key]).is_file()
    assert [s["id"] for s in doc["sections"]] == [s.id for s in example_report.data.sections]


def test_to_frame_is_the_summarys_key_numbers(example_report: Report) -> None:
    frame = example_report.to_frame()
    rows = example_report.data.section("summary").tables[0].rows
    assert frame["system"].tolist() == ["baseline", "guided"]
    assert frame["pass_hat_k"].tolist() == [r["pass_hat_k"] for r in rows]


def test_repr_is_the_commands_output_and_short(example_report: Report) -> None:
    text = repr(example_report)
    assert len(text) <= MAX_REPR  # was 36,223 characters (the dataclass dump)
    lines = text.splitlines()
    assert lines[0] == f"report written to {example_report.paths.out_dir}/"
    assert lines[1] == f"  open:     {example_report.paths.html}"
    for sentence in example_report.data.section("summary").sentences:
        assert f"  {sentence}" in lines
    assert "  k = 1, 2, 5; bootstrap 10000 resamples, seed 0" in lines
    assert "  4. Model: not shown (The model was not run (--no-model).)" in lines
    assert str(example_report.view(paths_only=True).lines) == f"('{example_report.paths.html}',)"


def test_html_escapes_the_names(malicious_report: Report) -> None:
    html = malicious_report._repr_html_()
    assert html.startswith("<div>") and MALICIOUS_SYSTEM not in html
    assert "sys&lt;img src=x onerror=alert(2)&gt;" in html
    assert len(repr(malicious_report)) <= MAX_REPR


def test_frozen(example_report: Report) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        example_report.paths = None  # type: ignore[misc]
