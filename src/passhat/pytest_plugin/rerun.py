"""Run a marked test until the gate decides, and report it to pytest as one test.

pytest runs a test in three phases (setup, call, teardown) and reports each. A marked test
runs them once per run: setup (function-scoped fixtures created afresh), call, then — after
the gate has looked at the run (:mod:`passhat.pytest_plugin.rule`) — teardown: of the
function's fixtures only while the test goes on, of everything the next test does not need
once it stops. Nothing is logged until the test stops; then pytest sees one setup, one call
and one teardown: the call's outcome is the verdict (:meth:`ReliabilityResult.outcome`), its
duration the sum of the runs', and it carries the verdict and every run
(:data:`~passhat.pytest_plugin._stash.ATTRIBUTE`) for the summary and ``--passhat-report``.

A setup that fails or skips, a teardown that fails and a ``pytest.skip()`` inside the test
stop the runs and are reported as pytest reports them, with a note saying how many runs were
taken before; an exception named in the marker's ``unscored=`` makes its run unscored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from _pytest.runner import call_and_report

from passhat.pytest_plugin._stash import ATTRIBUTE, RAISED
from passhat.pytest_plugin.reliability import verdict
from passhat.pytest_plugin.result import ReliabilityResult
from passhat.pytest_plugin.rule import stopping_rule
from passhat.pytest_plugin.spec import ReliabilitySpec

__all__ = ["run_until_decided"]

SECTION = "passhat reliability"


class _Parent:
    """Stands for the next test when the same test runs again: pytest's teardown keeps what
    this chain holds (the module, class and session) and tears down the function only."""

    def __init__(self, item: pytest.Item) -> None:
        self._chain = item.listchain()[:-1]

    def listchain(self) -> list[Any]:
        return self._chain


@dataclass
class _Runs:
    """The runs so far: outcome (None: unscored), status and duration of each."""

    outcomes: list[bool | None] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)
    durations: list[float] = field(default_factory=list)
    last_failure: str = ""

    def add(self, call: pytest.TestReport, spec: ReliabilitySpec, raised: object) -> None:
        unscored = call.failed and isinstance(raised, spec.unscored) and bool(spec.unscored)
        self.outcomes.append(None if unscored else call.passed)
        self.statuses.append("unscored" if unscored else "ok")
        self.durations.append(float(call.duration))
        if call.failed and not unscored:
            self.last_failure = f"run {len(self.outcomes)} failed:\n{call.longrepr}"

    def decided(self) -> tuple[int, int]:
        """(decided runs, failures among them)."""
        n = sum(ok is not None for ok in self.outcomes)
        return n, sum(ok is False for ok in self.outcomes)

    def rows(self) -> list[list[Any]]:
        return [list(r) for r in zip(self.outcomes, self.statuses, self.durations, strict=True)]


def _note(report: pytest.TestReport, runs: _Runs, what: str) -> pytest.TestReport:
    """Say on a report that stopped the runs how many were taken before it (in a skip's reason,
    which pytest shows, else in a section of the report)."""
    n = len(runs.outcomes)
    note = f"{what} on run {n + 1}: the runs stopped; the {n} run(s) before it give no verdict"
    if report.skipped and isinstance(report.longrepr, tuple):
        path, lineno, reason = report.longrepr
        report.longrepr = (path, lineno, f"{reason} (passhat reliability: {note})")
    else:
        report.sections.append((SECTION, note))
    return report


def _final_teardown(
    item: pytest.Item, nextitem: pytest.Item | None, done: bool
) -> pytest.TestReport:
    """Teardown after a run: the function only, or (``done``) all the next test does not need."""
    if item.session.shouldfail or item.session.shouldstop:
        nextitem = None
    target: Any = nextitem if done else _Parent(item)
    report = call_and_report(item, "teardown", log=False, nextitem=target)
    if report.failed and not done:  # the function's teardown failed: stop, tear down the rest
        try:
            item.session._setupstate.teardown_exact(nextitem)
        except Exception as exc:  # reported with the teardown that failed first
            report.sections.append((SECTION, f"a further teardown error: {exc!r}"))
    return report


@dataclass
class _Stop:
    """The runs stop: the reports to log; ``verdict``: at the gate's decision or max_runs (the
    second report is then the last run's call), not at an error or a skip."""

    reports: list[pytest.TestReport]
    verdict: bool = False


def _one_run(
    item: pytest.Item, nextitem: pytest.Item | None, spec: ReliabilitySpec, runs: _Runs
) -> _Stop | None:
    """One run: setup, call, the gate's look, teardown; how the runs stop here, or None."""
    if hasattr(item, "_request") and not item._request:
        item._initrequest()  # type: ignore[attr-defined]  # a rerun, as pytest's protocol does
    try:
        setup = call_and_report(item, "setup", log=False)
        if not setup.passed:
            what = "setup failed" if setup.failed else "setup skipped"
            return _Stop([_note(setup, runs, what), _final_teardown(item, nextitem, True)])
        item.stash[RAISED] = None
        call = call_and_report(item, "call", log=False)
        if call.skipped:
            return _Stop(
                [setup, _note(call, runs, "skipped"), _final_teardown(item, nextitem, True)]
            )
        runs.add(call, spec, item.stash.get(RAISED, None))
        n, failures = runs.decided()
        decided = n > 0 and stopping_rule(spec).decide(n, failures) != "continue"
        done = decided or len(runs.outcomes) >= spec.max_runs
        teardown = _final_teardown(item, nextitem, done)
        if teardown.failed and not done:
            return _Stop([setup, _note(call, runs, "teardown failed"), teardown])
        return _Stop([setup, call, teardown], verdict=True) if done else None
    finally:
        if hasattr(item, "_request"):
            item._request = False
            item.funcargs = None  # type: ignore[attr-defined]


def _verdict_report(
    call: pytest.TestReport, res: ReliabilityResult, runs: _Runs, item: pytest.Item
) -> pytest.TestReport:
    """The last run's call report made the test's: the verdict's outcome, text and data."""
    call.outcome = res.outcome
    call.duration = sum(runs.durations)
    if res.outcome == "failed":
        call.longrepr = f"passhat reliability: {res.reasoning}\n\n{runs.last_failure}".rstrip()
    elif res.outcome == "skipped":
        path, lineno, _ = item.location
        call.longrepr = (str(path), (lineno or 0) + 1, f"passhat reliability: {res.line()}")
    else:
        call.longrepr = None
    if res.outcome != "failed":  # a failure's text says it already
        call.sections.append((SECTION, res.reasoning))
    setattr(
        call,
        ATTRIBUTE,
        {
            "test": item.nodeid,
            "line": res.line(),
            **res.to_dict()["reliability"],
            "runs": runs.rows(),
        },
    )
    return call


def run_until_decided(
    item: pytest.Item, nextitem: pytest.Item | None, spec: ReliabilitySpec
) -> None:
    """pytest's run-test protocol for a marked test (its spec already checked)."""
    ihook = item.ihook
    ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    runs = _Runs()
    stop = None
    while stop is None:
        stop = _one_run(item, nextitem, spec, runs)
    reports = stop.reports
    if stop.verdict:
        res = verdict(runs.outcomes, spec, test=item.nodeid)
        reports[1] = _verdict_report(reports[1], res, runs, item)
    for report in reports:
        ihook.pytest_runtest_logreport(report=report)
    ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
