"""Cluster-robust standard errors and intervals of a weighted mean (few clusters).

Oracles: statsmodels' weighted least squares of the values on a constant with
``cov_type="cluster"`` (its default small-sample factor G / (G − 1) · (N − 1) / (N − K) is
exactly CR1's G / (G − 1) here, K = 1); the formula by hand (a loop over clusters); with one
task per cluster, scipy's ordinary t interval (mean ± t_{T−1} · s / √T); the CR2 sandwich by
its matrix formula (equal to CR1 with clusters of equal weight); the jackknife logit-t interval
by a loop that refits the weighted mean without each cluster; the Clopper–Pearson ends by
scipy's Beta quantiles.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

from passhat.cluster_robust import (
    cluster_jackknife_logit_interval,
    cluster_logit_t_interval,
    cluster_robust_se,
    cluster_t_interval,
    clusters_as_trials_interval,
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


def _jackknife_by_hand(v: np.ndarray, w: np.ndarray, codes: np.ndarray, ci: float):  # type: ignore[no-untyped-def]
    """logit θ̂ ± t_{G−1} · sqrt((G − 1)/G · Σ (logit θ̂_(g) − logit θ̂)²), a loop over clusters."""
    groups = sorted(set(codes.tolist()))
    g_n = len(groups)
    theta = float(np.sum(w * v) / np.sum(w))
    loo = [float(np.sum(w[codes != g] * v[codes != g]) / np.sum(w[codes != g])) for g in groups]
    ell = np.log(theta / (1 - theta))
    se = np.sqrt((g_n - 1) / g_n * sum((np.log(t / (1 - t)) - ell) ** 2 for t in loo))
    q = stats.t.ppf(0.5 + ci / 2, g_n - 1)
    return special.expit(ell - q * se), special.expit(ell + q * se)


def test_jackknife_logit_interval_matches_the_loop_over_clusters() -> None:
    """Unbalanced clusters, unequal weights, two columns, 90% and 95%."""
    v, w, codes = _data(seed=11)
    for ci in (0.9, 0.95):
        lo, hi, jack = cluster_jackknife_logit_interval(v, w, codes, ci=ci)
        assert jack.all()
        for j in range(v.shape[1]):
            want = _jackknife_by_hand(v[:, j], w, codes, ci)
            assert (lo[j], hi[j]) == pytest.approx(want, rel=1e-12)


def test_jackknife_logit_is_wider_than_cr1_logit_where_one_cluster_is_far_below() -> None:
    """Four clusters near 1 and one far below: leaving the low one out moves logit θ̂ more
    than the delta method says, so the jackknife interval reaches lower than the CR1 one."""
    v = np.array([0.98, 0.97, 0.99, 0.96, 0.55])
    lo_j, hi_j, _ = cluster_jackknife_logit_interval(v, np.ones(5), np.arange(5), ci=0.9)
    lo_c, hi_c, _ = cluster_logit_t_interval(v, np.ones(5), np.arange(5), ci=0.9)
    assert lo_j[0] < lo_c[0] and hi_j[0] - lo_j[0] > hi_c[0] - lo_c[0]


def test_clopper_pearson_where_the_jackknife_logit_is_undefined() -> None:
    """Columns: every cluster at 1; all but one cluster at 1 (leaving that one out gives a
    mean of 1: logit infinite); clusters that do not differ; every cluster at 0. Each takes
    Clopper–Pearson with G = 4 trials and θ̂ · G successes (scipy's Beta quantiles; the first
    is the exact binomial bound (α/2)^(1/G))."""
    codes = np.repeat(np.arange(4), 2)
    v = np.array(
        [[1.0, 1.0, 0.3, 0.0]] * 6 + [[1.0, 0.2, 0.3, 0.0], [1.0, 0.6, 0.3, 0.0]]
    )  # the last cluster: tasks 6 and 7
    lo, hi, jack = cluster_jackknife_logit_interval(v, np.ones(8), codes, ci=0.9)
    assert not jack.any()
    x = np.array([4.0, 3.4, 1.2, 0.0])
    want_lo = [stats.beta.ppf(0.05, xi, 4 - xi + 1) if xi > 0 else 0.0 for xi in x]
    want_hi = [stats.beta.ppf(0.95, xi + 1, 4 - xi) if xi < 4 else 1.0 for xi in x]
    assert lo == pytest.approx(want_lo, rel=1e-10) and hi == pytest.approx(want_hi, rel=1e-10)
    assert lo[0] == pytest.approx(0.05 ** (1 / 4), rel=1e-12)
    assert hi[3] == pytest.approx(1 - 0.05 ** (1 / 4), rel=1e-12)
    l2, h2 = clusters_as_trials_interval(np.array([0.85]), 4, ci=0.9)
    assert (l2[0], h2[0]) == (lo[1], hi[1])


def test_cr2_equals_cr1_with_clusters_of_equal_weight() -> None:
    """Why CR2 (Bell–McCaffrey) is not a separate rule: for a weighted mean with clusters of
    equal total weight the CR2 sandwich (X'WX)⁻¹ Σ_g X_g' W_g A_g e_g e_g' A_g W_g X_g (X'WX)⁻¹
    with A_g = (I − H_gg)^(−1/2), computed by its matrix formula, is CR1's variance; with
    unequal cluster weights it is not."""
    rng = np.random.default_rng(4)

    def cr2(v: np.ndarray, w: np.ndarray, codes: np.ndarray) -> float:
        x = np.ones((v.size, 1))
        bread = np.linalg.inv(x.T @ (w[:, None] * x))
        e = v - (x @ bread @ x.T @ (w * v))
        meat = np.zeros((1, 1))
        for g in np.unique(codes):
            i = codes == g
            xg, wg = x[i], np.diag(w[i])
            h = xg @ bread @ xg.T @ wg  # the cluster's block of the weighted hat matrix
            vals, vecs = np.linalg.eig(np.eye(i.sum()) - h)
            a = (vecs @ np.diag(vals.real**-0.5) @ np.linalg.inv(vecs)).real
            u = xg.T @ wg @ a @ e[i]
            meat += np.outer(u, u)
        return float(np.sqrt((bread @ meat @ bread)[0, 0]))

    codes = np.repeat(np.arange(5), 3)
    v = rng.uniform(0, 1, 15)
    w = np.tile([1.0, 2.0, 0.5], 5)  # unequal tasks, equal clusters
    assert cr2(v, w, codes) == pytest.approx(cluster_robust_se(v, w, codes)[1][0], rel=1e-10)
    w_uneq = rng.choice([0.5, 1.0, 3.0], size=15)
    assert abs(cr2(v, w_uneq, codes) - cluster_robust_se(v, w_uneq, codes)[1][0]) > 1e-4


def test_scopes_below_20_clusters_use_the_jackknife_logit_interval_on_g_minus_1_df() -> None:
    """One task per cluster, 8 clusters: the population interval is the jackknife logit-t
    interval computed by the loop over clusters; the method names the rule."""
    rng = np.random.default_rng(2)
    n = np.full(8, 6)
    c = np.array([1, 2, 3, 3, 4, 5, 2, 4])
    iv = scope_intervals(
        n, c, np.ones(8), [1], ci=0.9, n_boot=200, rng=rng, clusters=[f"g{i}" for i in range(8)]
    )
    row = iv[(iv["scope"] == "population") & (iv["metric"] == "mean")].iloc[0]
    want = _jackknife_by_hand(c / n, np.ones(8), np.arange(8), 0.9)
    assert (row["lower"], row["upper"]) == pytest.approx(want, rel=1e-10)
    assert row["method"].startswith("cluster jackknife logit-t interval, leave-one-cluster-out")
    assert "over 8 clusters, G − 1 = 7 degrees of freedom (rule: fewer than 20" in row["method"]


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
