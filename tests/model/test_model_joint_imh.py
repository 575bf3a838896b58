"""The joint model's independence sampler: its log density against the numpy quadrature and
scipy's priors, the sampler against exact moments of a skewed 1-D target, the PSIS gate on a
target whose tails the proposal misses, and fit_joint's choice and record of the sampler."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import special, stats

import passhat as ph
from passhat.model import joint_imh
from passhat.model.joint_build import JointData, JointPriors, joint_counts, quad_model_data
from passhat.model.joint_imh import imh_sample, joint_log_density, laplace
from passhat.model.joint_mcmc import ess_bulk
from passhat.model.joint_quad import design, marginal_loglik


def _data() -> JointData:
    rng = np.random.default_rng(0)
    theta, beta = np.array([-0.5, 0.3, 1.0]), rng.normal(0, 1.5, 15)
    p = rng.beta(*(lambda m: (6 * m, 6 * (1 - m)))(special.expit(theta[:, None] + beta)))
    n = np.full((3, 15), 4)
    n[2, :3] = 0
    c = rng.binomial(n, p)
    return JointData.from_arrays(n, c, n > 0, ["A", "B", "C"], [f"t{i}" for i in range(15)])


def _oracle(u: np.ndarray, q, pri: JointPriors) -> float:
    """log p(u) + const from joint_quad's numpy quadrature and scipy's prior densities, with
    the Jacobians of σ_β = exp(u_S), κ = exp(u_S+1)."""
    S = len(u) - 2
    sd, ka = np.exp(u[S]), np.exp(u[S + 1])
    ll = marginal_loglik(q, u[None, :S], np.array([sd]), np.array([ka]))[0]
    prior = (
        stats.norm.logpdf(u[:S], 0, pri.theta_sd).sum()
        + stats.halfnorm.logpdf(sd, scale=pri.task_sd_scale)
        + u[S]
        + stats.lognorm.logpdf(ka, s=pri.log_kappa_sd, scale=np.exp(pri.log_kappa_mean))
        + u[S + 1]
    )
    return float(ll + prior)


def test_log_density_equals_the_numpy_quadrature_and_scipy_priors():
    """Differences between points (the constant cancels) to 1e-9; the gradient against
    central differences of the oracle to 1e-5."""
    jd, pri = _data(), JointPriors(theta_sd=1.5, task_sd_scale=2.0, log_kappa_mean=1.5)
    q = design(jd)
    vals = quad_model_data(q)
    rng = np.random.default_rng(1)
    pts = [np.concatenate([rng.normal(0, 0.7, 3), rng.normal([0.2, 1.5], 0.4)]) for _ in range(4)]
    ref0, lp0 = _oracle(pts[0], q, pri), joint_log_density(pts[0], vals, pri)[0]
    for u in pts[1:]:
        lp, grad = joint_log_density(u, vals, pri)
        assert lp - lp0 == pytest.approx(_oracle(u, q, pri) - ref0, abs=1e-9)
        eps = 1e-5
        num = [
            (_oracle(u + eps * e, q, pri) - _oracle(u - eps * e, q, pri)) / (2 * eps)
            for e in np.eye(len(u))
        ]
        np.testing.assert_allclose(grad, num, atol=1e-5, rtol=1e-6)


def _log_gamma_target(a: float):
    """x = log G, G ~ Gamma(a): log p(x) = a x − eˣ (skewed); exact mean ψ(a), var ψ′(a)."""

    def fun(x):
        return float(a * x[0] - np.exp(x[0])), np.array([a - np.exp(x[0])])

    return fun, lambda xs: a * xs[:, 0] - np.exp(xs[:, 0])


def test_imh_matches_exact_moments_and_quantiles_of_a_skewed_target():
    """log of a Gamma(2) variable (skewed left, an exponential left tail), a t proposal with
    4 df (heavier tails than the target's): mean, sd and the 5%/95% quantiles of 4 × 2000
    draws within 4 MC standard errors of the exact values (se from the draws' bulk ESS; the
    sd's with the target's excess kurtosis ψ‴(a)/ψ′(a)²)."""
    a = 2.0
    fun, logp = _log_gamma_target(a)
    fitted = laplace(fun, np.zeros(1))
    assert fitted is not None
    mode, cov = fitted
    assert mode[0] == pytest.approx(np.log(a), abs=1e-6)  # mode of a x − eˣ
    assert cov[0, 0] == pytest.approx(1 / a, rel=1e-5)
    out = imh_sample(logp, mode, cov, chains=4, draws=1000, rng=np.random.default_rng(7), df=4)
    x = out.draws[:, :, 0]
    ess = float(ess_bulk(out.draws)[0])
    assert out.khat < 0.7 and ess > 1000
    sd = np.sqrt(special.polygamma(1, a))
    assert abs(x.mean() - special.digamma(a)) < 4 * sd / np.sqrt(ess)
    kurt = special.polygamma(3, a) / special.polygamma(1, a) ** 2
    assert abs(x.std() - sd) < 4 * sd * np.sqrt((kurt + 2) / (4 * ess))
    for p in (0.05, 0.95):
        exact = np.log(stats.gamma.ppf(p, a))
        dens = np.exp(a * exact - np.exp(exact) - special.gammaln(a))
        se = np.sqrt(p * (1 - p) / ess) / dens
        assert abs(np.quantile(x, p) - exact) < 4 * se


def test_imh_flags_a_proposal_that_misses_the_target():
    """Target N(2, 1), proposal centred at 0 with a tenth of its variance: the importance
    ratios' Pareto k̂ exceeds 0.7 (the caller then runs NUTS)."""
    out = imh_sample(
        lambda xs: -0.5 * (xs[:, 0] - 2.0) ** 2, np.zeros(1), np.full((1, 1), 0.1),
        chains=2, draws=1000, rng=np.random.default_rng(0),
    )  # fmt: skip
    assert out.khat > 0.7


def test_laplace_refuses_a_mode_whose_hessian_is_not_negative_definite():
    """A flat log density (an improper posterior): zero Hessian, no Gaussian approximation;
    and a saddle: the optimiser stops where the gradient vanishes, the Hessian is indefinite."""
    assert laplace(lambda x: (0.0, np.zeros(2)), np.ones(2)) is None
    assert laplace(lambda x: (float(x[0] ** 2 - x[1] ** 2), np.array([2 * x[0], -2 * x[1]])),
                   np.zeros(2)) is None  # fmt: skip


@pytest.fixture(scope="module")
def small():
    """4 systems × 300 tasks × 5 runs from the joint model (κ = 8): 1,200 cells, a posterior
    close to Gaussian."""
    rng = np.random.default_rng(2)
    mu = special.expit(np.array([[-0.5], [0.2], [0.5], [1.0]]) + rng.normal(0, 1.5, 300))
    p = rng.beta(8 * mu, 8 * (1 - mu))
    return joint_counts(np.full((4, 300), 5), rng.binomial(5, p), systems=list("ABCD"))


def test_fit_joint_uses_and_records_the_independence_sampler(small):
    f = ph.fit(small, model="joint", seed=3, chains=2, draws=500, progress=False)
    assert f.sampler == "imh"
    rec = json.loads(f.idata.posterior.attrs["passhat_imh"])
    assert rec["khat"] <= 0.7 and 0 < rec["acceptance"] <= 1
    assert f"PSIS k̂ {rec['khat']:.2f} ≤ 0.7" in f.method_label
    assert f.idata.posterior["theta"].shape == (2, 500, 4)
    shown = f.summarize(ci=0.9).view().parts[0].lines
    assert any("no divergences to count: independence MH" in line for line in shown)
    again = ph.fit(small, model="joint", seed=3, chains=2, draws=500, progress=False)
    np.testing.assert_array_equal(f.idata.posterior["theta"], again.idata.posterior["theta"])


def test_fit_joint_falls_back_to_nuts_when_khat_is_high(small, monkeypatch, mock_nuts):
    """k̂ above the gate: NUTS runs (PyMC's mock sampler here: "auto" resolved to PyMC) and
    the label says why."""
    import passhat.model.joint_fit as jfit

    monkeypatch.setattr(joint_imh, "KHAT_MAX", -1.0)
    monkeypatch.setattr(jfit, "resolve_sampler", lambda *a, **k: "pymc")
    f = ph.fit(small, model="joint", seed=3, chains=1, draws=50, sampler="auto", progress=False)
    assert f.sampler == "pymc"
    assert "the independence sampler was not used: PSIS k̂" in f.method_label


def test_sample_joint_imh_refuses_chains_that_mix_worse_than_the_share(small, monkeypatch):
    """The ESS gate: with a share no sampler reaches, no draws come back, and the record says
    what the chains reached."""
    from passhat.model.joint_fit import _cells

    monkeypatch.setattr(joint_imh, "ESS_SHARE", 2.0)
    jd, _ = _cells(small, "exclude", "joint")
    res, info = joint_imh.sample_joint_imh(design(jd), JointPriors(), chains=2, draws=200, seed=0)
    assert res is None
    assert info["khat"] <= 0.7 and 0 < info["ess_min"] < 800 and info["r_hat_max"] > 0.99


def test_sample_joint_imh_is_not_tried_on_few_cells():
    """5 systems × 20 tasks: 100 cells for 7 parameters; nothing is sampled, the record says
    how many cells (fit_joint then runs NUTS and its label says why)."""
    rng = np.random.default_rng(0)
    ds = joint_counts(np.full((5, 20), 3), rng.binomial(3, 0.5, (5, 20)), systems=list("ABCDE"))
    from passhat.model.joint_fit import _cells

    jd, _ = _cells(ds, "exclude", "joint")
    res, info = joint_imh.sample_joint_imh(design(jd), JointPriors(), chains=2, draws=50, seed=0)
    assert res is None and info["cells"] == 100


def test_log_density_many_equals_the_pointwise_density_and_refuses_overflow():
    jd, pri = _data(), JointPriors()
    vals = quad_model_data(design(jd))
    rng = np.random.default_rng(4)
    pts = np.column_stack([rng.normal(0, 0.7, (6, 3)), rng.normal([0.2, 1.5], 0.4, (6, 2))])
    pts[5, 4] = 800.0  # κ = e^800 overflows: not a point of the posterior
    many = joint_imh.joint_log_density_many(pts, vals, pri)
    one = [joint_log_density(u, vals, pri)[0] for u in pts[:5]]
    np.testing.assert_allclose(many[:5], one, rtol=0, atol=1e-10)
    assert many[5] == -np.inf
