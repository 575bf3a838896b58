"""passhat.slices_result: Slices is a frozen result with one display.

Oracles: the keys ``passhat slices --json`` printed before the result owned its document
(commands/slices.py at f7fd4e7), the result's own tables, the statuses of the runs by hand,
and the shape every result shares (header, repr ≤ 2,000 characters, names escaped in HTML,
assignment refused).
"""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

import passhat as ph
from passhat._result import MAX_REPR, records

HOSTILE = "<b onmouseover=x>sys</b>"


@pytest.fixture(scope="module")
def agents() -> ph.Trials:
    return ph.load_example("agents")


def test_document_has_the_header_and_the_keys_the_command_printed(agents) -> None:
    sl = ph.slices(agents, severe=["tool_error"])
    doc = sl.to_dict()
    head = ["schema", "schema_version", "passhat_version"]
    assert list(doc) == [*head, "input", "settings", "slices", "severe"]
    assert doc["schema"] == "passhat.slices" and doc["input"]["example"] == "agents"
    assert doc["settings"] == {"by": ["status", "category"], "severe": ["tool_error"], "ci": 0.95}
    assert doc["slices"]["status"] == records(sl.tables["status"])
    assert [r["count"] for r in doc["severe"]] == sl.severe["count"].tolist()


def test_frame_stacks_the_slices(agents) -> None:
    sl = ph.slices(agents)
    frame = sl.to_frame()
    assert list(frame.columns[:3]) == ["slice", "system", "value"]
    assert frame.groupby("slice")["runs"].sum().to_dict() == {
        "category": len(agents.frame),
        "status": len(agents.frame),
    }


def test_view_says_what_the_tables_leave_out(agents) -> None:
    sl = ph.slices(agents, by=["status"], severe=["tool_error", "tool_eror"])
    parts = sl.view().parts
    assert [p.title for p in parts] == [
        "runs by status",
        "severe statuses: rate over all runs (0.95 interval)",
        "",
    ]
    seen = ", ".join(sorted(agents.frame["status"].astype(str).unique()))
    assert parts[1].lines[1] == (
        f"note: status 'tool_eror' occurs in no run (statuses seen: {seen}); check the spelling."
    )
    assert parts[-1].lines == ("unscored runs are not decided: they are never counted in n.",)
    no_cat = ph.slices(ph.Trials.from_frame(agents.frame.drop(columns="category")))
    assert no_cat.category_skipped and "no category column" in no_cat.view().parts[-1].lines[1]
    assert not ph.slices(agents, by=["status"]).category_skipped  # asked for: nothing skipped


def test_repr_html_and_frozen(agents) -> None:
    frame = agents.frame.assign(system=agents.frame["system"].replace("guided", HOSTILE))
    sl = ph.slices(ph.Trials.from_frame(frame), severe=["tool_error"])
    assert len(repr(sl)) <= MAX_REPR and HOSTILE in repr(sl)
    html = sl._repr_html_()
    assert HOSTILE not in html and "&lt;b onmouseover=x&gt;sys&lt;/b&gt;" in html
    with pytest.raises(dataclasses.FrozenInstanceError):
        sl.ci = 0.9  # type: ignore[misc]
    assert isinstance(sl.tables["status"], pd.DataFrame)
