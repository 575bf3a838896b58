"""``passhat compare --cost``: the table, --json, -q, the options it refuses and bad costs.
Oracle: the Python API (:func:`passhat.compare_cost`) on the same file; the costs by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import passhat as ph

from .cli_helpers import bad, run, write

#: Two systems on 3 tasks, 2 runs each: base pays 1 per run, new 2 per run.
RUNS = (
    "system,task_id,trial,success,cost\n"
    "base,t1,0,1,1\nbase,t1,1,0,1\nbase,t2,0,1,1\nbase,t2,1,1,1\nbase,t3,0,0,1\nbase,t3,1,1,1\n"
    "new,t1,0,1,2\nnew,t1,1,1,2\nnew,t2,0,1,2\nnew,t2,1,1,2\nnew,t3,0,1,2\nnew,t3,1,0,\n"
)


def test_table_json_and_quiet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "runs.csv", RUNS)
    rc, out, _ = run(capsys, ["compare", path, "--cost", "--k", "1,2", "--n-boot", "200"])
    assert rc == 0
    assert "cost / all-2-pass" in out and "population scope (tasks like these)" in out
    assert "runs without a cost (new: 1 run, 0 tasks with none)" in out
    rc, quiet, _ = run(capsys, ["compare", path, "--cost", "--k", "1,2", "--n-boot", "200", "-q"])
    assert rc == 0 and "population scope" not in quiet and "cost / all-2-pass" in quiet
    rc, out, _ = run(capsys, ["compare", path, "--cost", "--k", "1,2", "--n-boot", "200",
                              "--json"])  # fmt: skip
    doc = json.loads(out)
    api = ph.compare_cost(ph.read(path), k=[1, 2], n_boot=200)
    assert doc["schema"] == "passhat.comparison_cost"
    assert [r["ratio_lower"] for r in doc["cost"]] == pytest.approx(
        api.table["ratio_lower"].tolist()
    )
    # by hand: base's cost per success = 1 / (4/6); new's cost per run (2 + 2 + 2) / 3 = 2 (t3's
    # run without a cost is left out of t3's cost per run) over a mean of (1 + 1 + 1/2) / 3
    row = next(r for r in doc["cost"] if r["metric"] == "cost_per_success")
    assert row["base_value"] == pytest.approx(1.5)
    assert row["cand_value"] == pytest.approx(2 / (5 / 6))
    rc, out, _ = run(capsys, ["compare", path, "--cost", "--k", "1,2", "--n-boot", "200",
                              "--csv"])  # fmt: skip
    head = out.splitlines()[0].split(",")
    assert rc == 0 and head[:4] == ["baseline", "candidate", "metric", "k"]
    assert len(out.splitlines()) == 1 + len(api.table)
    assert doc["missing_cost"][1] == {"system": "new", "runs_with_cost": 5,
                                      "runs_without_cost": 1, "tasks_without_cost": 0}  # fmt: skip


def test_refusals_and_bad_costs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "runs.csv", RUNS)
    for extra, name in (
        (["--scores"], "--scores"),
        (["--by", "category"], "--by"),
        (["--classify"], "--classify"),
        (["--min-runs", "2"], "--min-runs"),
    ):
        bad(capsys, ["compare", path, "--cost", *extra], f"--cost does not take {name}")
    neg = write(tmp_path, "neg.csv", RUNS.replace("new,t2,1,1,2", "new,t2,1,1,-2"))
    bad(capsys, ["compare", neg, "--cost"],
        r"neg\.csv: task 't2' \(system 'new'\), trial 1: cost -2 is negative")  # fmt: skip
    nocol = write(tmp_path, "nocol.csv", "system,task_id,trial,success\nA,t,0,1\nB,t,0,1\n")
    bad(capsys, ["compare", nocol, "--cost"], r"nocol\.csv: --cost needs a cost column")
    text = write(tmp_path, "nan.csv", RUNS.replace("new,t2,1,1,2", "new,t2,1,1,abc"))
    bad(capsys, ["compare", text, "--cost"], r"cost 'abc' is not a number")


def test_weights_reach_the_cost_comparison(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--weights declared: the API's weighted numbers; declared without a weight column: the
    library's one-line error."""
    weighted = RUNS.replace(
        "system,task_id,trial,success,cost\n", "system,task_id,trial,success,cost,weight\n"
    )
    lines = weighted.splitlines()
    lines = [lines[0]] + [f"{x},{3 if ',t1,' in x else 1}" for x in lines[1:]]
    path = write(tmp_path, "w.csv", "\n".join(lines) + "\n")
    argv = ["compare", path, "--cost", "--k", "1", "--n-boot", "200", "--weights", "declared"]
    rc, out, _ = run(capsys, [*argv, "--json"])
    doc = json.loads(out)
    api = ph.compare_cost(ph.read(path), k=1, n_boot=200, weights="declared")
    assert rc == 0 and doc["settings"]["weights"] == "declared"
    assert [r["cand_value"] for r in doc["cost"]] == pytest.approx(api.table["cand_value"].tolist())
    # by hand: base's weighted cost per success = 1 / ((3 * 1/2 + 1 + 1/2) / 5)
    row = next(r for r in doc["cost"] if r["metric"] == "cost_per_success")
    assert row["base_value"] == pytest.approx(1 / (3.0 / 5))
    plain = write(tmp_path, "plain.csv", RUNS)
    bad(capsys, ["compare", plain, "--cost", "--weights", "declared"], "declare no weight column")


def test_csv_rows_name_scope_and_method(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--csv: every row's intervals name their scope and how they were computed (weights
    included), as compare --csv's rows do; the rows had neither, so a weighted table read the
    same as an unweighted one."""
    import io

    import pandas as pd

    lines = RUNS.splitlines()
    lines = [lines[0] + ",weight"] + [f"{x},{3 if ',t1,' in x else 1}" for x in lines[1:]]
    path = write(tmp_path, "w.csv", "\n".join(lines) + "\n")
    argv = ["compare", path, "--cost", "--k", "1", "--n-boot", "200", "--weights", "declared"]
    rc, out, _ = run(capsys, [*argv, "--csv"])
    csv = pd.read_csv(io.StringIO(out), keep_default_na=False)
    api = ph.compare_cost(ph.read(path), k=1, n_boot=200, weights="declared")
    assert rc == 0 and len(csv) == len(api.table)
    assert (csv["scope"] == "population").all()
    assert (csv["method"] == api.method).all() and "task weights (declared" in api.method
