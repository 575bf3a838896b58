"""The default test tier's guard: no NUTS sampling, and a CPU-time budget per test file.

Used by ``tests/conftest.py`` (see docs/development.md, "Test tiers"); tested in
``tests/test_tiers.py``.
"""

from __future__ import annotations

import functools
import importlib
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import pytest

#: CPU seconds the tests of one file may take in the default tier (setup, call and teardown,
#: their subprocesses included; cold caches): the terminal summary names the files over it.
#: CPU time, not wall time: on 2 cores shared by several jobs, wall time is mostly the others'.
#: Longer checks belong to ``integration``.
FILE_BUDGET_S = 20.0
#: The markers of the tiers that may sample with NUTS.
NUTS_TIERS = ("integration", "slow")
#: The fixture that mocks PyMC's sampler (tests/conftest.py).
MOCK_FIXTURE = "mock_nuts"

# A doctest that fits the joint, Rasch or inflated model, or fits asking for NUTS, samples.
_NUTS_OPTION = re.compile(r"model=[\"'](joint|rasch|inflated)[\"']|method=[\"']nuts")


def samples_with_nuts(source: str) -> bool:
    """Whether doctest source fits a model by NUTS.

    Examples
    --------
    >>> samples_with_nuts("f = fit_joint(ds, seed=1)")
    True
    >>> samples_with_nuts('ph.fit(t, method="grid")'), samples_with_nuts('ph.fit(t, method="nuts")')
    (False, True)
    >>> samples_with_nuts('build_model([5], [5], model="inflated")')  # builds, does not fit
    False
    """
    return "fit_joint(" in source or ("fit(" in source and bool(_NUTS_OPTION.search(source)))


def cpu_seconds() -> float:
    """CPU time of this process (every thread) and of its children that have ended."""
    try:
        import resource
    except ImportError:  # not on Unix: this process only
        return time.process_time()
    own, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def mark_sampling_doctests(items: list[Any]) -> None:
    """Mark ``integration`` the doctest items of passhat whose examples sample with NUTS."""
    for item in items:
        dtest = getattr(item, "dtest", None)  # a doctest item
        if dtest is None or not dtest.name.startswith("passhat."):
            continue
        if samples_with_nuts("".join(ex.source for ex in dtest.examples)):
            item.add_marker(pytest.mark.integration)


class TierGuard:
    """Fails a test of the default tier that starts a NUTS sampler, and keeps the CPU time
    each test file took.

    The sampler entry points of :mod:`passhat.model.sampler` and
    :mod:`passhat.model.joint_fit` (and, before them, the steps that compile a model) are
    wrapped before the first test of a process. A call from a test not marked ``integration``
    or ``slow`` raises ``pytest.fail``, which no ``except Exception`` in passhat or click
    swallows; a test with the ``mock_nuts`` fixture may take PyMC's path (``pm.sample`` is
    mocked there), not nutpie's.
    """

    ENTRY_POINTS: ClassVar[dict[str, tuple[str, ...]]] = {
        "passhat.model.sampler": ("nutpie_sample", "pymc_sample"),
        "passhat.model.joint_fit": ("nutpie_sample", "pymc_sample"),
    }
    COMPILE_STEPS = ("_sample_nutpie", "_sample_pymc")

    def __init__(self) -> None:
        self.marked = True  # outside a test (session start, a study script): anything goes
        self.mocked = False
        self.current = ""
        self.file_cpu: Counter[str] = Counter()
        self.wrapped = False

    def wrap_entry_points(self) -> None:
        for module_name, names in self.ENTRY_POINTS.items():
            module = importlib.import_module(module_name)
            for name in names + tuple(n for n in self.COMPILE_STEPS if hasattr(module, n)):
                setattr(module, name, self.guarded(getattr(module, name)))
        self.wrapped = True

    def allows(self, name: str) -> bool:
        """Whether the running test may call the sampler function ``name``."""
        return self.marked or (self.mocked and "nutpie" not in name)

    def guarded(self, sample: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(sample)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            if not self.allows(sample.__name__):
                pytest.fail(
                    f"{self.current} samples with NUTS ({sample.__name__}) in the default tier: "
                    "mark it @pytest.mark.integration, fit with method='grid', or, when only the "
                    "shape of the fit matters, use the mock_nuts fixture and sampler='pymc'",
                    pytrace=False,
                )
            return sample(*args, **kwargs)

        return guarded

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[None]:
        if not self.wrapped:
            self.wrap_entry_points()
        self.marked = any(item.get_closest_marker(m) for m in NUTS_TIERS)
        self.mocked = MOCK_FIXTURE in getattr(item, "fixturenames", ())
        self.current = item.nodeid
        start = cpu_seconds()
        try:
            return (yield)
        finally:
            if not self.marked:  # the budget is the default tier's
                self.file_cpu[item.nodeid.split("::")[0]] += cpu_seconds() - start
            self.marked, self.mocked, self.current = True, False, ""

    # pytest-xdist: each worker hands its files' CPU time to the controller, which prints them
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        workeroutput = getattr(session.config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput["passhat_file_cpu"] = dict(self.file_cpu)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        self.file_cpu.update(getattr(node, "workeroutput", {}).get("passhat_file_cpu", {}))

    def over_budget(self) -> list[tuple[str, float]]:
        """The test files of this run over :data:`FILE_BUDGET_S` of CPU, slowest first."""
        return [(f, s) for f, s in self.file_cpu.most_common() if s > FILE_BUDGET_S]

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.file_cpu:
            return
        over = self.over_budget()
        terminalreporter.write_sep(
            "=",
            f"default tier: {sum(self.file_cpu.values()):.0f} s of CPU in tests, "
            f"{len(over)} file(s) over the {FILE_BUDGET_S:.0f} s budget",
        )
        for file, seconds in over:
            terminalreporter.write_line(f"{seconds:7.1f} s  {file}")
