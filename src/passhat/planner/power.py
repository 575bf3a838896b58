"""Power and sample size for comparing two systems on matched tasks (paired).

The paired analysis tests the mean of per-task differences of the unbiased
estimator; everything depends on σ_d(n), the SD of one task's difference with
n runs per system. It comes from one of two sources:

* **pilot runs** of both systems on the same tasks (``pilot=``): measured by
  the moment estimator of :mod:`passhat.planner.pilot` (no Beta, no copula);
* **a model** (``prior=``, :mod:`passhat.planner.copula`): A has the prior's
  (μ, κ), B the same κ and the μ whose population metric is A's + δ, and a
  task's rates under the two systems are linked by a Gaussian copula with
  latent correlation ``correlation`` — measured elsewhere (e.g. a joint model
  of both systems) or, when not given, **assumed** 0.5 and said so.

The between-system correlation decides the answer (τ-bench-like stated
assumptions: 883 / 608 / 429 tasks at ρ = 0 / 0.5 / 0.8), so every answer of
:func:`power` carries a sensitivity table over ρ (``quantities["sensitivity"]``).
:func:`power_table` tabulates the tasks each runs-per-task choice needs and
marks the cheapest; :func:`simulate_power` and :func:`power_grid` check the
power by simulation.

Examples
--------
>>> from passhat import plan
>>> r = plan.power(delta=0.1, tasks=60, runs_per_task=5,
...     prior=plan.Assumptions(mean=0.6, icc=0.3))
>>> r.solved_for, 0.5 < float(r) < 1, r.quantities["correlation_source"]
('power', True, 'assumed')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import optimize, stats

from passhat._format import fixed, pct
from passhat._validate import check_k
from passhat.errors import OptionError
from passhat.planner.assumptions import _resolve_prior
from passhat.planner.copula import RHO_GRID, CopulaSpread, analytic_power, simulate_power
from passhat.planner.pilot import PairedPilot, paired_pilot, rho_text
from passhat.planner.result import (
    _METRICS,
    _MODEL_ASSUMPTIONS,
    MetricName,
    PlanResult,
    _ceil,
    _label,
    _one_none,
    _prob,
    _whole,
)
from passhat.planner.sweep import sweep

__all__ = ["power", "power_grid", "power_table", "simulate_power"]


def _spread(
    prior: Any, pilot: Any, k: int, metric: str, rho: float | None, system: str | None
) -> CopulaSpread | PairedPilot | Any:
    """Where σ_d comes from: the pilot (measured) or the prior's copula model."""
    if pilot is not None and prior is not None:
        raise OptionError(
            "give pilot= (paired pilot runs: the spread is measured) or prior= (a model of "
            "one system plus an assumed correlation), not both"
        )
    if pilot is None:
        assumed, _ = _resolve_prior(prior, system=system)
        return CopulaSpread(assumed, k=k, metric=metric, correlation=rho)
    if callable(getattr(pilot, "sd", None)) and hasattr(pilot, "baseline"):
        if getattr(pilot, "metric", metric) != metric or getattr(pilot, "k", k) != k:
            raise OptionError(
                f"the pilot's spread is of {_label(pilot.metric, pilot.k)}, not of "
                f"{_label(metric, k)}: measure it for the metric to test"
            )
        return pilot  # a PairedPilot, or any spread with sd(delta, n, rho) and baseline
    return paired_pilot(pilot, metric=metric, k=k)


def _solve(
    solve: str,
    spread: Any,
    rho: float | None,
    *,
    delta: float | None,
    tasks: int | None,
    runs: int | None,
    target: float | None,
    alpha: float,
    k: int,
    label: str,
    max_runs: int,
) -> dict[str, Any]:
    """The analytic answer at one correlation (None: the spread's own)."""

    def pw(dl: float, t: int, n: int) -> float:
        return analytic_power(dl, spread.sd(dl, n, rho), t, alpha)

    if solve == "power":
        dl, t, n = float(delta), int(tasks), int(runs)  # type: ignore[arg-type]
        return {"delta": dl, "tasks": t, "runs_per_task": n, "power": pw(dl, t, n)}
    if solve == "tasks":
        dl, n = float(delta), int(runs)  # type: ignore[arg-type]
        sd = spread.sd(dl, n, rho)
        zsum = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(target)
        t = max(2, _ceil((zsum * sd / abs(dl)) ** 2))
        while analytic_power(dl, sd, t, alpha) < target:  # type: ignore[operator]
            t += 1
        return {"delta": dl, "tasks": t, "runs_per_task": n, "power": pw(dl, t, n)}
    if solve == "runs_per_task":
        dl, t = float(delta), int(tasks)  # type: ignore[arg-type]
        n = k
        while pw(dl, t, n) < target:  # type: ignore[operator]
            n = n * 2 if n < 64 else n + 64
            if n > max_runs:
                raise OptionError(
                    f"{t} tasks cannot reach power {target:g} for {fixed(dl, sign=True)} in "
                    f"{label}: even "
                    f"{max_runs} runs per task give {pct(pw(dl, t, max_runs))} (task spread "
                    "dominates); add tasks"
                )
        for cand in range(max(k, n // 2 if n <= 64 else n - 64), n + 1):
            if pw(dl, t, cand) >= target:  # type: ignore[operator]
                n = cand
                break
        return {"delta": dl, "tasks": t, "runs_per_task": n, "power": pw(dl, t, n)}
    t, n = int(tasks), int(runs)  # type: ignore[arg-type]
    base = float(spread.baseline)
    hi = min(0.999 - base, 0.999)
    if hi <= 1e-6 or pw(hi, t, n) < target:  # type: ignore[operator]
        raise OptionError(
            f"no improvement in {label} above {fixed(base)} reaches power {target:g} with "
            f"{t} tasks × {n} runs"
        )
    goal = float(target)  # type: ignore[arg-type]
    if pw(1e-6, t, n) >= goal:  # so large a design detects any difference (no sign change)
        raise OptionError(
            f"{t:,} tasks × {n:,} runs reach power {target:g} for every improvement in {label} "
            "down to 10⁻⁶: there is no smallest detectable difference to report"
        )
    dl = float(optimize.brentq(lambda x: pw(x, t, n) - goal, 1e-6, hi, xtol=1e-6))
    return {"delta": dl, "tasks": t, "runs_per_task": n, "power": pw(dl, t, n)}


def _sensitivity(solve: str, spread: Any, rho_used: float, **kw: Any) -> list[dict[str, Any]]:
    """The answer over :data:`RHO_GRID` (and the correlation used), analytic."""
    grid = sorted({*RHO_GRID, round(rho_used, 4)} if math.isfinite(rho_used) else set(RHO_GRID))
    rows = []
    for r in grid:
        try:
            ans = _solve(solve, spread, r, **kw)
            value: float | int | None = ans[solve]
            sd = spread.sd(ans["delta"], ans["runs_per_task"], r)
        except OptionError:
            value, sd = None, math.nan
        rows.append(
            {"correlation": r, "sd_difference": sd, solve: value, "used": r == round(rho_used, 4)}
        )
    return rows


def power(
    *,
    delta: float | None = None,
    tasks: int | None = None,
    runs_per_task: int | None = None,
    power: float | None = None,
    prior: Any = None,
    pilot: Any = None,
    k: int = 1,
    metric: MetricName = "mean",
    alpha: float = 0.05,
    correlation: float | None = None,
    method: Literal["analytic", "simulation"] = "analytic",
    replicates: int = 2000,
    seed: int | None = 0,
    system: str | None = None,
    max_runs_per_task: int = 1000,
) -> PlanResult:
    """Tasks × runs to detect a difference between two systems on matched tasks (paired).

    The paired analysis tests the mean of per-task differences of the unbiased
    estimator; the power is that of the two-sided paired t-test, noncentral t
    with T − 1 df and noncentrality ``|δ|√T/σ_d`` (exact for normal
    differences; :func:`simulate_power` checks the bounded estimators). Leave
    exactly one of ``delta``, ``tasks``, ``runs_per_task``, ``power`` as None
    to solve for it. Solving for ``tasks`` starts from the normal-approximation
    sample size of a paired design, T = ((z_{1−α/2} + z_{power})·σ_d / δ)² [1]_,
    and steps up until the noncentral-t power reaches the target.

    σ_d(n), the SD of one task's difference with n runs per system, comes from
    ``pilot`` (paired pilot runs, measured: :func:`paired_pilot`) or from
    ``prior`` (one system's (μ, κ), B = A shifted by δ, rates linked by a
    Gaussian copula with latent ``correlation``). ``correlation=None`` with a
    prior means **assumed** 0.5 (stated in the answer); with a pilot, the
    pilot's own spread; a value is a what-if (or a joint model's estimate).
    ``quantities["sensitivity"]`` gives the answer at ρ = 0 … 0.9.

    Parameters
    ----------
    pilot : Trials, count table, PairedPilot or spread, optional
        Paired pilot runs of both systems (one input with two systems), a
        :class:`PairedPilot`, or any object with ``sd(delta, n, rho)``,
        ``baseline`` and ``assumptions()`` (e.g. a joint model's).
    prior : Assumptions, fit or count table, optional
        One system's (μ, κ), when there is no pilot.
    method : {"analytic", "simulation"}
        "simulation" simulates ``replicates`` benchmarks from the prior's model
        (Monte-Carlo error reported); not with a pilot.

    References
    ----------
    .. [1] S.-C. Chow, J. Shao and H. Wang, *Sample Size Calculations in Clinical
       Research*, 2nd ed., Chapman & Hall/CRC (2008), §3.1 (one-sample and paired
       designs: the test on the mean of paired differences, normal and t power).

    Examples
    --------
    >>> from passhat import plan
    >>> r = plan.power(delta=0.05, runs_per_task=5, power=0.8,
    ...     prior=plan.Assumptions(mean=0.77, icc=0.4))
    >>> r.solved_for, int(r) > 10
    ('tasks', True)
    >>> [row["correlation"] for row in r.quantities["sensitivity"]][:3]
    [0.0, 0.2, 0.4]
    """
    solve = _one_none("power", delta=delta, tasks=tasks, runs_per_task=runs_per_task, power=power)
    kk = check_k(k)
    if metric not in _METRICS:
        raise OptionError(f"metric must be one of {', '.join(_METRICS)} (got {metric!r})")
    a_ = _prob("alpha", alpha)
    rho = None if correlation is None else float(correlation)
    if rho is not None and not (-1 < rho < 1):
        raise OptionError(f"correlation must lie in (−1, 1) (got {rho:g})")
    if method not in ("analytic", "simulation"):
        raise OptionError(f"method must be 'analytic' or 'simulation' (got {method!r})")
    target = None
    if power is not None:
        target = _prob("power", power)
        if target <= a_:
            raise OptionError(f"power {target:g} must exceed alpha {a_:g}")
    if delta is not None:
        dlt = float(delta)
        if not math.isfinite(dlt) or dlt == 0 or abs(dlt) >= 1:
            raise OptionError(f"delta must be non-zero and in (−1, 1) (got {delta!r})")
    if tasks is not None:
        _whole("tasks", tasks, minimum=2)
    if runs_per_task is not None:
        _whole("runs_per_task", runs_per_task, minimum=kk)
    kk = 1 if metric == "mean" else kk
    spread = _spread(prior, pilot, kk, metric, rho, system)
    measured = not isinstance(spread, CopulaSpread)
    if method == "simulation" and measured:
        raise OptionError(
            "method='simulation' simulates from the prior's Beta model; with pilot data use the "
            "analytic power (the pilot's spread is the measurement)"
        )
    label = _label(metric, kk)
    kw: dict[str, Any] = {
        "delta": delta,
        "tasks": tasks,
        "runs": runs_per_task,
        "target": target,
        "alpha": a_,
        "k": kk,
        "label": label,
        "max_runs": max_runs_per_task,
    }
    ans = _solve(solve, spread, rho, **kw)
    dl, t, n, pw = ans["delta"], ans["tasks"], ans["runs_per_task"], ans["power"]
    sd = spread.sd(dl, n, rho)
    mce = 0.0
    if method == "simulation" and isinstance(spread, CopulaSpread):
        sim = simulate_power(
            tasks=t, runs_per_task=n, delta=dl, prior=spread.assumed, k=kk, metric=metric,
            correlation=spread.rho, alpha=a_, replicates=replicates, seed=seed,
        )  # fmt: skip
        pw, mce = sim["power"], sim["mc_error"]
    rho_used = float(spread.rho) if rho is None else rho
    source = "measured" if measured and rho is None else "assumed" if rho is None else "given"
    value = ans[solve]
    mc = f" (±{pct(mce, 1)} Monte-Carlo error)" if method == "simulation" else ""
    if solve == "power":
        reasoning = (
            f"With {t} matched tasks × {n} runs per system, a paired test at α = {a_:g} detects "
            f"a difference of {fixed(dl, sign=True)} in {label} with probability {pct(pw)}{mc}."
        )
    elif solve == "tasks":
        reasoning = (
            f"{t} matched tasks × {n} runs per system give a paired test at α = {a_:g} "
            f"{pct(pw)} power to detect {fixed(dl, sign=True)} in {label} (per-task difference SD "
            f"{fixed(sd)}; {t - 1} tasks would fall short)."
        )
    elif solve == "runs_per_task":
        reasoning = (
            f"{n} runs per task on {t} matched tasks give a paired test at α = {a_:g} "
            f"{pct(pw)} power to detect {fixed(dl, sign=True)} in {label}; more runs shrink "
            "only the within-task part of the difference's spread."
        )
    else:
        reasoning = (
            f"With {t} matched tasks × {n} runs per system, the smallest improvement in "
            f"{label} a paired test at α = {a_:g} detects with {pct(target)} power is "
            f"{fixed(dl, 4, sign=True)} (from {fixed(spread.baseline)})."
        )
    sens = _sensitivity(solve, spread, rho_used, **kw)
    if source == "assumed":
        lo, hi = sens[0], sens[-1]
        reasoning += (
            f" The between-system correlation ρ = {rho_used:g} is assumed, not measured, and "
            f"decides the answer: {solve.replace('_', ' ')} {_fmt(lo[solve], solve)} at ρ = "
            f"{lo['correlation']:g}, {_fmt(hi[solve], solve)} at ρ = {hi['correlation']:g} "
            "(sensitivity table); paired pilot runs measure it."
        )
    elif source == "measured":
        reasoning += (
            f" The spread of per-task differences is measured on {getattr(spread, 'tasks', '')} "
            f"paired pilot tasks ({spread.correlation_kind} ρ̂ = {rho_text(rho_used)})."
        )
    q: dict[str, Any] = {
        "metric": metric,
        "k": kk,
        "alpha": a_,
        "correlation": rho_used,
        "correlation_source": source,
        "method": method,
        "delta": dl,
        "tasks": t,
        "runs_per_task": n,
        "power": pw,
        "sd_difference": sd,
        "baseline_value": float(spread.baseline),
        "sensitivity": sens,
    }
    if method == "simulation":
        q.update({"replicates": replicates, "mc_error": mce, "seed": seed})
    if measured and isinstance(spread, PairedPilot):
        q["pilot"] = {
            "systems": list(spread.systems),
            "tasks": spread.tasks,
            "left_out": dict(spread.left_out),
            "var_task_spread": [spread.var_g_a, spread.var_g_b],
            "var_difference": spread.var_g_diff,
        }
    sd_how = "the measured" if measured else "the model's exact"
    meth = f"paired t-test power (noncentral t) with {sd_how} per-task difference SD"
    if method == "simulation":
        meth = f"simulation of {replicates} benchmarks (seed {seed}), paired t-test"
    assumptions = tuple(spread.assumptions())
    if rho is not None and measured:
        assumptions += (f"what-if: {spread.correlation_kind} set to ρ = {rho:g}",)
    if not measured:
        assumptions += _MODEL_ASSUMPTIONS
    return PlanResult("power", solve, value, q, reasoning, assumptions=assumptions, method=meth)


def _fmt(v: Any, solve: str) -> str:
    if v is None:
        return "out of reach"
    return pct(v) if solve == "power" else fixed(v, 4, sign=True) if solve == "delta" else f"{v:d}"


_power_query = power  # power_table/power_grid take a `power=` argument


def power_table(
    *,
    delta: float,
    power: float,
    prior: Any = None,
    pilot: Any = None,
    k: int = 1,
    metric: MetricName = "mean",
    alpha: float = 0.05,
    correlation: float | None = None,
    runs_per_task: Sequence[int] | None = None,
    cost_per_run: float = 1.0,
    cost_per_task: float = 0.0,
    system: str | None = None,
) -> pd.DataFrame:
    """Tasks needed for each runs-per-task choice to detect ``delta`` (paired), cheapest marked.

    For every n in ``runs_per_task`` (default k … k + 15) the number of
    matched tasks T is solved as in :func:`power`; cost per system is
    T·(cost_per_task + n·cost_per_run). σ_d comes from ``pilot`` or ``prior``
    as in :func:`power`. ``attrs`` holds the optimum, reasoning, assumptions
    and the correlation used (and whether it was measured or assumed).

    Examples
    --------
    >>> from passhat import plan
    >>> t = plan.power_table(delta=0.1, power=0.8, prior=plan.Assumptions(mean=0.6, icc=0.3))
    >>> bool(t["optimal"].sum() == 1)
    True
    """
    kk = check_k(k)
    ns = list(range(kk, kk + 16)) if runs_per_task is None else list(runs_per_task)
    if not ns:
        raise OptionError("runs_per_task: give at least one number of runs per task")
    # the first answer checks every argument and names the assumptions; the others reuse its spread
    res = _power_query(
        delta=delta, runs_per_task=ns[0], power=power, prior=prior, pilot=pilot, k=kk,
        metric=metric, alpha=alpha, correlation=correlation, system=system,
    )  # fmt: skip
    kk = int(res.quantities["k"])
    spread = _spread(prior, pilot, kk, metric, correlation, system)
    rows = []
    for n in ns:
        _whole("runs_per_task", n, minimum=kk)
        ans = _solve(
            "tasks", spread, correlation, delta=float(delta), tasks=None, runs=int(n),
            target=float(power), alpha=float(alpha), k=kk, label=_label(metric, kk), max_runs=n,
        )  # fmt: skip
        t = int(ans["tasks"])
        rows.append(
            {
                "runs_per_task": n,
                "tasks": t,
                "runs": t * n,
                "cost": t * (cost_per_task + n * cost_per_run),
                "sd_difference": spread.sd(float(delta), int(n), correlation),
                "power": ans["power"],
            }
        )
    df = pd.DataFrame(rows)
    df["optimal"] = False
    best_i = int(np.lexsort((df["runs"].to_numpy(), df["cost"].to_numpy()))[0])
    df.loc[best_i, "optimal"] = True
    best = df.loc[best_i]
    label = _label(metric, kk)
    df.attrs.update(
        {
            "optimum": best.to_dict(),  # Python scalars, exact (not rounded as in JSON)
            "reasoning": (
                f"To detect {fixed(float(delta), sign=True)} in {label} with "
                f"{pct(float(power), 0)} power "
                f"at α = {alpha:g}, the cheapest design is {int(best['tasks'])} matched tasks × "
                f"{int(best['runs_per_task'])} runs per system (cost {best['cost']:g} per "
                "system); more runs per task shrink only the within-task part of each "
                "paired difference."
            ),
            "assumptions": list(res.assumptions),
            "method": res.method,
            "correlation": res.quantities["correlation"],
            "correlation_source": res.quantities["correlation_source"],
            "sensitivity": res.quantities["sensitivity"],
        }
    )
    return df


def power_grid(
    *,
    delta: float,
    tasks: Sequence[int],
    runs_per_task: Sequence[int],
    prior: Any,
    k: int = 1,
    metric: MetricName = "mean",
    alpha: float = 0.05,
    correlation: float | None = None,
    replicates: int = 2000,
    seed: int = 0,
    scheduler: str | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Power over a (tasks × runs per task) grid: analytic and simulated (through :func:`sweep`).

    Each grid point gets its own seed (``seed`` + its index), so results do
    not depend on the scheduler. The simulation draws from the prior's model
    (``correlation=None``: 0.5, assumed).

    Examples
    --------
    >>> from passhat import plan
    >>> df = plan.power_grid(delta=0.1, tasks=[20], runs_per_task=[3], replicates=100,
    ...     prior=plan.Assumptions(mean=0.6, icc=0.3), scheduler="synchronous")
    >>> list(df.columns)[:3]
    ['tasks', 'runs_per_task', 'power']
    """
    points = [
        {"tasks": int(t), "runs_per_task": int(n), "seed": seed + i}
        for i, (t, n) in enumerate((t, n) for t in tasks for n in runs_per_task)
    ]
    common = {
        "delta": delta,
        "prior": prior,
        "k": k,
        "metric": metric,
        "alpha": alpha,
        "correlation": correlation,
        "replicates": replicates,
    }
    df = sweep(simulate_power, points, scheduler=scheduler, progress=progress, **common)
    df["power_analytic"] = [
        float(
            _power_query(
                delta=delta,
                tasks=p["tasks"],
                runs_per_task=p["runs_per_task"],
                prior=prior,
                k=k,
                metric=metric,
                alpha=alpha,
                correlation=correlation,
            )
        )
        for p in points
    ]
    df["seed"] = [p["seed"] for p in points]
    assumed, _ = _resolve_prior(prior)
    spread = CopulaSpread(assumed, k=k, metric=metric, correlation=correlation)
    label = _label(metric, k)
    df.attrs.update(
        {
            "reasoning": (
                f"Power of a paired test at α = {alpha:g} to detect {fixed(delta, sign=True)} in "
                f"{label}: the "
                f"noncentral-t power with the exact per-task difference SD, and {replicates} "
                "simulated benchmarks per design (binomial Monte-Carlo error shown)."
            ),
            "assumptions": [*spread.assumptions(), *_MODEL_ASSUMPTIONS],
            "replicates": replicates,
        }
    )
    return df
