"""The result of :func:`passhat.plan.power` (:class:`PowerResult`) and the words it shows.

One result for the three shapes of the question: a single answer (one quantity left out), a
table of designs (the tasks each runs-per-task choice needs, the cheapest marked) and a grid
(a sequence of tasks and of runs per task). Every answer carries its sensitivity to the
between-system correlation ρ. The sentences (:func:`power_reasoning`, :func:`power_method`,
the sensitivity lines) are built here from the numbers :mod:`passhat.planner.power` computed.

Examples
--------
>>> from passhat import plan
>>> r = plan.power(delta=0.1, tasks=60, runs_per_task=5, prior=plan.Assumptions(mean=0.6, icc=0.3))
>>> r.kind, r.answer()
('answer', 'power = 51.97%')
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import pandas as pd

from passhat._format import fixed, pct, plural
from passhat._repr import Display, View
from passhat._result import records
from passhat.planner._checks import label
from passhat.planner.pilot import rho_text
from passhat.planner.result import PlanResult, cells, explain_lines

__all__ = ["PowerResult", "power_method", "power_reasoning", "sensitivity_lines"]

_DESIGNS = (
    ("runs_per_task", "runs/task", "d"),
    ("tasks", "tasks", "d"),
    ("runs", "runs/system", "d"),
    ("sd_difference", "SD of difference", ".3f"),
    ("power", "power", ".3f"),
    ("method", "by", ""),
    ("optimal", "opt", ""),
)
_SIMULATED = (
    ("tasks", "tasks", "d"),
    ("runs_per_task", "runs/task", "d"),
    ("power_t_test", "power (t-test)", ".3f"),
    ("power_sign_flip", "power (sign-flip, computed)", ".3f"),
    ("power", "power (sign-flip, simulated)", ".3f"),
    ("mc_error", "± MC error", ".3f"),
)
#: Above this share of benchmarks tested by compare's fallback, the answer says so.
FALLBACK_NOTE = 0.01
_ANALYTIC = (
    ("tasks", "tasks", "d"),
    ("runs_per_task", "runs/task", "d"),
    ("delta", "delta", ".4f"),
    ("power", "power", ".3f"),
    ("sd_difference", "SD of difference", ".3f"),
)


def _tasks(t: int) -> str:
    """ "task" or "tasks" after a count."""
    return "task" if t == 1 else "tasks"


def _shown(v: Any, solve: str) -> str:
    """An answer in the sensitivity table or the reasoning (None: out of reach)."""
    if v is None:
        return "out of reach"
    return pct(v) if solve == "power" else fixed(v, 4, sign=True) if solve == "delta" else f"{v:d}"


def _test_text(q: Mapping[str, Any]) -> str:
    """The test an answer's power is of: compare's sign-flip test or the paired t-test."""
    if q["method"] in ("simulation", "sign-flip"):
        return f"passhat compare's paired sign-flip test at α = {q['alpha']:g}"
    return f"a paired t-test at α = {q['alpha']:g} (not the test compare runs)"


def _beside(q: Mapping[str, Any]) -> str:
    """The other computed power at the design, and how often compare would use its fallback."""
    if q["method"] == "t-test":
        text = (
            f" compare's sign-flip test has {pct(q['power_sign_flip'])} power at this design "
            "(the default method computes it)."
        )
    elif q["method"] == "simulation":
        text = (
            f" Computed, the sign-flip test has {pct(q['power_sign_flip'])}; the paired t-test "
            f"would promise {pct(q['power_t_test'])}."
        )
    else:
        text = f" (The paired t-test would promise {pct(q['power_t_test'])}.)"
    share = q.get("fallback_share", math.nan)
    if q["method"] != "simulation" and math.isfinite(share) and share > FALLBACK_NOTE:
        text += (
            f" In {pct(share, 1)} of such benchmarks fewer than 10 tasks would differ and compare "
            "would use its fallback test, which this computation does not model: "
            "method='simulation' runs it."
        )
    return text


def power_reasoning(
    solve: str, q: Mapping[str, Any], *, target: float | None, measured_on: Any, kind: str
) -> str:
    """The reasoning of one answer: the design and its power, then where ρ came from.

    ``q`` holds the answer's quantities (delta, tasks, runs_per_task, power, alpha, metric, k,
    sd_difference, baseline_value, correlation, correlation_source, sensitivity, method,
    power_sign_flip, power_t_test, fallback_share and, simulated, mc_error); ``measured_on``
    the pilot's tasks and ``kind`` its correlation's kind.
    """
    dl, t, n, pw = q["delta"], q["tasks"], q["runs_per_task"], q["power"]
    lab, test = label(q["metric"], q["k"]), _test_text(q)
    mc = f" (±{pct(q['mc_error'], 1)} Monte-Carlo s.e.)" if q["method"] == "simulation" else ""
    if solve == "power":
        text = (
            f"With {t} matched {_tasks(t)} × {plural(int(n), 'run')} per system, {test} detects "
            f"a difference of {fixed(dl, sign=True)} in {lab} with probability {pct(pw)}{mc}."
        )
    elif solve == "tasks":
        text = (
            f"{t} matched {_tasks(t)} × {plural(int(n), 'run')} per system give {test} "
            f"{pct(pw)}{mc} power to detect {fixed(dl, sign=True)} in {lab} (per-task "
            "difference SD "
            f"{fixed(q['sd_difference'])}; {t - 1} tasks would fall short)."
        )
    elif solve == "runs_per_task":
        text = (
            f"{n} runs per task on {t} matched tasks give {test} {pct(pw)}{mc} power to detect "
            f"{fixed(dl, sign=True)} in {lab}; more runs shrink only the within-task part of "
            "the difference's spread."
        )
    else:
        text = (
            f"With {t} matched {_tasks(t)} × {plural(int(n), 'run')} per system, the smallest "
            f"improvement in {lab} {test} detects with {pct(target)} power is "
            f"{fixed(dl, 4, sign=True)} (from {fixed(q['baseline_value'])})."
        )
    text += _beside(q)
    sens, rho_used = q["sensitivity"], q["correlation"]
    if q["correlation_source"] == "assumed":
        lo, hi = sens[0], sens[-1]
        text += (
            f" The between-system correlation ρ = {rho_used:g} is assumed, not measured, and "
            f"decides the answer: {solve.replace('_', ' ')} {_shown(lo[solve], solve)} at ρ = "
            f"{lo['correlation']:g}, {_shown(hi[solve], solve)} at ρ = {hi['correlation']:g} "
            "(sensitivity table); paired pilot runs measure it."
        )
    elif q["correlation_source"] == "measured":
        text += (
            f" The spread of per-task differences is measured on {measured_on} "
            f"paired pilot tasks ({kind} ρ̂ = {rho_text(rho_used)})."
        )
    return text


def power_method(q: Mapping[str, Any], *, measured: bool) -> str:
    """How the power was computed (``q``: the answer's quantities)."""
    if q["method"] == "simulation":
        return (
            f"simulation of {q['replicates']} benchmarks from the model (seed {q['seed']}), each "
            "tested as passhat compare tests it: the sign-flip permutation test (every sign "
            f"pattern, or {q['n_flips']} random flips), its fallback where fewer than 10 tasks "
            f"differ; Monte-Carlo s.e. {fixed(q['mc_error'], 3)}"
        )
    if q["method"] == "sign-flip":
        d_how = (
            "a normal per-task difference with the measured SD"
            if measured
            else "the model's exact moments of the per-task difference"
        )
        return (
            "power of compare's two-sided sign-flip test, computed (no simulation): a normal "
            "approximation with the test's own conditional variance Σ Dᵢ², a lattice "
            f"(continuity) correction and Edgeworth terms, from {d_how}; within about half a "
            "point of simulated power in reports/planned_power"
        )
    sd_how = "the measured" if measured else "the model's exact"
    return (
        f"paired t-test power (noncentral t) with {sd_how} per-task difference SD: not the test "
        "compare runs (its sign-flip test has 1–3 points less at a few runs per task; the "
        "default method computes it)"
    )


def designs_reasoning(
    delta: float, power: float, alpha: float, lab: str, best: Mapping[str, Any]
) -> str:
    """The reasoning of a table of designs: the cheapest and why more runs help little."""
    how = {
        "simulation": "its tasks by simulation of passhat compare's sign-flip test; rows marked "
        "sign-flip by its computed power",
        "sign-flip": "power of passhat compare's sign-flip test, computed",
    }.get(str(best.get("method")), "by the paired t-test approximation, not compare's test")
    return (
        f"To detect {fixed(float(delta), sign=True)} in {lab} with "
        f"{pct(float(power), 0)} power "
        f"at α = {alpha:g}, the cheapest design is {int(best['tasks'])} matched "
        f"{_tasks(int(best['tasks']))} × {plural(int(best['runs_per_task']), 'run')} per system "
        f"(cost {best['cost']:g} per system; {how}); more runs per task shrink only the "
        "within-task part of each "
        "paired difference."
    )


def grid_reasoning(
    delta: float | None,
    alpha: float,
    lab: str,
    replicates: int | None,
    *,
    solve: str = "power",
    power: float | None = None,
    method: str = "sign-flip",
) -> str:
    """The reasoning of a grid: what was solved for at each design, computed how."""
    how = (
        "compare's sign-flip test, its power computed (normal approximation with the test's "
        "conditional variance, lattice correction)"
        if method == "sign-flip"
        else "the paired t-test approximation (noncentral t; not compare's test, whose sign-flip "
        "test can have a few points less)"
    )
    if solve != "power" or delta is None:
        parts = [f"to detect {fixed(delta, sign=True)}" if delta is not None else ""]
        parts.append(f"with {pct(power)} power" if power is not None else "")
        goal = " ".join(p for p in parts if p)
        return (
            f"The {solve.replace('_', ' ')} each design needs {goal} in {lab} with a paired "
            f"test at α = {alpha:g}: {how}."
        )
    if replicates is None:
        return (
            f"Power of a paired test at α = {alpha:g} to detect {fixed(delta, sign=True)} in "
            f"{lab}: {how}."
        )
    return (
        f"Power of passhat compare's paired test at α = {alpha:g} to detect "
        f"{fixed(delta, sign=True)} in {lab}: {replicates} simulated benchmarks per design, "
        "each tested as compare tests it (sign-flip permutation test; Monte-Carlo s.e. "
        "shown), beside its computed power and the paired t-test's (noncentral t)."
    )


def sensitivity_lines(q: Mapping[str, Any], solve: str, where: str = "") -> tuple[str, ...]:
    """The answer at each between-system correlation, the one used marked."""
    rows = q.get("sensitivity") or []
    if not rows:
        return ()
    kind = (
        "latent correlation of a task's rates"
        if q["correlation_source"] != "measured"
        else "correlation of per-task values"
    )
    rho = rho_text(q["correlation"])
    test = "paired t-test" if q.get("method") == "t-test" else "sign-flip test, computed"
    out = [f"Sensitivity to ρ{where} ({kind}; {q['correlation_source']} ρ = {rho}; {test}):"]
    for r in rows:
        sd = "" if not math.isfinite(r["sd_difference"]) else f" (SD {fixed(r['sd_difference'])})"
        mark = "  ← used" if r["used"] else ""
        out.append(
            f"  ρ = {fixed(r['correlation'], 2)}: {solve.replace('_', ' ')} "
            f"{_shown(r[solve], solve)}{sd}{mark}"
        )
    return tuple(out)


@dataclass(frozen=True, repr=False, eq=False)
class PowerResult(PlanResult):
    """Result of :func:`passhat.plan.power`: a :class:`~passhat.plan.PlanResult` with its table.

    Attributes
    ----------
    kind : {"answer", "designs", "grid"}
        One answer; the tasks each runs-per-task choice needs (``solved_for`` "tasks",
        ``value`` the cheapest design's tasks); or a grid over sequences of tasks and runs
        per task (``value`` NaN: the answers are in ``table``).
    table : pandas.DataFrame
        The answer's design (one row), the designs (runs_per_task, tasks, runs, cost,
        sd_difference, power, optimal) or the grid (analytic: delta, tasks, runs_per_task,
        power, sd_difference; simulated: tasks, runs_per_task, power, mc_error, replicates,
        power_sign_flip, power_t_test, seed).
    replicates : int, optional
        Simulated benchmarks per design of a simulated grid.

    ``quantities`` holds, for an answer, every input and derived number and the
    ``sensitivity`` of the answer to ρ (for designs: the first design's); ``source`` where
    the pilot runs or the runs behind the prior came from.
    """

    schema: ClassVar[str] = "plan_power"

    kind: Literal["answer", "designs", "grid"] = "answer"
    table: pd.DataFrame = field(default_factory=pd.DataFrame)
    replicates: int | None = None

    @property
    def optimum(self) -> dict[str, Any]:
        """The cheapest design of a table of designs (an answer's design otherwise)."""
        t = self.table
        rows = t[t["optimal"]] if "optimal" in t.columns else t
        return dict(rows.iloc[0].to_dict())

    def to_frame(self) -> pd.DataFrame:
        """The answer's design (one row), the table of designs, or the grid."""
        return self.table.copy()

    def _document(self) -> dict[str, Any]:
        head = {"input": dict(self.source)} if self.source is not None else {}
        q = self.quantities
        if self.kind == "answer":
            return super()._document()
        if self.kind == "designs":
            return {
                **head,
                "optimum": self.optimum,
                "reasoning": self.reasoning,
                "assumptions": list(self.assumptions),
                "method": self.method,
                "correlation": q["correlation"],
                "correlation_source": q["correlation_source"],
                "sensitivity": q["sensitivity"],
                "table": records(self.table),
            }
        return {
            **head,
            "reasoning": self.reasoning,
            "assumptions": list(self.assumptions),
            "replicates": self.replicates,
            "grid": records(self.table),
        }

    def answer(self) -> str:
        """The answer in words (an answer's first line; the cheapest of a table of designs)."""
        if self.kind == "designs":
            best = self.optimum
            return (
                f"{plural(int(best['tasks']), 'task')} × "
                f"{plural(int(best['runs_per_task']), 'run')} per task per system "
                f"({best['runs']} runs per system)"
            )
        if self.kind == "grid":
            if self.solved_for == "power":
                return f"power to detect {self.quantities['delta']:+g}"
            return f"{self.solved_for.replace('_', ' ')} by design"
        return super().answer()

    def view(self) -> Display:
        """What ``passhat plan power`` prints: the answer, reasoning, method and assumptions,
        the table of designs or the grid, and the sensitivity to ρ."""
        q = self.quantities
        if self.kind == "grid":
            cols = _SIMULATED if "mc_error" in self.table.columns else _ANALYTIC
            return Display(
                (
                    View("", None, lines=explain_lines(self.reasoning, None, self.assumptions)),
                    View(self.answer(), cells(self.table, cols), left=frozenset()),
                )
            )
        top = View(
            self.answer(), None, lines=explain_lines(self.reasoning, self.method, self.assumptions)
        )
        if self.kind == "answer":
            return Display((top, View("", None, lines=sensitivity_lines(q, self.solved_for))))
        title = (
            f"tasks needed per runs per task (ρ = {rho_text(q['correlation'])}, "
            f"{q['correlation_source']})"
        )
        where = f" at {int(self.table['runs_per_task'].iloc[0])} runs per task"
        return Display(
            (
                top,
                View(title, cells(self.table, _DESIGNS), left=frozenset()),
                View("", None, lines=sensitivity_lines(q, "tasks", where)),
            )
        )
