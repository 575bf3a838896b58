"""The study of compare --cost's intervals (studies/compare_cost_coverage).

Oracles: the study's population values against closed forms and Gauss–Hermite quadrature
(log-normal cost means, E[expit(μ + σZ)^k]); the committed run's coverage against the goal
with its binomial Monte-Carlo error.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import special

from passhat.compare.cost_result import FEW_FOR_DIFFERENCES, FEW_TASKS
from study_loader import load_study

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "studies" / "compare_cost_coverage" / "compare_cost_coverage.py"
REPORT = ROOT / "reports" / "compare_cost_coverage" / "coverage.csv"


def _moment(mu: float, sd: float, k: int) -> float:
    """E[expit(mu + sd·Z)^k] by 80-point Gauss–Hermite quadrature."""
    x, w = np.polynomial.hermite_e.hermegauss(80)
    return float((w * special.expit(mu + sd * x) ** k).sum() / w.sum())


def test_population_values_match_quadrature() -> None:
    s = load_study(STUDY, "compare_cost_coverage_study")
    spread = 0.5
    true = s.truth(spread, 0, np.random.default_rng(0))
    cost_b = 0.05 * np.exp(spread**2 / 2)
    cost_c = 0.08 * np.exp((spread**2 + 0.3**2) / 2)
    sd_b, sd_c = 1.2, float(np.hypot(1.2, 0.5))
    rel = 3e-3  # 10^6 drawn tasks: the relative Monte-Carlo error is below 1e-3
    assert true[0, 0] == pytest.approx(cost_c - cost_b, rel=rel * 5)
    assert true[0, 1] == pytest.approx(cost_c / cost_b, rel=rel)
    for j, k in ((3, 3), (2, 1)):  # cost per all-k-pass (k = 3 and 1, the KS order)
        kk = s.KS[j - 2]
        assert kk == k
        vb = kk * cost_b / _moment(0.8, sd_b, kk)
        vc = kk * cost_c / _moment(1.2, sd_c, kk)
        assert true[j, 1] == pytest.approx(vc / vb, rel=rel)


def test_committed_run_covers() -> None:
    """passhat's rule (percentile bootstrap from FEW_TASKS units up, symmetric bootstrap-t
    below) covers ≥ 0.85 within 2 Monte-Carlo s.e. wherever compare --cost gives its intervals
    without a warning, in every regime (5 to 150 units); where it warns (differences below
    FEW_FOR_DIFFERENCES units) the study shows why."""
    if not REPORT.exists():
        pytest.skip(f"{REPORT} is not committed in this checkout")
    df = pd.read_csv(REPORT)
    own = df[df["passhat_rule"]]
    assert set(own["units"]) >= {5, 10, 20, 25, 50, 150}
    assert (own["method"] == np.where(own["units"] >= FEW_TASKS, "percentile bootstrap",
                                      "symmetric bootstrap-t")).all()  # fmt: skip
    unwarned = (own["units"] >= FEW_FOR_DIFFERENCES) | (own["compared"] == "ratio")
    judged = own[unwarned]
    assert len(judged) >= 60 and (judged["replicates"] >= 500).all()
    assert (judged["coverage"] + 2 * judged["mc_se"] >= 0.85).all()
    warned = own[~unwarned]
    assert (warned["coverage"] + 2 * warned["mc_se"] < 0.85).any()
