"""The result of :func:`passhat.plan.design` (:class:`DesignResult`): the standard errors of every
design a budget affords, the optimum, its reasoning, a short selection and a check by simulation.

Nothing here computes a standard error: the words (the reasoning, the headline, the tables'
titles) are built from the result's typed fields, and :meth:`DesignResult.check` hands the
simulation to :mod:`passhat.planner.design_check`.

Examples
--------
>>> from passhat import plan
>>> d = plan.design(budget_runs=500, k=2, prior=plan.Assumptions(mean=0.7, icc=0.3))
>>> d.answer()
'250 tasks × 2 runs per task (500 runs, cost 500): population SE of pass^2 ±0.0314'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import pandas as pd

from passhat._format import fixed, plural
from passhat._repr import Display, View
from passhat._result import Result, records
from passhat.errors import OptionError
from passhat.planner._checks import check_metric, label
from passhat.planner.assumptions import Assumptions
from passhat.planner.design_check import check_design
from passhat.planner.result import cells, explain_lines
from passhat.planner.run_cost import MoneyBudget

__all__ = ["DesignCheck", "DesignFloor", "DesignResult"]

#: How the standard errors are computed.
DESIGN_METHOD = (
    "exact: Var U = E Var(U | p) + Var g(p) under p ~ Beta(a, b) (the same as "
    "averaging the unbiased estimator over the BetaBinomial(n, a, b) pmf)"
)

#: The columns of the design table the terminal shows: (column, header, format).
_SHOWN = (
    ("tasks", "tasks", "d"),
    ("runs_per_task", "runs/task", "d"),
    ("runs", "runs", "d"),
    ("cost", "cost", ".4g"),
    ("se_benchmark", "SE benchmark", ".4f"),
    ("se_task_spread", "SE task spread", ".4f"),
    ("se_population", "SE population", ".4f"),
    ("optimal", "opt", ""),
)
_CHECKED = (
    ("tasks", "tasks", "d"),
    ("runs_per_task", "runs/task", "d"),
    ("metric", "metric", ""),
    ("se_population", "SE pop.", ".4f"),
    ("sd_population_simulated", "simulated", ".4f"),
    ("se_benchmark", "SE bench.", ".4f"),
    ("sd_benchmark_simulated", "simulated", ".4f"),
)


@dataclass(frozen=True)
class DesignFloor:
    """The floor of the optimum's population standard error (its task spread).

    Attributes
    ----------
    tasks : int
        The optimum's tasks.
    se : float
        Its task-spread standard error (0 in the benchmark scope).
    runs_within_5pct : int or None
        With the tasks fixed, the fewest runs per task within 5% of the floor.
    """

    tasks: int
    se: float
    runs_within_5pct: int | None


@dataclass(frozen=True)
class DesignCheck:
    """Predicted standard errors beside simulated spreads (:meth:`DesignResult.check`).

    Attributes
    ----------
    table : pandas.DataFrame
        Per design and metric: se_population, sd_population_simulated, se_benchmark,
        sd_benchmark_simulated, relative_mc_error.
    replicates : int
        Simulated benchmarks per design.
    """

    table: pd.DataFrame
    replicates: int


@dataclass(frozen=True, repr=False, eq=False)
class DesignResult(Result):
    """Result of :func:`passhat.plan.design`.

    Attributes
    ----------
    table : pandas.DataFrame
        Long table over (tasks, runs_per_task, metric): runs, cost, k, value (population
        value of the metric), se_benchmark, se_population, se_within, se_task_spread,
        within_task_share, optimal.
    metric, scope : str
        The standard error the optimum minimises.
    k : int
        The k of pass^k and pass@k.
    prior : Assumptions
        μ and κ (and where they came from).
    budget_runs, budget_cost : float or None
        The budget.
    cost_per_task : float
        Cost of adding a task.
    tasks_fixed : bool
        Whether the number of tasks was given (then only runs per task vary).
    n_opt_k1 : float
        The two-level optimum at k = 1, √(κ·c_task/c_run) (k with no per-task cost).
    floor : DesignFloor
        The floor of the optimum's population standard error.
    assumptions : tuple of str
        The prior, then the two-level model's assumptions.
    source : dict
        Where the runs behind the prior came from (``{}`` for stated values).
    checked : DesignCheck, optional
        The check by simulation (:meth:`check`).
    money : MoneyBudget, optional
        With ``budget_cost``: the cost per run it was converted with (given, or observed
        with its interval) and the runs it buys.

    Examples
    --------
    >>> from passhat import plan
    >>> d = plan.design(budget_runs=2000, k=5, prior=plan.Assumptions(mean=0.77, icc=0.4))
    >>> int(d.optimum["runs_per_task"]), d.to_dict()["schema"]
    (5, 'passhat.plan_design')
    """

    schema: ClassVar[str] = "plan_design"

    table: pd.DataFrame
    metric: str
    scope: str
    k: int
    prior: Assumptions
    budget_runs: float | None
    budget_cost: float | None
    cost_per_task: float
    tasks_fixed: bool
    n_opt_k1: float
    floor: DesignFloor
    assumptions: tuple[str, ...]
    source: Mapping[str, str] = field(default_factory=dict)
    checked: DesignCheck | None = None
    money: MoneyBudget | None = None

    @property
    def optimum(self) -> dict[str, Any]:
        """The optimal row of the design's metric (Python scalars, exact)."""
        t = self.table
        best = t[(t["metric"] == self.metric) & t["optimal"]]
        return dict(best.iloc[0].to_dict())

    @property
    def method(self) -> str:
        """How the standard errors are computed."""
        return DESIGN_METHOD

    @property
    def reasoning(self) -> str:
        """Why the optimum is optimal, with its floor, in two or three sentences."""
        return design_reasoning(self)

    def answer(self) -> str:
        """The optimum in one line (the output's first)."""
        best = self.optimum
        return (
            f"{plural(int(best['tasks']), 'task')} × {plural(int(best['runs_per_task']), 'run')} "
            "per task "
            f"({best['runs']} runs, cost {best['cost']:g}): {self.scope} SE of "
            f"{label(self.metric, self.k)} ±{fixed(best['se_' + self.scope], 4)}"
        )

    def selection(self, metric: str | None = None) -> pd.DataFrame:
        """A short view of the table: the efficient designs, thinned, and the optimum.

        A table of one metric with at most 20 rows comes back whole. A longer one
        (a large budget, or ``all_pairs=True``) keeps the efficient designs (for
        each number of runs per task n, the most tasks the budget affords), of
        those every n from k to k + 9 and about eight more spread over the larger
        n, and always the optimum and (T fixed) the fewest runs per task within 5%
        of the floor, the rows the reasoning names. ``passhat plan design`` prints this
        view unless given ``--all``.

        Parameters
        ----------
        metric : str, optional
            Which metric's rows (default: the metric the design optimised).

        Returns
        -------
        pandas.DataFrame
            Rows of :attr:`table` for ``metric``, in the table's order, with its index.

        Examples
        --------
        >>> from passhat import plan
        >>> d = plan.design(budget_runs=300, k=3, prior=plan.Assumptions(mean=0.7, icc=0.3),
        ...     all_pairs=True)
        >>> view = d.selection()
        >>> len(d.table[d.table["metric"] == "pass_hat_k"]), len(view), int(view["optimal"].sum())
        (1317, 18, 1)
        """
        metric = self.metric if metric is None else check_metric(metric)
        sub = self.table[self.table["metric"] == metric]
        if len(sub) <= 20:
            return sub
        most = sub.groupby("runs_per_task")["tasks"].transform("max") == sub["tasks"]
        sub = sub[most.to_numpy() | sub["optimal"].to_numpy()]
        ns = sub["runs_per_task"].to_numpy()
        near = self.floor.runs_within_5pct
        keep = (ns <= self.k + 9) | sub["optimal"].to_numpy() | (ns == (near or -1))
        picks = set(sub.index[keep])
        extra = sub.index[~keep]
        step = max(1, len(extra) // 8)
        picks.update(extra[::step])
        return sub.loc[sorted(picks)]

    def check(
        self,
        *,
        rows: int = 6,
        replicates: int = 2000,
        seed: int = 0,
        scheduler: str | None = None,
        progress: bool = False,
    ) -> DesignResult:
        """The design with its standard errors checked by simulation (:attr:`checked`).

        Simulates the optimum and up to ``rows`` − 1 other designs of the table (spread over
        its runs per task), ``replicates`` benchmarks each, in parallel through
        :func:`passhat.plan.sweep` (``scheduler``: see there). The relative Monte-Carlo
        error of a simulated SD is about 1/√(2·replicates).

        Examples
        --------
        >>> from passhat import plan
        >>> d = plan.design(budget_runs=200, k=2, prior=plan.Assumptions(mean=0.7, icc=0.3))
        >>> chk = d.check(rows=2, replicates=200, scheduler="synchronous").checked
        >>> len(chk.table) == 2 * 3
        True
        """
        if isinstance(replicates, bool) or not isinstance(replicates, int) or replicates < 0:
            raise OptionError(
                f"{{param}} must be ≥ 0 replicates (got {replicates})", param="replicates"
            )
        table = check_design(
            self.table, metric=self.metric, k=self.k, prior=self.prior, rows=rows,
            replicates=replicates, seed=seed, scheduler=scheduler, progress=progress,
        )  # fmt: skip
        return replace(self, checked=DesignCheck(table, replicates))

    def to_frame(self) -> pd.DataFrame:
        """The long table of standard errors over (tasks, runs per task, metric)."""
        return self.table.copy()

    def _document(self) -> dict[str, Any]:
        return {
            "input": dict(self.source),
            "check": records(self.checked.table) if self.checked is not None else None,
            "optimum": self.optimum,
            "reasoning": self.reasoning,
            "assumptions": list(self.assumptions),
            "method": self.method,
            "n_opt_k1": self.n_opt_k1,
            "table": records(self.table),
            **({"money": self.money.as_dict()} if self.money is not None else {}),
        }

    def view(self, *, every_row: bool = False) -> Display:
        """The optimum, the reasoning, the selection of designs (``every_row``: all the
        metric's rows) and, after :meth:`check`, the simulated spreads beside the predicted
        standard errors."""
        name = label(self.metric, self.k)
        rows = self.table[self.table["metric"] == self.metric] if every_row else self.selection()
        title = f"{name}: standard errors by design" + (
            "" if every_row else " (selection; --all for every row)"
        )
        parts = [
            View(
                self.answer(),
                None,
                lines=(
                    *(self.money.lines() if self.money is not None else ()),
                    *explain_lines(self.reasoning, self.method, self.assumptions),
                ),
            ),
            View(title, cells(rows, _SHOWN), left=frozenset()),
        ]
        if self.checked is not None:
            chk = self.checked.table
            names = {"mean": "mean", "pass_at_k": f"pass@{self.k}", "pass_hat_k": f"pass^{self.k}"}
            mc = chk["relative_mc_error"].iloc[0] if len(chk) else float("nan")
            parts.append(
                View(
                    f"check by simulation ({self.checked.replicates} benchmarks per design; "
                    f"relative MC error ±{mc:.1%})",
                    cells(chk.assign(metric=chk["metric"].map(names)), _CHECKED),
                    left=frozenset(),
                )
            )
        return Display(tuple(parts))


def _budget_text(budget_runs: float | None, budget_cost: float | None) -> str:
    return " and ".join(
        s
        for s in (
            f"{budget_runs:g} runs" if budget_runs is not None else "",
            f"a cost of {budget_cost:g}" if budget_cost is not None else "",
        )
        if s
    )


def design_reasoning(d: DesignResult) -> str:
    """The reasoning of a design: the optimum and its standard errors, then why (the floor with
    the tasks fixed, the benchmark scope's vanishing error, or the two-level trade-off)."""
    best, scope, kk = d.optimum, d.scope, d.k
    col = f"se_{scope}"
    t_best, n_best = int(best["tasks"]), int(best["runs_per_task"])
    floor, n_near = d.floor.se, d.floor.runs_within_5pct
    text = (
        f"With {_budget_text(d.budget_runs, d.budget_cost)}, {plural(int(t_best), 'task')} × "
        f"{plural(int(n_best), 'run')} "
        f"minimises the {scope}-scope standard error of {label(d.metric, kk)}: "
        f"±{best[col]:.4f} (benchmark ±{best['se_benchmark']:.4f}, population "
        f"±{best['se_population']:.4f}, of which task spread ±{best['se_task_spread']:.4f}). "
    )
    if d.tasks_fixed and scope == "population":
        return text + (
            f"With the number of tasks fixed at {t_best}, every run the budget affords goes to "
            f"them, and more runs per task shrink only the within-task part: the population "
            f"standard error cannot go below the task-spread floor ±{floor:.4f} with {t_best} "
            "tasks, however many runs each gets; only more tasks lower it. "
            + (
                f"{n_near} runs per task already come within 5% of that floor."
                if n_near is not None and n_near < n_best
                else f"At {n_best} runs per task it is {best[col] / floor - 1:.0%} above it."
            )
        )
    if d.tasks_fixed:
        return text + (
            f"The benchmark scope (these {t_best} tasks) has only within-task uncertainty: every "
            "run the budget affords goes to them and its standard error falls towards 0 as "
            "runs per task grow."
        )
    return text + (
        f"Task spread shrinks only with more tasks (±{floor:.4f} is the floor for "
        f"{t_best} tasks, however many runs each gets); more runs per task only shrink the "
        + (
            f"within-task part (two-level optimum at k = 1: n = √(κ·c_task/c_run) = "
            f"{d.n_opt_k1:.1f})."
            if d.cost_per_task > 0
            else "within-task part, so with no per-task cost the optimum is the fewest runs "
            f"per task allowed (k = {kk}) on as many tasks as the budget affords."
            if n_best == kk
            else f"within-task part. Here the exact standard errors favour {n_best} runs per "
            f"task over the fewest allowed (k = {kk}) on more tasks: with task spread this "
            "small (or budget left over at k runs), a task's extra runs narrow its unbiased "
            "estimate more than a new task would."
        )
    )
