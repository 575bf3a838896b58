"""The copula margin and spread of a paired difference (passhat.planner.copula).

Oracles: the Beta CDF (``scipy.special.betainc``) evaluated at the returned quantile, and the
mirror symmetry of the model at μ = 1/2 (B = A + δ and B = A − δ are reflections p ↦ 1 − p of
each other, so the per-task difference has the same SD).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

from passhat import planner as plan
from passhat.planner.copula import CopulaSpread, latent_to_rate


@pytest.mark.parametrize(("a", "b"), [(1.002, 0.998), (1.00002, 0.99998), (1.5, 0.7)])
def test_latent_to_rate_is_finite_and_inverts_the_beta_cdf_in_the_far_lower_tail(
    a: float, b: float
) -> None:
    # SciPy's betaincinv returned NaN here for (1.002, 0.998) below u ≈ 4e-17, and the
    # 64-node Gauss–Hermite quadrature of the copula covariance reaches u ≈ 2e-50
    z = np.linspace(-14.0, -8.0, 61)
    u = special.ndtr(z)
    x = latent_to_rate(z, a, b)
    assert np.isfinite(x).all() and (x > 0).all() and (x < 1).all()
    np.testing.assert_allclose(special.betainc(a, b, x), u, rtol=1e-9)
    assert (np.diff(x) > 0).all()


@pytest.mark.parametrize(("a", "b"), [(81663.0, 81337.0), (97963.0, 65037.0), (500.0, 300.0)])
def test_latent_to_rate_with_large_shapes_keeps_scipys_quantile(a: float, b: float) -> None:
    """Found in QA: ``plan power --from`` a file whose fit puts κ at its limit e^12 (a, b ~ 8e4)
    printed "RuntimeWarning: divide by zero" and the outer nodes' rates were 0.0526 where the
    Beta quantile is 0.4826: the Newton fallback replaced SciPy's accurate answer and its density
    underflowed. Oracle: the Beta CDF at the rate gives back u (SciPy's betainc)."""
    import warnings

    z = np.linspace(-14.0, -8.0, 61)
    u = special.ndtr(z)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = latent_to_rate(z, a, b)
    np.testing.assert_allclose(special.betainc(a, b, x), u, rtol=1e-9)
    assert (np.diff(x) > 0).all()


@pytest.mark.parametrize("delta", [1e-3, 1e-6])
def test_a_small_positive_delta_has_the_spread_of_its_mirror_image(delta: float) -> None:
    # at μ = 1/2, κ = 2 (a = b = 1), B's shape for +δ is (1 + 2δ, 1 − 2δ): the SD was NaN and
    # `passhat plan power --delta 1e-3 --mean 0.5 --kappa 2` ended in "unexpected ValueError"
    spread = CopulaSpread(plan.Assumptions(mean=0.5, kappa=2), k=1, metric="mean", correlation=None)
    up, down = spread.sd(delta, 5), spread.sd(-delta, 5)
    assert np.isfinite(up) and up == pytest.approx(down, rel=1e-9)
    ask = {"power": 0.9, "runs_per_task": 5, "prior": spread.assumed}
    t_up = plan.power(delta=delta, **ask, method="t-test")
    assert t_up.value == plan.power(delta=-delta, **ask, method="t-test").value
    # the sign-flip power from quadrature moments: the same up to rounding (at δ = 1e-6 the
    # answer is ~10¹² tasks, where 10⁻¹⁶ in E[D] moves it by a few hundred)
    res_up = plan.power(delta=delta, **ask)
    res_down = plan.power(delta=-delta, **ask)
    assert res_up.value == pytest.approx(res_down.value, rel=1e-8)
    assert all(r["tasks"] is not None for r in res_up.quantities["sensitivity"])
