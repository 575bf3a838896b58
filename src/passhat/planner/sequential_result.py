"""The result of an anytime-valid gate: :class:`SequentialResult`, its views and its reasoning.

Split from :mod:`passhat.planner.sequential` (which computes the decision): the fields,
the one-line CI summary, the table and the sentences that explain a decision.

Examples
--------
>>> EXIT_CODES["continue"]
3
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import pandas as pd

from passhat._format import pct
from passhat._repr import View, as_html, as_text
from passhat.errors import EXIT_CONTINUE, EXIT_FAIL, EXIT_OK

__all__ = ["EXIT_CODES", "Decision", "SequentialResult", "gate_reasoning"]

Decision = Literal["pass", "fail", "continue"]

#: Exit status of each decision (docs/guide/cli.md): 0 pass, 1 fail, 3 continue.
EXIT_CODES: dict[str, int] = {"pass": EXIT_OK, "fail": EXIT_FAIL, "continue": EXIT_CONTINUE}

ASSUMPTIONS = (
    "runs of a task are independent given the task's success rate, each from a clean state",
    "the tasks are fixed in advance: the estimand is the (weighted) mean over these tasks "
    "(benchmark scope)",
    "round r is every task's r-th block of k decided runs in trial order; only complete "
    "rounds count",
    "whether a run goes unscored does not depend on the outcome it would have had",
)
PAIRED = (
    "the baseline's and the candidate's runs of a task are independent of each other; round r "
    "pairs the r-th block of a task in both builds",
)


@dataclass(frozen=True, eq=False)
class SequentialResult:
    """A gate's decision with its e-values, confidence sequence and projection.

    Attributes
    ----------
    decision : "pass", "fail" or "continue"
    mode : "bound" or "baseline"
        A failure bound (``max_failure_rate``) or a comparison with a baseline (``margin``).
    estimand : str
        What is bounded, in words.
    metric, k, alpha : str, int, float
    null : float
        The failure bound f₀, or −δ (the candidate-minus-baseline difference at the margin).
    estimate : float
        The estimand's value from the complete rounds (a failure rate, or a difference).
    lower, upper : float
        The confidence sequence: each side holds with probability ≥ 1 − α at every round.
    e_pass, e_fail : float
        E-values for "pass" and "fail"; either decides when it reaches ``1 / alpha``.
    rounds, tasks : int
        Complete rounds used and tasks per round.
    runs_used, runs_set_aside : int
        Decided runs inside the complete rounds and beyond them (both builds together).
    further_rounds, further_runs : int or None
        If the data keep arriving at the current estimate: rounds, and decided runs to
        take (both builds), until the gate decides; None when it is not expected to
        (the estimate sits at the bound) or already decided (0).
    projected : "pass", "fail" or None
        The decision that projection reaches.
    reasoning : str
    assumptions, warnings : tuple of str
    systems : dict
        ``{"candidate": name}`` (and ``"baseline"``).
    """

    decision: Decision
    mode: Literal["bound", "baseline"]
    estimand: str
    metric: str
    k: int
    alpha: float
    null: float
    estimate: float
    lower: float
    upper: float
    e_pass: float
    e_fail: float
    rounds: int
    tasks: int
    runs_used: int
    runs_set_aside: int
    further_rounds: int | None
    further_runs: int | None
    projected: Decision | None
    reasoning: str
    assumptions: tuple[str, ...] = ASSUMPTIONS
    warnings: tuple[str, ...] = ()
    systems: dict[str, str] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        """0 pass, 1 fail, 3 continue (the CLI's exit status)."""
        return EXIT_CODES[self.decision]

    @property
    def threshold(self) -> float:
        """The e-value that decides: 1/α."""
        return 1.0 / self.alpha

    def summary(self) -> str:
        """One line fit for a CI log."""
        line = f"passhat gate: {self.decision}: {self.reasoning.split(': ', 1)[-1].split('. ')[0]}"
        return line.rstrip(".") + "."

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary (every field, plus the exit code and threshold)."""
        return {
            "decision": self.decision,
            "exit_code": self.exit_code,
            "mode": self.mode,
            "estimand": self.estimand,
            "metric": self.metric,
            "k": self.k,
            "alpha": self.alpha,
            "null": self.null,
            "estimate": self.estimate,
            "lower": self.lower,
            "upper": self.upper,
            "e_pass": self.e_pass,
            "e_fail": self.e_fail,
            "threshold": self.threshold,
            "rounds": self.rounds,
            "tasks": self.tasks,
            "runs_used": self.runs_used,
            "runs_set_aside": self.runs_set_aside,
            "further_rounds": self.further_rounds,
            "further_runs": self.further_runs,
            "projected": self.projected,
            "reasoning": self.reasoning,
            "assumptions": list(self.assumptions),
            "warnings": list(self.warnings),
            **{f"{k}_system": v for k, v in self.systems.items()},
        }

    def table(self) -> pd.DataFrame:
        """The decision's numbers as a two-column table (quantity, value) of display text."""
        rows = [
            ("estimand", self.estimand),
            ("estimate", _num(self.estimate, self.mode)),
            (
                f"{1 - self.alpha:.0%} anytime bounds",
                f"{_num(self.lower, self.mode)} … {_num(self.upper, self.mode)}",
            ),
            (
                "e-value for pass / fail",
                f"{_e(self.e_pass)} / {_e(self.e_fail)} (decide at {self.threshold:g})",
            ),
            (
                "complete rounds",
                f"{self.rounds} × {self.tasks} task{'' if self.tasks == 1 else 's'} × "
                f"{self.k} run(s)",
            ),
            ("runs used / set aside", f"{self.runs_used} / {self.runs_set_aside}"),
            (
                "further runs to decide",
                "—" if self.further_runs is None else f"{self.further_runs} ({self.projected})",
            ),
        ]
        return pd.DataFrame(rows, columns=["quantity", "value"])

    def _view(self) -> View:
        notes = (self.reasoning, *self.warnings, "Assumes: " + "; ".join(self.assumptions) + ".")
        return View(f"gate: {self.decision}", self.table(), notes)

    def __repr__(self) -> str:
        return as_text(self._view())

    def _repr_html_(self) -> str:
        return as_html(self._view())


def _e(x: float) -> str:
    if not math.isfinite(x) or x >= 1e6:
        return f"{x:.3g}"
    return f"{x:.3g}" if x < 100 else f"{x:,.0f}"


def _num(x: float, mode: str) -> str:
    return pct(x, 2) if mode == "bound" else f"{x:+.4f}"


def gate_reasoning(
    decision: Decision,
    subject: str,
    pass_text: str,
    fail_text: str,
    estimate_text: str,
    e_pass: float,
    e_fail: float,
    alpha: float,
    rounds: int,
    used: int,
    steps: int | None,
    further: int | None,
    projected: Decision | None,
    *,
    short: str | None,
    guarantee: str,
) -> str:
    """The sentences that explain a gate's decision (``SequentialResult.reasoning``).

    ``subject`` is what is tested, ``pass_text`` / ``fail_text`` what a pass / fail
    shows, ``estimate_text`` the estimate with its confidence sequence; ``steps`` and
    ``further`` the projected rounds and runs (None when none is expected to decide);
    ``short`` says why no round is complete; ``guarantee`` the anytime-valid promise.

    Examples
    --------
    >>> gate_reasoning("continue", "x", "below 5%", "above 5%", "0%", 1.0, 1.0, 0.05, 0, 0,
    ...                None, None, None, short="task 'a' has 0 decided run(s)", guarantee="")[:38]
    'continue: no complete round yet (task '
    """
    t = 1 / alpha
    if rounds == 0:
        return (
            f"continue: no complete round yet ({short}); the gate counts complete rounds only, "
            "so that it stays valid however often it is checked."
        )
    where = f"after {rounds} complete round(s) ({used} run{'' if used == 1 else 's'})"
    if decision == "pass":
        return (
            f"pass: {subject} is shown {pass_text}: e-value {_e(e_pass)} ≥ 1/α = {t:g} {where}; "
            f"{estimate_text}. Anytime-valid: {guarantee}."
        )
    if decision == "fail":
        return (
            f"fail: {subject} is shown {fail_text}: e-value {_e(e_fail)} ≥ 1/α = {t:g} {where}; "
            f"{estimate_text}."
        )
    text = (
        f"continue: {subject} is not yet shown {pass_text} nor {fail_text} {where}: "
        f"{estimate_text}; e-values {_e(e_pass)} for pass and {_e(e_fail)} for fail, "
        f"either decides at {t:g}."
    )
    if steps is not None and further is not None:
        text += (
            f" If the estimate holds, about {further} more run(s) ({steps} more round(s)) "
            f"decide: {projected}."
        )
    else:
        text += " At the current estimate no number of further runs is expected to decide."
    return text
