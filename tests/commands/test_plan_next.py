"""``passhat plan next``: the next batch as a table, JSON or CSV; the one-line error contract.

Oracle: the API the command calls (tests/planner/test_next_runs.py: closed forms against
integration and simulation, the greedy against brute force).
"""

from __future__ import annotations

import csv
import io
import json

import passhat as ph
from passhat.cli import main
from passhat.examples import example_path

from .cli_helpers import GOOD, HEADER, bad, write

AGENTS = str(example_path("agents"))


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_table_prints_the_reasoning_and_the_batch(capsys):
    code, out, _ = run(
        capsys, "plan", "next", AGENTS, "--system", "baseline", "--budget", "60", "--k", "5"
    )
    assert code == 0
    api = ph.plan.next_runs(ph.load_example("agents"), budget=60, k=5, system="baseline")
    assert api.attrs["sentences"][0] in out
    assert f"next {api.attrs['spent']} runs for pass^5" in out
    assert str(api.iloc[0]["task"]) in out and "more runs" in out


def test_csv_is_one_row_per_task_for_a_harness(capsys):
    code, out, _ = run(
        capsys, "plan", "next", AGENTS, "--system", "guided", "--budget", "30", "--k", "3", "--csv"
    )
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert sum(int(r["extra_runs"]) for r in rows) == 30
    assert {"task", "extra_runs", "variance_reduction", "width_reduction", "reason"} <= set(rows[0])


def test_json_carries_the_batch_and_the_reasoning(capsys):
    code, out, _ = run(
        capsys,
        "plan",
        "next",
        AGENTS,
        "--system",
        "baseline",
        "--budget",
        "40",
        "--k",
        "5",
        "--scope",
        "population",
        "--json",
    )
    assert code == 0
    doc = json.loads(out)
    assert doc["spent"] == 40 and doc["scope"] == "population"
    assert doc["tasks_vs_runs"]["new_tasks"] == 8
    assert sum(r["extra_runs"] for r in doc["batch"]) == 40 and doc["input"]


def test_no_flaky_task_is_answered(capsys, tmp_path):
    path = write(tmp_path, "r.csv", HEADER + "A,t1,0,1\nA,t1,1,1\nA,t2,0,0\nA,t2,1,0\n")
    code, out, _ = run(capsys, "plan", "next", path, "--budget", "10", "--k", "2")
    assert code == 0 and "more runs will not change pass^2 here; add tasks" in out


def test_bad_options_are_one_line_exit_2(capsys, tmp_path):
    path = write(tmp_path, "r.csv", GOOD)
    bad(
        capsys,
        ["plan", "next", path, "--budget", "0", "--k", "2"],
        r"--budget must be a whole number of runs ≥ 1 \(got 0\)",
    )
    bad(capsys, ["plan", "next", path, "--budget", "-3", "--k", "2"], r"--budget must be")
    bad(capsys, ["plan", "next", AGENTS, "--budget", "5", "--k", "2"], r"name one with")
