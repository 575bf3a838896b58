"""Grid quadrature: exact density, adaptive bounds, degenerate data, known-truth coverage.

Oracles: PyMC's own compiled log density of the same model; scipy.integrate.dblquad
of the posterior mean; simulation from Beta(a, b) with known E[p^k] (coverage with
a binomial tolerance); the prior (for data that carry no information about κ).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, special

import passhat as ph
from passhat.model import Priors, build_model, grid_log_posterior, grid_posterior
from passhat.model.build import log_prior
from passhat.model.grid import _loglik, _stats
from passhat.model.metrics import population_metrics


def test_grid_density_equals_pymc_logp():
    n = np.array([5, 5, 5, 3, 1])
    c = np.array([5, 2, 0, 1, 1])
    w = np.array([7, 2, 3, 1, 4])
    pri = Priors(mu_alpha=2.0, mu_beta=1.5, log_kappa_mean=0.5, log_kappa_sd=1.3)
    m = build_model(n, c, w, priors=pri)
    logp = m.compile_logp(jacobian=True)
    rng = np.random.default_rng(0)
    for theta, lam in rng.normal(0, 2, size=(6, 2)):
        point = {"mu_logodds__": np.array(theta), "kappa_log__": np.array(lam)}
        assert float(logp(point)) == pytest.approx(
            float(grid_log_posterior(theta, lam, n, c, w, priors=pri)),
            rel=1e-7,  # summation order differs: pairs vs distinct values
        )


def test_grid_posterior_mean_matches_dblquad():
    n, c = np.array([5, 5, 5, 5]), np.array([5, 4, 2, 0])  # the seeds' A-D example
    st, pri = _stats(n, c, None), Priors()

    def dens(lam, theta):
        t, lm = np.array(theta), np.array(lam)
        return math.exp(float(_loglik(t, lm, st) + log_prior(t, lm, pri)))

    box = (-30, 30, -16, 16)
    z = integrate.dblquad(dens, *box, epsrel=1e-6)[0]
    e_mu = integrate.dblquad(lambda lm, t: special.expit(t) * dens(lm, t), *box, epsrel=1e-6)[0]
    e_lam = integrate.dblquad(lambda lm, t: lm * dens(lm, t), *box, epsrel=1e-6)[0]
    g = grid_posterior(n, c, n_draws=40_000, rng=np.random.default_rng(1))
    se_mu = g.mu.std() / math.sqrt(len(g.mu))
    lam = np.log(g.kappa)
    assert abs(g.mu.mean() - e_mu / z) < 5 * se_mu
    assert abs(lam.mean() - e_lam / z) < 5 * lam.std() / math.sqrt(len(lam))


def test_grid_zooms_on_narrow_posteriors():
    """200,000 tasks: the posterior is narrow and centred on the truth (μ = 0.4, κ = 5)."""
    rng = np.random.default_rng(2)
    T = 200_000
    n = np.full(T, 10)
    c = rng.binomial(n, rng.beta(2.0, 3.0, T))
    comp = ph.model.compress(n, c)
    g = grid_posterior(comp.n, comp.c, comp.mult, n_draws=8000, rng=rng)
    assert g.mu.std() < 0.005
    assert abs(g.mu.mean() - 0.4) < 5 * g.mu.std()
    lam = np.log(g.kappa)
    assert abs(lam.mean() - math.log(5.0)) < 5 * lam.std()
    # resolved: the final box spans many posterior standard deviations but not the prior range
    assert 4 * lam.std() < g.lam_bounds[1] - g.lam_bounds[0] < 200 * lam.std()


DEGENERATE = {
    "all_pass": ([5] * 30, [5] * 30),
    "all_fail": ([5] * 30, [0] * 30),
    "single_task": ([5], [3]),
    "n_equals_1": ([1] * 25, [1] * 15 + [0] * 10),
}


@pytest.mark.parametrize("case", sorted(DEGENERATE))
def test_degenerate_data_give_proper_wide_posteriors(case):
    n, c = DEGENERATE[case]
    f = ph.fit(
        ph.counts_from_arrays(n, c), k=[1, 5], method="grid", model="beta", seed=3, draws=1000
    )
    post = f.idata.posterior
    lam = np.log(post["kappa"].values.ravel())
    assert np.isfinite(lam).all() and np.isfinite(post["mu"].values).all()
    assert f.diagnostics.passed
    # κ is barely identified by these data: its posterior keeps much of the prior's spread
    # (prior sd of log κ is 2).
    assert lam.std() > 0.6
    s = f.summary(k=[5])
    pop = s[(s["metric"] == "pass_hat_k") & (s["scope"] == "population")].iloc[0]
    assert 0 <= pop["lower"] < pop["upper"] <= 1
    if case == "all_fail":
        assert pop["upper"] > 0.01  # not collapsed on zero
    else:
        assert pop["upper"] - pop["lower"] > 0.1  # wide: few runs say little about p^5
    if case == "all_pass":
        assert pop["mean"] > 0.7
    if case == "all_fail":
        assert pop["mean"] < 0.05


def test_known_truth_coverage_short():
    """90% intervals of population pass^5 cover E[p^5] ≈ 90% of the time (grid, 100 reps).

    Truth Beta(0.6, 0.4): E[p^5] = Π_{j<5} (0.6+j)/(1+j). Tolerance: 3 binomial standard
    errors of a coverage estimate from 100 reps (±0.09). The long version is in studies/.
    """
    a, b, k, reps, tasks = 0.6, 0.4, 5, 100, 80
    truth = math.prod((a + j) / (a + b + j) for j in range(k))
    rng = np.random.default_rng(4)
    hits = 0
    for _ in range(reps):
        n = np.full(tasks, 5)
        c = rng.binomial(n, rng.beta(a, b, tasks))
        comp = ph.model.compress(n, c)
        g = grid_posterior(comp.n, comp.c, comp.mult, n_draws=2000, rng=rng, size=128)
        m = population_metrics(g.mu * g.kappa, (1 - g.mu) * g.kappa, [k])["pass_hat_k"][:, 0]
        lo, hi = np.quantile(m, [0.05, 0.95])
        hits += lo <= truth <= hi
    assert abs(hits / reps - 0.9) <= 3 * math.sqrt(0.9 * 0.1 / reps)
