"""``passhat report`` (the CLI regressions of the QA pass; the report's own CLI tests are in
tests/report/test_report_cli.py).

Oracles: the CLI contract (exit 2, one line naming the file and the rule) and
what the written report says.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from passhat.cli import main

from .cli_helpers import GOOD, HEADER, TAU, bad, write


def test_negative_seed_is_an_option_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good = write(tmp_path, "good.csv", GOOD)
    args = ["report", "{good}", "-o", "{out}", "--k", "1", "--no-model", "--seed", "-1"]
    argv = [a.format(good=good, out=tmp_path / "rep") for a in args]
    bad(capsys, argv, r"--seed.*-1")


def test_report_without_model_on_all_pass_runs_still_writes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path, "runs.csv", HEADER + "A,t1,0,1\nA,t1,1,1\nA,t2,0,1\nA,t2,1,1\n")
    out = tmp_path / "rep"
    assert main(["report", path, "-o", str(out), "--k", "1,2", "--no-model", "-q"]) == 0
    capsys.readouterr()
    assert "no design of the budget" in (out / "report.md").read_text(encoding="utf-8")


def test_report_traces_that_share_no_task_with_the_runs_are_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    traces = write(tmp_path, "tau.json", TAU)  # tasks "0", "1"
    runs = write(tmp_path, "runs.csv", GOOD)  # tasks t1, t2, t3
    out = str(tmp_path / "rep")
    args = ["report", runs, "-o", out, "--k", "1", "--no-model", "--no-plan", "-q"]
    bad(capsys, [*args, "--traces", traces], r"tau\.json: none of its 2 task\(s\).*runs\.csv")


def test_report_unknown_baseline_is_refused_with_one_system_too(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["report", "--example", "abcd", "-o", str(tmp_path / "r"), "--no-model", "-q"]
    bad(capsys, [*args, "--baseline", "nosuch"], r"baseline 'nosuch' is not a system")


def test_report_default_k_follows_the_runs(tmp_path, capsys):
    """No --k: k = 1, 2, 5 capped at the fewest decided runs (4 → 1, 2, 4), not a k = 5 error."""
    import pandas as pd

    from passhat.cli import main

    rows = [
        {"task_id": t, "trial": r, "success": (r + i) % 3 != 0}
        for i, t in enumerate(["a", "b", "c"])
        for r in range(4)
    ]
    f = tmp_path / "runs.csv"
    pd.DataFrame(rows).to_csv(f, index=False)
    assert main(["report", str(f), "-o", str(tmp_path / "r"), "--no-model", "-q"]) == 0
    import json

    stamp = json.loads((tmp_path / "r" / "results.json").read_text())["stamp"]
    assert stamp["settings"]["k"] == [1, 2, 4]
