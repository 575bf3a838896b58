"""The cluster-robust (CR1) standard error and t intervals of a weighted mean (few clusters).

Oracles: statsmodels' weighted least squares of the values on a constant with
``cov_type="cluster"`` (its default small-sample factor G / (G − 1) · (N − 1) / (N − K) is
exactly CR1's G / (G − 1) here, K = 1); the formula by hand (a loop over clusters); with one
task per cluster, scipy's ordinary t interval (mean ± t_{T−1} · s / √T) and its logit-t form.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

from passhat.cluster_robust import (
    cluster_logit_t_interval,
    cluster_robust_se,
    cluster_t_interval,
)
from passhat.scopes import scope_intervals


def _data(seed: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    codes = np.repeat(np.arange(7), [1, 2, 3, 5, 2, 4, 6])  # unbalanced clusters
    v = rng.uniform(0, 1, size=(codes.size, 2))
    w = rng.choice([0.5, 1.0, 3.0], size=codes.size)  # unequal weights
    return v, w, codes


def test_cr1_se_matches_statsmodels_cluster_robust_wls() -> None:
    sm = pytest.importorskip("statsmodels.api")
    v, w, codes = _data()
    theta, se = cluster_robust_se(v, w, codes)
    for j in range(v.shape[1]):
        fit = sm.WLS(v[:, j], np.ones((v.shape[0], 1)), weights=w).fit()
        rob = fit.get_robustcov_results(cov_type="cluster", groups=codes)
        assert theta[j] == pytest.approx(float(rob.params[0]), rel=1e-12)
        assert se[j] == pytest.approx(float(rob.bse[0]), rel=1e-10)


def test_cr1_se_matches_the_formula_by_hand() -> None:
    v, w, codes = _data(seed=5)
    theta, se = cluster_robust_se(v, w, codes)
    g_n = 7
    for j in range(v.shape[1]):
        m = sum(w * v[:, j]) / sum(w)
        totals = [sum(w[codes == g] * (v[codes == g, j] - m)) for g in range(g_n)]
        by_hand = np.sqrt(g_n / (g_n - 1) * sum(s**2 for s in totals)) / sum(w)
        assert theta[j] == pytest.approx(m, rel=1e-12)
        assert se[j] == pytest.approx(by_hand, rel=1e-12)


def test_one_task_per_cluster_gives_the_ordinary_t_interval() -> None:
    v = np.array([0.3, 0.45, 0.5, 0.55, 0.6, 0.62, 0.7, 0.4])
    lo, hi = cluster_t_interval(v, np.ones(v.size), np.arange(v.size), ci=0.9)
    want = stats.t.interval(0.9, v.size - 1, loc=v.mean(), scale=stats.sem(v))
    assert (lo[0], hi[0]) == pytest.approx(want, rel=1e-12)


def test_scopes_below_20_clusters_use_the_logit_t_interval_on_g_minus_1_df() -> None:
    """One task per cluster, 8 clusters: the population interval is the logit-t interval of
    the ordinary t (mean, s / √T, t on T − 1 df) computed with scipy; the method names the
    rule."""
    rng = np.random.default_rng(2)
    n = np.full(8, 6)
    c = np.array([1, 2, 3, 3, 4, 5, 2, 4])
    iv = scope_intervals(
        n, c, np.ones(8), [1], ci=0.9, n_boot=200, rng=rng, clusters=[f"g{i}" for i in range(8)]
    )
    row = iv[(iv["scope"] == "population") & (iv["metric"] == "mean")].iloc[0]
    v = c / n
    m, s = v.mean(), stats.sem(v)
    half = stats.t.ppf(0.95, 7) * s / (m * (1 - m))
    assert row["lower"] == pytest.approx(special.expit(special.logit(m) - half), rel=1e-10)
    assert row["upper"] == pytest.approx(special.expit(special.logit(m) + half), rel=1e-10)
    assert row["method"].startswith("cluster-robust logit-t interval")
    assert "G − 1 = 7 degrees of freedom (rule: fewer than 20 clusters" in row["method"]


def test_twenty_clusters_keep_the_cluster_bootstrap() -> None:
    rng = np.random.default_rng(1)
    n = np.full(40, 4)
    c = rng.binomial(4, 0.5, size=40)
    iv = scope_intervals(
        n, c, np.ones(40), [2], ci=0.9, n_boot=200, rng=rng, clusters=np.arange(40) % 20
    )
    pop = iv[iv["scope"] == "population"]
    assert pop["method"].str.startswith("cluster bootstrap").all()


def test_an_estimate_at_one_falls_back_to_the_linear_t() -> None:
    v = np.array([[0.2, 1.0], [0.5, 1.0], [0.6, 1.0], [0.3, 1.0]])
    lo, hi, logit = cluster_logit_t_interval(v, np.ones(4), [0, 0, 1, 2], ci=0.9)
    assert logit.tolist() == [True, False]
    assert (lo[1], hi[1]) == (1.0, 1.0)
    assert 0.0 < lo[0] < hi[0] < 1.0


def test_few_clusters_all_at_one_get_the_exact_binomial_bound_not_zero_width():
    """Every task at 1 in 6 clusters: the t interval would be [1, 1]; the population scope
    takes the Clopper–Pearson bound over the clusters, (α/2)^(1/G) to 1 (scipy's Beta(G, 1)
    quantile), and says so."""
    import pandas as pd
    from scipy import stats

    import passhat as ph

    rows = [(f"t{i:02d}", r, 1, f"g{i % 6}") for i in range(24) for r in range(3)]
    df = pd.DataFrame(rows, columns=["task_id", "trial", "success", "cluster"])
    est = ph.estimate(ph.Trials.from_frame(df), k=[1], ci=0.9)
    t = est.table
    row = t[(t["metric"] == "mean") & (t["scope"] == "population")].iloc[0]
    assert row["lower"] == pytest.approx(stats.beta.ppf(0.05, 6, 1), abs=1e-12)
    assert row["upper"] == 1.0 and "Clopper–Pearson" in row["method"]
