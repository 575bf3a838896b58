"""The Action's Markdown: names escaped, and every number shown is the ``--json`` document's
(the documents come from ``passhat gate`` / ``compare`` on the bundled ``agents`` example)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from action_testdata import HOSTILE, passhat_json

from passhat.examples import example_path
from passhat.github_action.markdown import (
    comparison_markdown,
    error_markdown,
    escape,
    gate_markdown,
    table,
)

AGENTS = ("--example", "agents")


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (HOSTILE, r"a\|b &lt;script&gt;x&lt;/script&gt; \*c\*"),
        ("## heading", r"\## heading"),
        ("1. item", r"1\. item"),
        ("[link](http://x)", r"\[link\](http://x)"),
        ("line\nbreak\ttab", "line break tab"),
        ("`code` ~strike~ _em_ back\\slash", r"\`code\` \~strike\~ \_em\_ back\\slash"),
    ],
)
def test_escape_keeps_names_literal(raw: str, shown: str) -> None:
    assert escape(raw) == shown


def test_a_table_row_per_row_and_cells_as_given() -> None:
    assert table(["a", "b"], [["1", "2"], ["3", "4"]]).splitlines() == [
        "| a | b |",
        "|---|---|",
        "| 1 | 2 |",
        "| 3 | 4 |",
    ]


def test_the_gates_numbers_are_its_documents() -> None:
    code, doc = passhat_json(
        "gate",
        *AGENTS,
        "--system",
        "guided",
        "--max-failure-rate",
        "0.3",
        "--k",
        "2",
        "--alpha",
        "0.1",
    )
    g = doc["gate"]
    text = gate_markdown(doc)
    assert f"passhat gate: **{g['decision']}** (exit {code})" in text
    assert f"| estimate | {100 * g['estimate']:.2f}% |" in text
    assert f"| 90% anytime bounds | {100 * g['lower']:.2f}% … {100 * g['upper']:.2f}% |" in text
    assert f"{g['e_pass']:.3g} / {g['e_fail']:.3g} (decide at {g['threshold']:g})" in text
    assert f"| runs used / set aside | {g['runs_used']} / {g['runs_set_aside']} |" in text


def test_the_comparisons_rows_are_its_documents_once_per_metric() -> None:
    _, doc = passhat_json("compare", *AGENTS, "--k", "1,3", "--ci", "0.8")
    text = comparison_markdown(doc)
    rows = [line for line in text.splitlines() if line.startswith("| guided |")]
    # k = 1: only the mean (pass@1 = pass^1 = mean); k = 3: mean, pass@3, pass^3; two scopes each
    labels = {line.split(" | ")[2] for line in rows}
    assert labels == {"mean", "pass@3", "pass^3"} and len(rows) == 2 * len(labels)
    for r in doc["comparison"]:
        if r["metric"] == "pass_at_k" and r["k"] == 3:
            assert f"| {r['difference']:+.3f} | [{r['lower']:+.3f}, {r['upper']:+.3f}] |" in text
    assert "| 80% interval |" in text
    assert "k = 1: pass@1 and pass^1 equal the mean" in text


def test_an_error_shows_the_command_and_its_message_escaped() -> None:
    text = error_markdown("passhat gate <x>", 2, "passhat: error: bad | input\n")
    assert text == "### ⚠️ passhat gate &lt;x&gt; exited 2\n\npassshat".replace(
        "passshat", r"passhat: error: bad \| input"
    )


def test_rounds_not_every_task_completed_are_shown_as_the_gate_prints_them(
    tmp_path: Path,
) -> None:
    """One task of the candidate keeps only its first two runs: the gate reaches a round that
    task has not completed, and names the runs it needs."""
    df = pd.read_csv(example_path("agents"))
    cand = df[df["system"] == "guided"]
    first = cand["task_id"].iloc[0]
    cand = cand[(cand["task_id"] != first) | (cand["trial"] < 2)]
    path = tmp_path / "uneven.csv"
    cand.to_csv(path, index=False)
    _, doc = passhat_json("gate", str(path), "--max-failure-rate", "0.4", "--k", "2")
    g = doc["gate"]
    assert g["rounds_reached"] > g["rounds"] and g["reruns"]
    text = gate_markdown(doc)
    need = sum(r["runs"] for r in g["reruns"])
    assert f"| rounds with every decided run | {g['rounds_reached']} (" in text
    row = f"| runs to complete round {g['rounds_reached']} | {need} on {len(g['reruns'])} task(s)"
    assert row in text
    assert "rounds with every decided run" not in gate_markdown(
        passhat_json("gate", *AGENTS, "--system", "guided", "--max-failure-rate", "0.4")[1]
    )
