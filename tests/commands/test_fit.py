"""`passhat fit`: JSON output, --strict on failed diagnostics, one-line errors."""

from __future__ import annotations

import json

import passhat as ph
from passhat.cli import main


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
    assert main([*args, "--strict"]) == 3
    text = capsys.readouterr().out
    assert "FAILED" in text and "ESS" in text


def test_cli_bad_input_one_line(capsys):
    assert main(["fit", "--example", "abcd", "--method", "grid", "--model", "inflated"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("passhat: error:") and len(err.strip().splitlines()) == 1
