"""``--cost-of duration`` on ``estimate``, ``compare`` and ``report``: the figures from the
duration_s column in seconds, the JSON's ``cost_of``, and the one-line error without the column.
Oracle: the Python API on the same file (whose own oracle is the cost path, tests/test_cost_of)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import passhat as ph

from .cli_helpers import bad, run, write

#: Two systems on 3 tasks, 2 runs each, with a cost and a duration per run.
RUNS = (
    "system,task_id,trial,success,cost,duration_s\n"
    "base,t1,0,1,1,10\nbase,t1,1,0,1,12\nbase,t2,0,1,1,8\nbase,t2,1,1,1,9\n"
    "base,t3,0,0,1,30\nbase,t3,1,1,1,20\n"
    "new,t1,0,1,2,5\nnew,t1,1,1,2,6\nnew,t2,0,1,2,7\nnew,t2,1,1,2,4\n"
    "new,t3,0,1,2,9\nnew,t3,1,0,2,11\n"
)
NO_DURATION = "system,task_id,trial,success,cost\nbase,t1,0,1,1\nbase,t1,1,0,1\n"


def test_estimate_cost_of_duration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "runs.csv", RUNS)
    rc, out, _ = run(capsys, ["estimate", path, "--k", "1,2", "--cost", "--cost-of", "duration"])
    assert rc == 0
    assert "duration / success (s)" in out and "pass^k / second" in out
    assert "cost" not in out.lower()
    # --cost-of duration alone asks for the figures
    rc, out2, _ = run(capsys, ["estimate", path, "--k", "1,2", "--cost-of", "duration"])
    assert rc == 0 and out2 == out
    rc, out, _ = run(capsys, ["estimate", path, "--k", "1,2", "--cost-of", "duration", "--json"])
    doc = json.loads(out)
    api = ph.estimate(ph.read(path), k=[1, 2]).with_cost_of("duration").cost
    assert api is not None and doc["cost_of"] == "duration"
    assert [r["cost_per_success"] for r in doc["cost"]] == pytest.approx(
        api.table["cost_per_success"].tolist()
    )
    # base by hand: duration per run (11 + 8.5 + 25) / 3 over mean success 4/6
    assert doc["cost"][0]["cost_per_success"] == pytest.approx((11 + 8.5 + 25) / 3 / (4 / 6))


def test_compare_cost_of_duration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "runs.csv", RUNS)
    args = ["compare", path, "--cost", "--k", "2", "--n-boot", "200", "--cost-of", "duration"]
    rc, out, _ = run(capsys, args)
    assert rc == 0
    assert "duration / all-2-pass (s)" in out and "pass^2 / second" in out
    assert "cost" not in out.lower().replace("compare_cost_coverage", "")  # the study's name
    rc, out, _ = run(capsys, [*args, "--json"])
    doc = json.loads(out)
    assert doc["settings"]["cost_of"] == "duration"
    api = ph.compare_cost(ph.read(path), k=2, n_boot=200, cost_of="duration")
    assert [r["ratio"] for r in doc["cost"]] == pytest.approx(api.table["ratio"].tolist())


@pytest.mark.parametrize(
    "args",
    [
        ["estimate", "{p}", "--cost-of", "duration"],
        ["estimate", "{p}", "--cost", "--cost-of", "duration", "--json"],
        ["compare", "{p}", "{p}", "--cost", "--cost-of", "duration"],
        ["report", "{p}", "-o", "{o}", "--no-model", "--cost-of", "duration"],
    ],
)
def test_without_duration_column_one_line(tmp_path: Path, capsys, args) -> None:  # type: ignore[no-untyped-def]
    path = write(tmp_path, "nodur.csv", NO_DURATION)
    argv = [a.format(p=path, o=tmp_path / "out") for a in args]
    line = bad(capsys, argv, r"nodur\.csv: duration per success needs a duration_s column")
    assert "seconds per run" in line


def test_report_no_cost_with_duration_contradicts(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = write(tmp_path, "runs.csv", RUNS)
    bad(capsys, ["report", path, "-o", str(tmp_path / "o"), "--no-model", "--no-cost",
                 "--cost-of", "duration"], "contradict")  # fmt: skip
