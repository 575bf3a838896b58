"""The discrete mixing distribution on a grid of p (:mod:`passhat.model.discrete`).

Oracles: brute force on tiny designs (the metrics as explicit sums over the stored node
weights and over each task's posterior on the nodes, scipy's binomial pmf), the NPMLE's
optimality conditions (Lindsay 1983: D_j = Σ_c v_c L_cj / f_c ≤ 1 at every node, = 1 on the
support) and a plain EM run to convergence on the same weights.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

import passhat as ph
from passhat.model.discrete import discrete_loo, discrete_posterior, node_grid, npmle

N_TINY, C_TINY = [3, 3, 3, 2, 4], [0, 1, 3, 2, 2]


@pytest.fixture(scope="module")
def tiny() -> ph.Fit:
    data = ph.counts_from_arrays(N_TINY, C_TINY)
    return ph.fit(data, k=[1, 2, 3, 6], model="discrete", seed=4, chains=2, draws=300)


def _node_weights(f: ph.Fit) -> np.ndarray:
    return np.asarray(f.idata.posterior["node_weight"].values[:, :, 0, :]).reshape(-1, len(P))


P = node_grid()


@pytest.mark.parametrize("k", [3, 6])
def test_population_metrics_are_sums_over_the_nodes(tiny, k):
    """Above the fewest runs of a task (2 here), population pass^k = Σ_j w_j p_j^k and
    pass@k = 1 − Σ_j w_j (1 − p_j)^k, per draw (k = 6 lies above every task's runs)."""
    w = _node_weights(tiny)
    assert np.allclose(w.sum(axis=1), 1.0) and (w >= 0).all()
    hat = tiny.metric("pass_hat_k", [k]).values[:, :, 0, 0].ravel()
    at = tiny.metric("pass_at_k", [k]).values[:, :, 0, 0].ravel()
    np.testing.assert_allclose(hat, np.array([np.sum(row * P**k) for row in w]), rtol=1e-10)
    np.testing.assert_allclose(
        at, np.array([1.0 - np.sum(row * (1.0 - P) ** k) for row in w]), rtol=1e-10, atol=1e-14
    )


def _unbiased(metric: str, k: int) -> np.ndarray:
    """Each tiny task's unbiased estimate, by brute force over its k-subsets of runs."""
    out = []
    for n, c in zip(N_TINY, C_TINY, strict=True):
        runs = [1] * c + [0] * (n - c)
        subsets = list(itertools.combinations(runs, k))
        f = all if metric != "pass_at_k" else any
        out.append(np.mean([f(s) for s in subsets]))
    return np.array(out, dtype=float)


@pytest.mark.parametrize(("metric", "k"), [("mean", 1), ("pass_hat_k", 2), ("pass_at_k", 2)])
def test_population_metrics_up_to_the_runs_are_the_bootstrap_of_the_histogram(tiny, metric, k):
    """Up to the fewest runs of a task the histogram fixes the value: the population draws are
    Σ_i v_i U_i with v ~ Dirichlet(1 per task, ½ for a pseudo-task at p = 0 (U = 0) and ½ at
    p = 1 (U = 1)) and U_i the task's unbiased estimate (brute force over subsets of runs).
    Oracle: the Dirichlet's mean and sd of a linear form, within 4 Monte-Carlo s.e."""
    x = np.append(_unbiased(metric, k), [0.0, 1.0])
    alpha = np.append(np.ones(len(N_TINY)), [0.5, 0.5])
    a0 = alpha.sum()
    mean = float(alpha @ x / a0)
    sd = float(np.sqrt(alpha @ (x - mean) ** 2 / (a0 * (a0 + 1))))
    ks = None if metric == "mean" else [k]
    got = tiny.metric(metric, ks).values.ravel()
    assert abs(got.mean() - mean) < 4 * sd / np.sqrt(got.size)
    assert abs(got.std() - sd) < 4 * sd / np.sqrt(2 * got.size)


@pytest.mark.parametrize(("metric", "k"), [("mean", 1), ("pass_hat_k", 2)])
def test_benchmark_value_up_to_the_runs_is_the_unbiased_estimate(tiny, metric, k):
    """Benchmark scope up to the fewest runs: Rao–Blackwellised, exactly the mean of the tasks'
    unbiased estimates (brute force); the draws have that mean and the standard error of
    ``estimate`` (:func:`passhat.intervals.benchmark_se`) as sd, within Monte-Carlo error."""
    from passhat.intervals import benchmark_se

    want = float(_unbiased(metric, k).mean())
    ks = None if metric == "mean" else [k]
    rb = tiny.metric(metric, ks, scope="benchmark", rao_blackwell=True).values.ravel()
    np.testing.assert_allclose(rb, want, rtol=1e-12)
    se, _ = benchmark_se(N_TINY, C_TINY, k=k, metric=metric)
    drawn = tiny.metric(metric, ks, scope="benchmark").values.ravel()
    assert abs(drawn.mean() - want) < 4 * se / np.sqrt(drawn.size)
    assert abs(drawn.std() - se) < 4 * se / np.sqrt(2 * drawn.size)


@pytest.mark.parametrize(("metric", "k"), [("pass_at_k", 3), ("pass_hat_k", 6)])
def test_benchmark_value_is_each_tasks_posterior_on_the_nodes(tiny, metric, k):
    """Benchmark scope above the fewest runs, Rao–Blackwellised: per draw, the mean over tasks
    of Σ_j w_j Bin(c_i; n_i, p_j) g(p_j) / Σ_j w_j Bin(c_i; n_i, p_j) (brute force with
    scipy); the sampled benchmark draws have the same mean within Monte-Carlo error."""
    w = _node_weights(tiny)
    g = {"mean": P, "pass_hat_k": P**k, "pass_at_k": 1.0 - (1.0 - P) ** k}[metric]
    want = np.zeros(len(w))
    for n, c in zip(N_TINY, C_TINY, strict=True):
        lik = stats.binom.pmf(c, n, P)
        want += (w @ (lik * g)) / (w @ lik)
    want /= len(N_TINY)
    rb = tiny.metric(metric, [k], scope="benchmark", rao_blackwell=True).values.ravel()
    np.testing.assert_allclose(rb, want, rtol=1e-8)
    drawn = tiny.metric(metric, [k], scope="benchmark").values.ravel()
    se = drawn.std() / np.sqrt(len(drawn))
    assert abs(drawn.mean() - want.mean()) < 4 * se + 1e-12


def test_npmle_meets_its_optimality_conditions_and_matches_em():
    """D_j ≤ 1 everywhere up to the barrier's last weight (log max D_j, the duality gap, bounds
    the log-likelihood per unit weight still to gain: below 2e-3), and the log-likelihood is
    within that gap of a 20,000-step EM's."""
    p = node_grid(41)
    n = np.array([5, 5, 5, 5, 5, 5, 3, 3])
    c = np.array([0, 1, 2, 3, 4, 5, 0, 3])
    lik = stats.binom.pmf(c[:, None], n[:, None], p[None, :])
    lik /= lik.max(axis=1, keepdims=True)
    rng = np.random.default_rng(0)
    v = rng.dirichlet(np.ones(len(c)), size=3)
    w, gap = npmle(lik, v)
    assert np.allclose(w.sum(axis=1), 1.0) and (w >= 0).all()
    for row_w, row_v, g in zip(w, v, gap, strict=True):
        d = (row_v / (lik @ row_w)) @ lik
        assert d.max() <= 1.0 + 2e-3 and g == pytest.approx(np.log(d.max()), abs=1e-9)
        em = np.full(len(p), 1.0 / len(p))
        for _ in range(20_000):
            em = em * ((row_v / (lik @ em)) @ lik)
        ours, theirs = row_v @ np.log(lik @ row_w), row_v @ np.log(lik @ em)
        assert ours >= theirs - max(g, 0.0) - 1e-9


def test_discrete_loo_is_a_refit_without_the_task():
    """Exact leave-one-task-out by hand: refit the NPMLE (pseudo-tasks at 0 and 1 at weight
    0.5) without one task of each pair and take the binomial probability of its c."""
    n, c, m = np.array([4, 4, 4]), np.array([0, 2, 4]), np.array([3.0, 5.0, 2.0])
    lpd, lppd = discrete_loo(n, c, m)
    p = node_grid()
    lik = stats.binom.pmf(c[:, None], n[:, None], p[None, :])
    scaled = np.vstack([lik / lik.max(axis=1, keepdims=True), np.eye(len(p))[[0, -1]]])
    for j in range(3):
        left = m.copy()
        left[j] -= 1
        v = np.append(left, [0.5, 0.5])
        w, _ = npmle(scaled, (v / v.sum())[None, :])
        assert lpd[j] == pytest.approx(np.log(w[0] @ lik[j]), abs=1e-6)
    assert (lpd < lppd).all()


def test_bayesian_bootstrap_spreads_with_fewer_tasks():
    """The posterior of population pass^5 narrows as the same shape of data grows (40 → 400
    tasks), and no draw reaches 1 when every task passed (the pseudo-task at 0 keeps mass)."""
    rng = np.random.default_rng(2)
    sd = []
    for t in (40, 400):
        d = discrete_posterior([5, 5], [1, 5], [t // 2, t // 2], n_draws=400, rng=rng)
        sd.append(float(np.std(d.weight @ d.p**5)))
    assert sd[1] < sd[0] / 2
    d = discrete_posterior([5], [5], [30], n_draws=400, rng=rng)
    assert (d.weight @ d.p**5 < 1.0).all()
