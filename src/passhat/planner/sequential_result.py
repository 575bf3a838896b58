"""The result of an anytime-valid gate: :class:`SequentialResult`, what it shows and says.

:mod:`passhat.planner.sequential` decides; this module holds the decision's numbers
(:class:`SequentialResult`, with a :class:`GateBuild` per build: its rounds, the runs it set
aside, its shortest task) and turns them into words: the estimand, the reasoning, the
warnings and the one display ``passhat gate``, a notebook and ``repr`` show. Nothing here
computes an e-value.

Examples
--------
>>> EXIT_CODES["continue"]
3
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import pandas as pd

from passhat._format import pct, plural
from passhat._repr import Display, View
from passhat._result import Result
from passhat.errors import EXIT_CONTINUE, EXIT_FAIL, EXIT_OK
from passhat.estimators import METRIC_LABELS

__all__ = ["EXIT_CODES", "Decision", "GateBuild", "SequentialResult"]

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


@dataclass(frozen=True)
class GateBuild:
    """One build's runs as the gate cut them into rounds.

    Attributes
    ----------
    system : str
    k : int
        Runs per block.
    rounds : int
        Its complete rounds.
    unscored : int
        Runs without a verdict (never used).
    set_aside : int
        Decided runs beyond its complete rounds.
    decided_min, decided_max : int
        Fewest and most decided runs of a task.
    shortest_task : str
        The task with the fewest decided runs.
    """

    system: str
    k: int
    rounds: int
    unscored: int = 0
    set_aside: int = 0
    decided_min: int = 0
    decided_max: int = 0
    shortest_task: str = ""


@dataclass(frozen=True, repr=False, eq=False)
class SequentialResult(Result):
    """A gate's decision with its e-values, confidence sequence and projection.

    Attributes
    ----------
    decision : "pass", "fail" or "continue"
    mode : "bound" or "baseline"
        A failure bound (``max_failure_rate``) or a comparison with a baseline (``margin``).
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
    candidate, baseline : GateBuild
        Each build's rounds (``baseline`` None for a failure bound).
    source : dict
        Where the runs came from (``runs``, and ``baseline`` when read from a file of its
        own), as each reader recorded it.

    ``estimand``, ``reasoning``, ``warnings`` and ``assumptions`` say it in words.
    """

    schema: ClassVar[str] = "gate"

    decision: Decision
    mode: Literal["bound", "baseline"]
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
    candidate: GateBuild
    baseline: GateBuild | None = None
    source: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        """0 pass, 1 fail, 3 continue (the CLI's exit status)."""
        return EXIT_CODES[self.decision]

    @property
    def threshold(self) -> float:
        """The e-value that decides: 1/α."""
        return 1.0 / self.alpha

    @property
    def systems(self) -> dict[str, str]:
        """``{"candidate": name}`` (and ``"baseline"``)."""
        out = {"candidate": self.candidate.system}
        if self.baseline is not None:
            out["baseline"] = self.baseline.system
        return out

    @property
    def estimand(self) -> str:
        """What is bounded, in words."""
        return _estimand(self)

    @property
    def reasoning(self) -> str:
        """The sentences that explain the decision."""
        return _reasoning(self)

    @property
    def warnings(self) -> tuple[str, ...]:
        """Runs the gate does not use (unscored, set aside), and unequal rounds of two builds."""
        return tuple(_warnings(self))

    @property
    def assumptions(self) -> tuple[str, ...]:
        """What the guarantee assumes."""
        return ASSUMPTIONS + PAIRED if self.mode == "baseline" else ASSUMPTIONS

    def summary(self) -> str:
        """One line fit for a CI log."""
        line = f"passhat gate: {self.decision}: {self.reasoning.split(': ', 1)[-1].split('. ')[0]}"
        return line.rstrip(".") + "."

    def _fields(self) -> dict[str, Any]:
        """Every figure, the exit code and threshold, and the words (the JSON's ``gate``)."""
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

    def to_frame(self) -> pd.DataFrame:
        """The decision's figures in one row."""
        row = {k: v for k, v in self._fields().items() if not isinstance(v, list)}
        return pd.DataFrame([row])

    def _document(self) -> dict[str, Any]:
        return {"input": {k: dict(v) for k, v in self.source.items()}, "gate": self._fields()}

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

    def view(self, *, decision_only: bool = False) -> Display:
        """The reasoning, then (unless ``decision_only``: what ``passhat gate -q`` prints) the
        numbers, the warnings and the assumptions."""
        parts = [View("", None, lines=(self.reasoning,))]
        if not decision_only:
            notes = (
                *(f"note: {w}" for w in self.warnings),
                "Assumes: " + "; ".join(self.assumptions) + ".",
            )
            parts.append(
                View(
                    f"passhat gate: {self.decision} (exit {self.exit_code})",
                    self.table(),
                    notes=notes,
                    left=frozenset({"quantity", "value"}),
                )
            )
        return Display(tuple(parts))


# ------------------------------------------------------------------------------ words
def _e(x: float) -> str:
    if not math.isfinite(x) or x >= 1e6:
        return f"{x:.3g}"
    return f"{x:.3g}" if x < 100 else f"{x:,.0f}"


def _num(x: float, mode: str) -> str:
    return pct(x, 2) if mode == "bound" else f"{x:+.4f}"


def _label(metric: str, k: int) -> str:
    return METRIC_LABELS[metric].replace("k", str(k)) if metric != "mean" else "mean"


def _these(tasks: int) -> str:
    """ "these 5 tasks", or "this 1 task"."""
    return f"{'this' if tasks == 1 else 'these'} {plural(tasks, 'task')}"


def _estimand(res: SequentialResult) -> str:
    these, k = _these(res.tasks), res.k
    label = _label(res.metric, k)
    if res.baseline is not None:
        cand, base = res.candidate.system, res.baseline.system
        return f"{label} of {cand} − {label} of {base}, mean over {these}"
    if k == 1:
        return f"per-run failure rate (1 − mean) over {these}"
    if res.metric == "pass_at_k":
        return f"chance a task fails all {k} runs (1 − {label}), mean over {these}"
    return f"chance a task fails at least one of {k} runs (1 − {label}), mean over {these}"


def _short_task(b: GateBuild) -> str:
    return f"task {b.shortest_task!r} has {b.decided_min} decided run(s) and a round needs {b.k}"


def _claims(res: SequentialResult) -> tuple[str, str, str, str, str]:
    """What is tested, what a pass and a fail show, the estimate, and the guarantee."""
    a = res.alpha
    bounds = f"anytime {1 - a:.0%} bounds"
    if res.baseline is None:
        f0 = pct(res.null)
        return (
            f"the {res.estimand}",
            f"below {f0}",
            f"above {f0}",
            f"{pct(res.estimate, 2)} ({bounds} {pct(res.lower, 2)}–{pct(res.upper, 2)})",
            f"the chance that this gate ever passes a system whose rate is {f0} or more "
            f"is at most {a:.0%}, however often it is checked",
        )
    margin = -res.null
    label = _label(res.metric, res.k)
    cand, base = res.candidate.system, res.baseline.system
    shown = "at most" if margin > 0 else "not"
    return (
        f"{label} of {cand} against {base} ({res.tasks} tasks)",
        f"{shown} {margin:g} below the baseline" if margin > 0 else "above the baseline",
        f"more than {margin:g} below the baseline" if margin > 0 else "below the baseline",
        f"difference {res.estimate:+.4f} ({bounds} {res.lower:+.4f} … {res.upper:+.4f})",
        f"the chance that this gate ever passes a candidate more than {margin:g} below the "
        f"baseline is at most {a:.0%}, however often it is checked",
    )


def _no_round_yet(res: SequentialResult) -> str:
    """Why no round is complete: the build that has none, and its shortest task."""
    short = None
    if res.tasks:
        b = res.candidate
        if res.baseline is not None and res.baseline.rounds == 0:
            b = res.baseline
        short = _short_task(b)
    return (
        f"continue: no complete round yet ({short}); the gate counts complete rounds only, "
        "so that it stays valid however often it is checked."
    )


def _reasoning(res: SequentialResult) -> str:
    """The sentences that explain the decision, from its numbers."""
    if res.rounds == 0:
        return _no_round_yet(res)
    subject, pass_text, fail_text, estimate_text, guarantee = _claims(res)
    t, used = res.threshold, res.runs_used
    where = f"after {res.rounds} complete round(s) ({used} run{'' if used == 1 else 's'})"
    if res.decision == "pass":
        return (
            f"pass: {subject} is shown {pass_text}: e-value {_e(res.e_pass)} ≥ 1/α = {t:g} "
            f"{where}; {estimate_text}. Anytime-valid: {guarantee}."
        )
    if res.decision == "fail":
        return (
            f"fail: {subject} is shown {fail_text}: e-value {_e(res.e_fail)} ≥ 1/α = {t:g} "
            f"{where}; {estimate_text}."
        )
    text = (
        f"continue: {subject} is not yet shown {pass_text} nor {fail_text} {where}: "
        f"{estimate_text}; e-values {_e(res.e_pass)} for pass and {_e(res.e_fail)} for fail, "
        f"either decides at {t:g}."
    )
    if res.further_rounds is not None and res.further_runs is not None:
        return text + (
            f" If the estimate holds, about {res.further_runs} more run(s) "
            f"({res.further_rounds} more round(s)) decide: {res.projected}."
        )
    return text + " At the current estimate no number of further runs is expected to decide."


def _set_aside(b: GateBuild, label: str) -> list[str]:
    """Runs the gate does not use: unscored ones (no verdict), and decided ones set aside."""
    out = []
    if b.unscored:
        out.append(
            f"{label}{b.unscored} unscored run(s) (no verdict: grader, harness or infrastructure "
            "error) are not decided runs: the gate does not count them"
        )
    if b.set_aside == 0:
        return out
    lo, hi = b.decided_min, b.decided_max
    have = f"differ ({lo} to {hi})" if lo < hi else f"are {lo} on every task"
    return [
        *out,
        f"{label}decided runs per task {have}: the gate uses {b.rounds} complete "
        f"round(s) of {b.k} run(s) per task and sets {b.set_aside} run(s) aside until every "
        "task has another round",
    ]


def _warnings(res: SequentialResult) -> list[str]:
    base, cand = res.baseline, res.candidate
    if base is None:
        return _set_aside(cand, "")
    out = _set_aside(base, "baseline: ") + _set_aside(cand, "candidate: ")
    if base.rounds != cand.rounds:
        more, less = (base, cand) if base.rounds > cand.rounds else (cand, base)
        who = "baseline" if more is base else "candidate"
        out.append(
            f"the {who} has {more.rounds} complete rounds and the other build {less.rounds}: "
            f"the gate pairs the first {res.rounds}"
        )
    return out
