"""When the reliability marker stops: the anytime-valid gate's decision after every run.

The marker runs its test again and again and asks after every decided run what
:func:`passhat.plan.sequential` (``passhat gate``) would answer about the runs so far, one
task with k = 1 and ``max_failure_rate`` the per-run goal 1 − min_pass_hat^(1/k). That
answer depends only on the number of decided runs n and of failures s among them, through
the gate's two e-values (:func:`passhat.planner.betting.log_evalue`, the calls the gate
makes). A pass raises the e-value for "above the goal" and lowers the other; a failure does
the reverse, so each boundary below moves by 0 or 1 from one n to the next, and the rule
computes both once per marker with two e-values per n (the gate's
:func:`~passhat.planner.betting.failure_boundary` finds the same by bisection, slower):

* **pass** when s ≤ ``pass_most[n]`` (the e-value for "the rate is above the goal" has
  reached 1/α);
* **fail** when s ≥ ``fail_least[n]`` (the e-value for "below the goal" has reached 1/α);
* otherwise **continue**, and **undecided** once ``max_runs`` runs are spent.

The gate's guarantee carries over: with the test's true pass^k exactly at the goal, the
chance of ever passing it (or ever failing it) is at most α = 1 − ci, although the rule looks
after every run (``studies/pytest_gate/``). :meth:`StoppingRule.stop` applies the same rule to
many simulated streams at once for the studies and benchmarks.

Examples
--------
>>> from passhat.pytest_plugin.spec import reliability_spec
>>> rule = stopping_rule(reliability_spec(k=2, min_pass_hat=0.7))
>>> rule.fewest_runs_to_pass, rule.decide(24, 0), rule.decide(24, 1), rule.decide(6, 6)
(24, 'pass', 'continue', 'fail')
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from passhat.errors import OptionError
from passhat.planner.betting import Side, further_steps, log_evalue
from passhat.pytest_plugin.spec import ReliabilitySpec

__all__ = ["Decision", "StoppingRule", "check_can_pass", "clean_runs_to_pass", "stopping_rule"]

#: The decision after some runs ("continue": not yet).
Decision = Literal["pass", "fail", "continue"]


@dataclass(frozen=True, eq=False)
class StoppingRule:
    """The gate's decision for every (decided runs, failures) up to ``max_runs``.

    Attributes
    ----------
    spec : ReliabilitySpec
    pass_most : array of int, length max_runs + 1
        After n decided runs, the most failures that still pass (−1: none can).
    fail_least : array of int, length max_runs + 1
        After n decided runs, the fewest failures that fail (n + 1: none can).
    """

    spec: ReliabilitySpec
    pass_most: NDArray[np.int64]
    fail_least: NDArray[np.int64]

    @property
    def fewest_runs_to_pass(self) -> int | None:
        """Decided runs, all passing, after which the test first passes (None: not within
        ``max_runs``)."""
        hits = np.flatnonzero(self.pass_most >= 0)
        return int(hits[0]) if hits.size else None

    def decide(self, runs: int, failures: int) -> Decision:
        """The decision after ``runs`` decided runs with ``failures`` among them."""
        if not 0 <= failures <= runs <= self.spec.max_runs:
            raise ValueError(f"need 0 ≤ failures ≤ runs ≤ max_runs (got {failures}, {runs})")
        if failures >= self.fail_least[runs]:
            return "fail"
        if failures <= self.pass_most[runs]:
            return "pass"
        return "continue"

    def stop(self, passed: ArrayLike) -> tuple[NDArray[np.int64], NDArray[np.str_]]:
        """Apply the rule to streams of decided runs: where each stops and what it decides.

        Parameters
        ----------
        passed : bool array (streams, max_runs)
            Each row one stream's runs in order (True: the run passed).

        Returns
        -------
        runs : int array (streams,)
            Runs taken: the first n that decides, else ``max_runs``.
        decision : str array (streams,)
            "pass", "fail" or "undecided".

        Examples
        --------
        >>> from passhat.pytest_plugin.spec import reliability_spec
        >>> rule = stopping_rule(reliability_spec(min_pass_hat=0.5, max_runs=10))
        >>> runs, what = rule.stop([[True] * 10, [False] * 10])
        >>> runs.tolist(), what.tolist()
        ([6, 6], ['pass', 'fail'])
        """
        ok = np.asarray(passed, dtype=bool)
        if ok.ndim != 2 or ok.shape[1] != self.spec.max_runs:
            raise ValueError(f"passed must have shape (streams, {self.spec.max_runs})")
        n = np.arange(1, self.spec.max_runs + 1)
        fails = np.cumsum(~ok, axis=1)
        failed = fails >= self.fail_least[n]
        passed_now = fails <= self.pass_most[n]
        done = failed | passed_now
        decided = done.any(axis=1)
        at = np.where(decided, done.argmax(axis=1), self.spec.max_runs - 1)
        rows = np.arange(ok.shape[0])
        what = np.where(failed[rows, at], "fail", "pass")
        return (at + 1).astype(np.int64), np.where(decided, what, "undecided")


def _reaches(n: int, s: int, spec: ReliabilitySpec, side: Side) -> bool:
    """Whether the gate's e-value for ``side`` reaches 1/α after n decided runs, s failed."""
    le = log_evalue(
        [0.0, 1.0], [float(n - s), float(s)], null=spec.max_failure_rate, side=side,
        scale=[1.0, 1.0],
    )  # fmt: skip
    return le >= math.log(1 / spec.alpha)


def _boundaries(spec: ReliabilitySpec) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(pass_most, fail_least) for n = 0 … max_runs, walking n up (see the module's text)."""
    n_max = spec.max_runs
    pass_most = np.full(n_max + 1, -1, dtype=np.int64)
    fail_least = np.arange(1, n_max + 2, dtype=np.int64)
    for n in range(1, n_max + 1):
        s = int(pass_most[n - 1]) + 1  # may one more failure pass now?
        pass_most[n] = s if _reaches(n, s, spec, "below") else s - 1
        s = int(fail_least[n - 1])  # do as few failures as before fail now?
        fail_least[n] = s if s <= n and _reaches(n, s, spec, "above") else min(s + 1, n + 1)
    return pass_most, fail_least


@functools.lru_cache(maxsize=64)
def stopping_rule(spec: ReliabilitySpec) -> StoppingRule:
    """The rule of a marker's spec: both boundaries, computed once (cached per spec).

    Examples
    --------
    >>> from passhat.pytest_plugin.spec import reliability_spec
    >>> stopping_rule(reliability_spec(min_pass_hat=0.8)).fewest_runs_to_pass
    19
    """
    pass_most, fail_least = _boundaries(spec)
    return StoppingRule(spec=spec, pass_most=pass_most, fail_least=fail_least)


@functools.lru_cache(maxsize=64)
def clean_runs_to_pass(spec: ReliabilitySpec) -> int:
    """Passing runs in a row after which the gate first passes (whatever ``max_runs`` is).

    Examples
    --------
    >>> from passhat.pytest_plugin.spec import reliability_spec
    >>> clean_runs_to_pass(reliability_spec(k=5, min_pass_hat=0.9))
    200
    """
    steps, _ = further_steps(
        [0.0, 1.0], [0.0, 0.0], [1.0, 0.0], null=spec.max_failure_rate, sides=("below",),
        alpha=spec.alpha,
    )  # fmt: skip
    if steps is None:  # pragma: no cover - a rate goal below 1 is always reached
        raise OptionError("{param} cannot be shown by any number of runs", param="min_pass_hat")
    return steps


def check_can_pass(spec: ReliabilitySpec) -> None:
    """Refuse a marker whose test could not pass even if every run passed.

    Raises
    ------
    OptionError
        ``max_runs`` below the passing runs the goal needs (the message says how many).

    Examples
    --------
    >>> from passhat.pytest_plugin.spec import reliability_spec
    >>> check_can_pass(reliability_spec(k=5, min_pass_hat=0.9, max_runs=100))
    Traceback (most recent call last):
    ...
    passhat.errors.OptionError: max_runs = 100 is too few: pass^5 ≥ 0.9 at ci = 0.95 needs at \
least 200 runs even when every run passes (raise max_runs, or lower min_pass_hat or k)
    """
    need = clean_runs_to_pass(spec)
    if spec.max_runs < need:
        raise OptionError(
            f"{{param}} = {spec.max_runs} is too few: pass^{spec.k} ≥ {spec.min_pass_hat:g} at "
            f"{{ci}} = {spec.ci:g} needs at least {need} runs even when every run passes (raise "
            "{param}, or lower {min_pass_hat} or {k})",
            param="max_runs",
            also=("ci", "min_pass_hat", "k"),
        )
