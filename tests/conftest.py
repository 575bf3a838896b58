"""Shared fixtures, the test tiers and the Hypothesis profiles.

Data from ../shared are used when present and skipped with a reason when not.

Tiers (docs/development.md): ``make test`` runs the default tier, ``-m 'not slow and not
integration'`` (unit, property and doctest checks and a few end-to-end CLI runs);
``make integration`` runs ``-m integration`` (the docs build, the notebooks, the real browser,
NUTS fits, Monte-Carlo subsets of the studies); ``make study`` runs ``-m slow``. A test of
the default tier that starts a NUTS sampler fails and says to mark it (:class:`TierGuard`);
one that needs only the shape of a fit uses :func:`mock_nuts`. The terminal summary lists
the files of a run that took longer than :data:`FILE_BUDGET_S`.
"""

from __future__ import annotations

import functools
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PASSHAT_SHARED", ROOT.parent / "shared"))
TAU_AIRLINE = SHARED / "data" / "tau-bench" / "gpt-4o-airline.json"

# Keep PyMC quiet and its compile cache inside the project.
os.environ.setdefault("PYTENSOR_FLAGS", f"compiledir={ROOT / '.pytensor'}")

#: Seconds of setup + call + teardown one test file may take in the default tier (cold caches,
#: one core); the terminal summary names the files over it. Longer checks belong to
#: ``integration``.
FILE_BUDGET_S = 20.0
#: The markers of the tiers that may sample with NUTS.
NUTS_TIERS = ("integration", "slow")


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


# --- tiers ---------------------------------------------------------------------------------

# A doctest that fits the joint, Rasch or inflated model, or fits asking for NUTS, samples.
_NUTS_OPTION = re.compile(r"model=[\"'](joint|rasch|inflated)[\"']|method=[\"']nuts")


def _samples_with_nuts(source: str) -> bool:
    return "fit_joint(" in source or ("fit(" in source and bool(_NUTS_OPTION.search(source)))


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Doctests whose examples sample with NUTS belong to the integration tier."""
    for item in items:
        dtest = getattr(item, "dtest", None)  # a doctest item
        if dtest is not None:
            source = "".join(ex.source for ex in dtest.examples)
            if _samples_with_nuts(source):
                item.add_marker(pytest.mark.integration)


class TierGuard:
    """Fails a test of the default tier that starts a NUTS sampler, and keeps the time each
    test file took.

    Registered as a plugin (not a conftest hook) so that it sees the doctests of
    ``src/passhat`` too. The sampler entry points of :mod:`passhat.model.sampler` and
    :mod:`passhat.model.joint_fit` are wrapped once: a call outside a test marked
    ``integration`` or ``slow`` (or one using :func:`mock_nuts`) raises ``pytest.fail``, which
    no ``except Exception`` in passhat or click swallows.
    """

    # the samplers (and, where a module has them, the steps that compile a model before them)
    ENTRY_POINTS: ClassVar[dict[str, tuple[str, ...]]] = {
        "passhat.model.sampler": ("nutpie_sample", "pymc_sample"),
        "passhat.model.joint_fit": ("nutpie_sample", "pymc_sample"),
    }
    COMPILE_STEPS = ("_sample_nutpie", "_sample_pymc")

    def __init__(self) -> None:
        self.allowed = True  # outside a test (session start, a study script): anything goes
        self.current = ""
        self.file_seconds: Counter[str] = Counter()
        self._wrap_entry_points()

    def _wrap_entry_points(self) -> None:
        import importlib

        for module_name, names in self.ENTRY_POINTS.items():
            module = importlib.import_module(module_name)
            for name in names + tuple(n for n in self.COMPILE_STEPS if hasattr(module, n)):
                setattr(module, name, self._guarded(getattr(module, name)))

    def _guarded(self, sample: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(sample)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            if not self.allowed:
                pytest.fail(
                    f"{self.current} samples with NUTS ({sample.__name__}) in the default tier: "
                    "mark it @pytest.mark.integration, fit with method='grid', or use the "
                    "mock_nuts fixture when only the shape of the fit matters",
                    pytrace=False,
                )
            return sample(*args, **kwargs)

        return guarded

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[None]:
        marked = any(item.get_closest_marker(m) for m in NUTS_TIERS)
        self.allowed = marked or "mock_nuts" in getattr(item, "fixturenames", ())
        self.current = item.nodeid
        try:
            return (yield)
        finally:
            self.allowed, self.current = True, ""

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not any(m in report.keywords for m in NUTS_TIERS):  # the budget is the default tier's
            self.file_seconds[report.nodeid.split("::")[0]] += report.duration

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        over = [(f, s) for f, s in self.file_seconds.most_common() if s > FILE_BUDGET_S]
        if not over:
            return
        terminalreporter.write_sep("=", f"test files over the {FILE_BUDGET_S:.0f} s budget")
        for file, seconds in over:
            terminalreporter.write_line(f"{seconds:7.1f} s  {file}")


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(TierGuard(), "passhat-tier-guard")
