"""Full coverage grid of studies/coverage (slow; `pytest -m slow` or `make study`).

Oracle: simulation with known truth (p_i ~ Beta(a, b)); tolerances from the
binomial Monte-Carlo error of a coverage estimate over R replicates. It also
rewrites reports/coverage/coverage.md and .csv. The short version (a few
cells) runs in the default suite: tests/test_intervals.py::test_coverage_short.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "studies" / "coverage" / "coverage.py"


def _study():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("coverage_study", STUDY)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.slow
def test_full_coverage_grid() -> None:
    cv = _study()
    df = cv.run_grid(reps=1000, n_boot=2000, seed=2026)
    out = ROOT / "reports" / "coverage"
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / "coverage.csv", index=False)
    (out / "coverage.md").write_text(cv.to_markdown(df))
    assert len(df) == 2 * 3 * 8 * 3  # cases × T × (n, k ≤ n) pairs × intervals
    se = np.sqrt(0.95 * 0.05 / 1000)
    tol = 3 * se + 0.01
    big_t = df["T"] >= 100
    # population scope: the task bootstrap is valid as T grows, for any n and k
    pop = df[(df["scope"] == "population") & big_t]
    assert (abs(pop["coverage"] - 0.95) < tol).all(), pop[abs(pop["coverage"] - 0.95) >= tol]
    # BCa stays near nominal even at T = 30
    bca = df[df["interval"] == "bca"]
    assert (abs(bca["coverage"] - 0.95) < tol + 0.01).all()
    # benchmark scope with the unbiased variance (n ≥ 2k): near nominal for T ≥ 100
    bench = df[(df["interval"] == "benchmark") & ~df["plugin_variance"] & big_t]
    assert (abs(bench["coverage"] - 0.95) < tol).all(), bench
    # plug-in variance at the shrunk rate (n < 2k) errs on the conservative side
    plug = df[(df["interval"] == "benchmark") & df["plugin_variance"]]
    assert (plug["coverage"] > 0.95 - 3 * se).all()
    # nothing collapses anywhere in the grid (small T, k near n are the weak cells)
    assert (df["coverage"] > 0.88).all()
