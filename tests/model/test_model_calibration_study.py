"""Calibration study of the hierarchical model (slow; `pytest -m slow` or `make study`).

Oracles: simulation with known truth p_i ~ Beta(a, b) (coverage of 90% intervals, with the
binomial Monte-Carlo tolerance of a coverage estimate); simulation-based calibration
(Talts et al. 2018) with a χ² test of uniform ranks. Rewrites reports/model_calibration/.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from study_loader import load_study

ROOT = Path(__file__).resolve().parents[2]
STUDY = ROOT / "studies" / "model_calibration" / "calibration.py"


def _study():
    return load_study(STUDY, "model_calibration_study")


@pytest.mark.slow
def test_model_calibration_study():
    cal = _study()
    res = cal.run_all(
        reps=400, sbc_reps=1000, nuts_sbc_reps=200, out=ROOT / "reports" / "model_calibration"
    )
    cov = res["coverage"]
    se = math.sqrt(0.9 * 0.1 / 400)
    # every cell within 4 s.e. (162 cells: 3 s.e. would be exceeded by chance ~0.4 times)
    assert (abs(cov["coverage"] - 0.9) < 4 * se).all(), cov[abs(cov["coverage"] - 0.9) >= 4 * se]
    # averaged over cells, coverage is nominal to within the pooled Monte-Carlo error
    assert abs(cov["coverage"].mean() - 0.9) < 3 * se / math.sqrt(len(cov)) + 0.005
    sbc = res["sbc"]
    # uniform ranks: no χ² p-value below 0.001 (6 tests)
    assert (sbc["p_value"] > 0.001).all(), sbc
    assert (sbc["divergent_fits"] <= 0.02 * sbc["reps"]).all()
    assert (ROOT / "reports" / "model_calibration" / "README.md").exists()
