"""Shared fixtures, the test tiers and the Hypothesis profiles.

Data from ../shared are used when present and skipped with a reason when not.

Tiers (docs/development.md): ``make test`` runs the default tier, ``-m 'not slow and not
integration'`` (unit, property and doctest checks and a few end-to-end CLI runs);
``make integration`` runs ``-m integration`` (the docs build, the notebooks, the real browser,
NUTS fits, Monte-Carlo subsets of the studies); ``make study`` runs ``-m slow``. A test of
the default tier that starts a NUTS sampler fails and says to mark it (:class:`TierGuard`);
one that needs only the shape of a fit uses :func:`mock_nuts`. The terminal summary lists
the files of a run that took longer than ``tier_guard.FILE_BUDGET_S``.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tier_guard import TierGuard, mark_sampling_doctests

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PASSHAT_SHARED", ROOT.parent / "shared"))
TAU_AIRLINE = SHARED / "data" / "tau-bench" / "gpt-4o-airline.json"

# Keep PyMC quiet and its compile cache inside the project.
os.environ.setdefault("PYTENSOR_FLAGS", f"compiledir={ROOT / '.pytensor'}")


# --- Hypothesis profiles -----------------------------------------------------------------
# One example count for every property test, chosen by PASSHAT_HYPOTHESIS_PROFILE:
#   ci  (the default: make test and CI): 50 examples, derandomized so that a failure repeats
#       on every run and machine;
#   dev (quick local runs): 10 random examples (a failure is saved and replayed first).
# Neither sets a deadline per example: the first example of a test pays numba's compilation
# (seconds, cold), which a deadline reports as "unreliable timings", and 2 shared cores make
# timings noise; the slowest tests and files are listed at the end of every run instead.
try:
    from hypothesis import settings

    settings.register_profile(
        "ci", max_examples=50, derandomize=True, deadline=None, print_blob=True
    )
    settings.register_profile("dev", max_examples=10, deadline=None)
    settings.load_profile(os.environ.get("PASSHAT_HYPOTHESIS_PROFILE", "ci"))
except ImportError:  # the property tests import hypothesis themselves and say it is missing
    pass


@pytest.fixture(scope="session")
def tau_airline_path() -> Path:
    """τ-bench gpt-4o airline results (50 tasks × 4 trials, MIT), from ../shared."""
    if not TAU_AIRLINE.exists():
        pytest.skip(f"τ-bench data not found at {TAU_AIRLINE} (../shared is absent)")
    return TAU_AIRLINE


@pytest.fixture(scope="session")
def agents_trials():  # type: ignore[no-untyped-def]
    """The bundled two-system example."""
    import passhat as ph

    return ph.load_example("agents")


# --- the shape of a NUTS fit without NUTS ------------------------------------------------


@pytest.fixture
def mock_nuts() -> Iterator[None]:
    """PyMC's own test helpers replace ``pm.sample`` inside the test: a fit with
    ``method="nuts", sampler="pymc"`` builds the real model and returns prior draws in the
    shape of a NUTS fit (``pymc.testing.mock_sample``, with the ``diverging`` statistic passhat
    reads). For tests of a fit's shape, never of its numbers; allowed in the default tier."""
    import numpy as np
    import pymc as pm
    from pymc.testing import mock_sample, mock_sample_setup_and_teardown

    restore = mock_sample_setup_and_teardown()  # swaps pm.sample, Flat, HalfFlat; then restores
    next(restore)
    pm.sample = functools.partial(
        mock_sample, sample_stats={"diverging": lambda size: np.zeros(size, dtype=bool)}
    )
    try:
        yield
    finally:
        next(restore, None)


# --- tiers (tests/tier_guard.py) ------------------------------------------------------


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Doctests whose examples sample with NUTS belong to the integration tier."""
    mark_sampling_doctests(items)


def pytest_configure(config: pytest.Config) -> None:
    # a plugin, not conftest hooks: it sees the doctests of src/passhat too
    config.pluginmanager.register(TierGuard(), "passhat-tier-guard")
