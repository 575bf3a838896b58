"""`passhat fit --model joint`: the per-system table and diagnostics, JSON, -o and load_fit,
and one clear line with exit 2 for what the joint model refuses.

What the command prints and writes is checked on fits made with PyMC's mock sampler
(``mock_nuts``: the real model, prior draws in the shape of NUTS draws); the joint and Rasch
fits' numbers are checked in tests/model (integration tier)."""

from __future__ import annotations

import json

import passhat as ph
from passhat import schemas
from passhat.cli import main

FAST = ["--draws", "200", "--tune", "200", "--chains", "2", "--seed", "3", "--sampler", "pymc"]


def test_cli_fit_joint_table_json_and_output(capsys, tmp_path, mock_nuts):
    out = tmp_path / "joint.nc"
    rc = main(
        ["fit", "--example", "agents", "--model", "joint", "--k", "1,3", *FAST, "-o", str(out)]
    )
    assert rc == 0
    text = capsys.readouterr().out
    assert "passhat fit --model joint" in text and "guided" in text
    assert "between-system correlation of per-task rates" in text
    assert "diagnostics:" in text
    back = ph.load_fit(out)
    assert isinstance(back, ph.JointFit) and back.systems == ["baseline", "guided"]
    paper = back.summarize().to_markdown()  # the table for papers (no new sampling)
    assert paper.startswith("| system | metric | benchmark | population |")
    assert "| guided | pass^3 | " in paper and "one model (joint)" in paper
    # plan power takes the joint fit's spread and between-system correlation
    rc = main(
        [
            "plan",
            "power",
            "--rho-from",
            str(out),
            "--delta",
            "0.05",
            "--runs-per-task",
            "5",
            "--power",
            "0.8",
        ]
    )
    text = capsys.readouterr().out
    assert rc == 0 and "joint model" in text and "measured ρ" in text
    rc = main(
        [
            "plan",
            "power",
            "--rho-from",
            str(out),
            "--example",
            "agents",
            "--delta",
            "0.05",
            "--runs-per-task",
            "5",
            "--power",
            "0.8",
        ]
    )
    assert rc == 2 and "--rho-from FIT replaces PILOT" in capsys.readouterr().err
    rc = main(["fit", str(out).replace("joint.nc", "x"), "--model", "joint"])
    assert rc == 2  # a missing input: one line, exit 2
    capsys.readouterr()
    rc = main(["fit", "--example", "agents", "--model", "joint", "--k", "2", *FAST, "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["settings"]["model"] == "joint"
    schemas.validate(doc)  # the published schema passhat.joint_fit
    assert {r["system"] for r in doc["summary"]} == {"baseline", "guided"}
    assert {r["parameter"] for r in doc["parameters"]} == {"theta", "task_sd", "kappa"}
    assert len(doc["correlation"]) == 1


def test_cli_fit_joint_refusals(capsys):
    rc = main(["fit", "--example", "tau-airline", "--model", "joint"])
    err = capsys.readouterr().err
    assert rc == 2 and "at least two systems" in err and len(err.strip().splitlines()) == 1
    rc = main(["fit", "--example", "agents", "--model", "joint", "--method", "grid"])
    err = capsys.readouterr().err
    assert rc == 2 and "does not apply to --model='joint'" in err


def test_cli_fit_rasch_table_json_and_dispersion_check(capsys, tmp_path, mock_nuts):
    """--model rasch: the joint table without κ, the dispersion check line, JSON, -o."""
    out = tmp_path / "rasch.nc"
    rc = main(
        ["fit", "--example", "agents", "--model", "rasch", "--k", "1,3", *FAST, "-o", str(out)]
    )
    assert rc == 0
    text = capsys.readouterr().out
    assert "passhat fit --model rasch" in text and "Rasch form" in text
    assert "system × task deviation: none (Rasch form, κ = ∞)" in text
    assert "dispersion check (X² of the cells given each task's total" in text
    back = ph.load_fit(out)
    assert isinstance(back, ph.JointFit) and back.model == "rasch"
    rc = main(["fit", "--example", "agents", "--model", "rasch", "--k", "2", *FAST, "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["settings"]["model"] == "rasch"
    schemas.validate(doc)
    assert {r["parameter"] for r in doc["parameters"]} == {"theta", "task_sd"}
    assert [r["system"] for r in doc["dispersion_check"]] == ["baseline", "guided", "(all)"]
    rc = main(["fit", "--example", "tau-airline", "--model", "rasch"])
    err = capsys.readouterr().err
    assert rc == 2 and "model='rasch' needs at least two systems" in err
