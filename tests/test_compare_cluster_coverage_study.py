"""The study of compare's population scope on clustered tasks (studies/compare_cluster_coverage).

Oracles: the shift design's true difference by quadrature against plain Monte Carlo of the
simulated truth; the H0 design's exact symmetry (swapping the systems' rates per cluster
leaves the expected difference 0); the committed run's size and coverage against their goals
with the binomial Monte-Carlo error.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import special

from study_loader import load_study

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "studies" / "compare_cluster_coverage" / "compare_cluster_coverage.py"
REPORT = ROOT / "reports" / "compare_cluster_coverage" / "compare_cluster_coverage.csv"


def _study():  # type: ignore[no-untyped-def]
    return load_study(STUDY, "compare_cluster_coverage_study")


@pytest.mark.parametrize(("metric", "k"), [("mean", 1), ("pass_at_k", 2), ("pass_hat_k", 2)])
def test_shift_truth_matches_monte_carlo(metric: str, k: int) -> None:
    s = _study()
    rng = np.random.default_rng(0)
    x = rng.normal(s.MU, np.sqrt(s.TASK_VAR), 1_000_000)
    gain = rng.normal(0.0, np.sqrt(s.GAIN_VAR), x.size)
    d = s._g(metric, k, special.expit(x + s.SHIFT + gain)) - s._g(metric, k, special.expit(x))
    assert abs(s.truth("shift", metric, k) - d.mean()) < 4 * d.std() / 1000


def test_h0_replicates_are_symmetric_and_clustered() -> None:
    s = _study()
    ca, cb, g = s.simulate(np.random.default_rng(1), "H0", 0.9, 20)
    assert ca.size == cb.size == g.size == 20 * s.PER_CLUSTER and np.unique(g).size == 20
    diffs = [
        np.subtract(*s.simulate(np.random.default_rng(i), "H0", 0.9, 20)[1::-1]).mean()
        for i in range(300)
    ]
    assert abs(np.mean(diffs)) < 4 * np.std(diffs) / np.sqrt(300)


def test_committed_run_size_and_coverage() -> None:
    if not REPORT.exists():
        pytest.skip(f"{REPORT} is not committed in this checkout")
    df = pd.read_csv(REPORT)
    cl = df[df["interval"] == "cluster"]
    se = np.sqrt(0.1 * 0.9 / cl["reps"])
    h0 = cl[cl["design"] == "H0"]
    assert (h0["reject_rate"] <= 0.1 + 2.5 * se[h0.index]).all()  # size at most the level
    shift = cl[cl["design"] == "shift"]
    assert (shift["coverage"] + 2 * shift["mc_se"] >= 0.85).all()
    ind = df[(df["interval"] == "independent") & (df["design"] == "H0")]
    assert ind["reject_rate"].max() > 0.1 + 2 * np.sqrt(0.09 / ind["reps"].iloc[0])
