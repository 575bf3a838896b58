"""passhat.traces.result: Divergence is a frozen result with one display.

Oracles: the keys ``passhat traces --json`` printed before the result owned its document
(commands/traces.py at f7fd4e7), traces made by hand (which runs call tools, which tools a
stage mapping names), and the shape every result shares (header, repr ≤ 2,000 characters,
names escaped in HTML, assignment refused).
"""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

import passhat as ph
from passhat._result import MAX_REPR

HOSTILE = "<b onmouseover=x>t</b>"

#: The keys of ``passhat traces --json`` before the reshape, after passhat_version.
KEYS = [
    "input",
    "settings",
    "counts",
    "divergence",
    "tasks",
    "by_action",
    "by_stage",
    "excluded",
    "notes",
]


def _traces(task: str = "t", *, calls: bool = True) -> ph.Traces:
    acts = [(0, True, ["get_user", "check", "refund"]), (1, False, ["get_user", "refund"])]
    rows = [
        {"task_id": task, "trial": trial, "step": i, "action": a}
        for trial, _, names in acts
        for i, a in enumerate(names if calls else [])
    ]
    steps = pd.DataFrame(rows, columns=["task_id", "trial", "step", "action"])
    trials = pd.DataFrame(
        {"task_id": [task] * 3, "trial": [0, 1, 2], "success": [True, False, None]}
    )
    excluded = pd.DataFrame(
        {"system": ["system"], "task_id": [task], "trial": [3], "reason": ["empty traj"]}
    )
    return ph.Traces.from_frames(
        steps,
        trials,
        source={"path": "runs.json", "trials_without_tool_calls": 0},
        excluded=excluded,
    )


def test_document_has_the_header_and_the_keys_the_command_printed() -> None:
    div = ph.divergence(_traces(), stages={"get_user": "lookup", "get_usr": "lookup"})
    doc = div.to_dict()
    assert list(doc) == ["schema", "schema_version", "passhat_version", *KEYS]
    assert doc["schema"] == "passhat.divergence"
    assert doc["input"] == {"path": "runs.json", "trials_without_tool_calls": "0"}
    assert [r["kind"] for r in doc["divergence"]] == ["skips"]
    assert doc["excluded"][0]["reason"] == "empty traj" and doc["notes"] == div.notes()
    # what the traces held: the whole input's stage-tool typo, its exclusions
    assert div.trace_input.unknown_stage_tools == ("get_usr",)
    assert div.trace_input.where == "runs.json" and div.trace_input.tool_calls == 5


def test_view_is_what_the_command_prints() -> None:
    div = ph.divergence(_traces(), stages={"get_user": "lookup"})
    runs, tools, stages = div.view().parts
    assert runs.title.startswith("Where failing runs diverge: 1 of 1 tasks have mixed outcomes")
    assert runs.fold and runs.frame is not None
    assert runs.frame.iloc[0].tolist() == ["t", "1", "2", "skips", "refund", "check({})", "None"]
    assert tools.frame is not None and tools.frame["tool"].tolist() == ["check"]
    assert stages.title == "Divergence points by stage"
    assert "1 trial(s) excluded: empty traj" in stages.notes
    assert stages.notes[-1].startswith("0 task(s) always pass and 0 always fail")
    # no stage mapping: no stage table
    assert len(ph.divergence(_traces()).view().parts) == 2


def test_no_tool_calls_is_one_line_everywhere() -> None:
    div = ph.divergence(_traces(calls=False), where="qa.eval")
    (part,) = div.view().parts
    assert part.frame is None and len(part.lines) == 1
    assert part.lines[0].startswith("No tool calls to align: none of the 3 run(s) in qa.eval")
    doc = div.to_dict()
    assert doc["divergence"] == [] and doc["notes"] == list(part.lines)
    assert len(div.table) == 1  # the API keeps the row (the failing run stops at step 1)


def test_repr_html_and_frozen() -> None:
    div = ph.divergence(_traces(HOSTILE))
    assert len(repr(div)) <= MAX_REPR and HOSTILE in repr(div)
    html = div._repr_html_()
    assert HOSTILE not in html and "&lt;b onmouseover=x&gt;t&lt;/b&gt;" in html
    with pytest.raises(dataclasses.FrozenInstanceError):
        div.table = div.table  # type: ignore[misc]
