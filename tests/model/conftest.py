"""Shared fitted models for tests/model (PyMC/nutpie compile once per session)."""

from __future__ import annotations

import pytest

import passhat as ph

# Small but not tiny: sampling is cheap once compiled; the draws set the Monte-Carlo error
# that the agreement tests derive their tolerances from.
# The Beta model by name: the default model ("auto") stacks three models and has no NUTS form.
NUTS = {"method": "nuts", "model": "beta", "chains": 2, "draws": 1000, "tune": 500}
GRID = {"model": "beta", "chains": 4, "draws": 2000}


@pytest.fixture(scope="session")
def agents_nuts():
    return ph.fit(ph.load_example("agents"), k=[1, 5], seed=11, progress=False, **NUTS)


@pytest.fixture(scope="session")
def agents_grid():
    return ph.fit(ph.load_example("agents"), k=[1, 5], method="grid", seed=12, **GRID)


@pytest.fixture(scope="session")
def agents_inflated():
    """The zero/one-inflated model by NUTS, for its own checks and for LOO comparison."""
    return ph.fit(
        ph.load_example("agents"),
        k=[5],
        model="inflated",
        method="nuts",  # "auto" is its grid now
        seed=21,
        progress=False,
        chains=2,
        draws=2000,
        tune=1000,
    )


@pytest.fixture(scope="session")
def tau_trials(tau_airline_path):
    return ph.read_trials(tau_airline_path, format="tau-bench")


@pytest.fixture(scope="session")
def tau_nuts(tau_trials):
    return ph.fit(tau_trials, k=[1, 4], seed=13, progress=False, **NUTS)


@pytest.fixture(scope="session")
def tau_grid(tau_trials):
    return ph.fit(tau_trials, k=[1, 4], method="grid", seed=14, **GRID)
