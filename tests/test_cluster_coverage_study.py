"""The study of the population interval's coverage with clustered tasks (studies/cluster_coverage).

Oracles: the population truth E g(p) by quadrature against plain Monte Carlo; the committed
run's coverages against the goal with their binomial Monte-Carlo error.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import special

from study_loader import load_study

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "studies" / "cluster_coverage" / "cluster_coverage.py"
REPORT = ROOT / "reports" / "cluster_coverage" / "cluster_coverage.csv"


def _study():  # type: ignore[no-untyped-def]
    return load_study(STUDY, "cluster_coverage_study")


@pytest.mark.parametrize(
    ("mu", "metric", "k"), [(0.0, "mean", 1), (1.5, "pass_hat_k", 2), (1.5, "pass_at_k", 2)]
)
def test_population_truth_matches_monte_carlo(mu: float, metric: str, k: int) -> None:
    """E g(expit(mu + z)), z ~ N(0, 2): quadrature against 10^6 draws (4 MC s.e.)."""
    cc = _study()
    z = np.random.default_rng(0).normal(0, np.sqrt(2.0), 1_000_000)
    g = cc._g(metric, k, special.expit(mu + z))
    assert abs(cc.population_truth(mu, metric, k) - g.mean()) < 4 * g.std() / 1000


def test_simulated_replicate_has_the_clusters_asked_for() -> None:
    cc = _study()
    c, cluster = cc.simulate(np.random.default_rng(1), 0.0, 0.5, 20)
    assert c.size == cluster.size == 20 * cc.PER_CLUSTER
    assert np.unique(cluster).size == 20 and c.min() >= 0 and c.max() <= cc.RUNS


def test_committed_run_meets_the_goal_and_shows_why() -> None:
    """Every cell with ≥ 20 clusters: the cluster bootstrap covers at least 0.85 within 2 MC
    s.e.; where the clusters carry most of the variance (share 0.9) the intervals that treat
    tasks as independent cover less than the cluster bootstrap in every such cell. With 5
    clusters estimate's rule (the cluster-robust logit-t interval) covers at least as often as
    the cluster bootstrap did in the earlier run, and meets the goal in every cell but the one
    the report marks (μ 1.5, between share 0.9, pass@2: 0.790, the cluster bootstrap 0.663)."""
    if not REPORT.exists():
        pytest.skip("reports/cluster_coverage/cluster_coverage.csv is absent: run the study")
    df = pd.read_csv(REPORT)
    cc = _study()
    assert len(df) == len(cc.cells()) * len(cc.COLUMNS) * 2
    cl = df[df["interval"] == "cluster"].reset_index(drop=True)
    ind = df[df["interval"] == "independent"].reset_index(drop=True)
    many = cl["clusters"] >= 20
    assert (cl.loc[many, "coverage"] + 2 * cl.loc[many, "mc_se"] >= cc.LOW).all()
    dominant = many & (cl["between_share"] == 0.9)
    assert (ind.loc[dominant, "coverage"] < cl.loc[dominant, "coverage"]).all()
    short = cl[cl["coverage"] + 2 * cl["mc_se"] < cc.LOW]
    assert {tuple(r) for r in short[["mu", "between_share", "clusters", "metric"]].values} <= {
        (1.5, 0.9, 5, "pass_at_k")
    }
    before = pd.read_csv(REPORT.with_name("cluster_coverage_bootstrap.csv"))
    old = before[before["interval"] == "cluster"].reset_index(drop=True)
    few = cl["clusters"] < 20
    assert (cl.loc[few, "coverage"] > old.loc[few, "coverage"]).all()
    # with ≥ 20 clusters the rule is unchanged: the same seeds give the same coverage and width
    assert np.array_equal(
        cl.loc[many, ["coverage", "mean_width"]], old.loc[many, ["coverage", "mean_width"]]
    )
