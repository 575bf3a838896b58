"""The result of :func:`passhat.plan.next_runs` (:class:`NextRuns`): the batch, the numbers behind
it, and its explanation.

:meth:`NextRuns.explain` writes the sentences ``passhat plan next`` prints from the result's
typed fields (the interval now, after the batch and after even runs, named as standard errors;
the root-mean-square error the batch minimises; the prior and, for a stated one, how far these
runs lie from it; why the runs were spread evenly; the tasks that matter most; in the
population scope, new tasks against reruns). Nothing here computes a variance.

Examples
--------
>>> import passhat as ph
>>> r = ph.plan.next_runs(ph.load_example("agents"), budget=100, k=5, system="baseline")
>>> r.explain()[1]
'Prior of the task rates: Beta(μ=0.760, κ=0.435) fitted to these runs.'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from passhat._format import pct, plural
from passhat._repr import Display, View
from passhat._result import Result, records
from passhat.planner._checks import label
from passhat.planner.assumptions import Assumptions
from passhat.planner.next_runs_text import (
    HEDGE_START,
    NO_FLAKY,
    PRIOR_Z,
    change,
    prior_text,
    two_numbers,
)
from passhat.planner.run_cost import MoneyBudget

__all__ = ["Hedge", "NextRuns", "PriorCheck", "TasksVsRuns"]

#: Rows printed on a terminal (``to_dict``/``to_frame`` carry every row).
SHOWN = 20


@dataclass(frozen=True)
class Hedge:
    """The choice among the greedy batch, an even share plus greedy, and the even spread.

    Attributes
    ----------
    choice : {"greedy", "mixed", "uniform"}
    even_runs : int or None
        Runs every task gets first (0 for the greedy batch, None for the even spread).
    worst_ratio_greedy, mean_ratio_greedy : float
        The greedy batch's worst and mean ratio of squared error to the even spread's over
        the (μ, κ) points.
    worst_ratio_chosen : float
        The chosen batch's worst ratio.
    """

    choice: str
    even_runs: int | None
    worst_ratio_greedy: float
    mean_ratio_greedy: float
    worst_ratio_chosen: float


@dataclass(frozen=True)
class PriorCheck:
    """How these runs sit under a stated prior: z of their successes, their mean, its μ."""

    z: float
    mean_here: float
    mu: float


@dataclass(frozen=True)
class TasksVsRuns:
    """The free budget as new tasks at the usual runs per task, against the reruns."""

    free_runs: int
    runs_per_new_task: int
    new_tasks: int
    variance_new_tasks: float
    variance_reruns: float
    tasks_beat_runs: bool
    tasks_to_match_reruns: int | None


@dataclass(frozen=True, repr=False, eq=False)
class NextRuns(Result):
    """Result of :func:`passhat.plan.next_runs`: which tasks get the next runs, and why.

    Attributes
    ----------
    batch : pandas.DataFrame
        One row per task that gets runs, largest variance reduction first: ``system``,
        ``task``, ``runs``, ``successes``, ``status`` (flaky, all passed, all failed, too few
        runs), ``extra_runs``, ``variance_share`` (the task's share of the variance more runs
        can remove), ``variance_reduction``, ``width_reduction`` (of the interval width, this
        task's runs alone), ``reason``.
    system, metric, scope : str
    k : int
        k of pass^k / pass@k (1 for the mean).
    budget, spent : int
        Runs asked for, and allocated.
    tasks : int
        Tasks with runs.
    fewest_runs : int
        The fewest decided runs of a task.
    lacking : int
        Runs that went first to tasks with fewer runs than k.
    no_flaky : bool
        Every task passed all its runs or failed all of them.
    ci : float
        Level of the interval whose width is reported.
    variance_now, variance_after, variance_uniform : float
        The variance the interval reflects (E[Var(estimate | p)] over each task's posterior)
        now, after the batch and after the same runs spread evenly.
    squared_error_now, squared_error_after, squared_error_uniform : float
        The expected squared error given the runs so far (what the batch minimises).
    width_now, width_after, width_uniform : float
        Widths of the ``ci`` interval.
    between : float
        The task-sampling variance of one task (population scope; 0 otherwise).
    floor : float
        ``between`` over the tasks after the batch: what no number of runs removes.
    tasks_vs_runs : TasksVsRuns or None
        Population scope: the free runs as new tasks.
    hedge : Hedge or None
        None when not hedged (fewer runs than tasks, or no flaky task).
    prior : Assumptions
        The Beta (μ, κ) of the task rates, with its source.
    prior_stated : bool
        Whether it was given (trusted, no hedge) or fitted to these runs.
    prior_check : PriorCheck or None
        A stated prior: how these runs sit under it.
    method : str
        How the batch was chosen.
    source : dict
        Where the runs came from (the reader's path, format, sha256).
    money : MoneyBudget, optional
        With a budget in money: the cost per run it was converted with (given or observed,
        with its interval), the runs it buys, and the batch priced task by task.
    """

    schema: ClassVar[str] = "plan_next"

    batch: pd.DataFrame
    system: str
    metric: str
    k: int
    scope: str
    budget: int
    spent: int
    tasks: int
    fewest_runs: int
    lacking: int
    no_flaky: bool
    ci: float
    variance_now: float
    variance_after: float
    variance_uniform: float
    squared_error_now: float
    squared_error_after: float
    squared_error_uniform: float
    width_now: float
    width_after: float
    width_uniform: float
    between: float
    floor: float
    tasks_vs_runs: TasksVsRuns | None
    hedge: Hedge | None
    prior: Assumptions
    prior_stated: bool
    prior_check: PriorCheck | None
    method: str
    source: Mapping[str, str] = field(default_factory=dict)
    money: MoneyBudget | None = None

    @property
    def label(self) -> str:
        """The metric's name with its k (``pass^5``)."""
        return label(self.metric, self.k)

    @property
    def prior_text(self) -> str:
        """The prior in one phrase: "Beta(μ=…, κ=…) fitted to these runs", or its source."""
        return prior_text(self.prior, self.prior_stated, self.no_flaky)

    @property
    def prior_source(self) -> dict[str, str]:
        """Where the runs of a prior fitted to an earlier evaluation came from ({} else)."""
        fitted = self.prior.fitted
        if not self.prior_stated or fitted is None:
            return {}
        return dict(fitted.source)

    @cached_property
    def sentences(self) -> list[str]:
        """The explanation, sentence by sentence (:meth:`explain`)."""
        return self.explain()

    @property
    def reasoning(self) -> str:
        """The explanation in one paragraph."""
        return " ".join(self.sentences)

    @property
    def hedge_sentence(self) -> str | None:
        """Why the runs were spread evenly (None when they were not)."""
        return next((x for x in self.sentences if x.startswith(HEDGE_START)), None)

    def explain(self) -> list[str]:
        """The sentences ``passhat plan next`` prints: what the batch buys, the prior, why the
        runs were spread evenly, the tasks that matter most and, in the population scope, new
        tasks against reruns."""
        out: list[str] = []
        if self.lacking:
            out.append(
                f"{self.lacking} of the {self.budget} runs go first to tasks with fewer runs "
                f"than k: without them those tasks have no {self.label} estimate."
            )
        if self.no_flaky:
            out.append(self._no_flaky_sentence())
        else:
            out += self._batch_sentences()
        if self.scope == "population" and self.tasks_vs_runs is not None and self.tasks:
            out += self._population_sentences(self.tasks_vs_runs)
        return out

    def _no_flaky_sentence(self) -> str:
        n_min = self.fewest_runs
        return (
            f"No task is flaky: every task passed all its runs or failed all of them, so "
            f"{NO_FLAKY.replace('pass^k', self.label)}. That rests on {n_min} run(s) per task at "
            f"fewest: such a task's rate may still lie up to {1 - 0.05 ** (1 / max(n_min, 1)):.0%}"
            " from the 1 or 0 its runs show (95% bound); more runs per task would show whether "
            "any task is flaky."
        )

    def _batch_sentences(self) -> list[str]:
        where = (
            "these tasks (benchmark)"
            if self.scope == "benchmark"
            else "tasks like these (population)"
        )
        spread = int((self.batch["extra_runs"] > 0).sum())
        errors = (self.squared_error_now, self.squared_error_after, self.squared_error_uniform)
        var = change(self.variance_after, self.variance_now)
        out = [
            f"The next {self.budget} runs on {spread} of {self.tasks} tasks are expected to "
            f"{'narrow' if self.width_after <= self.width_now else 'change'} the "
            f"{self.ci:.0%} interval of {self.label} for {where} from "
            f"±{self.width_now / 2:.4f} to ±{self.width_after / 2:.4f} (variance {var}); "
            f"the same runs spread evenly: ±{self.width_uniform / 2:.4f}. "
            + two_numbers(
                self.label, self.scope, self.ci, self.variance_now, errors,
                stated=self.prior_check is not None,
            )
        ]  # fmt: skip
        out += self._prior_sentences()
        top = self.batch[self.batch["status"] != "too few runs"].head(3)
        out += [f"Task {r.task}: {r.reason}." for r in top.itertuples()]
        return out

    def _prior_sentences(self) -> list[str]:
        hedge, check = self.hedge, self.prior_check
        if check is None:
            out = [f"Prior of the task rates: {self.prior_text}."]
            if hedge is not None and hedge.choice != "greedy":
                how = (
                    "so the runs are spread evenly"
                    if hedge.choice == "uniform"
                    else f"so every task gets {hedge.even_runs} of them first and the rest go "
                    "where they help most"
                )
                out.append(
                    f"{HEDGE_START} fitted from these runs is uncertain enough that the "
                    "batch aimed at the largest expected gain could be worse than even runs "
                    f"(up to {hedge.worst_ratio_greedy:.2f}× their squared error under a "
                    f"plausible prior, {hedge.mean_ratio_greedy:.2f}× on average), {how}."
                )
            return out
        best = (
            ""
            if hedge is None or hedge.choice == "greedy"
            else " Under it, even runs are expected to do best."
            if hedge.choice == "uniform"
            else f" Under it, {hedge.even_runs} run{'s' * (hedge.even_runs != 1)} per "
            "task first and the rest where they help most are expected to do best."
        )
        out = [
            f"Prior of the task rates: {self.prior_text}; a stated prior is trusted: no hedge "
            f"(if it is wrong the batch can do worse than even runs).{best}"
        ]
        if abs(check.z) > PRIOR_Z:
            out.append(
                f"These runs do not look like the stated prior: mean success "
                f"{check.mean_here:.3f} here against μ = {check.mu:.3f} (z = "
                f"{check.z:+.1f}); a wrong prior can make the batch far worse than even "
                "runs, so check that the earlier runs are comparable, or leave the prior "
                "out (fitted to these runs and hedged)."
            )
        return out

    def _population_sentences(self, tvr: TasksVsRuns) -> list[str]:
        floor = self.between / self.tasks
        out = [
            f"Which tasks were sampled adds a variance of {floor:.2e} that no number of runs "
            f"removes ({pct(floor / self.variance_now, 0)} of today's)."
        ]
        nt, per = tvr.new_tasks, tvr.runs_per_new_task
        need = tvr.tasks_to_match_reruns
        match = "task already matches" if need == 1 else "tasks already match"
        if tvr.free_runs and (tvr.tasks_beat_runs or self.no_flaky):
            out.append(
                f"Adding tasks beats adding runs: {nt} new {'task' if nt == 1 else 'tasks'} × "
                f"{plural(int(per), 'run')} would bring the "
                f"variance to {tvr.variance_new_tasks:.2e}, against "
                f"{tvr.variance_reruns:.2e} from the reruns"
                + (f"; {need} new {match} the reruns." if need is not None else ".")
            )
        elif tvr.free_runs:  # no free runs: nothing to weigh against new tasks
            out.append(
                f"Reruns beat new tasks here: {nt} new {'task' if nt == 1 else 'tasks'} × "
                f"{plural(int(per), 'run')} would bring the "
                f"variance only to {tvr.variance_new_tasks:.2e} (reruns: "
                f"{tvr.variance_reruns:.2e})"
                + (
                    f"; matching the reruns would take {need} new tasks ({need * per} runs)."
                    if need is not None
                    else "."
                )
            )
        return out

    def to_frame(self) -> pd.DataFrame:
        """The batch, one row per task that gets runs."""
        return self.batch.copy()

    def _document(self) -> dict[str, Any]:
        earlier = {"prior_input": self.prior_source} if self.prior_source else {}
        return {
            "input": dict(self.source),
            **earlier,
            "system": self.system,
            "metric": self.metric,
            "k": self.k,
            "scope": self.scope,
            "budget": self.budget,
            "spent": self.spent,
            "no_flaky": self.no_flaky,
            "variance_now": self.variance_now,
            "variance_after": self.variance_after,
            "variance_uniform": self.variance_uniform,
            "squared_error_now": self.squared_error_now,
            "squared_error_after": self.squared_error_after,
            "squared_error_uniform": self.squared_error_uniform,
            "width_now": self.width_now,
            "width_after": self.width_after,
            "width_uniform": self.width_uniform,
            "floor": self.floor,
            "tasks_vs_runs": asdict(self.tasks_vs_runs) if self.tasks_vs_runs else None,
            "hedge": asdict(self.hedge) if self.hedge is not None else None,
            "hedge_sentence": self.hedge_sentence,
            "prior": self.prior.describe(),
            "prior_stated": self.prior_stated,
            "prior_check": asdict(self.prior_check) if self.prior_check is not None else None,
            "prior_text": self.prior_text,
            "reasoning": self.reasoning,
            "sentences": list(self.sentences),
            "method": self.method,
            "batch": records(self.batch),
            **({"money": self.money.as_dict()} if self.money is not None else {}),
        }

    def view(self, *, every_row: bool = False) -> Display:
        """The explanation, the method and the batch (its first :data:`SHOWN` tasks unless
        ``every_row``)."""
        money = self.money.lines() if self.money is not None else ()
        lines = View("", None, lines=(*money, *self.sentences, f"Method: {self.method}."))
        t = self.batch
        if t.empty:
            return Display((lines,))
        shown = t if every_row else t.head(SHOWN)
        more = (
            "" if len(shown) == len(t) else f"; first {len(shown)} of {len(t)} tasks, --all for all"
        )
        share = shown["variance_share"].to_numpy(dtype=float)
        width = shown["width_reduction"].to_numpy(dtype=float)
        frame = pd.DataFrame(
            {
                "task": shown["task"].astype(str).to_list(),
                "status": shown["status"].astype(str).to_list(),
                "runs": shown["runs"].astype(str).to_list(),
                "passed": shown["successes"].astype(str).to_list(),
                "more runs": [f"+{x}" for x in shown["extra_runs"]],
                "share": ["" if np.isnan(v) else f"{v:.1%}" for v in share],
                "width −": ["" if np.isnan(v) else f"{v:.4f}" for v in width],
            }
        )
        title = (
            f"{self.system}: next {self.spent} runs for {self.label}{more}; prior {self.prior_text}"
        )
        return Display((lines, View(title, frame, left=frozenset({"task", "status"}))))
