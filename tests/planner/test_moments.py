"""Exact moments of the unbiased estimators under the Beta model (passhat.planner.moments).

Oracles: scipy.stats.betabinom (enumerating the pmf of c) and the closed-form Beta moments of
the pass^k variance (DESIGN.md "Estimators").
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

from passhat import planner as plan


def test_estimator_moments_match_betabinomial_and_closed_form():
    # oracle 1: scipy.stats.betabinom; oracle 2: E_p Var(U|p) = Σ_j h_j (E p^{2k−j} − E p^{2k})
    a, b, n, k = 1.3, 0.6, 9, 3
    c = np.arange(n + 1)
    pmf = stats.betabinom.pmf(c, n, a, b)
    u = np.array([math.comb(int(ci), k) / math.comb(n, k) for ci in c])
    mean_bf = (pmf * u).sum()
    var_bf = (pmf * u * u).sum() - mean_bf**2
    m, v = plan.estimator_moments([n], a, b, k)["pass_hat_k"]
    assert m[0] == pytest.approx(mean_bf, abs=1e-12)
    assert v[0] == pytest.approx(var_bf, abs=1e-12)

    def mom(j):
        return math.exp(special.betaln(a + j, b) - special.betaln(a, b))

    h = [math.comb(k, j) * math.comb(n - k, k - j) / math.comb(n, k) for j in range(1, k + 1)]
    within = sum(h[j - 1] * (mom(2 * k - j) - mom(2 * k)) for j in range(1, k + 1))
    spread = mom(2 * k) - mom(k) ** 2
    assert v[0] == pytest.approx(within + spread, rel=1e-10)
    assert m[0] == pytest.approx(mom(k), rel=1e-12)
