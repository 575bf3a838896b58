"""Simulated benchmarks that check a design's standard errors (:meth:`DesignResult.check
<passhat.planner.design_result.DesignResult.check>`).

:func:`simulate_design` draws benchmarks of one design from the prior's Beta-Binomial and
measures the spread of their estimates; :func:`check_design` runs it over a few designs of a
table in parallel (:func:`~passhat.planner.sweep.sweep`) and sets the predicted standard
errors beside the simulated spreads.

Examples
--------
>>> from passhat import plan
>>> d = plan.design(budget_runs=200, k=2, prior=plan.Assumptions(mean=0.7, icc=0.3))
>>> chk = check_design(d.table, metric="pass_hat_k", k=2, prior=d.prior, rows=2, replicates=200,
...     scheduler="synchronous")
>>> sorted(set(chk["metric"]))
['mean', 'pass_at_k', 'pass_hat_k']
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from passhat._validate import check_k, make_rng
from passhat.planner._checks import METRICS, check_simulation
from passhat.planner._checks import whole as _whole
from passhat.planner.assumptions import _resolve_prior
from passhat.planner.moments import _estimator, _g
from passhat.planner.sweep import sweep

__all__ = ["check_design", "simulate_design"]


def simulate_design(
    *,
    tasks: int,
    runs_per_task: int,
    k: int,
    prior: Any,
    replicates: int = 2000,
    seed: int | None = 0,
) -> dict[str, float]:
    """Spread of benchmark estimates over simulated benchmarks (checks :func:`design`).

    Each replicate draws ``tasks`` rates from the prior's Beta, runs each
    task ``runs_per_task`` times and averages the unbiased per-task
    estimators. ``sd_population_*`` is the SD over replicates of the
    estimate; ``sd_benchmark_*`` the root-mean of its within-replicate
    variance around the replicate's own true benchmark value. One point of
    :meth:`DesignResult.check <passhat.planner.design_result.DesignResult.check>`'s sweep.

    Examples
    --------
    >>> from passhat import plan
    >>> r = simulate_design(tasks=20, runs_per_task=5, k=2,
    ...     prior=plan.Assumptions(mean=0.7, icc=0.3), replicates=100)
    >>> r["sd_population_pass_hat_k"] > 0
    True
    """
    assumed, _ = _resolve_prior(prior)
    k = check_k(k)
    t = _whole("tasks", tasks, minimum=1)
    n = _whole("runs_per_task", runs_per_task, minimum=k)
    replicates = _whole("replicates", replicates, minimum=1)
    check_simulation(replicates, t)
    rng = make_rng(seed)
    p = rng.beta(assumed.a, assumed.b, size=(replicates, t))
    c = rng.binomial(n, p).astype(float)
    out: dict[str, float] = {"tasks": t, "runs_per_task": n, "k": k, "replicates": replicates}
    for m in METRICS:
        u = _estimator(c, n, k, m)
        est = u.mean(axis=1)
        truth = _g(p, k, m).mean(axis=1)
        out[f"sd_population_{m}"] = float(est.std(ddof=1))
        out[f"sd_benchmark_{m}"] = float(np.sqrt(np.mean((est - truth) ** 2)))
    return out


def check_design(
    table: pd.DataFrame,
    *,
    metric: str,
    k: int,
    prior: Any,
    rows: int = 6,
    replicates: int = 2000,
    seed: int = 0,
    scheduler: str | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Predicted standard errors of a design's table beside simulated spreads (the table of
    :meth:`DesignResult.check <passhat.planner.design_result.DesignResult.check>`).

    Simulates the optimum of ``metric`` and up to ``rows`` − 1 other designs of the table
    (spread over its runs per task) with :func:`simulate_design`, in parallel through
    :func:`~passhat.planner.sweep.sweep`.
    """
    sub = table[table["metric"] == metric].reset_index(drop=True)
    opt = int(np.flatnonzero(sub["optimal"].to_numpy())[0])
    others = [i for i in np.linspace(0, len(sub) - 1, rows).round().astype(int) if i != opt]
    picks = [opt, *others[: max(rows - 1, 0)]]
    designs = sub.loc[picks, ["tasks", "runs_per_task"]].drop_duplicates()
    points = [
        {"tasks": int(t), "runs_per_task": int(n), "seed": seed + i}
        for i, (t, n) in enumerate(designs.itertuples(index=False))
    ]
    sims = sweep(
        simulate_design,
        points,
        scheduler=scheduler,
        progress=progress,
        k=k,
        prior=prior,
        replicates=replicates,
    )
    out = []
    for (_, sim), p in zip(sims.iterrows(), points, strict=True):
        for m in METRICS:
            row = table[
                (table["metric"] == m)
                & (table["tasks"] == p["tasks"])
                & (table["runs_per_task"] == p["runs_per_task"])
            ].iloc[0]
            out.append(
                {
                    "tasks": p["tasks"],
                    "runs_per_task": p["runs_per_task"],
                    "metric": m,
                    "se_population": row["se_population"],
                    "sd_population_simulated": sim[f"sd_population_{m}"],
                    "se_benchmark": row["se_benchmark"],
                    "sd_benchmark_simulated": sim[f"sd_benchmark_{m}"],
                    "relative_mc_error": 1 / math.sqrt(2 * replicates),
                }
            )
    return pd.DataFrame(out)
