"""passhat.report.document: the document model and its JSON form (what results.json holds).

Oracle: the JSON documents written out by hand.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from passhat.report.document import Column, ReportData, Section, Table, frame_rows, frame_table


def test_table_and_section_json() -> None:
    t = Table(
        id="t",
        caption="Runs",
        columns=[Column("task", "Task"), Column("rate", "Rate", "pct")],
        rows=[{"task": "a", "rate": 0.5}, {"task": "b", "rate": math.nan}],
        note="n",
        hidden_rows=1,
    )
    assert t.to_json() == {
        "id": "t",
        "caption": "Runs",
        "columns": [
            {"key": "task", "label": "Task", "format": "str"},
            {"key": "rate", "label": "Rate", "format": "pct"},
        ],
        "rows": [{"task": "a", "rate": 0.5}, {"task": "b", "rate": None}],  # NaN → null
        "note": "n",
    }
    s = Section(id="x", title="X", sentences=["one."], tables=[t], figures=["f"])
    assert s.to_json() == {
        "id": "x",
        "title": "X",
        "status": "ok",
        "note": "",
        "sentences": ["one."],
        "tables": [t.to_json()],
        "figures": ["f"],
    }


def test_report_data_json_and_lookup() -> None:
    frame = pd.DataFrame({"k": [1], "value": [0.25]})
    rd = ReportData(
        title="T",
        sections=[Section(id="a", title="A"), Section(id="b", title="B", status="skipped")],
        figure_data={"curve": frame, "rates": None, "fit": object()},
        figures={"c": {"title": "C", "alt": "alt text", "extra": "not in json"}},
        stamp={"seed": 0, "ci": math.nan},
    )
    assert rd.section("b").status == "skipped"
    with pytest.raises(KeyError):
        rd.section("c")
    doc = rd.to_json()
    assert doc["title"] == "T" and doc["stamp"] == {"seed": 0, "ci": None}
    assert [s["id"] for s in doc["sections"]] == ["a", "b"]
    assert doc["figures"] == {"c": {"title": "C", "alt": "alt text"}}
    assert doc["figure_data"] == {"curve": [{"k": 1, "value": 0.25}]}  # frames only; no fit


def test_frame_table_formats_from_dtypes() -> None:
    df = pd.DataFrame({"task": ["a"], "n": [3], "rate": [0.5], "flaky": [True], 7: ["x"]})
    t = frame_table(df, id="f", caption="F", formats={"rate": "pct"}, labels={"n": "Runs"})
    assert [(c.key, c.label, c.fmt) for c in t.columns] == [
        ("task", "task", "str"),
        ("n", "Runs", "int"),
        ("rate", "rate", "pct"),
        ("flaky", "flaky", "bool"),
        ("7", "7", "str"),
    ]
    assert t.rows == frame_rows(df) == [{"task": "a", "n": 3, "rate": 0.5, "flaky": True, "7": "x"}]
