"""The pytest plugin: ``@pytest.mark.reliability`` reruns a test until passhat's gate decides.

pytest loads this module through the ``pytest11`` entry point of passhat's package metadata
whenever passhat is installed. It imports only pytest and the standard library: the
statistics (numpy, the gate) are imported when a marked test runs, so a session without one
pays nothing.

A marked test::

    @pytest.mark.reliability(k=5, min_pass_hat=0.9, ci=0.95, max_runs=200)
    def test_agent_books_the_flight():
        assert run_agent("book a flight").booked

runs again and again (function-scoped fixtures set up afresh each time) and stops as soon as
the anytime-valid gate decides (:mod:`passhat.pytest_plugin.rule`): it **passes** when
pass^k is shown above ``min_pass_hat``, **fails** when shown below, and when ``max_runs``
runs do not decide it reports ``undecided`` ("pass" by default; ``--passhat-undecided`` or
the marker's ``undecided=`` choose "fail" or "skip"). The terminal summary lists every
marked test with its bound on pass^k and its runs; ``--passhat-report PATH`` (.csv or
.jsonl) writes every run as a tidy file that ``passhat estimate`` / ``passhat gate`` read.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from passhat.pytest_plugin._stash import ATTRIBUTE, MARKER, RAISED, SPEC

__all__ = [
    "pytest_addoption",
    "pytest_configure",
    "pytest_runtest_makereport",
    "pytest_runtest_protocol",
    "pytest_runtest_setup",
]

_HELP_MARKER = (
    f"{MARKER}(min_pass_hat, k=1, ci=0.95, max_runs=200, undecided='pass', unscored=()): "
    "rerun the test until passhat's anytime-valid gate shows pass^k above min_pass_hat (pass) "
    "or below it (fail), at most max_runs runs"
)
_SUFFIXES = (".csv", ".jsonl")


def pytest_addoption(parser: pytest.Parser) -> None:
    """The plugin's command-line options."""
    group = parser.getgroup("passhat", "passhat: @pytest.mark.reliability")
    group.addoption(
        "--passhat-report",
        metavar="PATH",
        default=None,
        help="Write every run of the reliability-marked tests to PATH (.csv or .jsonl), a tidy "
        "file passhat reads (task_id = the test).",
    )
    group.addoption(
        "--passhat-report-force",
        action="store_true",
        help="Replace an existing --passhat-report file.",
    )
    group.addoption(
        "--passhat-system",
        default="pytest",
        help="The system column of --passhat-report (default: pytest).",
    )
    group.addoption(
        "--passhat-undecided",
        choices=("pass", "fail", "skip"),
        default=None,
        help="What a marked test reports when max_runs runs do not decide (default: pass; "
        "a marker's undecided= wins).",
    )


def _check_report_path(config: pytest.Config) -> None:
    """Refuse a bad --passhat-report before any test runs."""
    path = config.getoption("passhat_report")
    if path is None or hasattr(config, "workerinput"):  # xdist workers do not write
        return
    if not path.endswith(_SUFFIXES):
        raise pytest.UsageError(
            f"--passhat-report {path}: give a .csv or .jsonl file (passhat reads both)"
        )
    if os.path.isdir(path):
        raise pytest.UsageError(f"--passhat-report {path}: is a directory; give a file name")
    if os.path.lexists(path) and not config.getoption("passhat_report_force"):
        raise pytest.UsageError(
            f"--passhat-report {path}: exists; passhat does not replace a file unless asked "
            "(add --passhat-report-force, or choose another name)"
        )


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker, check the report's path, make room for the verdicts."""
    config.addinivalue_line("markers", _HELP_MARKER)
    _check_report_path(config)
    config.pluginmanager.register(_Session(config), "passhat-reliability-session")


def _check_marker(item: pytest.Item) -> Any:
    """The marker's spec, checked (an :class:`~passhat.errors.OptionError` says what is wrong)."""
    from passhat.errors import OptionError
    from passhat.pytest_plugin.rule import check_can_pass
    from passhat.pytest_plugin.spec import reliability_spec

    marker = item.get_closest_marker(MARKER)
    if marker is None:  # called only for items that carry the marker
        raise RuntimeError(f"{item.nodeid} has no {MARKER} marker")
    kwargs = dict(marker.kwargs)
    undecided = kwargs.pop("undecided", item.config.getoption("passhat_undecided"))
    spec = reliability_spec(*marker.args, undecided=undecided, **kwargs)
    check_can_pass(spec)
    if item.get_closest_marker("xfail") is not None:
        raise OptionError("does not combine with xfail: the gate decides pass or fail itself")
    return spec


def _spec_of(item: pytest.Item) -> Any:
    """The spec, or the error, of a marked test: checked once, kept on the item."""
    if SPEC not in item.stash:
        from passhat.errors import OptionError

        try:
            item.stash[SPEC] = _check_marker(item)
        except OptionError as err:
            item.stash[SPEC] = err
    return item.stash[SPEC]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A marker with bad options fails the test's setup with one line saying why."""
    if item.get_closest_marker(MARKER) is None:
        return
    spec = _spec_of(item)
    if isinstance(spec, Exception):
        pytest.fail(f"@pytest.mark.{MARKER}: {spec}", pytrace=False)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """Run a marked test until the gate decides (other tests: pytest's own protocol)."""
    if item.get_closest_marker(MARKER) is None:
        return None
    spec = _spec_of(item)
    if isinstance(spec, Exception):
        return None  # pytest's protocol: the setup hook above fails it with the message
    from passhat.pytest_plugin.rerun import run_until_decided

    run_until_decided(item, nextitem, spec)
    return True


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Keep the exception of a marked test's call (the plugin tells unscored runs by it)."""
    report = yield
    if call.when == "call" and item.get_closest_marker(MARKER) is not None:
        item.stash[RAISED] = call.excinfo.value if call.excinfo is not None else None
    return report


class _Session:
    """The session's verdicts: collected from the reports, listed in the summary, written to
    --passhat-report (registered by :func:`pytest_configure`)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.found: list[dict[str, Any]] = []
        self.written = ""

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Collect the verdicts (here and, under pytest-xdist, on the controller)."""
        found = getattr(report, ATTRIBUTE, None)
        if report.when == "call" and isinstance(found, dict):
            self.found.append(found)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Write --passhat-report (not in an xdist worker); an I/O error fails the session."""
        path = self.config.getoption("passhat_report")
        if path is None or hasattr(self.config, "workerinput") or not self.found:
            return
        from passhat.errors import PasshatError
        from passhat.pytest_plugin.runs_file import write_runs

        try:
            n = write_runs(
                path,
                self.found,
                system=self.config.getoption("passhat_system"),
                force=self.config.getoption("passhat_report_force"),
            )
        except PasshatError as err:
            self.written = f"passhat: nothing written: {err}"
            session.exitstatus = err.exit_code
            return
        self.written = f"passhat: wrote {n} runs of {len(self.found)} test(s) to {path}"

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """List every marked test with its verdict, its bound on pass^k and its runs."""
        if not self.found:
            if self.config.getoption("passhat_report") and not hasattr(self.config, "workerinput"):
                terminalreporter.write_line(
                    "passhat: no reliability-marked test ran; --passhat-report not written"
                )
            return
        terminalreporter.section("passhat reliability")
        for entry in self.found:
            terminalreporter.write_line(f"{entry['test']}: {entry['line']}")
        if self.written:
            terminalreporter.write_line(self.written)
