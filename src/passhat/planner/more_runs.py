"""What m more runs on the same tasks would buy, from data already run (``plan.more_runs``).

The budget owner's question after a first round: rerun these tasks, or add
tasks? :func:`more_runs` fits the hierarchical model (exact grid, or takes a
fit) and reports, per system, metric and scope, the expected interval width
after m more runs on every task (:meth:`passhat.Fit.more_runs`, a
preposterior computation) with the variance split of the same posterior
(:meth:`passhat.Fit.summary`): the within-task share is what unlimited runs
would remove, by the law of total variance given these tasks' rates; the rest
(the floor of the population interval) only more tasks reduce.

Examples
--------
>>> import passhat as ph
>>> r = ph.plan.more_runs(ph.load_example("abcd"), runs=[5], k=2, simulations=50, seed=0)
>>> sorted(set(r.table["scope"])), "population" in r.reasoning
(['benchmark', 'population'], True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from passhat.errors import OptionError
from passhat.planner.more_runs_result import MoreRuns

__all__ = ["more_runs"]


def more_runs(
    data: Any,
    *,
    runs: int | Sequence[int] = (1, 2, 5, 10),
    k: int | Sequence[int] | None = None,
    ci: float = 0.95,
    simulations: int = 200,
    seed: int | None = 0,
) -> MoreRuns:
    """Expected interval width after m more runs per task, and the floor more runs cannot pass.

    Parameters
    ----------
    data : Trials, count table or passhat.Fit
        Runs already made (fitted with the exact grid, ``seed``), or a fit of
        the plain Beta-Binomial model.
    runs : int or list of int
        Numbers m of more runs per task.
    k : int or list of int, optional
        k of pass^k and pass@k (default: the fit's k; for data, the one rule for runs:
        1, 2, 5 capped at the fewest decided runs, :func:`passhat.exclusions.default_ks`).
    ci : float
        Interval level.
    simulations : int
        Simulated sets of new runs per m.
    seed : int, optional
        Seed of the fit made from data (a given fit keeps its own seed).

    Returns
    -------
    MoreRuns
        ``table``: :meth:`passhat.Fit.more_runs`'s table plus ``within_task_share`` (of
        today's population-scope variance: what unlimited runs would remove);
        ``explain()``: one sentence per system (``reasoning``: joined), ``method``.
    """
    from passhat.model import Fit, fit
    from passhat.trials import provenance

    source: dict[str, str] = {}
    if isinstance(data, Fit):
        f = data
    else:
        from passhat.exclusions import default_ks

        if k is None:
            k = default_ks(data)
        f = fit(data, k=k, method="grid", model="beta", seed=seed, progress=False)
        source = provenance(data)
    if f.model != "beta":
        raise OptionError(
            "more_runs: the expected width is computed for the plain Beta-Binomial model; "
            "refit with model='beta'"
        )
    table = f.more_runs(runs, k=k, ci=ci, simulations=simulations)
    summary = f.summary(k=k, ci=ci)
    pop = summary[(summary["scope"] == "population") & (summary["metric"] != "icc")]
    split = {
        (r.system, r.metric, 1 if r.metric == "mean" else int(r.k)): float(r.within_task_share)
        for r in pop.itertuples()
    }
    table["within_task_share"] = [
        split[(r.system, r.metric, int(r.k))] if r.scope == "population" else 1.0
        for r in table.itertuples()
    ]
    return MoreRuns(
        table=table,
        ci=ci,
        simulations=simulations,
        fit_method=str(f.method_label),
        fit_seed=f.seed,
        source=source,
    )
