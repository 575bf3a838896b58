"""A budget in money: the cost per run it is converted with (given, or observed in the runs'
cost column with its uncertainty), and the runs it buys.

:func:`observed_run_cost` reads the cost per run from runs: each task's cost per run is the
mean cost of its runs that carry one (every status: an unscored run was paid for too), and the
cost per run is their mean over tasks (what a run costs on a task drawn like these), with the
normal interval of that mean over tasks and the tasks' spread (coefficient of variation).
:func:`money_budget` converts a budget: runs = ⌊budget / cost per run⌋, and, for an observed
cost, the runs at the interval's ends. The planners (:func:`passhat.plan.next_runs`,
:func:`passhat.plan.design`) take ``budget_cost`` with ``cost_per_run`` given or observed.

Examples
--------
>>> import passhat as ph
>>> m = money_budget(10.0, data=ph.load_example("agents"), system="baseline")
>>> m.run_cost.source, m.runs, round(m.run_cost.value, 4)
('observed', 97, 0.1027)
>>> money_budget(10.0, cost_per_run=0.25).runs
40
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import special

from passhat._format import plural
from passhat.errors import OptionError, ValidationError
from passhat.trials import Trials

__all__ = ["VARIES", "MoneyBudget", "RunCost", "money_budget", "observed_run_cost"]

#: Above this coefficient of variation of the tasks' cost per run, the output says that
#: costs vary a lot across tasks (a batch on other tasks may cost noticeably more or less).
VARIES = 0.5


@dataclass(frozen=True)
class RunCost:
    """The cost per run a money budget is converted with.

    Attributes
    ----------
    value : float
        The cost per run used.
    source : {"given", "observed"}
        Stated (``cost_per_run``) or observed in the runs' cost column.
    tasks, runs, runs_without_cost : int
        Observed: the tasks with a cost, their runs with a cost, and the runs without one
        (left out).
    se, lower, upper : float or None
        Observed over ≥ 2 tasks: the standard error of the mean over tasks and its normal
        ``ci`` interval (population scope: a task drawn like these; the lower end ≥ 0).
    ci : float
        The interval's level.
    cv, task_low, task_high : float or None
        Observed: the tasks' coefficient of variation, their lowest and highest cost per run.
    per_task : mapping
        Observed: each task's cost per run (to price a batch task by task).
    """

    value: float
    source: Literal["given", "observed"]
    tasks: int = 0
    runs: int = 0
    runs_without_cost: int = 0
    se: float | None = None
    lower: float | None = None
    upper: float | None = None
    ci: float = 0.95
    cv: float | None = None
    task_low: float | None = None
    task_high: float | None = None
    per_task: Mapping[str, float] = field(default_factory=dict, repr=False)

    @property
    def varies(self) -> bool:
        """Whether the tasks' costs per run vary a lot (coefficient of variation > VARIES)."""
        return self.cv is not None and self.cv > VARIES

    def as_dict(self) -> dict[str, Any]:
        """The fields for a JSON document (without ``per_task``)."""
        return {
            "value": self.value, "source": self.source, "tasks": self.tasks, "runs": self.runs,
            "runs_without_cost": self.runs_without_cost, "se": self.se, "lower": self.lower,
            "upper": self.upper, "ci": self.ci, "cv": self.cv, "task_low": self.task_low,
            "task_high": self.task_high, "varies": self.varies,
        }  # fmt: skip


@dataclass(frozen=True)
class MoneyBudget:
    """A budget in money converted into runs.

    Attributes
    ----------
    budget : float
        The money.
    run_cost : RunCost
        The cost per run used.
    runs : int
        ⌊budget / cost per run⌋.
    runs_low, runs_high : int or None
        The runs at the upper and lower end of an observed cost per run's interval.
    spend : float
        runs × cost per run.
    spend_at_task_costs : float or None
        A batch priced at each chosen task's own observed cost per run (``plan next``).
    """

    budget: float
    run_cost: RunCost
    runs: int
    runs_low: int | None = None
    runs_high: int | None = None
    spend: float = 0.0
    spend_at_task_costs: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """The fields for a JSON document."""
        return {
            "budget": self.budget, "run_cost": self.run_cost.as_dict(), "runs": self.runs,
            "runs_low": self.runs_low, "runs_high": self.runs_high, "spend": self.spend,
            "spend_at_task_costs": self.spend_at_task_costs,
        }  # fmt: skip

    def lines(self) -> tuple[str, ...]:
        """What the conversion used and how sure it is, sentence by sentence."""
        rc = self.run_cost
        out = [f"Budget {self.budget:.6g} at {rc.value:.4g} per run buys at most {self.runs:,} "
               f"runs (spend {self.spend:.6g})."]  # fmt: skip
        if rc.source == "given":
            out[0] += " The cost per run was given (--cost-per-run / cost_per_run)."
            return tuple(out)
        out.append(
            f"The cost per run is observed: the mean over {plural(rc.tasks, 'task')} of each "
            f"task's mean cost per run ({rc.runs:,} runs with a cost, every status counted"
            + (f"; {rc.runs_without_cost} without one left out" if rc.runs_without_cost else "")
            + ")."
        )
        if rc.se is not None:
            out.append(
                f"Its {rc.ci:g} interval is [{rc.lower:.4g}, {rc.upper:.4g}] (normal, ±"
                f"{special.ndtri(0.5 + rc.ci / 2):.3g} standard errors of the mean over tasks: "
                f"tasks like these), so the budget buys between {self.runs_low:,} and "
                + ("an unbounded number of" if self.runs_high is None else f"{self.runs_high:,}")
                + " runs."
            )
        if rc.varies:
            out.append(
                f"Costs vary a lot across tasks (cost per run from {rc.task_low:.4g} to "
                f"{rc.task_high:.4g}, coefficient of variation {rc.cv:.2f}): runs on "
                "particular tasks may cost noticeably more or less than this mean."
            )
        if self.spend_at_task_costs is not None:
            out.append(
                f"Priced at each chosen task's own observed cost per run, the batch costs "
                f"{self.spend_at_task_costs:.6g}"
                + (" — more than the budget." if self.spend_at_task_costs > self.budget else ".")
            )
        return tuple(out)


def _where(data: Trials) -> str:
    return f"{data.source['path']}: " if "path" in data.source else ""


def observed_run_cost(data: Any, *, system: str | None = None, ci: float = 0.95) -> RunCost:
    """The cost per run observed in ``data``'s cost column (runs of ``system`` when given).

    Examples
    --------
    >>> import pandas as pd
    >>> import passhat as ph
    >>> df = pd.DataFrame({"task_id": list("aabb"), "success": [1, 0, 1, 1],
    ...                    "cost": [1.0, 3.0, 4.0, None]})
    >>> rc = observed_run_cost(ph.Trials.from_frame(df))
    >>> rc.value, rc.runs_without_cost, rc.per_task
    (3.0, 1, {'a': 2.0, 'b': 4.0})
    """
    if not isinstance(data, Trials) or "cost" not in data.frame.columns:
        why = (
            "the runs have no cost column"
            if isinstance(data, Trials)
            else "no runs given"
            if data is None
            else "a count table was given: it holds no cost"
        )
        raise OptionError(
            "a money budget ({param}) needs a cost per run: give {cost_per_run}, or runs with "
            f"a cost column ({why})",
            param="budget_cost",
            also=("cost_per_run",),
        )
    df = data.frame
    if system is not None:
        df = df[df["system"].astype(str) == system]
    x = pd.to_numeric(df["cost"], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    if (neg := np.flatnonzero(x < 0)).size:
        row = df.iloc[int(neg[0])]
        raise ValidationError(
            f"{_where(data)}task {row['task_id']!r} (system {row['system']!r}), trial "
            f"{row['trial']}: cost {x[neg[0]]:g} is negative; a cost must be a number ≥ 0"
        )
    has = ~np.isnan(x)
    if not has.any():
        raise ValidationError(f"{_where(data)}no run has a cost: the cost per run is unknown")
    per = pd.Series(x[has]).groupby(df["task_id"].astype(str).to_numpy()[has]).mean()
    v = per.to_numpy(dtype=float)
    value, t = float(v.mean()), len(v)
    sd = float(v.std(ddof=1)) if t >= 2 else None
    se = sd / math.sqrt(t) if sd is not None else None
    z = float(special.ndtri(0.5 + ci / 2))
    return RunCost(
        value=value, source="observed", tasks=t, runs=int(has.sum()),
        runs_without_cost=int((~has).sum()), se=se,
        lower=max(value - z * se, 0.0) if se is not None else None,
        upper=value + z * se if se is not None else None, ci=ci,
        cv=sd / value if sd is not None and value > 0 else None,
        task_low=float(v.min()), task_high=float(v.max()),
        per_task={str(k): float(c) for k, c in per.items()},
    )  # fmt: skip


def _positive(value: Any, param: str) -> float:
    """A finite number > 0, or an OptionError naming ``param``."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.number):
        raise OptionError(f"{{param}} must be a number > 0 (got {value!r})", param=param)
    if not (math.isfinite(float(value)) and float(value) > 0):
        raise OptionError(f"{{param}} must be a number > 0 (got {float(value):g})", param=param)
    return float(value)


def money_budget(
    budget_cost: float,
    *,
    cost_per_run: float | None = None,
    data: Any = None,
    system: str | None = None,
    ci: float = 0.95,
) -> MoneyBudget:
    """``budget_cost`` converted into runs at ``cost_per_run``, or at the cost per run observed
    in ``data`` (:func:`observed_run_cost`); a budget or cost ≤ 0, no cost column, or a budget
    that buys no run is an error naming the option.

    Examples
    --------
    >>> money_budget(1.0, cost_per_run=0.3).runs
    3
    """
    budget = _positive(budget_cost, "budget_cost")
    if cost_per_run is not None:
        rc = RunCost(value=_positive(cost_per_run, "cost_per_run"), source="given")
    else:
        rc = observed_run_cost(data, system=system, ci=ci)
        if rc.value <= 0:
            raise OptionError(
                "the observed cost per run is 0: {param} cannot be converted into runs "
                "(give {cost_per_run})",
                param="budget_cost",
                also=("cost_per_run",),
            )
    bought = budget / rc.value
    if not math.isfinite(bought):  # 1e300 at 1e-300 per run: no count of runs holds it
        raise OptionError(
            f"{{param}} {budget:g} at {rc.value:.4g} per run ({rc.source}) buys more runs than "
            "a number holds; give a smaller budget or a larger cost per run",
            param="budget_cost",
        )
    runs = math.floor(bought + 1e-9)
    if runs < 1:
        raise OptionError(
            f"{{param}} {budget:g} buys no run at {rc.value:.4g} per run ({rc.source})",
            param="budget_cost",
        )
    low = math.floor(budget / rc.upper + 1e-9) if rc.upper is not None else None
    top = budget / rc.lower if rc.lower is not None and rc.lower > 0 else math.inf
    high = math.floor(top + 1e-9) if math.isfinite(top) else None  # ∞: unbounded
    return MoneyBudget(budget, rc, runs, low, high, spend=runs * rc.value)
