"""``plan next --budget-cost`` and ``plan design --budget-cost``: a budget in money on the
command line. Oracle: the Python API on the same input; the refusals name the option."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import passhat as ph

from .cli_helpers import bad, run, write

AGENTS = str(Path(ph.__file__).parent / "examples" / "agents.csv")


def test_plan_next_in_money(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, ["plan", "next", AGENTS, "--system", "guided", "--budget-cost", "5",
                              "--k", "2"])  # fmt: skip
    api = ph.plan.next_runs(ph.read(AGENTS), budget_cost=5.0, system="guided", k=2)
    assert rc == 0 and api.money is not None
    assert f"buys at most {api.money.runs} runs" in out and "observed" in out
    rc, out, _ = run(capsys, ["plan", "next", AGENTS, "--system", "guided", "--budget-cost", "5",
                              "--cost-per-run", "0.5", "--json"])  # fmt: skip
    doc = json.loads(out)
    assert rc == 0 and doc["money"]["runs"] == 10 and doc["money"]["run_cost"]["source"] == "given"


def test_plan_design_in_money(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, ["plan", "design", "--from", AGENTS, "--system", "baseline",
                              "--budget-cost", "50", "--k", "2"])  # fmt: skip
    assert rc == 0 and "The cost per run is observed" in out


def test_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["plan", "next", AGENTS, "--system", "guided"]
    bad(capsys, [*base, "--budget-cost", "0"], r"--budget-cost must be a number > 0 \(got 0\)")
    bad(capsys, [*base, "--budget-cost", "5", "--cost-per-run", "-1"],
        r"--cost-per-run must be a number > 0")  # fmt: skip
    bad(capsys, [*base, "--budget", "5", "--budget-cost", "5"], "give --budget .* or --budget-cost")
    bad(capsys, base, "give --budget .* or --budget-cost")
    nocost = write(tmp_path, "r.csv", "task_id,trial,success\nt1,0,1\nt1,1,0\nt2,0,1\nt2,1,1\n")
    want = r"--budget-cost\) needs a cost per run: give --cost-per-run, or runs with a cost"
    bad(capsys, ["plan", "next", nocost, "--budget-cost", "5"], want)
    bad(capsys, ["plan", "design", "--mean", "0.6", "--icc", "0.3", "--budget-cost", "100"],
        "needs a cost per run")  # fmt: skip
