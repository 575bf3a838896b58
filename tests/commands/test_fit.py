"""`passhat fit`: JSON output, --strict on failed diagnostics, options checked like every
command's (exit 2, one line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import passhat as ph
from passhat.cli import main

from .cli_helpers import GOOD, bad, write


def test_cli_fit_json_and_strict(capsys, tmp_path):
    out = tmp_path / "f.nc"
    rc = main(
        [
            "fit",
            "--example",
            "agents",
            "--method",
            "grid",
            "--k",
            "1,5",
            "--seed",
            "0",
            "--json",
            "-o",
            str(out),
        ]
    )
    assert rc == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["diagnostics"]["passed"] is True
    assert {r["scope"] for r in doc["summary"]} == {"benchmark", "population"}
    assert ph.load_fit(out).systems == ["baseline", "guided"]
    # too few draws: ESS below 100 per chain → diagnostics fail → non-zero under --strict only
    args = [
        "fit",
        "--example",
        "abcd",
        "--method",
        "grid",
        "--chains",
        "2",
        "--draws",
        "40",
        "--seed",
        "0",
        "--quiet",
    ]
    assert main(args) == 0
    assert main([*args, "--strict"]) == 1  # a gate's "fail" (docs/guide/cli.md)
    text = capsys.readouterr().out
    assert "FAILED" in text and "ESS" in text


def test_cli_bad_input_one_line(capsys):
    assert main(["fit", "--example", "abcd", "--method", "nuts", "--model", "discrete"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("passhat: error:") and len(err.strip().splitlines()) == 1


def test_negative_seed_is_an_option_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good = write(tmp_path, "good.csv", GOOD)
    args = ["fit", "{good}", "--method", "grid", "--k", "1", "--seed", "-1"]
    argv = [a.format(good=good, out=tmp_path / "rep") for a in args]
    bad(capsys, argv, r"--seed.*-1")


def test_cli_fit_default_is_the_grid_and_says_so(capsys):
    """The first fit a user runs needs no compiling, and the output names the method that ran."""
    assert main(["fit", "--example", "abcd", "--k", "1,2", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert "grid quadrature" in out
    assert (
        "method: each model on its grid, stacked by exact leave-one-task-out (the default)" in out
    )
    assert main(["fit", "--example", "abcd", "--k", "1,2", "--seed", "0", "--json"]) == 0
    settings = json.loads(capsys.readouterr().out)["settings"]
    assert (settings["method"], settings["method_requested"], settings["sampler"]) == (
        "grid",
        "auto",
        "grid",
    )


def test_cli_fit_states_the_rule_for_tasks_without_a_decided_run(capsys, tmp_path):
    """Issue 16 item 3: the output's notes say what happened to such a task."""
    path = write(tmp_path, "u.csv", GOOD + "A,t4,0,\nA,t4,1,\n")
    assert (
        main(["fit", path, "--method", "grid", "--k", "1", "--draws", "200", "--chains", "1"]) == 0
    )
    out = capsys.readouterr().out
    assert "1 task(s) have no decided run" in out and "t4 (A)" in out
    assert main(["fit", path, "--method", "grid", "--k", "1", "--json", "--draws", "200"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["unscored_tasks"] == "exclude" and len(doc["notes"]) == 2
    assert doc["notes"][0].endswith("are not counted in n: A 2")  # the runs, then the task
    assert doc["settings"]["seed"] == 0
    bad(capsys, ["fit", path, "--method", "grid", "--unscored-tasks", "error"], r"t4 \(system A\)")
