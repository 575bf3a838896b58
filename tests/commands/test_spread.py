"""``passhat spread``: undefined ratios shown as such, --min-runs, the default k.

Oracles: plain arithmetic (0/0 is undefined, not infinite) and the CLI contract.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from passhat.cli import main

from .cli_helpers import HEADER, bad, write


# ------------------------------------------------------- spread at mean 0: 0/0
@pytest.mark.parametrize(
    "args",
    [["spread", "--mean", "0", "--pass-hat", "0", "--k", "4"], ["spread", "{allfail}", "--k", "2"]],
    ids=["published-pair", "all-fail-runs"],
)
def test_spread_cli_prints_no_nan_or_infinity_for_zero_over_zero(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str]
) -> None:
    allfail = write(tmp_path, "f.csv", HEADER + "A,t1,0,0\nA,t1,1,0\nA,t2,0,0\nA,t2,1,0\n")
    assert main([a.format(allfail=allfail) for a in args]) == 0
    out = capsys.readouterr().out
    assert "∞" not in out and "nan" not in out, out
    assert "—" in out and "—×" not in out  # the undefined ratio is shown as such


# ---------------------------- spread: the --min-runs its own error message names
def test_spread_min_runs_excludes_and_lists_short_tasks(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    body = "A,t1,0,1\nA,t1,1,0\nA,t2,0,1\nA,t2,1,1\nA,t3,0,1\n"
    path = write(tmp_path, "runs.csv", HEADER + body)
    line = bad(capsys, ["spread", path, "--k", "2"], r"t3 \(n=1\)")
    assert "--min-runs" in line  # the message points at an option spread must have
    assert main(["spread", path, "--k", "2", "--min-runs", "2"]) == 0
    out = capsys.readouterr().out
    assert "excluded 1 task(s)" in out and "t3" in out
    assert main(["spread", path, "--k", "2", "--min-runs", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["task"] for r in doc["excluded"]] == ["t3"]
    assert doc["spread"][0]["tasks"] == 2


def test_spread_default_k_follows_the_runs(tmp_path, capsys):
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
    assert main(["spread", str(f), "--json"]) == 0
    out = capsys.readouterr().out
    assert '"k": 4' in out and '"k": 5' not in out
