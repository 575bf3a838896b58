"""The reliability marker's verdict on a sequence of runs, as a Python function.

:func:`reliability` replays the marker on outcomes in order: it stops at the first run after
which the anytime-valid gate decides (:mod:`passhat.pytest_plugin.rule`), and returns a
:class:`~passhat.pytest_plugin.result.ReliabilityResult` with the bounds on pass^k that
:func:`passhat.plan.sequential` gives for the runs up to there. The pytest plugin calls it
once per marked test with the runs it took; a notebook can call it on any recorded outcomes.

Examples
--------
>>> res = reliability([True] * 10 + [False] * 20, k=2, min_pass_hat=0.7)
>>> res.decision, res.runs, res.failures, res.left_over
('fail', 19, 9, 11)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from passhat.estimators import pass_hat_k
from passhat.planner.sequential import sequential
from passhat.planner.sequential_result import SequentialResult
from passhat.pytest_plugin.result import ReliabilityResult, Verdict
from passhat.pytest_plugin.rule import stopping_rule
from passhat.pytest_plugin.spec import ReliabilitySpec, reliability_spec
from passhat.trials import Trials

__all__ = ["reliability", "verdict"]


def _walk(outcomes: list[bool | None], spec: ReliabilitySpec) -> tuple[Verdict, int]:
    """The decision and how many of ``outcomes`` it took (the rule checked after each)."""
    rule = stopping_rule(spec)
    decided = failures = 0
    for i, ok in enumerate(outcomes[: spec.max_runs]):
        if ok is not None:
            decided += 1
            failures += not ok
            what = rule.decide(decided, failures)
            if what != "continue":
                return what, i + 1
    if len(outcomes) >= spec.max_runs:
        return "undecided", spec.max_runs
    return "continue", len(outcomes)


def _gate(used: list[bool | None], spec: ReliabilitySpec, test: str) -> SequentialResult | None:
    """The gate's own result on the runs used (one task, k = 1, the per-run goal)."""
    if not any(ok is not None for ok in used):
        return None
    frame = pd.DataFrame(
        {
            "system": "pytest",
            "task_id": test or "test",
            "trial": range(len(used)),
            "success": pd.array(used, dtype="boolean"),
        }
    )
    return sequential(
        Trials.from_frame(frame, where=test or "the runs"),
        k=1,
        max_failure_rate=spec.max_failure_rate,
        alpha=spec.alpha,
    )


def verdict(
    outcomes: Iterable[bool | None], spec: ReliabilitySpec, *, test: str = ""
) -> ReliabilityResult:
    """:func:`reliability` for a checked spec (what the plugin calls)."""
    seq = [None if ok is None else bool(ok) for ok in outcomes]
    decision, taken = _walk(seq, spec)
    used = seq[:taken]
    gate = _gate(used, spec, test)
    n = sum(ok is not None for ok in used)
    fails = sum(ok is False for ok in used)
    k = spec.k
    lower, upper = (0.0, 1.0) if gate is None else ((1 - gate.upper) ** k, (1 - gate.lower) ** k)
    return ReliabilityResult(
        test=test,
        k=k,
        min_pass_hat=spec.min_pass_hat,
        ci=spec.ci,
        max_runs=spec.max_runs,
        undecided=spec.undecided,
        decision=decision,
        runs=taken,
        decided=n,
        failures=fails,
        unscored=taken - n,
        left_over=len(seq) - taken,
        estimate=float(pass_hat_k(n, n - fails, k)) if n >= k else float("nan"),
        lower=float(lower),
        upper=float(upper),
        gate=gate,
    )


def reliability(
    outcomes: Iterable[bool | None], *, test: str = "", **marker: Any
) -> ReliabilityResult:
    """The reliability marker's verdict on runs in order (True pass, False fail, None unscored).

    Parameters
    ----------
    outcomes : iterable of bool or None
        The runs in the order they ran.
    test : str
        A name for the test (shown and recorded).
    **marker
        The marker's options: ``min_pass_hat`` (required), ``k`` (1), ``ci`` (0.95),
        ``max_runs`` (200: the most runs, unscored ones included), ``undecided`` ("pass").

    Returns
    -------
    ReliabilityResult
        The decision at the first run that decides (or "undecided" at ``max_runs``,
        "continue" when the outcomes end before either), with the anytime bounds on pass^k.

    Raises
    ------
    OptionError
        A marker option missing or out of range.

    Examples
    --------
    >>> res = reliability([True] * 40, k=5, min_pass_hat=0.5)
    >>> res.decision, res.runs, round(res.lower, 3)
    ('pass', 31, 0.51)
    """
    return verdict(outcomes, reliability_spec(**marker), test=test)
