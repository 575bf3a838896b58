"""SBC of the joint crossed model (slow; `pytest -m slow` or `make study`).

Oracle: simulation-based calibration (Talts et al. 2018) over 120 data sets drawn from the
fit's prior: uniform ranks of the truth (χ² on 10 bins) and nominal 50% / 90% coverage of
θ_1, θ_S − θ_1, σ_β, κ and the between-system correlation. Rewrites
reports/joint_calibration/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from study_loader import load_study

ROOT = Path(__file__).resolve().parents[2]
STUDY = ROOT / "studies" / "joint_calibration" / "joint_calibration.py"


def _study():
    return load_study(STUDY, "joint_calibration_study")


@pytest.mark.slow
def test_joint_calibration_study():
    study = _study()
    ranks = study.run(120, progress=False)
    summary = study.summarise(ranks)
    study.write(ranks, summary, ROOT / "reports" / "joint_calibration", 0.0)
    assert len(summary) == 5 and (summary["reps"] == 120).all()
    # 5 quantities × 2 levels: 4 s.e. is exceeded by chance with probability ~6e-4
    assert (abs(summary["coverage90"] - 0.9) < 4 * summary["se90"]).all(), summary
    assert (abs(summary["coverage50"] - 0.5) < 4 * summary["se50"]).all(), summary
    assert (summary["chi2_p_value"] > 0.001).all(), summary
