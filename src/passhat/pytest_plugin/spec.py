"""What a ``@pytest.mark.reliability(...)`` marker asks: :class:`ReliabilitySpec`, checked.

A marker names the goal on pass^k, the share of k-run blocks whose every run passes:
``min_pass_hat`` for ``k`` runs, at the level ``ci``, within ``max_runs`` runs. The test's
runs are taken as independent with one pass rate p (each from a fresh start: function-scoped
fixtures are set up again for every run), so pass^k = p^k and the goal is the per-run rate
``min_pass_hat ** (1 / k)`` (:attr:`ReliabilitySpec.min_rate`): the gate tests every run, not
only complete blocks of k, which decides sooner at the same error rates.

Examples
--------
>>> spec = reliability_spec(k=5, min_pass_hat=0.9)
>>> round(spec.min_rate, 4), round(spec.max_failure_rate, 4), spec.alpha, spec.max_runs
(0.9791, 0.0209, 0.05, 200)
>>> reliability_spec(k=2, min_pass_hat=0.7, confidence=0.9)
Traceback (most recent call last):
...
passhat.errors.OptionError: unknown option confidence=0.9: the level is ci (e.g. ci=0.95)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from passhat._validate import check_ci, check_k
from passhat.errors import OptionError

__all__ = ["DEFAULTS", "UNDECIDED", "ReliabilitySpec", "Undecided", "reliability_spec"]

#: What an undecided test (no decision within ``max_runs``) becomes.
Undecided = Literal["pass", "fail", "skip"]
UNDECIDED: tuple[str, ...] = ("pass", "fail", "skip")

#: The marker's defaults (``min_pass_hat`` has none: the goal is the user's).
DEFAULTS: dict[str, Any] = {"k": 1, "ci": 0.95, "max_runs": 200, "undecided": "pass"}

#: Old or other tools' names, and the option that means it here.
_RENAMED = {
    "confidence": "the level is ci (e.g. ci=0.95)",
    "alpha": "give the level ci = 1 − alpha (e.g. ci=0.95)",
    "level": "the level is ci (e.g. ci=0.95)",
    "threshold": "the goal is min_pass_hat (e.g. min_pass_hat=0.9)",
    "runs": "the most runs is max_runs (e.g. max_runs=200)",
}


@dataclass(frozen=True)
class ReliabilitySpec:
    """A checked reliability goal for one test.

    Attributes
    ----------
    k : int
        Runs per block: the goal is on pass^k.
    min_pass_hat : float in (0, 1)
        The test passes when pass^k is shown above this, fails when shown below it.
    ci : float in (0, 1)
        The level: each wrong decision has probability at most 1 − ci, however the runs fall.
    max_runs : int
        The most runs (unscored ones included); a test still undecided then is
        ``undecided``.
    undecided : "pass", "fail" or "skip"
        What an undecided test reports.
    unscored : tuple of exception types
        Exceptions that make a run unscored (neither pass nor fail, e.g. an outage of a
        service the test needs): counted and reported, left out of the decision.
    """

    k: int
    min_pass_hat: float
    ci: float = 0.95
    max_runs: int = 200
    undecided: Undecided = "pass"
    unscored: tuple[type[BaseException], ...] = ()

    @property
    def alpha(self) -> float:
        """1 − ci: the bound on each error rate (a wrong pass, a wrong fail)."""
        return float(f"{1.0 - self.ci:.12g}")

    @property
    def min_rate(self) -> float:
        """The per-run pass rate p whose p^k is ``min_pass_hat``."""
        return float(self.min_pass_hat ** (1.0 / self.k))

    @property
    def max_failure_rate(self) -> float:
        """1 − :attr:`min_rate`: the per-run failure rate the gate bounds."""
        return 1.0 - self.min_rate


def _fraction(name: str, value: object) -> float:
    """A number strictly between 0 and 1 (never a boolean or text)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise OptionError(f"{{param}} must be a number in (0, 1) (got {value!r})", param=name)
    if not (math.isfinite(value) and 0.0 < value < 1.0):
        raise OptionError(
            f"{{param}} must lie strictly between 0 and 1 (got {value!r})", param=name
        )
    return float(value)


def _whole(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise OptionError(f"{{param}} must be a whole number ≥ 1 (got {value!r})", param=name)
    return value


def _exceptions(value: object) -> tuple[type[BaseException], ...]:
    items = value if isinstance(value, tuple | list) else (value,)
    bad = [v for v in items if not (isinstance(v, type) and issubclass(v, BaseException))]
    if bad:
        raise OptionError(
            f"{{param}} must be exception classes, e.g. unscored=(TimeoutError,) (got {bad[0]!r})",
            param="unscored",
        )
    return tuple(items)  # type: ignore[arg-type]


def reliability_spec(*args: Any, undecided: str | None = None, **kwargs: Any) -> ReliabilitySpec:
    """Check a marker's arguments and return the spec they ask for.

    Parameters
    ----------
    *args
        None are accepted: every option is named.
    undecided : "pass", "fail" or "skip", optional
        What an undecided test reports; "pass" by default (``--passhat-undecided`` sets the
        session's default).
    **kwargs
        ``min_pass_hat`` (required), ``k`` (1), ``ci`` (0.95), ``max_runs`` (200),
        ``unscored`` (no exception type).

    Returns
    -------
    ReliabilitySpec

    Raises
    ------
    OptionError
        A positional argument, an unknown or missing option, a value out of range.

    Examples
    --------
    >>> reliability_spec(min_pass_hat=0.8).min_rate
    0.8
    """
    if args:
        raise OptionError(
            f"options are named, e.g. reliability(k=5, min_pass_hat=0.9) (got {args!r})"
        )
    opts = {**DEFAULTS, **kwargs}
    if undecided is not None:
        opts["undecided"] = undecided
    known = {"k", "min_pass_hat", "ci", "max_runs", "undecided", "unscored"}
    for name in opts:
        if name not in known:
            why = _RENAMED.get(name, "known: " + ", ".join(sorted(known)))
            raise OptionError(f"unknown option {name}={opts[name]!r}: {why}")
    if "min_pass_hat" not in opts:
        raise OptionError(
            "give {param}, the goal on pass^k, e.g. reliability(k=5, min_pass_hat=0.9)",
            param="min_pass_hat",
        )
    if opts["undecided"] not in UNDECIDED:
        raise OptionError(
            f"{{param}} must be one of {', '.join(UNDECIDED)} (got {opts['undecided']!r})",
            param="undecided",
        )
    return ReliabilitySpec(
        k=check_k(opts["k"]),
        min_pass_hat=_fraction("min_pass_hat", opts["min_pass_hat"]),
        ci=check_ci(opts["ci"]),
        max_runs=_whole("max_runs", opts["max_runs"]),
        undecided=opts["undecided"],
        unscored=_exceptions(opts.get("unscored", ())),
    )
