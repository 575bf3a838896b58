"""Where μ and κ come from (passhat.planner.assumptions): stated, or fitted to counts.

Oracles: simulation with known truth (μ = 0.6, κ = 2); a brute-force grid maximum of the
Beta-Binomial log-likelihood on τ-bench's gpt-4o airline results (shared/data/tau-bench).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

import passhat as ph
from passhat import planner as plan
from passhat.errors import InputError, PasshatError


def test_from_counts_recovers_known_truth():
    # known truth μ = 0.6, κ = 2 (ICC 1/3); 3000 tasks × 6 runs; ML is within a few SEs
    rng = np.random.default_rng(8)
    p = rng.beta(1.2, 0.8, size=3000)
    c = rng.binomial(6, p)
    fit = plan.from_counts(ph.counts_from_arrays(np.full(3000, 6), c))
    assert fit.mean == pytest.approx(0.6, abs=0.02)
    assert fit.kappa == pytest.approx(2.0, rel=0.12)
    with pytest.raises(InputError):
        plan.from_counts(ph.counts_from_arrays([4], [2]))


def test_from_counts_tau_airline(tau_airline_path):
    trials = ph.read(str(tau_airline_path))
    a = plan.from_counts(trials)
    # the ML mean sits near the raw mean success (τ-bench's published pass^1 = 0.420)
    assert a.mean == pytest.approx(0.42, abs=0.05)
    # oracle: brute-force grid maximum of the Beta-Binomial log-likelihood over (μ, log κ)
    ds = trials.counts()
    n, c = ds["n"].values.ravel(), ds["c"].values.ravel()
    mu = np.linspace(0.2, 0.7, 501)[:, None]
    kap = np.exp(np.linspace(-3, 4, 701))[None, :]
    ll = sum(
        special.betaln(ci + mu * kap, ni - ci + (1 - mu) * kap)
        - special.betaln(mu * kap, (1 - mu) * kap)
        for ni, ci in zip(n, c, strict=True)
    )
    i, j = np.unravel_index(ll.argmax(), ll.shape)
    assert a.mean == pytest.approx(mu[i, 0], abs=2e-3)
    assert a.kappa == pytest.approx(kap[0, j], rel=0.02)
    t = plan.design(budget_runs=1000, k=4, prior=trials).to_frame()
    assert t["optimal"].sum() == 3


@pytest.mark.parametrize(
    "call",
    [
        lambda: plan.Assumptions(mean=0.5),
        lambda: plan.Assumptions(mean=0.5, icc=0.3, kappa=2.0),
        lambda: plan.Assumptions(mean=1.0, icc=0.3),
        lambda: plan.Assumptions(mean=0.5, icc=1.0),
    ],
)
def test_bad_input_raises_passhat_error(call):
    with pytest.raises(PasshatError):
        call()
