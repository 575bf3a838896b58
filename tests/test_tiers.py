"""The test tiers themselves (tests/conftest.py, tests/tier_guard.py): a default-tier test
cannot sample with NUTS, the mock sampler gives a fit the shape of a NUTS fit, doctests that
sample are moved to the integration tier, the Hypothesis profile is the one asked for, and
the file budget names the files over it.

Oracles: the guard's own failure (raised before any model is compiled); the sizes a fit
was asked for; the markers pytest collected; Hypothesis' active settings.
"""

from __future__ import annotations

import doctest
import importlib
import os

import pytest

import passhat as ph
from tier_guard import FILE_BUDGET_S, TierGuard, mark_sampling_doctests


def test_a_default_tier_test_cannot_sample_with_nuts() -> None:
    # PyMC's sampler (nutpie's import alone takes seconds); nutpie's entry points are wrapped
    # alike, in both modules that sample
    with pytest.raises(pytest.fail.Exception, match=r"samples with NUTS .* default tier"):
        ph.fit(ph.load_example("abcd"), model="beta", method="nuts", sampler="pymc", progress=False)
    with pytest.raises(pytest.fail.Exception, match=r"mark it @pytest\.mark\.integration"):
        ph.fit(ph.load_example("agents"), model="joint", sampler="pymc", progress=False)
    for name in ("passhat.model.sampler", "passhat.model.joint_fit"):
        module = importlib.import_module(name)
        for entry in ("_sample_nutpie", "nutpie_sample", "_sample_pymc", "pymc_sample"):
            assert hasattr(getattr(module, entry), "__wrapped__"), (name, entry)


def test_the_mock_sampler_gives_the_shape_of_a_nuts_fit(mock_nuts: None) -> None:
    fit = ph.fit(
        ph.load_example("abcd"),
        k=[2],
        model="beta",
        method="nuts",
        sampler="pymc",
        chains=3,
        draws=40,
    )
    assert (fit.method, fit.sampler) == ("nuts", "pymc")
    assert fit.idata.posterior["mu"].shape == (3, 40, 1)
    assert sum(fit.diagnostics.divergences.values()) == 0


def test_guard_allows_marked_tests_and_pymc_under_the_mock() -> None:
    """Under the mock only PyMC's path is allowed: nutpie would really sample."""
    guard = TierGuard()
    assert guard.allows("_sample_nutpie")  # outside a test
    guard.marked = False
    assert not guard.allows("_sample_pymc") and not guard.allows("nutpie_sample")
    guard.mocked = True
    assert guard.allows("_sample_pymc") and guard.allows("pymc_sample")
    assert not guard.allows("_sample_nutpie")


class _Item:
    """What mark_sampling_doctests reads of a pytest doctest item."""

    def __init__(self, dtest: doctest.DocTest) -> None:
        self.dtest, self.marks = dtest, []

    def add_marker(self, mark: pytest.MarkDecorator) -> None:
        self.marks.append(mark.name)


def test_doctests_that_sample_are_in_the_integration_tier() -> None:
    """On the real docstrings: the joint model's module example fits by NUTS, the grid fit's
    and the model builder's (which compiles nothing) stay in the default tier."""
    # by module name: passhat.model.fit is also the name of a function
    modules = ("passhat.model.joint_fit", "passhat.model.fit", "passhat.model.build")
    found = {
        t.name: t
        for name in modules
        for t in doctest.DocTestFinder().find(importlib.import_module(name))
        if t.examples
    }
    items = {name: _Item(t) for name, t in found.items()}
    mark_sampling_doctests(list(items.values()))
    assert items["passhat.model.joint_fit"].marks == ["integration"]
    assert items["passhat.model.fit"].marks == []
    assert items["passhat.model.build.build_model"].marks == []


def test_hypothesis_profile_is_chosen_by_the_environment() -> None:
    from hypothesis import settings

    wanted = os.environ.get("PASSHAT_HYPOTHESIS_PROFILE", "ci")
    active, profile = settings.default, settings.get_profile(wanted)
    assert (active.max_examples, active.derandomize) == (profile.max_examples, profile.derandomize)
    assert (active.max_examples, active.derandomize) == {"ci": (50, True), "dev": (10, False)}[
        wanted
    ]
    assert active.deadline is None


def test_the_budget_names_the_files_over_it() -> None:
    guard = TierGuard()
    guard.file_cpu.update({"tests/a.py": FILE_BUDGET_S + 1, "tests/b.py": 1.0})
    assert guard.over_budget() == [("tests/a.py", FILE_BUDGET_S + 1)]
