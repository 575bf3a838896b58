"""The headline's paired comparison: each system against the baseline on matched tasks."""

from __future__ import annotations

from typing import Any

import xarray as xr

from passhat.compare import compare
from passhat.estimators import METRIC_LABELS
from passhat.report.document import Column, Table
from passhat.trials import Trials

__all__ = ["comparison_table"]


def _rows(table: Any) -> list[dict[str, Any]]:
    """Population-scope rows; the mean once per pair, pass@k and pass^k only for k > 1."""
    t = table[table["scope"] == "population"] if "scope" in table.columns else table
    rows = []
    for r in t.to_dict(orient="records"):
        rows.append(
            {
                "baseline": r.get("baseline"),
                "candidate": r.get("candidate"),
                "metric": METRIC_LABELS.get(str(r.get("metric")), str(r.get("metric"))),
                "k": int(r["k"]) if r.get("metric") != "mean" else None,
                "difference": r.get("difference"),
                "diff_lower": r.get("lower"),
                "diff_upper": r.get("upper"),
                "p_value": r.get("p_value"),
                "tasks": r.get("tasks"),
                "method": r.get("method"),
            }
        )
    seen_mean: set[tuple[Any, Any]] = set()
    kept = []
    for r in rows:  # the mean does not depend on k: keep one row per pair
        if r["metric"] == "mean":
            key = (r["baseline"], r["candidate"])
            if key in seen_mean:
                continue
            seen_mean.add(key)
        elif r["k"] == 1 and r["metric"] in ("pass@k", "pass^k"):
            continue  # equal to the mean at k = 1
        kept.append(r)
    return kept


def comparison_table(
    data: Trials | xr.Dataset,
    *,
    ks: list[int],
    ci: float,
    seed: int | None,
    n_boot: int,
    baseline: str,
    weights: Any = None,
) -> tuple[Table, list[str]]:
    """Paired differences (candidate − baseline) with intervals and p-values, population scope.

    Parameters
    ----------
    data : Trials or xarray.Dataset
        The report's input (two systems or more).
    ks : list of int
        k values; the sentences speak of pass^k at the largest.
    ci : float
        Interval level.
    seed : int, optional
        Seed of the paired bootstrap.
    n_boot : int
        Bootstrap resamples.
    baseline : str
        The system the others are compared with.
    weights : None, "equal", "declared", "category" or mapping
        Task weights, as in the report's estimate.

    Returns
    -------
    (Table, list of str)
        The ``headline_compare`` table and one sentence per candidate.

    Examples
    --------
    >>> import passhat as ph
    >>> table, sentences = comparison_table(ph.load_example("agents"), ks=[1, 5], ci=0.95,
    ...                                     seed=0, n_boot=200, baseline="baseline")
    >>> sorted({(r["baseline"], r["candidate"]) for r in table.rows})
    [('baseline', 'guided')]
    """
    cmp = compare(
        data,
        k=ks,
        ci=ci,
        seed=seed,
        n_boot=n_boot,
        intersect=True,
        baseline=baseline,
        weights=weights,
    )
    rows = _rows(cmp.table)
    table = Table(
        id="headline_compare",
        caption="Paired comparison on matched tasks (candidate − baseline): the expected "
        "difference over tasks like these (population scope)",
        columns=[
            Column("baseline", "Baseline"),
            Column("candidate", "Candidate"),
            Column("metric", "Metric"),
            Column("k", "k", "int"),
            Column("difference", "Difference", "dpts"),
            Column("diff", f"{ci:.0%} interval", "interval"),
            Column("p_value", "p-value", "num"),
            Column("tasks", "Tasks", "int"),
        ],
        rows=rows,
        note=(
            f"{rows[0]['method']}; the interval excludes 0 exactly when p ≤ {1 - ci:.2g}"
            if rows
            else ""
        ),
    )
    sent = []
    kmax = ks[-1]
    for r in rows:
        if r["metric"] == "pass^k" and r["k"] == kmax:
            lo, hi = r["diff_lower"], r["diff_upper"]
            sig = (
                "the interval excludes zero (and the test rejects at that level)"
                if lo is not None and (lo > 0 or hi < 0)
                else "the interval includes zero, so the data do not settle which is better"
            )
            sent.append(
                f"{r['candidate']} − {r['baseline']}: pass^{kmax} differs by "
                f"{r['difference'] * 100:+.1f} points ({ci:.0%} interval {lo * 100:+.1f} to "
                f"{hi * 100:+.1f}, p = {r['p_value']:.3g}); {sig}."
            )
    return table, sent
