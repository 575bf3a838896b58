"""``passhat spread``: published pairs (impossible ones refused), runs with the test and intervals,
undefined ratios shown as such, --min-runs, the default k.

Oracles: the seeds' printed table, passhat.spread on the same data and seed, plain arithmetic
(0/0 is undefined, not infinite) and the CLI contract.
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


# ----------------------------------------------------------- a published pair
def test_cli_published_pair_json(capsys) -> None:
    rc = main(["spread", "--mean", "77.4%", "--pass-hat", "0.530", "--k", "5", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)["spread"]
    assert f"{out['uniform']:.1%}" == "27.8%"
    assert out["beta"]["pass_hat_k"]["5"] == pytest.approx(0.53)


def test_cli_published_pair_table(capsys) -> None:
    rc = main(["spread", "--mean", "0.339", "--pass-hat", "0.101", "--k", "5", "--label", "OSS"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "0.4%" in out and "10.1%" in out and "23.8 pts" in out and "0.30" in out


def test_cli_runs(capsys) -> None:
    assert main(["spread", "--example", "agents", "--k", "1,5"]) == 0
    assert "uniform spread" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["spread", "--mean", "1.4", "--pass-hat", "0.5", "--k", "5"],
        ["spread", "--mean", "abc", "--pass-hat", "0.5", "--k", "5"],
        ["spread", "--mean", "0.5", "--k", "5"],
        ["spread", "--mean", "0.5", "--pass-hat", "0.2", "--k", "2,5"],
        ["spread", "--example", "agents", "--mean", "0.5", "--pass-hat", "0.2", "--k", "5"],
        # impossible pairs (issue 13): pass^k > mean, and pass^1 ≠ mean
        ["spread", "--mean", "0.5", "--pass-hat", "0.9", "--k", "5"],
        ["spread", "--mean", "0.5", "--pass-hat", "0.4", "--k", "1"],
        # interval level and draws of the runs mode
        ["spread", "--example", "agents", "--ci", "1.5"],
        ["spread", "--example", "agents", "--n-boot", "5"],
    ],
)
def test_cli_bad_input_one_line(argv: list[str], capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("passhat: error:") and err.count("\n") == 1


def test_cli_impossible_pair_names_the_rule(capsys) -> None:
    line = bad(capsys, ["spread", "--mean", "0.5", "--pass-hat", "0.9", "--k", "5"], "impossible")
    assert "pass^k ≤ mean" in line
    # below the uniform reference is possible for finite runs: still answered, exit 0
    assert main(["spread", "--mean", "0.5", "--pass-hat", "0.01", "--k", "5"]) == 0
    assert "No Beta spread explains it" in " ".join(capsys.readouterr().out.split())


# --------------------------------------------------- runs: the test and intervals
def test_cli_runs_print_the_test_and_intervals(capsys) -> None:
    import passhat as ph

    argv = ["spread", "--example", "agents", "--k", "1,5", "--seed", "0", "--n-boot", "300"]
    assert main([*argv, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    sp = ph.spread(ph.load_example("agents"), k=[1, 5], ci=0.95, n_boot=300, seed=0)
    het = {r["system"]: r for r in doc["heterogeneity"]}
    for r in sp.heterogeneity.to_dict(orient="records"):
        assert het[r["system"]]["p_value"] == pytest.approx(r["p_value"])
        assert het[r["system"]]["clustered"] == r["clustered"]
    rows = {(r["system"], r["k"]): r for r in doc["spread"]}
    for r in sp.table.to_dict(orient="records"):
        got = rows[(r["system"], r["k"])]
        assert got["ratio_lower"] == pytest.approx(r["ratio_lower"])
        assert got["ratio_upper"] == pytest.approx(r["ratio_upper"])
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Tarone" in out and "clustered" in out
    assert "failures are clustered beyond what independent runs at a common rate" in " ".join(
        out.split()
    )


# ------------------------ spread on one task: no estimate printed beside an interval it is outside
def test_spread_single_task_prints_no_interval_it_lies_outside(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # 3 of 10 runs pass: pass^5 = 0, so the old output read "0.0× (1.0–508×)", the interval
    # coming from the prior alone (one task says nothing about how task rates spread).
    path = write(tmp_path, "one.csv", "task_id,n,c\nt1,10,3\n")
    assert main(["spread", path, "--k", "1,5", "--n-boot", "200", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    for r in doc["spread"]:
        assert r["ratio_lower"] is None and r["ratio_upper"] is None
    assert any("fewer than two tasks" in n for n in doc["notes"])
    assert main(["spread", path, "--k", "1,5", "--n-boot", "200"]) == 0
    out = capsys.readouterr().out
    assert "0.0× (—)" in out and "note: system: fewer than two tasks" in out
    assert "-0.0 pts" not in out  # k = 1: the gap is exactly 0


def test_spread_published_pair_at_the_uniform_reference_prints_no_inf(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # pass^2 = mean^2 = 0.25: every task at one rate, κ unbounded; it printed "κ = inf"
    assert main(["spread", "--mean", "0.5", "--pass-hat", "0.25", "--k", "2"]) == 0
    out = capsys.readouterr().out
    assert "inf" not in out and "κ unbounded: every task at the same rate" in out
    assert main(["spread", "--mean", "0.5", "--pass-hat", "0.25", "--k", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "inf" not in doc["spread"]["sentence"] and doc["spread"]["beta"]["kappa"] is None
