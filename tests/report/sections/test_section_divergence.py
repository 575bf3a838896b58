"""passhat.report.sections.divergence: the hook for divergence results, and the traces check.

Oracles: the given divergence tables themselves (shown escaped, capped), the rule that
traces must share a task with the runs, and τ-bench airline's own tool calls (task 5).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from report_testdata import MALICIOUS_TASK, malicious_trials, results_of

import passhat as ph
from passhat.errors import OptionError
from passhat.report.build import build_report_data, trace_divergence
from passhat.report.render import render_markdown, write_report
from passhat.report.sections.divergence import (
    CALL_CHARS,
    MAX_DIVERGENCE_ROWS,
    divergence_section,
)


def _section(div, data=None):  # type: ignore[no-untyped-def]
    """The divergence section of a report given ``div``."""
    data = ph.load_example("abcd") if data is None else data
    return divergence_section(results_of(data, k=[1], ci=None, divergence=div))


#: A τ-bench conversation without a tool call.
TRAJ_NO_CALLS = [
    {"role": "user", "content": "What is 2 + 2?"},
    {"role": "assistant", "content": "4"},
    {"role": "user", "content": "###STOP###"},
]


def test_divergence_hook_renders(tmp_path: Path) -> None:
    class Div:
        table = pd.DataFrame(
            {"task": [MALICIOUS_TASK], "trial": [2], "step": [3], "action": ["skip <check>"]}
        )
        by_action = pd.DataFrame({"action": ["get_user_details"], "runs": [4]})

    rd = build_report_data(
        malicious_trials(), k=[1, 2], model=False, plan=False, n_boot=200, divergence=Div()
    )
    sec = rd.section("divergence")
    assert sec.title.endswith("Where failing runs diverge") and len(sec.tables) == 2
    paths = write_report(rd, tmp_path)
    html = paths.html.read_text(encoding="utf-8")
    assert "skip &lt;check&gt;" in html and 'id="divergence"' in html


def test_known_columns_one_system_and_the_row_cap() -> None:
    n = MAX_DIVERGENCE_ROWS + 5
    table = pd.DataFrame(
        {
            "system": ["s"] * n,
            "task_id": [f"t{i}" for i in range(n)],
            "trial": list(range(n)),
            "step": [1] * n,
            "kind": ["skips"] * (n - 1) + ["differs"],
            "extra": ["not shown"] * n,
        }
    )

    class Div:
        pass

    Div.table = table  # type: ignore[attr-defined]
    sec = _section(Div())
    t = sec.tables[0]
    assert [c.key for c in t.columns] == ["task_id", "trial", "step", "kind"]  # one system
    assert len(t.rows) == MAX_DIVERGENCE_ROWS and t.note == "5 more rows in the traces output."
    assert sec.sentences == [
        f"{n} failing run(s) of flaky tasks were aligned against the passing runs of the same "
        f"task. How the failing run departs at its divergence point: skips {n - 1}, differs 1."
    ]


def test_an_empty_result_is_refused() -> None:
    class Div:
        table = pd.DataFrame()

    with pytest.raises(OptionError, match=r"non-empty \.table or \.by_action"):
        _section(Div())


def test_trace_divergence_needs_a_shared_task() -> None:
    steps = pd.DataFrame({"task_id": ["A", "A"], "trial": [0, 1], "action": ["look", "buy"]})
    outcomes = pd.DataFrame({"task_id": ["A", "A"], "trial": [0, 1], "success": [True, False]})
    traces = ph.Traces.from_frames(steps, outcomes)
    div = trace_divergence(ph.load_example("abcd"), traces)  # task A is in both
    assert div.table.equals(ph.divergence(traces).table)
    other = ph.Traces.from_frames(steps.assign(task_id="Z"), outcomes.assign(task_id="Z"))
    with pytest.raises(OptionError, match=r"traces: none of its 1 task\(s\) \(e.g. Z\) .* abcd"):
        trace_divergence(ph.load_example("abcd"), other)


def test_both_sides_show_the_call_with_its_arguments(tau_airline_path: Path) -> None:
    # τ-bench airline task 5, trial 0: the failing run looks up another reservation at step 3
    trials = ph.read_trials(tau_airline_path)
    sec = _section(trace_divergence(trials, ph.read_traces(tau_airline_path)), trials)
    rows = {(r["task_id"], r["trial"]): r for r in sec.tables[0].rows}
    r = rows[("5", 0)]
    assert r["kind"] == "differs"
    assert r["failing_action"] == 'get_reservation_details({"reservation_id":"5RJ7UH"})'
    assert r["passing_actions"] == 'get_reservation_details({"reservation_id":"FQ8APE"})'
    # a run that stops says so; a long list of passing calls is cut the same way, and counted
    assert rows[("1", 0)]["failing_action"] == "(the run ends)"
    assert rows[("1", 0)]["passing_actions"].endswith("; +1 more")
    for row in sec.tables[0].rows:
        for call in [row["failing_action"], *row["passing_actions"].split("; ")]:
            assert re.fullmatch(r"\w+\(.*\)|\w+\(.*…|\(the run ends\)|\+\d+ more", call), call
            assert len(call) <= CALL_CHARS


def test_traces_without_tool_calls_say_so_once(tmp_path: Path) -> None:
    # a question-answering log: every run answers without a tool call
    recs = [
        {"task_id": t, "trial": r, "reward": float(r < t), "info": {}, "traj": TRAJ_NO_CALLS}
        for t in range(4)
        for r in range(3)
    ]
    f = tmp_path / "qa.json"
    f.write_text(json.dumps(recs))
    rd = build_report_data(
        ph.read_trials(f), k=[1, 2], traces=ph.read_traces(f), model=False, plan=False, n_boot=200
    )
    sec = rd.section("divergence")
    assert sec.status == "skipped" and sec.tables == [] and sec.sentences == []
    assert sec.note.startswith("No tool calls to align: none of the 12 run(s) in the traces")
    md = render_markdown(rd, {})
    assert md.count("No tool calls to align") == 1
