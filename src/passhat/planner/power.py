"""Power and sample size for comparing two systems on matched tasks (paired).

System A has the prior's (μ, κ); system B the same κ and the μ whose
population metric is A's + δ; a task's rates under the two systems are
linked by a Gaussian copula. :func:`power` solves for the difference, the
tasks, the runs per task or the power of the paired test on per-task
differences of the unbiased estimator (exact difference SD under the model,
noncentral-t power); :func:`power_table` tabulates the tasks each runs-per-task
choice needs and marks the cheapest; :func:`simulate_power` and
:func:`power_grid` check the power by simulation.

Examples
--------
>>> from passhat import plan
>>> r = plan.power(delta=0.1, tasks=60, runs_per_task=5,
...     prior=plan.Assumptions(mean=0.6, icc=0.3))
>>> r.solved_for, 0.5 < float(r) < 1
('power', True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import optimize, special, stats

from passhat._format import pct
from passhat._validate import make_rng
from passhat.errors import OptionError
from passhat.planner.assumptions import Assumptions, _resolve_prior
from passhat.planner.moments import _estimator, _g, estimator_moments, population_value
from passhat.planner.result import (
    _LABEL,
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


def _gh_nodes(m: int = 64) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    x, w = special.roots_hermitenorm(m)
    return x, w / w.sum()


def _latent_to_rate(z: NDArray[np.float64], a: float, b: float) -> NDArray[np.float64]:
    u = np.clip(special.ndtr(z), 1e-300, 1 - 1e-16)
    return np.asarray(special.betaincinv(a, b, u))


def _task_cov(
    ab_a: tuple[float, float], ab_b: tuple[float, float], rho: float, k: int, metric: str
) -> float:
    """Cov(g(p_A), g(p_B)) under a Gaussian copula with latent correlation rho."""
    if rho == 0:
        return 0.0
    x, w = _gh_nodes()
    z1 = x[:, None]
    z2 = rho * x[:, None] + math.sqrt(max(1 - rho * rho, 0.0)) * x[None, :]
    g1 = _g(_latent_to_rate(np.broadcast_to(z1, z2.shape), *ab_a), k, metric)
    g2 = _g(_latent_to_rate(z2, *ab_b), k, metric)
    ww = w[:, None] * w[None, :]
    e1, e2 = (ww * g1).sum(), (ww * g2).sum()
    return float((ww * g1 * g2).sum() - e1 * e2)


def _shift_mean(assumed: Assumptions, delta: float, k: int, metric: str) -> float:
    """The mean μ_B of system B (same κ) whose population metric is A's + delta."""
    kap = float(assumed.kappa)  # type: ignore[arg-type]
    target = population_value(assumed.a, assumed.b, k, metric) + delta

    def f(mu: float) -> float:
        return population_value(mu * kap, (1 - mu) * kap, k, metric) - target

    lo, hi = 1e-9, 1 - 1e-9
    if f(lo) > 0 or f(hi) < 0:
        raise OptionError(
            f"delta = {delta:g} moves {_LABEL[metric]} outside (0, 1) from "
            f"{target - delta:.3f}; choose a smaller delta"
        )
    return float(optimize.brentq(f, lo, hi, xtol=1e-12))


@dataclass(frozen=True)
class _PowerModel:
    ab_a: tuple[float, float]
    ab_b: tuple[float, float]
    k: int
    metric: str
    rho: float
    delta: float


def _sd_diff(model: _PowerModel, n: int) -> float:
    """Exact SD of the per-task paired difference U_B − U_A with n runs each."""
    va = estimator_moments([n], *model.ab_a, model.k)[model.metric][1][0]
    vb = estimator_moments([n], *model.ab_b, model.k)[model.metric][1][0]
    cov = _task_cov(model.ab_a, model.ab_b, model.rho, model.k, model.metric)
    return math.sqrt(max(va + vb - 2 * cov, 1e-300))


def _analytic_power(delta: float, sd: float, tasks: int, alpha: float) -> float:
    """Power of the two-sided paired t-test: noncentral t with T − 1 degrees of freedom."""
    df = tasks - 1
    crit = stats.t.ppf(1 - alpha / 2, df)
    nc = abs(delta) * math.sqrt(tasks) / sd
    pw = float(stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc))
    if not math.isfinite(pw):  # scipy's nct breaks down for very large noncentrality
        pw = float(stats.norm.cdf(nc - crit) + stats.norm.cdf(-nc - crit))
    return min(max(pw, 0.0), 1.0)


def _power_model(
    prior: Any, delta: float, k: int, metric: str, rho: float, system: str | None
) -> tuple[Assumptions, _PowerModel]:
    assumed, _ = _resolve_prior(prior, system=system)
    mu_b = _shift_mean(assumed, delta, k, metric)
    kap = float(assumed.kappa)  # type: ignore[arg-type]
    model = _PowerModel(
        (assumed.a, assumed.b), (mu_b * kap, (1 - mu_b) * kap), k, metric, rho, delta
    )
    return assumed, model


def simulate_power(
    *,
    tasks: int,
    runs_per_task: int,
    delta: float,
    prior: Any,
    k: int = 1,
    metric: MetricName = "mean",
    correlation: float = 0.5,
    alpha: float = 0.05,
    replicates: int = 2000,
    seed: int | None = 0,
) -> dict[str, float]:
    """Simulated power of the paired test: share of benchmarks where it rejects.

    Each replicate draws ``tasks`` matched tasks (rates of A and B through a
    Gaussian copula with latent correlation ``correlation``), runs each
    ``runs_per_task`` times per system, and applies the paired two-sided
    t-test on per-task differences of the unbiased estimator (SE from their
    sample standard deviation, t critical value with T − 1 degrees of freedom).

    Returns
    -------
    dict with power, mc_error (binomial standard error), replicates.

    Examples
    --------
    >>> from passhat import plan
    >>> r = plan.simulate_power(tasks=50, runs_per_task=5, delta=0.1,
    ...     prior=plan.Assumptions(mean=0.6, icc=0.3), replicates=200, seed=1)
    >>> 0 <= r["power"] <= 1
    True
    """
    _, model = _power_model(prior, delta, k, metric, correlation, None)
    t = _whole("tasks", tasks, minimum=2)
    n = _whole("runs_per_task", runs_per_task, minimum=k)
    replicates = _whole("replicates", replicates, minimum=1)
    rng = make_rng(seed)
    z1 = rng.standard_normal((replicates, t))
    z2 = correlation * z1 + math.sqrt(1 - correlation**2) * rng.standard_normal((replicates, t))
    pa = _latent_to_rate(z1, *model.ab_a)
    pb = _latent_to_rate(z2, *model.ab_b)
    ca = rng.binomial(n, pa).astype(float)
    cb = rng.binomial(n, pb).astype(float)
    ua = _estimator(ca, n, k, metric)
    ub = _estimator(cb, n, k, metric)
    d = ub - ua
    sd = d.std(axis=1, ddof=1)
    se = sd / math.sqrt(t)
    zstat = np.divide(d.mean(axis=1), se, out=np.zeros(replicates), where=se > 0)
    zcrit = stats.t.ppf(1 - alpha / 2, t - 1)
    # a replicate where every difference is identical and non-zero rejects
    reject = np.where(se > 0, np.abs(zstat) > zcrit, d.mean(axis=1) != 0)
    pw = float(reject.mean())
    return {
        "tasks": t,
        "runs_per_task": n,
        "power": pw,
        "mc_error": math.sqrt(max(pw * (1 - pw), 1e-12) / replicates),
        "replicates": replicates,
    }


def power(
    *,
    delta: float | None = None,
    tasks: int | None = None,
    runs_per_task: int | None = None,
    power: float | None = None,
    prior: Any = None,
    k: int = 1,
    metric: MetricName = "mean",
    alpha: float = 0.05,
    correlation: float = 0.5,
    method: Literal["analytic", "simulation"] = "analytic",
    replicates: int = 2000,
    seed: int | None = 0,
    system: str | None = None,
    max_runs_per_task: int = 1000,
) -> PlanResult:
    """Tasks × runs to detect a difference between two systems on matched tasks (paired).

    System A has the prior's (μ, κ); system B the same κ and the μ whose
    population ``metric`` is A's + ``delta``. Task rates of A and B are linked
    by a Gaussian copula with latent ``correlation``. The paired analysis
    tests the mean of per-task differences of the unbiased estimator; its SD
    is exact under the model (BetaBinomial moments plus the copula covariance
    by Gauss–Hermite quadrature), and the power is that of the two-sided
    paired t-test, noncentral t with T − 1 df and noncentrality ``|δ|√T/σ_d``
    (exact for normal differences; the differences of bounded estimators are
    not normal, which :func:`simulate_power` checks). ``method="simulation"`` simulates
    ``replicates`` benchmarks instead (the power's Monte-Carlo error is
    reported). Leave exactly one of ``delta``, ``tasks``, ``runs_per_task``,
    ``power`` as None to solve for it.

    Solving for ``tasks`` starts from the normal-approximation sample size of a
    paired design, T = ((z_{1−α/2} + z_{power})·σ_d / δ)² [1]_, and steps up
    until the noncentral-t power reaches the target.

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
    """
    solve = _one_none("power", delta=delta, tasks=tasks, runs_per_task=runs_per_task, power=power)
    kk = _whole("k", k, minimum=1)
    if metric not in _METRICS:
        raise OptionError(f"metric must be one of {', '.join(_METRICS)} (got {metric!r})")
    a_ = _prob("alpha", alpha)
    rho = float(correlation)
    if not (-1 < rho < 1):
        raise OptionError(f"correlation must lie in (−1, 1) (got {rho:g})")
    if method not in ("analytic", "simulation"):
        raise OptionError(f"method must be 'analytic' or 'simulation' (got {method!r})")
    if power is not None:
        target_power = _prob("power", power)
        if target_power <= a_:
            raise OptionError(f"power {target_power:g} must exceed alpha {a_:g}")
    if delta is not None:
        dlt = float(delta)
        if not math.isfinite(dlt) or dlt == 0 or abs(dlt) >= 1:
            raise OptionError(f"delta must be non-zero and in (−1, 1) (got {delta!r})")
    if tasks is not None:
        _whole("tasks", tasks, minimum=2)
    if runs_per_task is not None:
        _whole("runs_per_task", runs_per_task, minimum=kk)
    z = stats.norm.ppf(1 - a_ / 2)

    def power_at(dl: float, t: int, n: int) -> tuple[float, float]:
        _, model = _power_model(prior, dl, kk, metric, rho, system)
        if method == "simulation":
            res = simulate_power(
                tasks=t,
                runs_per_task=n,
                delta=dl,
                prior=prior,
                k=kk,
                metric=metric,
                correlation=rho,
                alpha=a_,
                replicates=replicates,
                seed=seed,
            )
            return res["power"], res["mc_error"]
        return _analytic_power(dl, _sd_diff(model, n), t, a_), 0.0

    assumed, _ = _resolve_prior(prior, system=system)
    q: dict[str, Any] = {
        "metric": metric,
        "k": kk,
        "alpha": a_,
        "correlation": rho,
        "method": method,
    }
    label = _label(metric, kk)
    if solve == "power":
        t, n, dl = int(tasks), int(runs_per_task), float(delta)  # type: ignore[arg-type]
        pw, mce = power_at(dl, t, n)
        value: float | int = pw
        reasoning = (
            f"With {t} matched tasks × {n} runs per system, a paired test at α = {a_:g} detects "
            f"a difference of {dl:+.3f} in {label} with probability {pct(pw)}"
            + (f" (±{pct(mce, 1)} Monte-Carlo error)." if method == "simulation" else ".")
        )
    elif solve == "tasks":
        n, dl = int(runs_per_task), float(delta)  # type: ignore[arg-type]
        _, model = _power_model(prior, dl, kk, metric, rho, system)
        sd = _sd_diff(model, n)
        zb = stats.norm.ppf(target_power)
        t = max(2, _ceil(((z + zb) * sd / abs(dl)) ** 2))
        while _analytic_power(dl, sd, t, a_) < target_power:
            t += 1
        pw, mce = power_at(dl, t, n)
        value = t
        reasoning = (
            f"{t} matched tasks × {n} runs per system give a paired test at α = {a_:g} "
            f"{pct(pw)} power to detect {dl:+.3f} in {label} (per-task difference SD "
            f"{sd:.3f}; {t - 1} tasks would fall short)."
        )
        q["sd_difference"] = sd
    elif solve == "runs_per_task":
        t, dl = int(tasks), float(delta)  # type: ignore[arg-type]
        _, model = _power_model(prior, dl, kk, metric, rho, system)
        n = kk
        while _analytic_power(dl, _sd_diff(model, n), t, a_) < target_power:
            n = n * 2 if n < 64 else n + 64
            if n > max_runs_per_task:
                limit = _analytic_power(dl, _sd_diff(model, max_runs_per_task), t, a_)
                raise OptionError(
                    f"{t} tasks cannot reach power {target_power:g} for {dl:+.3f} in {label}: "
                    f"even {max_runs_per_task} runs per task give {pct(limit)} (task spread "
                    "dominates); add tasks"
                )
        lo = max(kk, n // 2 if n <= 64 else n - 64)
        for cand in range(lo, n + 1):
            if _analytic_power(dl, _sd_diff(model, cand), t, a_) >= target_power:
                n = cand
                break
        pw, mce = power_at(dl, t, n)
        value = n
        reasoning = (
            f"{n} runs per task on {t} matched tasks give a paired test at α = {a_:g} "
            f"{pct(pw)} power to detect {dl:+.3f} in {label}; more runs shrink only the "
            "within-task part of the difference's spread."
        )
    else:
        t, n = int(tasks), int(runs_per_task)  # type: ignore[arg-type]
        base = population_value(assumed.a, assumed.b, kk, metric)

        def gap(dl: float) -> float:
            _, model = _power_model(prior, dl, kk, metric, rho, system)
            return _analytic_power(dl, _sd_diff(model, n), t, a_) - target_power

        hi = min(0.999 - base, 0.999)
        if hi <= 1e-6 or gap(hi) < 0:
            raise OptionError(
                f"no improvement in {label} above {base:.3f} reaches power {target_power:g} "
                f"with {t} tasks × {n} runs"
            )
        dl = float(optimize.brentq(gap, 1e-6, hi, xtol=1e-6))
        pw, mce = power_at(dl, t, n)
        value = dl
        reasoning = (
            f"With {t} matched tasks × {n} runs per system, the smallest improvement in "
            f"{label} a paired test at α = {a_:g} detects with {pct(target_power)} power is "
            f"{dl:+.4f} (from {base:.3f})."
        )
    q.update({"delta": dl, "tasks": t, "runs_per_task": n, "power": pw})
    if method == "simulation":
        q.update({"replicates": replicates, "mc_error": mce, "seed": seed})
    q["baseline_value"] = population_value(assumed.a, assumed.b, kk, metric)
    meth = (
        "paired t-test power (noncentral t) with the exact per-task difference SD"
        if method == "analytic"
        else f"simulation of {replicates} benchmarks (seed {seed}), paired t-test"
    )
    return PlanResult(
        "power",
        solve,
        value,
        q,
        reasoning,
        assumptions=(
            assumed.describe() + "; system B has the same κ",
            f"matched tasks; latent task correlation between systems {rho:g} (Gaussian copula)",
            *_MODEL_ASSUMPTIONS,
        ),
        method=meth,
    )


_power_query = power  # power_table/power_grid take a `power=` argument


def power_table(
    *,
    delta: float,
    power: float,
    prior: Any,
    k: int = 1,
    metric: MetricName = "mean",
    alpha: float = 0.05,
    correlation: float = 0.5,
    runs_per_task: Sequence[int] | None = None,
    cost_per_run: float = 1.0,
    cost_per_task: float = 0.0,
    system: str | None = None,
) -> pd.DataFrame:
    """Tasks needed for each runs-per-task choice to detect ``delta`` (paired), cheapest marked.

    For every n in ``runs_per_task`` (default k … k + 15) the number of
    matched tasks T is solved as in :func:`power`; cost per system is
    T·(cost_per_task + n·cost_per_run). ``attrs`` holds the optimum,
    reasoning and assumptions.

    Examples
    --------
    >>> from passhat import plan
    >>> t = plan.power_table(delta=0.1, power=0.8, prior=plan.Assumptions(mean=0.6, icc=0.3))
    >>> bool(t["optimal"].sum() == 1)
    True
    """
    kk = _whole("k", k, minimum=1)
    ns = list(range(kk, kk + 16)) if runs_per_task is None else list(runs_per_task)
    rows = []
    res = None
    for n in ns:
        res = _power_query(
            delta=delta,
            runs_per_task=n,
            power=power,
            prior=prior,
            k=kk,
            metric=metric,
            alpha=alpha,
            correlation=correlation,
            system=system,
        )
        t = int(res.value)
        rows.append(
            {
                "runs_per_task": n,
                "tasks": t,
                "runs": t * n,
                "cost": t * (cost_per_task + n * cost_per_run),
                "sd_difference": res.quantities["sd_difference"],
                "power": res.quantities["power"],
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
                f"To detect {float(delta):+.3f} in {label} with {pct(float(power), 0)} power "
                f"at α = {alpha:g}, the cheapest design is {int(best['tasks'])} matched tasks × "
                f"{int(best['runs_per_task'])} runs per system (cost {best['cost']:g} per "
                "system); more runs per task shrink only the within-task part of each "
                "paired difference."
            ),
            "assumptions": list(res.assumptions) if res is not None else [],
            "method": res.method if res is not None else "",
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
    correlation: float = 0.5,
    replicates: int = 2000,
    seed: int = 0,
    scheduler: str | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Power over a (tasks × runs per task) grid: analytic and simulated (through :func:`sweep`).

    Each grid point gets its own seed (``seed`` + its index), so results do
    not depend on the scheduler.

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
    label = _label(metric, k)
    df.attrs.update(
        {
            "reasoning": (
                f"Power of a paired test at α = {alpha:g} to detect {delta:+.3f} in {label}: the "
                f"noncentral-t power with the exact per-task difference SD, and {replicates} "
                "simulated benchmarks per design (binomial Monte-Carlo error shown)."
            ),
            "assumptions": [
                assumed.describe() + "; system B has the same κ",
                f"matched tasks; latent task correlation {correlation:g} (Gaussian copula)",
                *_MODEL_ASSUMPTIONS,
            ],
            "replicates": replicates,
        }
    )
    return df
