"""``passhat gate``: exit 0 pass, 1 fail, 3 continue, 2 bad input; JSON and CSV for harnesses.

Oracle: :func:`passhat.plan.sequential` on the same input (the command only parses and
prints).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.cli import main

from .cli_helpers import bad, write


def _runs(tmp_path: Path, name: str, outcomes: np.ndarray, system: str = "v1") -> str:
    T, n = outcomes.shape
    df = pd.DataFrame(
        {
            "system": system,
            "task_id": np.repeat([f"t{i}" for i in range(T)], n),
            "trial": np.tile(np.arange(n), T),
            "success": outcomes.ravel().astype(int),
        }
    )
    return write(tmp_path, name, df.to_csv(index=False))


def test_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clean = _runs(tmp_path, "clean.csv", np.ones((10, 40), bool))
    assert main(["gate", clean, "--max-failure-rate", "0.05"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("pass: ") and "passhat gate: pass (exit 0)" in out
    assert "Assumes: " in out
    few = _runs(tmp_path, "few.csv", np.ones((10, 3), bool))
    assert main(["gate", few, "--max-failure-rate", "0.05", "-q"]) == 3
    out = capsys.readouterr().out
    assert out.startswith("continue: ") and "more run(s)" in out and len(out.splitlines()) == 1
    rng = np.random.default_rng(0)
    worse = _runs(tmp_path, "worse.csv", rng.random((10, 30)) < 0.7)
    assert main(["gate", worse, "--max-failure-rate", "0.05", "-q"]) == 1
    assert capsys.readouterr().out.startswith("fail: ")


def test_json_is_the_api_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(1)
    out = rng.random((8, 10)) < 0.95
    path = _runs(tmp_path, "r.csv", out)
    rc = main(["gate", path, "--k", "2", "--max-failure-rate", "0.2", "--json"])
    doc = json.loads(capsys.readouterr().out)
    want = ph.plan.sequential(ph.read(path), k=2, max_failure_rate=0.2)
    assert rc == want.exit_code == doc["gate"]["exit_code"]
    assert doc["gate"]["decision"] == want.decision
    assert doc["gate"]["e_pass"] == pytest.approx(want.e_pass, rel=1e-9)
    assert doc["gate"]["further_runs"] == want.further_runs
    assert doc["input"]["runs"]["path"].endswith("r.csv")
    rc = main(["gate", path, "--k", "2", "--max-failure-rate", "0.2", "--csv"])
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 1 and rows[0]["decision"] == want.decision and rc == want.exit_code


def test_baseline_file_and_system(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(2)
    old = _runs(tmp_path, "old.csv", rng.random((20, 10)) < 0.6, system="old")
    new = _runs(tmp_path, "new.csv", rng.random((20, 10)) < 0.95, system="new")
    rc = main(["gate", new, "--baseline", old, "--margin", "0.05", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["gate"]["decision"] == "pass"
    assert doc["gate"]["baseline_system"] == "old" and "baseline" in doc["input"]
    # baseline is worse than guided: shown worse (margin 0), not shown 0.02 worse yet
    assert (
        main(["gate", "--example", "agents", "--baseline-system", "guided", "--margin", "0", "-q"])
        == 1
    )
    assert capsys.readouterr().out.startswith("fail: ")
    assert (
        main(
            ["gate", "--example", "agents", "--baseline-system", "guided", "--margin", "0.02", "-q"]
        )
        == 3
    )
    assert "about 1008 more run(s)" in capsys.readouterr().out


def test_unequal_runs_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = write(tmp_path, "r.csv", "task_id,trial,success\na,0,1\na,1,1\na,2,1\nb,0,1\n")
    assert main(["gate", p, "--max-failure-rate", "0.1"]) == 3
    assert "note: decided runs per task differ (1 to 3)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "pattern"),
    [
        ([], r"give --max-failure-rate \(a bound on 1 − pass\^k\) or --margin with a baseline"),
        (["--max-failure-rate", "2"], r"max.failure.rate must lie in \(0, 1\)"),
        (["--margin", "0.1"], r"--margin compares with a baseline: give its runs \(--baseline\)"),
        (["--max-failure-rate", "0.1", "--baseline-system", "x"], r"bounds one system"),
        (["--max-failure-rate", "0.1", "--alpha", "1"], r"alpha must lie"),
        (["--max-failure-rate", "0.1", "--k", "0"], r"'--k': 0 is not in the range x>=1"),
        (
            ["--max-failure-rate", "0.1", "--margin", "0.1"],
            r"give one of --max-failure-rate .*--margin .*not both",
        ),
        (["--max-failure-rate", "0.1", "--metric", "mean", "--k", "2"], r"per-run metric"),
    ],
)
def test_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], pattern: str
) -> None:
    p = _runs(tmp_path, "r.csv", np.ones((3, 5), bool))
    bad(capsys, ["gate", p, *extra], pattern)


def test_bad_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    counts = write(tmp_path, "c.csv", "task_id,n,c\na,5,5\nb,3,3\n")
    bad(
        capsys,
        ["gate", counts, "--max-failure-rate", "0.1"],
        r"c\.csv: a count table has no trial order",
    )
    bad(capsys, ["gate", "--example", "agents", "--max-failure-rate", "0.1"], r"holds 2 systems")
    bad(capsys, ["gate", "--max-failure-rate", "0.1"], r"no input")
    a = _runs(tmp_path, "a.csv", np.ones((3, 5), bool))
    b = write(tmp_path, "b.csv", "task_id,trial,success\nzz,0,1\n")
    bad(capsys, ["gate", a, "--baseline", b, "--margin", "0.1"], r"tasks differ")
