"""The study of planned against realised power (studies/planned_power).

Oracles: known truth — with no difference (δ = 0) the share of benchmarks compare's engine rejects
is its size, at most α within Monte-Carlo error; the study's goal rule applied to made-up gaps.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from study_loader import load_study

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "studies" / "planned_power" / "planned_power.py"


def _study():  # type: ignore[no-untyped-def]
    return load_study(STUDY, "planned_power_study")


def test_realised_power_under_no_difference_is_at_most_alpha() -> None:
    pp = _study()
    cell = pp.Cell(0.6, 0.3, "mean", 1, 0.0, 4)
    share, se = pp.realised_power(cell, 40, reps=300, n_boot=1000, seed=3)
    assert share <= pp.ALPHA + 3 * max(se, 0.0126)  # 0.0126: the s.e. of a share of 0.05


def test_the_goal_allows_a_gap_of_one_point_beyond_two_standard_errors() -> None:
    pp = _study()
    gap = pd.Series([0.015, -0.015, 0.025, 0.0])
    se = pd.Series([0.005, 0.0025, 0.005, 0.0])
    assert pp.within_goal(gap, se).tolist() == [True, True, False, True]
