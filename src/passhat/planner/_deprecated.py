"""Names of the planner kept for one release, each a :class:`DeprecationWarning` and a call of the
one function that answers its question now.

==========================  =====================================================
old                         now
==========================  =====================================================
``plan.gate``               :func:`~passhat.plan.retry` ("gate" is ``passhat gate``)
``plan.power_table``        :func:`~passhat.plan.power` without tasks/runs_per_task
``plan.power_grid``         :func:`~passhat.plan.power` with sequences, simulated
``plan.simulate_power``     :func:`~passhat.plan.power` with ``method="simulation"``
``plan.design_selection``   :meth:`DesignResult.selection`
``plan.design_check``       :meth:`DesignResult.check`
``plan.simulate_design``    :meth:`DesignResult.check`
==========================  =====================================================

Examples
--------
>>> import warnings
>>> from passhat import plan
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     g = plan.gate(rate=0.9, attempts=3)
>>> g.query, caught[0].category.__name__
('retry', 'DeprecationWarning')
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import pandas as pd

from passhat.planner.copula import simulate_power as _simulate_power
from passhat.planner.design_check import check_design
from passhat.planner.design_check import simulate_design as _simulate_design
from passhat.planner.design_result import DesignResult
from passhat.planner.power import _designs, power
from passhat.planner.result import PlanResult
from passhat.planner.runs import retry
from passhat.planner.sweep import sweep_options

__all__ = [
    "design_check",
    "design_selection",
    "gate",
    "power_grid",
    "power_table",
    "simulate_design",
    "simulate_power",
]


def _warn(old: str, new: str) -> None:
    warnings.warn(
        f"plan.{old} is deprecated: use {new} (the old name goes in the next release)",
        DeprecationWarning,
        stacklevel=3,
    )


def gate(*, rate: float, attempts: int) -> PlanResult:
    """Deprecated: :func:`passhat.plan.retry` (the retry formula; "gate" is ``passhat gate``)."""
    _warn("gate", "plan.retry")
    return retry(rate=rate, attempts=attempts)


def power_table(
    *,
    delta: float,
    power: float,
    runs_per_task: Sequence[int] | None = None,
    cost_per_run: float = 1.0,
    cost_per_task: float = 0.0,
    **kwargs: Any,
) -> pd.DataFrame:
    """Deprecated: ``plan.power(delta=…, power=…)`` (``.table``, ``.optimum``)."""
    _warn("power_table", "plan.power(delta=..., power=...) and its .table")
    ask = {"prior": None, "pilot": None, "k": 1, "metric": "mean", "alpha": 0.05}
    ask |= {"correlation": None, "system": None, "max_runs_per_task": 1000, **kwargs}
    sim = {"method": "sign-flip", "replicates": 2000, "seed": 0}
    res = _designs(
        delta, power, runs_per_task, sim, cost_per_run=cost_per_run,
        cost_per_task=cost_per_task, **ask,
    )  # fmt: skip
    df = res.table.copy()
    df.attrs.update(
        optimum=res.optimum,
        reasoning=res.reasoning,
        assumptions=list(res.assumptions),
        method=res.method,
        **{
            key: res.quantities[key] for key in ("correlation", "correlation_source", "sensitivity")
        },
    )
    return df


def power_grid(
    *,
    delta: float,
    tasks: Sequence[int],
    runs_per_task: Sequence[int],
    scheduler: str | None = None,
    progress: bool = False,
    **kwargs: Any,
) -> pd.DataFrame:
    """Deprecated: ``plan.power(tasks=[…], runs_per_task=[…], method="simulation")``."""
    _warn("power_grid", 'plan.power(tasks=[...], runs_per_task=[...], method="simulation")')
    with sweep_options(scheduler=scheduler, progress=progress):
        res = power(
            delta=delta, tasks=list(tasks), runs_per_task=list(runs_per_task),
            method="simulation", **kwargs,
        )  # fmt: skip
    df = res.table.copy()
    df.attrs.update(
        reasoning=res.reasoning, assumptions=list(res.assumptions), replicates=res.replicates
    )
    return df


def simulate_power(**kwargs: Any) -> dict[str, float]:
    """Deprecated: ``plan.power(..., method="simulation")``."""
    _warn("simulate_power", 'plan.power(..., method="simulation")')
    return _simulate_power(**kwargs)


def design_selection(result: DesignResult, *, metric: str | None = None) -> pd.DataFrame:
    """Deprecated: ``plan.design(...).selection()``."""
    _warn("design_selection", "plan.design(...).selection()")
    return result.selection(metric)


def design_check(
    result: DesignResult,
    *,
    prior: Any = None,
    rows: int = 6,
    replicates: int = 2000,
    seed: int = 0,
    scheduler: str | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Deprecated: ``plan.design(...).check(...)`` (``.checked.table``)."""
    _warn("design_check", "plan.design(...).check(...)")
    return check_design(
        result.table, metric=result.metric, k=result.k,
        prior=result.prior if prior is None else prior, rows=rows, replicates=replicates,
        seed=seed, scheduler=scheduler, progress=progress,
    )  # fmt: skip


def simulate_design(**kwargs: Any) -> dict[str, float]:
    """Deprecated: ``plan.design(...).check(...)``."""
    _warn("simulate_design", "plan.design(...).check(...)")
    return _simulate_design(**kwargs)
