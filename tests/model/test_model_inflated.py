"""The zero/one-inflated model after its reparameterisation: it mixes, and it recovers the truth.

Oracles: data simulated from the inflated model itself with known shares π₁, π₀ and a Beta
part with a, b ≥ 1 (the posterior must cover the truth); simulation-based calibration
(Talts et al. 2018: ranks of the true values among posterior draws are uniform when the
sampler and the model agree; χ² test, slow); the diagnostics thresholds of issue 16
(bulk and tail ESS ≥ 1000 from the default 4 × 1000 draws, no divergence) on the bundled
example and on τ-bench.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import passhat as ph
from passhat.model.build import Priors
from passhat.model.metrics import population_metrics

VARS = ("mu", "kappa", "pi_pass", "pi_fail")

pytestmark = pytest.mark.integration  # every test samples the inflated model with NUTS


def _simulate(rng, *, tasks, runs, pi_pass, pi_fail, a, b):
    kind = rng.choice(3, size=tasks, p=[pi_pass, pi_fail, 1 - pi_pass - pi_fail])
    p = np.where(kind == 0, 1.0, np.where(kind == 1, 0.0, rng.beta(a, b, tasks)))
    n = np.full(tasks, runs)
    return ph.counts_from_arrays(n, rng.binomial(n, p))


def _healthy_with_default_draws(data) -> None:
    f = ph.fit(data, k=[1], model="inflated", method="nuts", seed=0, progress=False)
    assert f.method == "nuts"
    tab = f.diagnostics.table
    assert set(tab["variable"]) == set(VARS)
    assert (tab["ess_bulk"] >= 1000).all() and (tab["ess_tail"] >= 1000).all(), tab
    assert all(v == 0 for v in f.diagnostics.divergences.values())
    assert f.diagnostics.passed, f.diagnostics.problems
    post = f.idata.posterior  # the Beta part has no pole: a, b ≥ 1 in every draw
    a, b = post["mu"] * post["kappa"], (1 - post["mu"]) * post["kappa"]
    assert float(a.min()) >= 1 - 1e-9 and float(b.min()) >= 1 - 1e-9


def test_inflated_mixes_on_the_bundled_example():
    _healthy_with_default_draws(ph.load_example("agents"))


def test_inflated_mixes_on_tau_bench(tau_trials):
    _healthy_with_default_draws(tau_trials)


def test_inflated_recovers_known_shares():
    """400 tasks × 5 runs from π₁ = 0.3, π₀ = 0.15 and Beta(3, 2) for the rest.

    The truth must lie within 3.3 posterior standard deviations (a 99.9% normal band) of the
    posterior mean, for π₁, π₀, μ and population pass^5.
    """
    truth = {"pi_pass": 0.3, "pi_fail": 0.15, "mu": 0.6}
    a, b = 3.0, 2.0
    data = _simulate(
        np.random.default_rng(2024),
        tasks=400,
        runs=5,
        pi_pass=truth["pi_pass"],
        pi_fail=truth["pi_fail"],
        a=a,
        b=b,
    )
    f = ph.fit(data, k=[5], model="inflated", seed=1, progress=False, chains=2, draws=1000)
    post = f.idata.posterior
    pop5 = population_metrics(
        np.array([a]), np.array([b]), [5], pi_pass=np.array([0.3]), pi_fail=np.array([0.15])
    )["pass_hat_k"][0, 0]
    checks = {k: post[k].values.ravel() for k in truth}
    checks["pass^5"] = post["pass_hat_k_population"].sel(k=5).values.ravel()
    want = {**truth, "pass^5": float(pop5)}
    for name, draws in checks.items():
        z = (draws.mean() - want[name]) / draws.std()
        assert abs(z) < 3.3, (name, draws.mean(), want[name], draws.std())


@pytest.mark.slow
def test_inflated_simulation_based_calibration():
    """SBC: truth from the prior (μ ~ U(0, 1), log κ_e ~ N(0, 2), shares ~ Dirichlet(2, 2, 2)),
    100 tasks × 5 runs, NUTS with 2 × 500 draws thinned to 99; ranks of μ, κ, π₁, π₀ uniform
    (χ² on 10 bins, p > 0.001 each) over 200 replicates, divergences in ≤ 2% of fits."""
    rng = np.random.default_rng(16)
    pri = Priors()
    reps, keep = 200, 99
    ranks = {v: [] for v in VARS}
    divergent = 0
    for _ in range(reps):
        mu = rng.beta(pri.mu_alpha, pri.mu_beta)
        kappa = max(1 / mu, 1 / (1 - mu)) + math.exp(
            rng.normal(pri.log_kappa_mean, pri.log_kappa_sd)
        )
        pi_pass, pi_fail, _ = rng.dirichlet(pri.mix_concentration)
        data = _simulate(
            rng,
            tasks=100,
            runs=5,
            pi_pass=pi_pass,
            pi_fail=pi_fail,
            a=mu * kappa,
            b=(1 - mu) * kappa,
        )
        f = ph.fit(
            data,
            k=[1],
            model="inflated",
            seed=int(rng.integers(2**31)),
            chains=2,
            draws=500,
            tune=500,
            progress=False,
        )
        divergent += f.diagnostics.divergences["system"] > 0
        post = f.idata.posterior
        idx = np.linspace(0, 2 * 500 - 1, keep).astype(int)
        truth = {"mu": mu, "kappa": kappa, "pi_pass": pi_pass, "pi_fail": pi_fail}
        for v in VARS:
            draws = post[v].values.reshape(-1)[idx]
            ranks[v].append(int(np.sum(draws < truth[v])))
    for v in VARS:
        counts = np.bincount(np.asarray(ranks[v]) * 10 // (keep + 1), minlength=10)
        assert stats.chisquare(counts).pvalue > 0.001, (v, counts)
    assert divergent <= 0.02 * reps
