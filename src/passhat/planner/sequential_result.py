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

#: Tasks named in the rerun warning (the JSON's ``reruns`` lists every one).
_SHOWN_RERUNS = 10

Decision = Literal["pass", "fail", "continue"]

#: Exit status of each decision (docs/guide/cli.md): 0 pass, 1 fail, 3 continue.
EXIT_CODES: dict[str, int] = {"pass": EXIT_OK, "fail": EXIT_FAIL, "continue": EXIT_CONTINUE}

ASSUMPTIONS = (
    "runs of a task are independent given the task's success rate, each from a clean state",
    "the tasks are fixed in advance: the estimand is the (weighted) mean over these tasks "
    "(benchmark scope)",
    "round r is every task's r-th block of k decided runs in trial order; a block still "
    "missing runs counts as the outcome least favourable to each decision until they arrive",
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
    top : int
        The rounds the gate reached (every decided run up to there is used; more than
        ``rounds`` when tasks have unequal decided runs).
    reruns : tuple of (str, int)
        The tasks whose blocks are not all complete up to ``top``, and the decided runs each
        still needs (an unscored run to redo, a run not made yet).
    """

    system: str
    k: int
    rounds: int
    unscored: int = 0
    set_aside: int = 0
    decided_min: int = 0
    decided_max: int = 0
    shortest_task: str = ""
    top: int = 0
    reruns: tuple[tuple[str, int], ...] = ()

    @property
    def rerun_total(self) -> int:
        """Decided runs still needed to complete ``top`` rounds."""
        return sum(n for _, n in self.reruns)


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
        Complete rounds (every task has them) and tasks per round.
    runs_used, runs_set_aside : int
        Decided runs inside the rounds reached (``candidate.top``: every decided run up to
        the most complete blocks a task has) and beyond them (both builds together).
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
    def top(self) -> int:
        """The rounds reached: the e-values see every decided run up to here (an incomplete
        block counted against each decision); ``rounds`` when every task has them all."""
        return max(self.candidate.top, self.rounds)

    @property
    def reruns(self) -> pd.DataFrame:
        """The tasks whose blocks are incomplete up to :attr:`top`: build, system, task and
        the decided runs it still needs (an unscored run to redo, or a run not made yet)."""
        rows = [
            {"build": role, "system": b.system, "task": task, "runs": n}
            for role, b in (("candidate", self.candidate), ("baseline", self.baseline))
            if b is not None
            for task, n in b.reruns
        ]
        return pd.DataFrame(rows, columns=["build", "system", "task", "runs"])

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
            "rounds_reached": self.top,
            "tasks": self.tasks,
            "runs_used": self.runs_used,
            "runs_set_aside": self.runs_set_aside,
            "further_rounds": self.further_rounds,
            "further_runs": self.further_runs,
            "projected": self.projected,
            "reruns": self.reruns.to_dict(orient="records"),
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
            *_reached_rows(self),
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


def _reached_rows(res: SequentialResult) -> list[tuple[str, str]]:
    """The table's rows on rounds not every task has completed (none when all have)."""
    if res.top <= res.rounds:
        return []
    builds = [b for b in (res.baseline, res.candidate) if b is not None]
    need = sum(b.rerun_total for b in builds)
    tasks = sum(len(b.reruns) for b in builds)
    return [
        (
            "rounds with every decided run",
            f"{res.top} (incomplete blocks count against each decision)",
        ),
        (f"runs to complete round {res.top}", f"{need} on {plural(tasks, 'task')} (reruns)"),
    ]


def _short_task(b: GateBuild) -> str:
    return f"task {b.shortest_task!r} has {b.decided_min} decided run(s) and a round needs {b.k}"


def _claims(res: SequentialResult) -> tuple[str, str, str, str, str]:
    """What is tested, what a pass and a fail show, the estimate, and the guarantee."""
    a = res.alpha
    bounds = f"anytime {1 - a:.0%} bounds"
    if res.baseline is None:
        f0 = pct(res.null)
        value = (
            pct(res.estimate, 2) if res.rounds else "no estimate yet (a task has no complete block)"
        )
        return (
            f"the {res.estimand}",
            f"below {f0}",
            f"above {f0}",
            f"{value} ({bounds} {pct(res.lower, 2)}–{pct(res.upper, 2)})",
            f"the chance that this gate ever passes a system whose rate is {f0} or more "
            f"is at most {a:.0%}, however often it is checked",
        )
    margin = -res.null
    label = _label(res.metric, res.k)
    cand, base = res.candidate.system, res.baseline.system
    shown = "at most" if margin > 0 else "not"
    value = (
        f"difference {res.estimate:+.4f}"
        if res.rounds
        else "no estimate yet (a task has no complete block in both builds)"
    )
    return (
        f"{label} of {cand} against {base} ({res.tasks} tasks)",
        f"{shown} {margin:g} below the baseline" if margin > 0 else "above the baseline",
        f"more than {margin:g} below the baseline" if margin > 0 else "below the baseline",
        f"{value} ({bounds} {res.lower:+.4f} … {res.upper:+.4f})",
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
        f"continue: no complete round yet ({short}); no task has a complete block of "
        f"{res.k} decided run(s) yet."
    )


def _reasoning(res: SequentialResult) -> str:
    """The sentences that explain the decision, from its numbers."""
    if res.top == 0:
        return _no_round_yet(res)
    subject, pass_text, fail_text, estimate_text, guarantee = _claims(res)
    t, used = res.threshold, res.runs_used
    runs = f"{used} run{'' if used == 1 else 's'}"
    where = f"after {res.rounds} complete round(s) ({runs})"
    if res.top > res.rounds:
        where = (
            f"after {res.rounds} complete round(s) and every decided run up to round "
            f"{res.top} ({runs}; an incomplete block counts against each decision)"
        )
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
    lo, hi = b.decided_min, b.decided_max
    have = f"differ ({lo} to {hi})" if lo < hi else f"are {lo} on every task"
    if b.reruns:
        shown = ", ".join(f"{t} +{n}" for t, n in b.reruns[:_SHOWN_RERUNS])
        more = f" and {len(b.reruns) - _SHOWN_RERUNS} more" if len(b.reruns) > _SHOWN_RERUNS else ""
        out.append(
            f"{label}decided runs per task {have}: the gate uses every decided run up to round "
            f"{b.top} ({b.rounds} complete round(s) of {b.k} run(s) per task; a block still "
            "missing runs counts as the outcome least favourable to each decision); to "
            f"complete round {b.top}, {plural(len(b.reruns), 'task')} "
            f"{'needs' if len(b.reruns) == 1 else 'need'} "
            f"{plural(b.rerun_total, 'more decided run')}: {shown}{more}"
        )
    if b.set_aside == 0:
        return out
    return [
        *out,
        f"{label}decided runs per task {have}: the gate uses {max(b.top, b.rounds)} round(s) "
        f"of {b.k} run(s) per task and sets {b.set_aside} run(s) aside until a task completes "
        "another round",
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
            f"the gate pairs the first {res.top}"
        )
    return out
