"""``passhat plan power`` (pilot runs, fallback, sensitivity) and ``passhat plan more-runs``.

Oracles: the planner API the commands call (tested against simulation with known truth and an
independent quadrature in tests/planner/ and tests/model/); the one-line error contract.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import passhat as ph
from passhat.cli import main
from passhat.examples import example_path

from .cli_helpers import PRIOR, bad, write

AGENTS = str(example_path("agents"))
ASK = ["--delta", "0.05", "--runs-per-task", "5", "--power", "0.8"]


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _sensitivity_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("  ρ = ")]


def test_fallback_correlation_is_assumed_and_its_sensitivity_printed(capsys):
    code, out, _ = run(capsys, "plan", "power", *ASK, "--mean", "0.77", "--icc", "0.4")
    assert code == 0
    api = ph.plan.power(
        delta=0.05, runs_per_task=5, power=0.8, prior=ph.plan.Assumptions(mean=0.77, icc=0.4)
    )
    assert out.splitlines()[0] == f"{int(api)} tasks"
    assert "ASSUMED" in out and "is assumed, not measured" in out
    lines = _sensitivity_lines(out)
    assert len(lines) == len(api.quantities["sensitivity"]) == 7
    for line, row in zip(lines, api.quantities["sensitivity"], strict=True):
        assert line.startswith(f"  ρ = {row['correlation']:.2f}: tasks {row['tasks']} ")
        assert line.endswith("← used") == row["used"]


def test_power_from_one_pilot_file_with_two_systems(capsys):
    code, out, _ = run(capsys, "plan", "power", AGENTS, *ASK, "--json")
    assert code == 0
    doc = json.loads(out)
    pilot = ph.plan.paired_pilot(ph.load_example("agents"))
    api = ph.plan.power(delta=0.05, runs_per_task=5, power=0.8, pilot=pilot)
    assert doc["value"] == int(api)
    q = doc["quantities"]
    assert q["correlation_source"] == "measured"
    assert q["pilot"]["systems"] == ["baseline", "guided"] and q["pilot"]["tasks"] == 168
    assert [r["correlation"] for r in q["sensitivity"]][-1] == round(pilot.rho, 4)
    code, out, _ = run(capsys, "plan", "power", AGENTS, *ASK, "--correlation", "0.5")
    used = [line for line in _sensitivity_lines(out) if line.endswith("← used")]
    assert used and used[0].startswith("  ρ = 0.50:") and "what-if" in out


def test_power_from_two_pilot_files(capsys, tmp_path: Path):
    frame = pd.read_csv(AGENTS)
    a = write(tmp_path, "old.csv", frame[frame["system"] == "baseline"].to_csv(index=False))
    b = write(tmp_path, "new.csv", frame[frame["system"] == "guided"].to_csv(index=False))
    code, out, _ = run(capsys, "plan", "power", a, b, *ASK)
    assert code == 0
    pilot = ph.plan.paired_pilot(ph.load_example("agents"))
    assert (
        out.splitlines()[0]
        == f"{int(ph.plan.power(delta=0.05, runs_per_task=5, power=0.8, pilot=pilot))} tasks"
    )
    assert "measured on 168 paired pilot tasks" in out


def test_power_pilot_errors(capsys, tmp_path: Path):
    bad(capsys, ["plan", "power", AGENTS, *ASK, *PRIOR], r"PILOT.*or --from/--mean.*not both")
    bad(capsys, ["plan", "power", *ASK, "--baseline", "x", *PRIOR], r"need pilot runs")
    bad(
        capsys,
        ["plan", "power", AGENTS, "--delta", "0.05", "--grid-tasks", "20", "--grid-runs", "3"],
        r"simulated sweep draws from a model",
    )
    bad(
        capsys,
        ["plan", "power", AGENTS, *ASK, "--metric", "pass_hat_k", "--k", "3"],
        r"at least 2k = 6 decided runs",
    )


def test_more_runs_prints_the_api_answer(capsys, tmp_path: Path):
    code, out, _ = run(
        capsys,
        "plan",
        "more-runs",
        AGENTS,
        "--runs",
        "5",
        "--k",
        "5",
        "--simulations",
        "40",
        "--json",
    )
    assert code == 0
    doc = json.loads(out)
    api = ph.plan.more_runs(ph.load_example("agents"), runs=[5], k=[5], simulations=40, seed=0)
    assert doc["reasoning"] == api.reasoning
    rows = pd.DataFrame(doc["table"])
    assert set(rows["scope"]) == {"population", "benchmark"}
    assert rows["expected_width"].round(9).tolist() == api.table["expected_width"].round(9).tolist()
    code, out, _ = run(
        capsys, "plan", "more-runs", AGENTS, "--runs", "5", "--k", "5", "--simulations", "40"
    )
    assert out.splitlines()[:2] == api.explain()
    assert "more runs/task" in out and "∞" in out
    bad(capsys, ["plan", "more-runs", AGENTS, "--runs", "0"], r"--runs: values must be ≥ 1")


def test_plan_power_prints_no_negative_zero(capsys) -> None:  # type: ignore[no-untyped-def]
    """A difference of -0.0001 printed "a difference of -0.000" (and a sensitivity row's ρ or
    SD could print -0.00). Oracle: the value rounds to zero at the printed precision, so it
    reads 0.000; the planner's own number (JSON) is unchanged."""
    args = ["plan", "power", *PRIOR, "--delta", "-0.0001", "--tasks", "50", "--runs-per-task", "3"]
    code, out, _ = run(capsys, *args)
    assert code == 0
    assert "a difference of 0.000 in mean" in out
    assert "-0.0" not in out
    code, out, _ = run(capsys, *args, "--json")
    assert code == 0 and json.loads(out)["quantities"]["delta"] == -0.0001


def test_the_default_is_compares_test_and_analytic_is_the_t_test_with_a_note(capsys):
    prior = ["--mean", "0.6", "--icc", "0.3"]
    design = ["--delta", "0.1", "--tasks", "100", "--runs-per-task", "5", *prior]
    api = ph.plan.Assumptions(mean=0.6, icc=0.3)
    code, out, err = run(capsys, "plan", "power", *design, "--json")
    doc = json.loads(out)
    assert code == 0 and err == "" and doc["quantities"]["method"] == "sign-flip"
    want = float(ph.plan.power(delta=0.1, tasks=100, runs_per_task=5, prior=api))
    assert doc["value"] == pytest.approx(want, rel=1e-10)  # JSON keeps 12 digits
    assert "sign-flip test" in doc["method"] and "sign-flip test" in doc["reasoning"]
    t_test = float(ph.plan.power(delta=0.1, tasks=100, runs_per_task=5, prior=api, method="t-test"))
    code, out, err = run(capsys, "plan", "power", *design, "--method", "analytic", "--json")
    assert code == 0 and json.loads(out)["value"] == pytest.approx(t_test, rel=1e-10)
    assert err.strip() == (
        "passhat: --method analytic is deprecated: use --method t-test (the paired t-test) "
        "(the old name goes in the next release)"
    )
    code, out, err = run(capsys, "plan", "power", *design, "--method", "t-test", "--json")
    assert code == 0 and err == ""
    assert json.loads(out)["value"] == pytest.approx(t_test, rel=1e-10)
