"""Sampler plumbing: NUTS (nutpie or PyMC) against the exact grid, degenerate data, seeds.

Oracles: the grid quadrature of the same posterior (tolerances from the Monte-Carlo
standard errors: NUTS via ArviZ's bulk ESS, grid via its independent draws); the observed
shares of all-pass / all-fail tasks (inflated model); the prior (all-pass data carry no
information about κ); a repeated call with the same seed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import passhat as ph
from passhat.model import compress
from passhat.model.diagnostics import import_arviz
from passhat.model.sampler import (
    resolve_sampler,
    resolve_seed,
    sample_system,
    sub_seed,
)

az = import_arviz()


def _draws(fit, name, scope, k, si):
    if name in ("mu", "kappa"):
        da = fit.idata.posterior[name].isel(system=si)
        da = np.log(da) if name == "kappa" else da
    else:
        da = fit.metric(name, k=[k], scope=scope).isel(system=si).sel(k=k)
    return np.asarray(da.values)  # (chain, draw)


def _agree(nuts, grid, k):
    for si in range(len(nuts.systems)):
        for name, scope in [
            ("mu", None),
            ("kappa", None),
            ("pass_hat_k", "population"),
            ("pass_hat_k", "benchmark"),
            ("pass_at_k", "population"),
        ]:
            x = _draws(nuts, name, scope, k, si)
            y = _draws(grid, name, scope, k, si).ravel()
            ess = float(az.ess(x[None, ...].squeeze(0)))
            se = math.sqrt(x.var() / ess + y.var() / len(y))
            z = abs(x.mean() - y.mean()) / se
            assert z < 4.5, (nuts.systems[si], name, scope, x.mean(), y.mean(), se)
            # spread: se of a sd estimate ≈ sd / sqrt(2 n)
            rel = abs(x.std() / y.std() - 1)
            assert rel < 4.5 * math.sqrt(1 / (2 * ess) + 1 / (2 * len(y))) + 0.02, (name, rel)


@pytest.mark.integration
def test_nuts_agrees_with_grid_on_agents(agents_nuts, agents_grid):
    assert agents_nuts.diagnostics.passed, agents_nuts.diagnostics.problems
    assert agents_nuts.sampler in ("nutpie", "pymc")
    _agree(agents_nuts, agents_grid, 5)


@pytest.mark.integration
def test_nuts_agrees_with_grid_on_tau_bench(tau_nuts, tau_grid):
    assert tau_nuts.diagnostics.passed, tau_nuts.diagnostics.problems
    _agree(tau_nuts, tau_grid, 4)


@pytest.mark.integration
def test_degenerate_all_pass_nuts_runs_clean():
    f = ph.fit(
        ph.counts_from_arrays([5] * 20, [5] * 20),
        k=[1, 5],
        method="nuts",
        model="beta",
        seed=5,
        progress=False,
        chains=2,
        draws=1000,
        tune=500,
    )
    assert f.diagnostics.divergences["system"] == 0
    assert f.diagnostics.passed, f.diagnostics.problems
    lam = np.log(f.idata.posterior["kappa"].values.ravel())
    assert lam.std() > 0.6  # κ is not identified by all-pass data: posterior stays wide


@pytest.mark.integration
def test_inflated_model(agents_inflated):
    inf = agents_inflated
    post = inf.idata.posterior
    assert {"mu", "kappa", "pi_pass", "pi_fail"} <= set(post.data_vars)
    assert inf.diagnostics.passed, inf.diagnostics.problems
    # shares of always-pass / always-fail tasks cannot exceed the observed shares of
    # 5/5 and 0/5 tasks by much (posterior mean within the observed share + 0.1)
    ds = ph.load_example("agents").counts()
    for si in range(2):
        n, c = ds["n"].values[si], ds["c"].values[si]
        assert float(post["pi_fail"].isel(system=si).mean()) < np.mean(c == 0) + 0.1
        assert float(post["pi_pass"].isel(system=si).mean()) < np.mean(c == n) + 0.1
    assert ((post["pi_pass"] + post["pi_fail"]) <= 1).all()
    m = inf.metric("pass_hat_k", k=[5]).values
    assert ((m >= 0) & (m <= 1)).all()


@pytest.mark.integration
def test_pymc_sampler_fallback():
    f = ph.fit(
        ph.load_example("abcd"),
        k=[2],
        method="nuts",
        model="beta",
        sampler="pymc",
        seed=3,
        progress=False,
        chains=2,
        draws=300,
        tune=300,
    )
    assert f.sampler == "pymc"
    assert f.idata.posterior["mu"].dims == ("chain", "draw", "system")


def test_seeds_reproduce_and_differ_by_system():
    """One recorded seed reproduces every system's draws; systems get different streams."""
    assert sub_seed(5, 0) == sub_seed(5, 0)
    assert len({sub_seed(5, si) for si in range(50)}) == 50
    comp = compress([5, 5, 5, 5], [5, 4, 2, 0])
    kw = {"method": "grid", "sampler": "grid", "chains": 2, "draws": 300}
    one = sample_system(comp, seed=sub_seed(5, 0), **kw)
    again = sample_system(comp, seed=sub_seed(5, 0), **kw)
    other = sample_system(comp, seed=sub_seed(5, 1), **kw)
    np.testing.assert_array_equal(one["mu"], again["mu"])
    assert not np.array_equal(one["mu"], other["mu"])
    f = ph.fit(
        ph.counts_from_arrays([5, 5, 5, 5], [5, 4, 2, 0]),
        method="grid",
        seed=5,
        chains=2,
        draws=300,
    )
    np.testing.assert_array_equal(f.idata.posterior["mu"].values[..., 0], one["mu"])
    # no seed given: one is drawn and recorded, and refitting with it gives the same draws
    drawn = ph.fit(ph.counts_from_arrays([5, 5], [5, 0]), method="grid", chains=1, draws=50)
    assert isinstance(drawn.seed, int) and drawn.seed >= 0
    refit = ph.fit(
        ph.counts_from_arrays([5, 5], [5, 0]), method="grid", chains=1, draws=50, seed=drawn.seed
    )
    np.testing.assert_array_equal(drawn.idata.posterior["mu"], refit.idata.posterior["mu"])


def test_sampler_and_seed_options():
    with pytest.raises(ph.OptionError):
        resolve_sampler("stan")
    with pytest.raises(ph.OptionError):
        ph.fit(ph.load_example("abcd"), sampler="stan")
    for bad in (-1, 1.5, True):
        with pytest.raises(ph.OptionError):
            resolve_seed(bad)


def test_quiet_pymc_silences_pymc_imported_inside_the_block() -> None:
    """Before: quiet_pymc set the 'pymc' logger to ERROR before pymc was imported, and pymc's
    import reset it to INFO, so `fit --model joint --sampler pymc --quiet` printed PyMC's
    'Initializing NUTS ...' lines. Oracle: a fresh interpreter's stderr."""
    import subprocess
    import sys

    code = (
        "import logging\n"
        "from passhat.model.sampler import quiet_pymc\n"
        "with quiet_pymc(True):\n"
        "    import pymc\n"
        "    logging.getLogger('pymc').info('should-not-print')\n"
        "    logging.getLogger('pymc.sampling.mcmc').warning('nor-this')\n"
        "logging.getLogger('pymc').info('printed-after')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "should-not-print" not in proc.stderr and "nor-this" not in proc.stderr
    assert "printed-after" in proc.stderr  # the level is restored after the block
