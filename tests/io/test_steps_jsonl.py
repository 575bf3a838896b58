"""JSONL step-log trace reader (``steps-jsonl``).

Oracles: step logs written here, outcomes on the rows or in a trials file;
the divergence points of the small cases are worked out by hand; each rule of
the format (one outcome per trial, a step row needs task and trial, a step
needs an outcome) raises its error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import passhat as ph
from passhat.errors import FormatError, OptionError, ValidationError


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_steps_jsonl_with_success_field(tmp_path: Path) -> None:
    rows = [
        {"task_id": "a", "trial": 0, "step": 1, "action": "get_x", "args": {"q": 1}, "success": 1},
        {"task_id": "a", "trial": 0, "step": 2, "action": "check", "success": 1},
        {"task_id": "a", "trial": 0, "step": 3, "action": "pay", "status": "ok", "success": 1},
        {
            "task_id": "a",
            "trial": 1,
            "step": 1,
            "action": "get_x",
            "args": '{"q": 1.0}',
            "success": 0,
        },
        {
            "task_id": "a",
            "trial": 1,
            "step": 2,
            "action": "pay",
            "observation": "paid",
            "success": 0,
        },
        {"task_id": "a", "trial": 2, "action": None, "success": 0},  # no tool call
    ]
    tr = ph.read_traces(_jsonl(tmp_path / "s.jsonl", rows))
    assert tr.source["format"] == "steps-jsonl" and tr.source["trials_without_tool_calls"] == 1
    assert tr.trials["n_steps"].tolist() == [3, 2, 0]
    d = ph.divergence(tr)
    assert d.table[["trial", "step", "kind", "marker"]].values.tolist() == [
        [1, 2, "skips", "check"],
        [2, 1, "stops", "get_x"],
    ]


def test_steps_jsonl_with_outcomes_file(tmp_path: Path) -> None:
    rows = [
        {"task_id": "a", "trial": 0, "step": 0, "action": "x"},
        {"task_id": "a", "trial": 1, "step": 0, "action": "y"},
    ]
    steps = _jsonl(tmp_path / "steps.jsonl", rows)
    outcomes = tmp_path / "runs.csv"
    outcomes.write_text("task_id,trial,success\na,0,1\na,1,0\n")
    tr = ph.read_traces(steps, format="steps-jsonl", outcomes=outcomes)
    assert tr.trials["success"].tolist() == [True, False]
    assert ph.divergence(tr).table["step"].tolist() == [1]
    with pytest.raises(FormatError, match="no outcomes"):
        ph.read_traces(steps, format="steps-jsonl")
    with pytest.raises(OptionError, match="only for steps-jsonl"):
        ph.read_traces(steps, format="tau-bench", outcomes=outcomes)
    # a step whose trial has no outcome is an error, not dropped
    _jsonl(steps, [*rows, {"task_id": "b", "trial": 0, "step": 0, "action": "z"}])
    with pytest.raises(ValidationError, match=r"trial \(system, b, 0\) have no outcome"):
        ph.read_traces(steps, format="steps-jsonl", outcomes=outcomes)


def test_steps_jsonl_bad_input(tmp_path: Path) -> None:
    f = tmp_path / "s.jsonl"
    f.write_text('{"task_id": "a", "trial": 0, "action": "x", "success": 1}\n{oops\n')
    with pytest.raises(FormatError, match="line 2: not valid JSON"):
        ph.read_traces(f, format="steps-jsonl")
    _jsonl(
        f,
        [
            {"task_id": "a", "trial": 0, "action": "x", "success": 1},
            {"task_id": "a", "trial": 0, "action": "y", "success": 0},
        ],
    )
    with pytest.raises(FormatError, match="rows disagree on success"):
        ph.read_traces(f, format="steps-jsonl")
    _jsonl(f, [{"task_id": "a", "action": "x", "success": 1}])
    with pytest.raises(FormatError, match="line 1: a step row needs trial"):
        ph.read_traces(f, format="steps-jsonl")
    e = tmp_path / "empty.jsonl"
    e.write_text("")
    with pytest.raises(FormatError, match="empty"):
        ph.read_traces(e)
    with pytest.raises(OptionError, match="unknown trace format"):
        ph.read_traces(f, format="nope")


def test_system_name_overrides_the_outcomes_files_system(tmp_path: Path) -> None:
    """system_name overrides the step log's system and the outcomes file's one system, with
    or without a system column there (the trial readers refuse system_name for a file with
    its own system column; the step reader applies its override itself)."""
    steps = tmp_path / "steps.jsonl"
    steps.write_text(
        '{"task_id": "a", "trial": 0, "action": "look"}\n'
        '{"task_id": "a", "trial": 1, "action": "buy"}\n'
    )
    for head, prefix in (("task_id,trial,success", ""), ("system,task_id,trial,success", "old,")):
        outcomes = tmp_path / "runs.csv"
        outcomes.write_text(f"{head}\n{prefix}a,0,1\n{prefix}a,1,0\n")
        tr = ph.read_traces(steps, format="steps-jsonl", outcomes=outcomes, system_name="v2")
        assert set(tr.trials["system"]) == {"v2"}
        assert tr.trials.sort_values("trial")["success"].tolist() == [True, False]


def _steps(**change: Any) -> list[dict[str, Any]]:
    """Two trials of task t: the passing one calls get then book, the failing get then cancel;
    ``change={"<row>": {...}}`` edits rows (0-3)."""
    rows = [
        {"task_id": "t", "trial": 0, "action": "get", "success": True},
        {"task_id": "t", "trial": 0, "action": "book", "success": True},
        {"task_id": "t", "trial": 1, "action": "get", "success": False},
        {"task_id": "t", "trial": 1, "action": "cancel", "success": False},
    ]
    for i, fields in change.items():
        rows[int(i.lstrip("r"))].update(fields)
    return rows


@pytest.mark.parametrize(
    ("change", "error"),
    [
        # task 7 and task "7" were one task (ids written with str()), as the trial readers refuse
        (
            {"r0": {"task_id": 7}, "r1": {"task_id": 7}, "r2": {"task_id": "7"}},
            r"rows 1 and 3: task_id 7 \(a number\) and '7' \(text\)",
        ),
        # 't' and 't ' were two tasks
        ({"r2": {"task_id": "t "}, "r3": {"task_id": "t "}}, "differ only by surrounding spaces"),
        # a missing task became the task 'None', or 'step is not a number'
        ({"r0": {"task_id": None}}, "line 1: task_id is missing"),
        ({"r1": {"trial": None}}, "line 2: trial is missing"),
        # a missing system among named ones was the default system 'system'
        (
            {"r0": {"system": "m"}, "r1": {"system": "m"}, "r2": {"system": None}},
            "line 3: system is missing",
        ),
        # a row without an action inside a trial of tool calls was dropped: the passing trial
        # lost its second step and the divergence became 'continues' past its end
        ({"r1": {"action": None}}, r"line 2: no action, in trial \(system, t, 0\)"),
    ],
)
def test_steps_jsonl_ids_and_stray_rows_are_refused(
    tmp_path: Path, change: dict[str, dict[str, Any]], error: str
) -> None:
    f = _jsonl(tmp_path / "steps.jsonl", _steps(**change))
    with pytest.raises((FormatError, ValidationError), match=error):
        ph.read_traces(f, format="steps-jsonl")


def test_steps_jsonl_trial_without_tool_calls_still_reads(tmp_path: Path) -> None:
    rows = [*_steps()[:2], {"task_id": "t", "trial": 1, "action": None, "success": False}]
    tr = ph.read_traces(_jsonl(tmp_path / "steps.jsonl", rows), format="steps-jsonl")
    assert tr.trials[["trial", "n_steps"]].values.tolist() == [[0, 2], [1, 0]]


@pytest.mark.parametrize(
    ("field", "literal", "said"),
    [
        ("step", "1" + "0" * 400, r"step row 1: step is not a finite number"),
        ("step", "NaN", r"step row 1: step is not a finite number"),
        ("trial", "1" + "0" * 30, r"row 1: trial 1000000000000000000000000000000 is not a whole"),
        ("trial", "1" + "0" * 400, r"row 1: trial 1000000000\.\.\. \(401 digits\) is not a whole"),
    ],
    ids=["step-401-digits", "step-nan", "trial-1e30", "trial-401-digits"],
)
def test_absurd_step_and_trial_numbers_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, literal: str, said: str
) -> None:
    """A step of 401 digits exited 70 (OverflowError in pandas.to_numeric); a trial of 1e30 was
    cast to int64 (wrapped) without a word."""
    from passhat.cli import main

    row = {"task_id": "a", "trial": 0, "step": 0, "action": "get", "success": True}
    f = tmp_path / "steps.jsonl"
    f.write_text(json.dumps({**row, field: "X"}).replace('"X"', literal) + "\n")
    with pytest.raises(ValidationError, match=said):
        ph.read_traces(f)
    code = main(["traces", str(f)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
