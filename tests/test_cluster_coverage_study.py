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
    """Every cell: estimate's clustered interval covers at least 0.85 within 2 MC s.e. (the
    cluster bootstrap with ≥ 20 clusters, the cluster jackknife logit-t below). Where the
    clusters carry most of the variance (share 0.9) the intervals that treat tasks as
    independent cover less than the cluster bootstrap in every such cell. The earlier runs on
    the same seeds are the same replicates: with ≥ 20 clusters the rule is unchanged (the same
    coverage and width as the CR1 run and the bootstrap run); with 5 clusters the independent
    column is identical to the CR1 run's, and the rule covers more often than the cluster
    bootstrap did in every cell."""
    if not REPORT.exists():
        pytest.skip("reports/cluster_coverage/cluster_coverage.csv is absent: run the study")
    df = pd.read_csv(REPORT)
    cc = _study()
    assert len(df) == len(cc.cells()) * len(cc.COLUMNS) * 2
    cl = df[df["interval"] == "cluster"].reset_index(drop=True)
    ind = df[df["interval"] == "independent"].reset_index(drop=True)
    assert (cl["coverage"] + 2 * cl["mc_se"] >= cc.LOW).all()
    many = cl["clusters"] >= 20
    dominant = many & (cl["between_share"] == 0.9)
    assert (ind.loc[dominant, "coverage"] < cl.loc[dominant, "coverage"]).all()
    for name in ("cluster_coverage_bootstrap.csv", "cluster_coverage_cr1.csv"):
        before = pd.read_csv(REPORT.with_name(name))
        old = before[before["interval"] == "cluster"].reset_index(drop=True)
        assert np.array_equal(
            cl.loc[many, ["coverage", "mean_width"]], old.loc[many, ["coverage", "mean_width"]]
        )
    boot = pd.read_csv(REPORT.with_name("cluster_coverage_bootstrap.csv"))
    boot_cl = boot[boot["interval"] == "cluster"].reset_index(drop=True)
    few = cl["clusters"] < 20
    assert (cl.loc[few, "coverage"] > boot_cl.loc[few, "coverage"]).all()
    cr1 = pd.read_csv(REPORT.with_name("cluster_coverage_cr1.csv"))
    cr1_ind = cr1[cr1["interval"] == "independent"].reset_index(drop=True)
    assert np.array_equal(ind[["coverage", "mean_width"]], cr1_ind[["coverage", "mean_width"]])


def test_recheck_of_the_hard_cell_reaches_the_goal() -> None:
    """μ 1.5, share 0.9, 5 clusters, 1,200 replicates on an independent seed: pass@2 (truth
    0.893, the cell the CR1 logit-t missed: 0.828 on the same replicates) covers at least
    0.85 outright, and every column at least 0.85 within 2 MC s.e."""
    path = REPORT.with_name("recheck.csv")
    if not path.exists():
        pytest.skip("reports/cluster_coverage/recheck.csv is absent: run the study's --recheck")
    cl = pd.read_csv(path).query("interval == 'cluster'").set_index("metric")
    old = pd.read_csv(path.with_name("recheck_cr1.csv")).query("interval == 'cluster'")
    assert (cl["reps"] >= 1200).all() and (cl["coverage"] + 2 * cl["mc_se"] >= 0.85).all()
    assert cl.loc["pass_at_k", "coverage"] >= 0.85
    assert cl.loc["pass_at_k", "coverage"] > old.set_index("metric").loc["pass_at_k", "coverage"]
