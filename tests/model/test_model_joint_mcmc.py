"""The vectorised R-hat and ESS of the joint fit against ArviZ (the oracle), per variable."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from passhat.model.joint_mcmc import diagnose, ess_bulk, ess_tail, rhat_rank

az = pytest.importorskip("arviz")


def _draws(chains: int, draws: int, seed: int) -> np.ndarray:
    """AR(1) chains with various autocorrelations and offsets, plus ties and a constant."""
    rng = np.random.default_rng(seed)
    phi = np.array([0.0, 0.5, 0.9, 0.98, -0.3, 0.7])
    x = np.empty((chains, draws, len(phi)))
    x[:, 0] = rng.normal(size=(chains, len(phi)))
    for t in range(1, draws):
        x[:, t] = phi * x[:, t - 1] + rng.normal(size=(chains, len(phi)))
    x[-1, :, 5] += 3.0  # one chain elsewhere: R-hat well above 1
    rounded = np.round(x[..., 1:2], 0)  # many ties
    const = np.full((chains, draws, 1), 0.25)
    return np.concatenate([x, rounded, const], axis=2)


@pytest.mark.parametrize(("chains", "draws"), [(4, 60), (2, 101), (1, 60), (3, 7)])
def test_same_as_arviz(chains: int, draws: int) -> None:
    x = _draws(chains, draws, seed=chains * 100 + draws)
    ds = xr.Dataset({"v": (("chain", "draw", "var"), x)})
    ref_b = az.ess(ds, method="bulk")["v"].values
    ref_t = az.ess(ds, method="tail")["v"].values
    np.testing.assert_allclose(ess_bulk(x), ref_b, rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(ess_tail(x), ref_t, rtol=1e-10, atol=1e-9)
    r, b, t = diagnose(x)
    np.testing.assert_allclose(b, ref_b, rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(t, ref_t, rtol=1e-10, atol=1e-9)
    if chains >= 2:
        ref_r = az.rhat(ds, method="rank")["v"].values
        np.testing.assert_allclose(rhat_rank(x), ref_r, rtol=1e-10, equal_nan=True)
        np.testing.assert_allclose(r, ref_r, rtol=1e-10, equal_nan=True)
    else:
        assert np.isnan(rhat_rank(x)).all() and np.isnan(r).all()


def test_nan_variable_is_nan_and_others_unchanged() -> None:
    x = _draws(2, 50, seed=3)
    y = x.copy()
    y[0, 5, 2] = np.nan
    for f in (rhat_rank, ess_bulk, ess_tail):
        got = f(y)
        assert np.isnan(got[2])
        np.testing.assert_allclose(np.delete(got, 2), np.delete(f(x), 2), rtol=1e-12)
