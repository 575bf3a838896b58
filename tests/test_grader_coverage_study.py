"""The study of corrected intervals' coverage with a noisy grader (studies/grader_coverage).

Oracles: the population truths (Beta moments) against plain Monte Carlo; the simulated
grader's error rates against their definition; the committed run's coverages against the
goal with their binomial Monte-Carlo error.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from study_loader import load_study

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "studies" / "grader_coverage" / "grader_coverage.py"
REPORT = ROOT / "reports" / "grader_coverage" / "grader_coverage.csv"


def _study():  # type: ignore[no-untyped-def]
    return load_study(STUDY, "grader_coverage_study")


@pytest.mark.parametrize(("metric", "k"), [("mean", None), ("pass_hat_k", 3), ("pass_at_k", 2)])
def test_population_truth_matches_monte_carlo(metric: str, k: int | None) -> None:
    gc = _study()
    p = np.random.default_rng(0).beta(gc.ALPHA, gc.BETA, 1_000_000)
    g = gc.g(metric, k, p)
    assert abs(gc.population_truth(metric, k) - g.mean()) < 4 * g.std() / 1000


def test_simulated_grader_has_the_stated_error() -> None:
    """Over many tasks the grader's pass rate is a·E p + b (a = se + sp − 1, b = 1 − sp)."""
    gc = _study()
    se, sp = 0.85, 0.8
    _, c, audit = gc.simulate(np.random.default_rng(2), se, sp, 100_000, 100_000, 5)
    q = (se + sp - 1) * gc.ALPHA / (gc.ALPHA + gc.BETA) + 1 - sp
    assert c.mean() / 5 == pytest.approx(q, abs=0.005)
    tp, fn, tn, fp = audit
    assert tp / (tp + fn) == pytest.approx(se, abs=0.01)
    assert tn / (tn + fp) == pytest.approx(sp, abs=0.01)


def test_committed_run_meets_the_goal() -> None:
    """Every cell: the corrected (audit-posterior) intervals cover at least 0.85 within 2 MC
    s.e. in both scopes; the uncorrected ones fall short of it somewhere."""
    if not REPORT.exists():
        pytest.skip("reports/grader_coverage/grader_coverage.csv is absent: run the study")
    df = pd.read_csv(REPORT)
    gc = _study()
    assert len(df) == len(gc.cells()) * len(gc.VALUES) * len(gc.HOWS) * 2
    audit = df[df["interval"] == "audit"]
    assert (audit["coverage"] + 2 * audit["mc_se"] >= gc.LOW).all()
    raw = df[df["interval"] == "uncorrected"]
    assert (raw["coverage"] + 2 * raw["mc_se"] < gc.LOW).any()


CW_REPORT = ROOT / "reports" / "grader_coverage" / "grader_coverage_clustered_weighted.csv"


def test_clustered_and_weighted_truths_match_monte_carlo() -> None:
    """The clustered truth (quadrature) and the weighted truth (Beta moments) against plain
    Monte Carlo of the simulations' own task draws."""
    cw = _study().second_part()
    rng = np.random.default_rng(5)
    p, _, _, _ = cw.simulate_clustered(rng, 0.9, 100_000 // cw.PER_CLUSTER)
    g = cw.g("pass_hat_k", 2, p)
    # clusters make the draws dependent: a loose bound (the cluster effect's variance)
    assert abs(cw.clustered_truth("pass_hat_k", 2) - g.mean()) < 0.01
    p, w, _, _ = cw.simulate_weighted(rng, 400_000)
    for metric, k in (("mean", None), ("pass_at_k", 2), ("pass_hat_k", 3)):
        v = cw.g(metric, k, p)
        assert abs(cw.weighted_truth(metric, k) - np.average(v, weights=w)) < 0.003


def test_committed_clustered_weighted_run_meets_the_goal() -> None:
    """Every clustered and weighted cell: passhat's intervals cover at least 0.85 within 2 MC
    s.e. in both scopes."""
    if not CW_REPORT.exists():
        pytest.skip(f"{CW_REPORT.name} is absent: run the study with --setting clustered-weighted")
    cw = _study().second_part()
    df = pd.read_csv(CW_REPORT)
    assert len(df) == len(cw.cells()) * len(cw.VALUES) * 3 * 2
    assert cw.goal_met(df)
