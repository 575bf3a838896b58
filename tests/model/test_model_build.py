"""Model definition (build.py): the PyMC model's likelihood, likelihood compression, priors.

Oracles: the log-likelihood summed over tasks one by one in numpy (for the compressed and
value-separated PyMC potential); brute-force grouping of (n, c) pairs (for ``compress``).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import passhat as ph
from passhat.model import build_model, compress
from passhat.model.build import model_data, pair_loglik


@pytest.mark.parametrize("model", ["beta", "inflated"])
def test_pymc_potential_equals_numpy_pair_loglik(model):
    """The compressed PyMC likelihood equals Σ_pairs w · log-likelihood computed in numpy."""
    n = np.array([5, 5, 5, 3, 1, 4])
    c = np.array([5, 2, 0, 3, 0, 1])
    w = np.array([7, 2, 3, 1, 4, 2])
    m = build_model(n, c, w, model=model)
    mu, kappa, mix = 0.3, 2.0, np.array([0.2, 0.1, 0.7])
    givens = {m["mu"]: mu, m["kappa"]: kappa}
    extra = {}
    if model == "inflated":  # the Dirichlet written as π_B and π₁ / (π₁ + π₀)
        givens[m["pi_beta"]] = mix[2]
        givens[m["pass_share"]] = mix[0] / (mix[0] + mix[1])
        extra = {"pi_pass": mix[:1], "pi_fail": mix[1:2]}
    a, b = np.array([mu * kappa]), np.array([(1 - mu) * kappa])
    ref = (w * ph.model.build.pair_loglik(n, c, a, b, binom_coef=False, **extra)[0]).sum()
    assert float(m["loglik"].eval(givens)) == pytest.approx(ref, rel=1e-10)


def test_compress_matches_brute_force_grouping():
    rng = np.random.default_rng(0)
    n = rng.integers(0, 12, size=500)
    c = rng.integers(0, 13, size=500) % (n + 1)
    comp = compress(n, c)
    brute = Counter(zip(n.tolist(), c.tolist(), strict=True))
    assert sorted(brute) == list(zip(comp.n.tolist(), comp.c.tolist(), strict=True))
    assert [brute[p] for p in sorted(brute)] == comp.mult.tolist()
    np.testing.assert_array_equal(comp.n[comp.inverse], n)
    np.testing.assert_array_equal(comp.c[comp.inverse], c)


def test_model_data_separates_the_pair_loglik():
    """The value-separated data give Σ_pairs w · log BB(c | n, a, b) (no binomial coefficient).

    Σ_v w_v (lnΓ(x_v + v) − lnΓ(x_v)) over the stacked values, with x_v = a, b or κ.
    """
    from scipy import special

    n, c, w = np.array([5, 5, 3, 4]), np.array([5, 0, 1, 2]), np.array([3, 1, 2, 5])
    a, b = 0.7, 1.9
    d = model_data(n, c, w)
    x = np.array([a, b, a + b])[d["sel"]]
    separated = float(np.sum(d["w"] * (special.gammaln(x + d["v"]) - special.gammaln(x))))
    direct = float((w * pair_loglik(n, c, np.array([a]), np.array([b]), binom_coef=False)[0]).sum())
    assert separated == pytest.approx(direct, rel=1e-12)


def test_priors_must_be_proper():
    with pytest.raises(ph.OptionError):
        ph.model.Priors(log_kappa_sd=0)


def test_inflated_prior_is_the_stated_dirichlet_and_has_no_pole():
    """Prior draws of the inflated model: (π₁, π₀, π_B) ~ Dirichlet(α) and a, b ≥ 1.

    Oracle: the Dirichlet's moments, E π_i = α_i/α₀, Var π_i = α_i(α₀ − α_i)/(α₀²(α₀ + 1)),
    Cov(π₁, π₀) = −α₁α₀/(α₀²(α₀ + 1)), within 5 Monte-Carlo standard errors of 40,000 draws
    (an asymmetric α, so that a swapped share would show).
    """
    import pymc as pm

    alpha = np.array([2.0, 3.0, 1.5])
    m = build_model(
        [5, 5], [5, 0], model="inflated", priors=ph.model.Priors(mix_concentration=tuple(alpha))
    )
    p1, p0, mu, kappa = pm.draw(
        [m["pi_pass"], m["pi_fail"], m["mu"], m["kappa"]], draws=40_000, random_seed=0
    )
    a0 = alpha.sum()
    var = alpha * (a0 - alpha) / (a0**2 * (a0 + 1))
    for x, i in ((p1, 0), (p0, 1), (1 - p1 - p0, 2)):
        assert abs(x.mean() - alpha[i] / a0) < 5 * np.sqrt(var[i] / len(x))
        assert abs(x.var() / var[i] - 1) < 5 * np.sqrt(2 / len(x)) * 2  # kurtosis slack
    cov = -alpha[0] * alpha[1] / (a0**2 * (a0 + 1))
    assert abs(np.cov(p1, p0)[0, 1] - cov) < 5 * np.sqrt(var[0] * var[1] / len(p1))
    assert (mu * kappa).min() >= 1 - 1e-9 and ((1 - mu) * kappa).min() >= 1 - 1e-9


def test_compress_keeps_pairs_apart_at_huge_n() -> None:
    """Issue 33, item 7: the key n × (max c + 1) + c overflowed int64 for n ≥ 2^32 (2^32 × 2^32),
    merging unequal tasks (fit then died with "b <= 0", exit 70). Oracle: the distinct rows."""
    from passhat.model.build import compress

    n = np.array([2**53, 2**53, 2**53, 4, 2**32], dtype=np.int64)
    c = np.array([2**53, 2**53 - 1, 0, 2, 2**32], dtype=np.int64)
    comp = compress(n, c)
    got = sorted(zip(comp.n.tolist(), comp.c.tolist(), comp.mult.tolist(), strict=True))
    want = sorted((int(a), int(b), 1) for a, b in zip(n, c, strict=True))
    assert got == want
    assert [(comp.n[i], comp.c[i]) for i in comp.inverse] == list(zip(n, c, strict=True))
