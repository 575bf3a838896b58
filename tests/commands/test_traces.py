"""``passhat traces``: divergence points, stages files, step logs.

Oracles: τ-bench's gpt-4o airline task 43 (its failing runs leave the passing
runs' path at step 2), the CLI contract on bad input, and an Inspect log written
by ``inspect_ai.eval`` whose runs answer without a tool call (nothing to align).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from passhat.cli import main

from .cli_helpers import TAU, bad, run, write

#: Inspect samples → the score letter of epochs 1..4 (no tool is ever called).
QA_PATTERN = {"a": "CCIC", "b": "CICI", "c": "IIII", "d": "CCCC"}


@pytest.fixture(scope="module")
def inspect_qa_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real Inspect ``.eval`` log of a question-answering task (mock model, no network)."""
    pytest.importorskip("inspect_ai")
    from inspect_testdata import scripted_eval

    def answer(state: Any) -> None:
        state.output.completion = QA_PATTERN[str(state.sample_id)][state.epoch - 1]

    return scripted_eval(tmp_path_factory.mktemp("inspect_qa"), list(QA_PATTERN), 4, answer)


def test_a_log_without_tool_calls_says_so_once(
    capsys: pytest.CaptureFixture[str], inspect_qa_log: Path
) -> None:
    rc, out, err = run(capsys, ["traces", str(inspect_qa_log)])
    assert rc == 0 and err == ""
    lines = out.strip().splitlines()
    assert len(lines) == 1, out  # no empty tables, no contradicting notes
    # tasks a and b have both outcomes: 3 failing and 5 passing runs of 16
    assert lines[0].startswith("No tool calls to align: none of the 16 run(s) in ")
    assert "2 of 4 task(s) have both outcomes (3 failing, 5 passing runs)" in lines[0]
    rc, out, _ = run(capsys, ["traces", str(inspect_qa_log), "--json"])
    doc = json.loads(out)
    assert rc == 0 and doc["divergence"] == [] and len(doc["notes"]) == 1
    assert doc["notes"][0] == lines[0]


def test_a_task_without_tool_calls_in_a_file_with_some(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # tasks 0 and 1 call a tool (cli_helpers.TAU); task 9 answers without one, 3 runs
    qa = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "4"}]
    recs = json.loads(TAU) + [
        {"task_id": 9, "trial": r, "reward": float(r == 0), "info": {}, "traj": qa}
        for r in range(3)
    ]
    f = write(tmp_path, "tau.json", json.dumps(recs))
    rc, out, _ = run(capsys, ["traces", f, "--task", "9"])
    assert rc == 0 and out.startswith("No tool calls to align: none of the 3 run(s) of task 9")
    assert len(out.strip().splitlines()) == 1
    rc, out, _ = run(capsys, ["traces", f, "--task", "0"])
    assert rc == 0 and "Where failing runs diverge" in out and "No tool calls" not in out


def test_non_utf8_stages_file_is_one_line_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    stages = write(tmp_path, "stages.toml", b'[stages]\nget_user = "look\xffup"\n')
    traces = write(tmp_path, "t.json", "[]")
    bad(capsys, ["traces", traces, "--stages", stages], r"stages\.toml: .*UTF-8")


def test_non_utf8_step_log_is_one_line_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    steps = write(tmp_path, "steps.jsonl", b'{"task_id":"t\xff","trial":0,"step":0,"action":"a"}\n')
    bad(capsys, ["traces", steps, "--format", "steps-jsonl"], r"steps\.jsonl: line 1: .*UTF-8")


def test_stages_file_typos_are_pointed_out(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    traces = write(tmp_path, "tau.json", TAU)
    empty = write(tmp_path, "empty.toml", '[stages]\nget_user = ""\n')
    bad(capsys, ["traces", traces, "--stages", empty], r"empty\.toml: \[stages\] get_user")
    typo = write(tmp_path, "typo.toml", '[stages]\nget_usr = "lookup"\nget_user = "lookup"\n')
    assert main(["traces", traces, "--stages", typo]) == 0
    out = capsys.readouterr().out.replace("\n", " ")
    assert re.search(r"1 tool\(s\) of the stages file never called in the traces: get_usr", out)


def test_traces_when_failing_runs_match_the_passing_ones_step_for_step(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # every run makes the same call; outcomes differ: no divergence step (NA), no traceback
    traces = write(tmp_path, "tau.json", TAU)
    assert main(["traces", traces]) == 0
    out = capsys.readouterr().out
    assert "—" in out


def test_cli_traces(tau_airline_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    rc = main(["traces", str(tau_airline_path), "--format", "tau-bench", "--task", "43", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert [r["step"] for r in doc["divergence"]] == [2, 2, 2]
    assert doc["counts"]["tasks_mixed"] == 1
    stages = tau_airline_path.parent / "nonexistent.toml"
    assert main(["traces", str(tau_airline_path), "--stages", str(stages)]) == 2
    rc = main(["traces", str(tau_airline_path), "--task", "16", "--task", "43"])
    out = capsys.readouterr().out
    assert rc == 0 and "Where failing runs diverge" in out and "substitutes" in out


def test_cli_traces_bundled_example(capsys) -> None:  # type: ignore[no-untyped-def]
    """`passhat traces --example tau-airline` reads the bundled trajectories (no ../shared)."""
    assert main(["traces", "--example", "tau-airline", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["counts"]["tasks_mixed"] == 6
    assert doc["input"]["example"] == "tau-airline"
    bad(capsys, ["traces"], r"give a trace file or --example NAME")
