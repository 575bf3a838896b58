"""The reliability marker's verdict on one test: :class:`ReliabilityResult` and its words.

:func:`passhat.pytest_plugin.reliability.reliability` builds it (the plugin does, once per
marked test); this module holds the numbers and says them: one line for the terminal summary
(:meth:`ReliabilityResult.line`), the reasoning, and the display a notebook and ``repr``
show. Nothing here computes a bound.

Examples
--------
>>> from passhat.pytest_plugin.reliability import reliability
>>> res = reliability([True] * 30, k=2, min_pass_hat=0.7)
>>> print(res.line())
pass: pass^2 ≥ 0.706 (95% anytime lower bound; goal 0.7) after 24 runs, 0 failed
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import pandas as pd

from passhat._format import plural
from passhat._repr import Display, View
from passhat._result import Result
from passhat.planner.sequential_result import SequentialResult

__all__ = ["ASSUMPTIONS", "ReliabilityResult", "Verdict"]

#: The marker's verdict: "continue" only for runs replayed before a decision and before
#: ``max_runs``; "undecided" when ``max_runs`` runs did not decide.
Verdict = Literal["pass", "fail", "continue", "undecided"]

ASSUMPTIONS = (
    "the test's runs are independent with one pass rate p (each from a fresh start: "
    "function-scoped fixtures are set up again for every run), so pass^k = p^k and the goal "
    "on pass^k is the goal min_pass_hat^(1/k) on p",
    "the gate looks after every decided run; its error rates hold whenever it stops",
    "an unscored run (an exception named in unscored=...) says nothing about p: it is counted, "
    "not used",
)


@dataclass(frozen=True, repr=False, eq=False)
class ReliabilityResult(Result):
    """The marker's verdict on one test, with the bounds on its pass^k.

    Attributes
    ----------
    test : str
        The test (pytest's node id), or "" outside pytest.
    k, min_pass_hat, ci, max_runs : int, float, float, int
        The marker's goal: pass^k above ``min_pass_hat`` at level ``ci`` within ``max_runs``.
    undecided : str
        What an undecided test reports ("pass", "fail" or "skip").
    decision : "pass", "fail", "continue" or "undecided"
    runs, decided, failures, unscored : int
        Runs taken (every one), decided runs, failures among them, unscored runs.
    left_over : int
        Runs given after the decision (replayed outcomes only; the marker stops there).
    estimate : float
        The unbiased pass^k of the decided runs, C(c, k) / C(n, k) (NaN when n < k).
    lower, upper : float
        Anytime-valid bounds on pass^k at level ``ci`` each side: (1 − the gate's bounds
        on the per-run failure rate)^k.
    gate : SequentialResult or None
        The gate's own result on the decided runs (:func:`passhat.plan.sequential`, k = 1,
        ``max_failure_rate`` = 1 − min_pass_hat^(1/k)); None before the first decided run.
    """

    schema: ClassVar[str] = "reliability"

    test: str
    k: int
    min_pass_hat: float
    ci: float
    max_runs: int
    undecided: str
    decision: Verdict
    runs: int
    decided: int
    failures: int
    unscored: int
    left_over: int
    estimate: float
    lower: float
    upper: float
    gate: SequentialResult | None

    @property
    def outcome(self) -> Literal["passed", "failed", "skipped"]:
        """What pytest reports: a fail fails; an undecided test reports ``undecided``."""
        if self.decision == "fail" or (self.decision == "undecided" and self.undecided == "fail"):
            return "failed"
        if self.decision == "undecided" and self.undecided == "skip":
            return "skipped"
        return "passed"

    @property
    def reasoning(self) -> str:
        """Why the marker decided as it did, in sentences."""
        return _reasoning(self)

    def line(self) -> str:
        """One line for the terminal summary: the decision, the bound that decided, the runs."""
        return _line(self)

    def _fields(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "decision": self.decision,
            "outcome": self.outcome,
            "k": self.k,
            "min_pass_hat": self.min_pass_hat,
            "min_rate": self.min_pass_hat ** (1 / self.k),
            "ci": self.ci,
            "max_runs": self.max_runs,
            "undecided": self.undecided,
            "runs": self.runs,
            "decided": self.decided,
            "failures": self.failures,
            "unscored": self.unscored,
            "left_over": self.left_over,
            "estimate": self.estimate,
            "lower": self.lower,
            "upper": self.upper,
        }

    def to_frame(self) -> pd.DataFrame:
        """The verdict's figures in one row."""
        return pd.DataFrame([self._fields()])

    def _document(self) -> dict[str, Any]:
        gate = self.gate.to_dict() if self.gate is not None else None
        return {
            "reliability": {
                **self._fields(),
                "reasoning": self.reasoning,
                "assumptions": list(ASSUMPTIONS),
            },
            "gate": None if gate is None else gate["gate"],
        }

    def table(self) -> pd.DataFrame:
        """The verdict's numbers as (quantity, value) display text."""
        label = f"pass^{self.k}"
        rows = [
            ("goal", f"{label} ≥ {self.min_pass_hat:g} (per run: p ≥ {_g(self._min_rate)})"),
            ("estimate", f"{label} = {_g(self.estimate)} (unbiased, from the decided runs)"),
            (f"{self.ci:.0%} anytime bounds", _bounds(self)),
            ("runs", _runs_text(self)),
            ("most runs", str(self.max_runs)),
        ]
        if self.gate is not None:
            g = self.gate
            rows.append(
                (
                    "e-value for pass / fail",
                    f"{g.e_pass:.3g} / {g.e_fail:.3g} (decide at {1 / g.alpha:g})",
                )
            )
        return pd.DataFrame(rows, columns=["quantity", "value"])

    def view(self) -> Display:
        """The reasoning, then the numbers and the assumptions."""
        notes = ("Assumes: " + "; ".join(ASSUMPTIONS) + ".",)
        return Display(
            (
                View("", None, lines=(self.reasoning,)),
                View(
                    f"passhat reliability: {self.decision}"
                    + (f": {self.test}" if self.test else ""),
                    self.table(),
                    notes=notes,
                    left=frozenset({"quantity", "value"}),
                ),
            )
        )

    @property
    def _min_rate(self) -> float:
        return float(self.min_pass_hat ** (1 / self.k))


# ------------------------------------------------------------------------------ words
def _g(x: float) -> str:
    """A rate with three decimals ("—" when missing)."""
    return f"{x:.3f}" if math.isfinite(x) else "—"


def _bound(x: float, side: Literal["lower", "upper"], goal: float) -> str:
    """A bound rounded outwards (down for a lower bound, up for an upper one), with the decimals
    it needs to differ from the goal (up to 6): 0.7003 above a goal of 0.7 reads 0.7003."""
    if not math.isfinite(x):
        return "—"
    for d in range(3, 7):
        scaled = x * 10**d
        v = (math.floor(scaled + 1e-9) if side == "lower" else math.ceil(scaled - 1e-9)) / 10**d
        if v != goal:
            break
    return f"{v:.{d}f}"


def _bounds(res: ReliabilityResult) -> str:
    goal = res.min_pass_hat
    return f"{_bound(res.lower, 'lower', goal)} … {_bound(res.upper, 'upper', goal)}"


def _runs_text(res: ReliabilityResult) -> str:
    text = f"{plural(res.runs, 'run')}, {res.failures} failed"
    if res.unscored:
        text += f", {res.unscored} unscored (not used)"
    return text


def _line(res: ReliabilityResult) -> str:
    label, goal, level = f"pass^{res.k}", f"{res.min_pass_hat:g}", f"{res.ci:.0%}"
    lower = _bound(res.lower, "lower", res.min_pass_hat)
    upper = _bound(res.upper, "upper", res.min_pass_hat)
    if res.decision == "pass":
        bound = f"{label} ≥ {lower} ({level} anytime lower bound; goal {goal})"
    elif res.decision == "fail":
        bound = f"{label} ≤ {upper} ({level} anytime upper bound; goal {goal})"
    else:
        bound = f"{label} in [{lower}, {upper}] ({level} anytime bounds; goal {goal})"
    head: str = res.decision
    if res.decision == "undecided":
        head = f"undecided (reported as {res.outcome})"
    return f"{head}: {bound} after {_runs_text(res)}"


def _reasoning(res: ReliabilityResult) -> str:
    label, goal, level = f"pass^{res.k}", f"{res.min_pass_hat:g}", f"{res.ci:.0%}"
    bounds = f"{level} anytime bounds {_bounds(res)}"
    where = f"after {_runs_text(res)}"
    guarantee = (
        f"The chance that the marker ever passes a test whose {label} is {goal} or less is at "
        f"most {1 - res.ci:.0%} (and as much for ever failing one whose {label} is {goal} or "
        "more), although it looks after every run"
    )
    if res.decision == "pass":
        text = f"pass: {label} is shown above {goal} {where} ({bounds}). {guarantee}."
    elif res.decision == "fail":
        text = f"fail: {label} is shown below {goal} {where} ({bounds})."
    elif res.decision == "undecided":
        text = (
            f"undecided: {label} is not shown above or below {goal} within max_runs = "
            f"{res.max_runs} runs ({bounds}, the goal inside them); reported as {res.outcome} "
            f"(undecided={res.undecided!r})."
        )
    else:
        text = f"continue: {label} is not yet shown above or below {goal} {where} ({bounds})."
    if res.left_over:
        after = "beyond max_runs" if res.decision == "undecided" else "after the decision"
        text += f" The {plural(res.left_over, 'run')} {after} are not used."
    return text
