"""The reliability marker's error-rate study (studies/pytest_gate): the committed results hold
and are the study's own output.

Oracle: simulation with known truth — streams of independent runs whose pass^k is exactly the
marker's goal (and 0.03 beside it); the marker's stopping rule must pass (or fail) a test at
the goal at most α = 1 − ci of the time, within 3 Monte-Carlo standard errors, although it
looks after every run. The fast test checks the committed CSV's claims and recomputes its
cheapest cell from the cell's seed (the numbers must be the committed ones); the slow test
reruns the whole study.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from study_loader import load_study

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "studies" / "pytest_gate" / "pytest_gate.py"
RESULTS = ROOT / "reports" / "pytest_gate" / "results.csv"


def test_committed_results_keep_both_errors_within_alpha_and_are_reproduced() -> None:
    mod = load_study(STUDY, "pytest_gate_study")
    df = pd.read_csv(RESULTS, dtype={"seed": str})
    assert len(df) == len(mod.CELLS) == 18
    assert mod.check(df) == []
    at_goal = df[df["true_pass_hat"] == df["min_pass_hat"]]
    assert len(at_goal) == 6 and (at_goal["reps"] == mod.REPS).all()
    assert (at_goal["share_pass"] <= at_goal["limit"]).all()
    assert (at_goal["share_fail"] <= at_goal["limit"]).all()
    # the cheapest cell again, from its seed: the committed numbers are this code's output
    again = mod.simulate(mod.CELLS[0], 0, mod.REPS)
    row = df.iloc[0].to_dict()
    for key, value in again.items():
        if isinstance(value, float):
            assert row[key] == pytest.approx(value, rel=1e-12, abs=1e-12, nan_ok=True), key
        else:
            assert str(row[key]) == str(value), key


@pytest.mark.slow
def test_pytest_gate_study() -> None:
    mod = load_study(STUDY, "pytest_gate_study")
    assert mod.main([]) == 0  # its check(): every claim holds
    text = (ROOT / "reports" / "pytest_gate" / "README.md").read_text(encoding="utf-8")
    assert "## 3. A fixed-n test peeked at after every run" in text
