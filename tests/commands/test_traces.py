"""``passhat traces``: divergence points, stages files, step logs.

Oracles: τ-bench's gpt-4o airline task 43 (its failing runs leave the passing
runs' path at step 2) and the CLI contract on bad input.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from passhat.cli import main

from .cli_helpers import TAU, bad, write


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
