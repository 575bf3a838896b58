"""The variance split by the law of total variance: within share = Var(E[θ | p] | y) / Var(θ | y).

Oracles: an independent brute-force quadrature of the two-task posterior (``split_oracles``:
Gauss–Legendre over (μ, log κ) and over both rates, scipy densities, no sufficient statistics);
scipy's digamma for the mean of log p under a Beta; numpy's Dirichlet sampler for the mixture
shares of the inflated model; exact sampling against the normal sums of large groups.
"""

from __future__ import annotations

import numpy as np
import pytest
from split_oracles import TwoTasks

import passhat as ph
from passhat.model import split as split_mod
from passhat.model.build import Priors
from passhat.model.split import log_rate_sums, variance_split

N2, C2 = [3, 4], [1, 3]  # two tasks with interior counts: bounded densities everywhere


@pytest.fixture(scope="module")
def two_task_fit():
    return ph.fit(
        ph.counts_from_arrays(N2, C2), k=[2], method="grid", model="beta", seed=3, draws=5000
    )


@pytest.fixture(scope="module")
def brute():
    return TwoTasks(N2, C2, n_phi=80, n_p=40)


@pytest.mark.parametrize(("metric", "k"), [("mean", 1), ("pass_hat_k", 2), ("pass_at_k", 2)])
def test_split_matches_an_independent_quadrature(two_task_fit, brute, metric, k):
    """20,000 exact posterior draws: Var(E[θ | p] | y) within 4% of the brute force (MC ~1.5%)."""
    truth = brute.summary(metric, k)
    got = variance_split(
        np.array(N2),
        np.array(C2),
        two_task_fit._hyper(0),
        [(metric, k)],
        priors=Priors(),
        rng=np.random.default_rng(0),
        max_draws=20_000,
    )[(metric, k)]
    assert got["var_total"] == pytest.approx(truth["var_total"], rel=0.02)
    assert got["var_within"] == pytest.approx(truth["var_within"], rel=0.04)
    share = truth["var_within"] / truth["var_total"]
    assert got["within_task_share"] == pytest.approx(share, abs=0.02)
    assert got["within_task_share"] + got["task_sampling_share"] == pytest.approx(1.0)


def test_summary_reports_the_law_of_total_variance_split(two_task_fit, brute):
    """The summary's population row (1,000 draws by default) is the same quantity."""
    truth = brute.summary("pass_hat_k", 2)
    s = two_task_fit.summary(k=[2])
    row = s[(s["metric"] == "pass_hat_k") & (s["scope"] == "population")].iloc[0]
    assert row["within_task_share"] == pytest.approx(
        truth["var_within"] / truth["var_total"], abs=0.04
    )
    assert row["task_sampling_share"] == pytest.approx(1 - row["within_task_share"])
    bench = s[s["scope"] == "benchmark"]
    assert (bench["within_task_share"] == 1.0).all() and (bench["task_sampling_share"] == 0).all()
    # seeded and cached: the same numbers on every call, whatever k is asked first
    again = two_task_fit.summary(k=[1, 2])
    row2 = again[
        (again["metric"] == "pass_hat_k") & (again["k"] == 2) & (again["scope"] == "population")
    ]
    assert float(row2["within_task_share"].iloc[0]) == row["within_task_share"]


def test_split_of_the_inflated_model(two_task_fit, brute):
    """Zero/one-inflated model, tasks with 0 < c < n: p is interior for sure, so
    (π₁, π₀, π_B) | y = (π₁, π₀, π_B) | p = Dirichlet(α₁, α₀, α_B + 2) independent of (a, b),
    with (α₁, α₀, α_B) the stated prior (Priors.mix_concentration, default (2, 2, 2)), and
    θ = π₁ + π_B h(a, b). Oracle: the brute-force moments of h and numpy Dirichlet draws."""
    rng = np.random.default_rng(5)
    hyper = dict(two_task_fit._hyper(0))
    a1, a0, ab = Priors().mix_concentration
    post = [a1, a0, ab + 2.0]
    mix = rng.dirichlet(post, size=len(hyper["a"]))
    hyper.update(pi_pass=mix[:, 0], pi_fail=mix[:, 1])
    got = variance_split(
        np.array(N2),
        np.array(C2),
        hyper,
        [("pass_hat_k", 2)],
        priors=Priors(),
        rng=np.random.default_rng(1),
        max_draws=20_000,
    )[("pass_hat_k", 2)]
    big = rng.dirichlet(post, size=2_000_000)
    p1, pb = big[:, 0], big[:, 2]
    bf = brute.summary("pass_hat_k", 2)
    J, _ = brute.joint(np.array(C2, float), np.array(N2, float))
    w_phi = J.sum(axis=(1, 2)) / J.sum()
    th = brute.theta("pass_hat_k", 2)
    eh, eh2 = w_phi @ th, w_phi @ th**2
    e_theta = p1.mean() + pb.mean() * eh
    var_total = (p1**2).mean() + 2 * (p1 * pb).mean() * eh + (pb**2).mean() * eh2 - e_theta**2
    var_within = pb.mean() ** 2 * bf["var_within"]
    assert got["var_total"] == pytest.approx(var_total, rel=0.03)
    assert got["var_within"] == pytest.approx(var_within, rel=0.05)


def test_log_rate_sums_keep_tiny_rates():
    """log p for p ~ Beta(α, β) with α = 0.01 (p underflows to 0 in a plain Beta draw):
    the mean of the drawn Σ log p matches ψ(α) − ψ(α + β) (scipy)."""
    from scipy import special

    h = {"a": np.full(40_000, 0.01), "b": np.full(40_000, 2.0)}
    s = log_rate_sums(np.array([3]), np.array([0]), np.array([1]), h, rng=np.random.default_rng(0))
    alpha, beta = 0.01, 5.0
    expect = special.digamma(alpha) - special.digamma(alpha + beta)
    sd = np.sqrt(special.polygamma(1, alpha) - special.polygamma(1, alpha + beta))
    assert np.isfinite(s["s1"]).all()
    assert s["s1"].mean() == pytest.approx(expect, abs=4 * sd / np.sqrt(40_000))


def test_large_groups_use_exact_normal_sums(monkeypatch):
    """500 tasks with the same (n, c): the normal sums (exact moments) give the split of the
    exact draws within Monte-Carlo error."""
    rng = np.random.default_rng(2)
    n = np.full(500, 4)
    c = np.where(np.arange(500) < 300, 4, 1)
    hyper = {"a": rng.gamma(200, 0.01, 2000), "b": rng.gamma(100, 0.01, 2000)}
    req = [("pass_hat_k", 3)]
    clt = variance_split(n, c, hyper, req, priors=Priors(), rng=np.random.default_rng(3))
    monkeypatch.setattr(split_mod, "EXACT_SUM_MAX", 10_000)
    exact = variance_split(n, c, hyper, req, priors=Priors(), rng=np.random.default_rng(3))
    a, b = clt[req[0]], exact[req[0]]
    assert a["within_task_share"] == pytest.approx(b["within_task_share"], abs=0.05)
    assert a["var_total"] == pytest.approx(b["var_total"], rel=0.1)
