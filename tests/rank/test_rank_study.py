"""The leaderboard calibration study (studies/rank_calibration): a fast subset here, the full
study in `make study`.

Oracle: simulation with known truth — eight systems with crossed task effects whose
population values follow from θ by Gauss–Hermite quadrature (equal θ: exactly equal
truth). Rank intervals must cover every rank a system's true value can take at their
level, group letters must not split equal-truth systems more often than α = 0.1, and the
share of resamples ranked first must match the observed share of truly-first systems within
Monte-Carlo error. Tolerances: binomial MC error over the replicates.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from study_loader import load_study

ROOT = Path(__file__).resolve().parents[2]
STUDY = ROOT / "studies" / "rank_calibration" / "rank_calibration.py"
REPORT = ROOT / "reports" / "rank_calibration"


def _study():  # type: ignore[no-untyped-def]
    return load_study(STUDY, "rank_calibration_study")


def test_truth_by_quadrature() -> None:
    st = _study()
    rng = np.random.default_rng(0)
    sd = np.hypot(st.SIGMA_TASK, st.SIGMA_DEV)
    z = rng.normal(0, sd, 400_000)
    mc = (1 / (1 + np.exp(-(st.THETA[0] + z)))) ** 3
    assert st.truth("pass_hat_k", 3)[0] == pytest.approx(mc.mean(), abs=3e-3)
    v = st.truth("mean", 1)
    assert v[1] == v[2] and v[3] == v[4] == v[5]  # the designed ties are exact
    lo, hi = st.true_rank_range(v)
    assert lo.tolist()[:4] == [1, 2, 2, 4] and hi.tolist()[:4] == [1, 3, 3, 6]


@pytest.mark.integration  # Monte-Carlo subset of a study
def test_rank_calibration_fast_subset() -> None:
    st = _study()
    reps = 12
    res = st.run_all(reps=reps, n_boot=300, cells=[(60, 3)], seed=5)
    cov = res["coverage"]
    assert (cov["per_system"] >= 0.9 - 3 * np.sqrt(0.09 / (reps * 2))).all(), cov
    tiers = res["tiers"]
    equal = tiers[tiers["rule"] == "letters"]
    assert (equal["split_rate"] <= 0.1 + 3 * np.sqrt(0.09 / equal["pairs"])).all(), tiers
    cal = res["calibration"]
    big = cal[cal["count"] >= 10]
    assert (np.abs(big["observed"] - big["predicted"]) <= 3 * big["mc_se"] + 0.1).all(), cal


@pytest.mark.slow
def test_full_rank_calibration_report() -> None:
    """The study written by `make study`: every cell covers, group letters keep equal truths
    together, the share ranked first within its Monte-Carlo error."""
    if not (REPORT / "coverage.csv").exists():
        pytest.skip("reports/rank_calibration is absent: run `make study` first")
    cov = pd.read_csv(REPORT / "coverage.csv")
    tiers = pd.read_csv(REPORT / "tiers.csv")
    cal = pd.read_csv(REPORT / "calibration.csv")
    assert (cov["reps"] >= 100).all()
    assert (cov["per_system"] + 2 * cov["mc_se"] >= 0.9).all(), cov
    equal = tiers[tiers["rule"] == "letters"]
    assert (equal["split_rate"] <= 0.1 + 2 * np.sqrt(0.09 / equal["pairs"])).all(), tiers
    big = cal[cal["count"] >= 30]
    assert (np.abs(big["observed"] - big["predicted"]) <= 3 * big["mc_se"] + 0.05).all(), cal
