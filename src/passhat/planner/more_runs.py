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
>>> t = ph.plan.more_runs(ph.load_example("abcd"), runs=[5], k=2, simulations=50, seed=0)
>>> sorted(set(t["scope"])), "population" in t.attrs["reasoning"]
(['benchmark', 'population'], True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from passhat._format import pct
from passhat.errors import OptionError
from passhat.planner.result import _label

__all__ = ["more_runs"]


def more_runs(
    data: Any,
    *,
    runs: int | Sequence[int] = (1, 2, 5, 10),
    k: int | Sequence[int] | None = None,
    ci: float = 0.95,
    simulations: int = 200,
    seed: int | None = 0,
) -> pd.DataFrame:
    """Expected interval width after m more runs per task, and the floor more runs cannot pass.

    Parameters
    ----------
    data : Trials, count table or passhat.Fit
        Runs already made (fitted with the exact grid, ``seed``), or a fit of
        the plain Beta-Binomial model.
    runs : int or list of int
        Numbers m of more runs per task.
    k : int or list of int, optional
        k of pass^k and pass@k (default: the fit's k; for data, 1 and the
        fewest decided runs of any task).
    ci : float
        Interval level.
    simulations : int
        Simulated sets of new runs per m.
    seed : int, optional
        Seed of the fit made from data (a given fit keeps its own seed).

    Returns
    -------
    pandas.DataFrame
        :meth:`passhat.Fit.more_runs`'s table plus ``within_task_share`` (of
        today's population-scope variance: what unlimited runs would remove);
        ``attrs``: ``reasoning`` (one sentence per system; ``sentences``: the
        list), ``method``.
    """
    from passhat.model import Fit, fit

    if isinstance(data, Fit):
        f = data
    else:
        from passhat.estimators import as_counts

        ds = as_counts(data)
        ran = ds["n"].values[ds["present"].values.astype(bool) & (ds["n"].values > 0)]
        if k is None:
            k = sorted({1, max(int(ran.min()) if ran.size else 1, 1)})
        f = fit(data, k=k, method="grid", model="beta", seed=seed, progress=False)
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
    kmax = int(table["k"].max())
    sentences = []
    for system, part in table[(table["metric"] == "pass_hat_k") & (table["k"] == kmax)].groupby(
        "system", sort=False
    ):
        p = part[part["scope"] == "population"].set_index("runs_added")
        b = part[part["scope"] == "benchmark"].set_index("runs_added")
        m = max(x for x in p.index if x != float("inf"))
        label = _label("pass_hat_k", kmax)
        sentences.append(
            f"{system}: {int(m)} more runs on each task would narrow the {ci:.0%} interval of "
            f"{label} for a new task (population) from {p.loc[0.0, 'expected_width']:.3f} to "
            f"{p.loc[m, 'expected_width']:.3f} on average ({p.loc[m, 'width_ratio'] - 1:+.0%}), "
            f"and no number of runs below {p.loc[float('inf'), 'expected_width']:.3f}: "
            f"{pct(1 - float(p['within_task_share'].iloc[0]), 0)} of today's variance comes "
            "from which tasks were sampled, which only more tasks reduce. For these tasks "
            f"(benchmark) the interval would go from {b.loc[0.0, 'expected_width']:.3f} to "
            f"{b.loc[m, 'expected_width']:.3f} ({b.loc[m, 'width_ratio'] - 1:+.0%})."
        )
    table.attrs.update(
        {
            "reasoning": " ".join(sentences),
            "sentences": sentences,
            "method": (
                f"preposterior: {simulations} simulated sets of new runs per m from the "
                f"posterior predictive, each posterior exact on a grid ({f.method_label}, "
                f"seed {f.seed}); population intervals from the grid's cdf, benchmark ±z·sd"
            ),
        }
    )
    return table
