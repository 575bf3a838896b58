"""The Fit result class: InferenceData layout, metrics in both scopes, netCDF round trip.

Oracles: the closed form ICC = 1/(κ + 1) per draw; the Rao–Blackwellised benchmark value
(same posterior mean as the draws, less spread); monotonicity of pass^k in k; the fit
itself before saving (after a netCDF round trip).
"""

from __future__ import annotations

import numpy as np
import pytest

import passhat as ph
from passhat.model.diagnostics import import_arviz


def test_fit_idata_layout(mock_nuts):
    """The InferenceData of a NUTS fit (PyMC's mock sampler: the layout, not the numbers, which
    test_model_sampler.py checks against the grid in the integration tier)."""
    agents_nuts = ph.fit(
        ph.load_example("agents"),
        k=[1, 5],
        method="nuts",
        model="beta",
        sampler="pymc",
        seed=11,
        draws=200,
    )
    post = agents_nuts.idata.posterior
    assert post["mu"].dims == ("chain", "draw", "system")
    assert post["kappa"].dims == ("chain", "draw", "system")
    assert post["pass_hat_k_population"].dims == ("chain", "draw", "system", "k")
    assert list(post["system"].values) == ["baseline", "guided"]
    assert agents_nuts.idata.constant_data["n"].dims == ("system", "task")
    assert agents_nuts.idata.constant_data.sizes["task"] == 168
    # ICC is 1/(κ+1) per draw
    np.testing.assert_allclose(post["icc"].values, 1 / (post["kappa"].values + 1))


def test_benchmark_metric_is_reproducible_and_rao_blackwell_consistent(agents_grid):
    """Of any posterior draws of (μ, κ): the grid's independent draws here."""
    stored = agents_grid.metric("pass_hat_k", k=[5], scope="benchmark")
    again = agents_grid.metric("pass_hat_k", k=[5, 6], scope="benchmark").sel(k=[5])
    np.testing.assert_array_equal(stored.values, again.values)
    rb = agents_grid.metric("pass_hat_k", k=[5], scope="benchmark", rao_blackwell=True)
    # same posterior mean (draws add zero-mean conditional noise), less spread
    se = float(np.sqrt((stored - rb).var() / stored.size))
    assert abs(float(stored.mean() - rb.mean())) < 5 * se
    assert float(rb.std()) < float(stored.std())


def test_k_beyond_runs_is_a_prediction(agents_grid):
    m = agents_grid.metric("pass_hat_k", k=[5, 10, 20])
    means = m.mean(("chain", "draw")).values
    assert np.all(np.diff(means, axis=-1) < 0)  # pass^k decreases in k
    assert np.all(means > 0)


def test_netcdf_round_trip(agents_grid, tmp_path):
    path = agents_grid.to_netcdf(tmp_path / "fit.nc")
    back = ph.load_fit(path)
    assert back.systems == agents_grid.systems
    assert back.seed == agents_grid.seed and back.k == agents_grid.k
    a = agents_grid.summary(k=[1, 5])
    b = back.summary(k=[1, 5])
    np.testing.assert_allclose(a["mean"], b["mean"])
    np.testing.assert_allclose(a["upper"], b["upper"])
    with pytest.raises(ph.ModelError):
        ph.load_fit(tmp_path / "missing.nc")


def test_load_fit_refuses_what_is_not_a_passhat_fit(tmp_path):
    az = import_arviz()
    post = {"mu": np.full((1, 10), 0.5)}
    path = tmp_path / "other.nc"
    const = {"n": np.ones(3), "present": np.ones(3, dtype=np.int8)}
    az.from_dict(posterior=post, constant_data=const).to_netcdf(str(path))
    with pytest.raises(ph.ModelError, match="not a passhat fit"):
        ph.load_fit(path)
    partial = tmp_path / "partial.nc"  # was a KeyError: a file error must be a ModelError
    az.from_dict(posterior=post, constant_data={"n": np.ones(3)}).to_netcdf(str(partial))
    with pytest.raises(ph.ModelError, match="lacks c, weight, present"):
        ph.load_fit(partial)
    bad = tmp_path / "bad.nc"
    bad.write_text("not netCDF")
    with pytest.raises(ph.ModelError):
        ph.load_fit(bad)


def test_metric_options():
    f = ph.fit(ph.load_example("abcd"), method="grid", seed=0, chains=1, draws=100)
    with pytest.raises(ph.OptionError):
        f.metric("icc", scope="benchmark")
    with pytest.raises(ph.OptionError):
        f.metric("pass_hat", k=2)
    with pytest.raises(ph.OptionError):
        f.metric("mean", scope="tasks")


def _input_csv(tmp_path, example: str):
    """A CSV input read back through passhat (its source records path and SHA-256)."""
    path = tmp_path / f"{example}.csv"
    ph.load_example(example).frame.to_csv(path, index=False)
    return path, ph.read_trials(path)


def test_to_netcdf_never_writes_over_the_fits_input(tmp_path):
    """force=True overwrote the CSV the fit was read from (the CLI checked, the API did not).

    Oracle: the input's bytes before and after the refused save; a foreign file is replaced
    only with force, and atomically (no temporary file left beside it).
    """
    from passhat.errors import OptionError

    src, trials = _input_csv(tmp_path, "abcd")
    before = src.read_bytes()
    f = ph.fit(trials, method="grid", seed=0, chains=1, draws=100)
    with pytest.raises(OptionError, match=r"abcd\.csv: .* is an input"):
        f.to_netcdf(src, force=True)
    assert src.read_bytes() == before
    saved = f.to_netcdf(tmp_path / "fit.nc")
    with pytest.raises(OptionError, match=r"abcd\.csv: .* is an input"):  # also once loaded back
        ph.load_fit(saved).to_netcdf(src, force=True)
    assert src.read_bytes() == before
    other = tmp_path / "notes.txt"
    other.write_text("someone else's file")
    with pytest.raises(OptionError, match="exists; pass --force"):
        f.to_netcdf(other)
    assert other.read_text() == "someone else's file"
    f.to_netcdf(other, force=True)
    assert ph.load_fit(other).systems == f.systems
    assert sorted(p.name for p in tmp_path.iterdir()) == ["abcd.csv", "fit.nc", "notes.txt"]
