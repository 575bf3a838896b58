"""The study of compare's coverage when the systems differ (studies/compare_coverage).

Oracles: simulation with known truth (the benchmark difference is the mean of
g(p_B) − g(p_A) over the simulated tasks; the population difference a closed form
where one exists); tolerances from the binomial Monte-Carlo error of a coverage.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from study_loader import load_study

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "studies" / "compare_coverage" / "compare_coverage.py"
REPORT = ROOT / "reports" / "compare_coverage" / "compare_coverage.csv"


def _study():  # type: ignore[no-untyped-def]
    return load_study(STUDY, "compare_coverage_study")


@pytest.mark.parametrize("k", [1, 3])
def test_population_truth_of_fixed_tasks_matches_the_closed_form(k: int) -> None:
    """A quarter of Uniform(0, 1) tasks set to 1: E[p_B^k − p_A^k] = (1 − 1/(k + 1)) / 4."""
    cc = _study()
    metric = "mean" if k == 1 else "pass_hat_k"
    got = cc.population_truth("Beta(1, 1) uniform", "25% of tasks fixed", metric, k)
    assert got == pytest.approx((1 - 1 / (k + 1)) / 4, abs=2e-3)  # MC s.e. < 3e-4


@pytest.mark.integration  # Monte-Carlo subset of a study
def test_few_fixed_tasks_near_all_pass_are_covered() -> None:
    """A strong agent whose candidate fixes a quarter of the tasks, 20 tasks × 3 runs: every
    task difference is ≥ 0, the case where a percentile bootstrap never reaches 0. 60
    replicates; coverage floor 0.90 − 3 MC s.e.; interval and test agree on every one."""
    cc = _study()
    reps = 60
    df = cc.run(reps=reps, n_boot=400, only=[("Beta(5, 0.2) near 1", "25% of tasks fixed", 20, 3)])
    assert len(df) == 10  # mean, pass@2, pass^2, pass@3, pass^3 × two scopes
    assert (df["disagreements"] == 0).all()
    floor = 0.9 - 3 * np.sqrt(0.09 / reps)
    assert (df["coverage"] >= floor).all(), df[["metric", "k", "scope", "coverage"]]
    bench = df[df["scope"] == "benchmark"]
    assert (bench["error_draws_share"] == 1).all()


def test_full_report_meets_the_goal() -> None:
    """The committed full run: every cell at least 0.85 within 2 MC s.e., no disagreement."""
    if not REPORT.exists():
        pytest.skip("reports/compare_coverage/compare_coverage.csv is absent: run `make study`")
    df = pd.read_csv(REPORT)
    assert len(df) == 54 * 10
    assert (df["coverage"] + 2 * df["mc_se"] >= 0.85).all()
    assert (df["disagreements"] == 0).all()
