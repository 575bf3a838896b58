"""passhat.report.sections.divergence: the hook for divergence results, and the traces check.

Oracles: the given divergence tables themselves (shown escaped, capped), and the rule that
traces must share a task with the runs.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from report_testdata import MALICIOUS_TASK, malicious_trials

import passhat as ph
from passhat.errors import OptionError
from passhat.report.build import build_report_data
from passhat.report.render import write_report
from passhat.report.sections.divergence import (
    MAX_DIVERGENCE_ROWS,
    divergence_section,
    trace_divergence,
)


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
    sec = divergence_section(Div())
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
        divergence_section(Div())


def test_trace_divergence_needs_a_shared_task() -> None:
    steps = pd.DataFrame({"task_id": ["A", "A"], "trial": [0, 1], "action": ["look", "buy"]})
    outcomes = pd.DataFrame({"task_id": ["A", "A"], "trial": [0, 1], "success": [True, False]})
    traces = ph.Traces.from_frames(steps, outcomes)
    div = trace_divergence(ph.load_example("abcd"), traces)  # task A is in both
    assert div.table.equals(ph.divergence(traces).table)
    other = ph.Traces.from_frames(steps.assign(task_id="Z"), outcomes.assign(task_id="Z"))
    with pytest.raises(OptionError, match=r"traces: none of its 1 task\(s\) \(e.g. Z\) .* abcd"):
        trace_divergence(ph.load_example("abcd"), other)
