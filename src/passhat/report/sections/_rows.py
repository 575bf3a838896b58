"""Row helpers the section modules share: which (metric, k) the report shows, and table lookups."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from passhat.report.document import Column, Fmt

__all__ = ["interval_lookup", "outside", "population_row", "shown", "weighted"]


def shown(metric: str, k: int, ks: list[int]) -> bool:
    """Whether the report shows ``metric`` at ``k``: the mean once (at the first k), pass@k
    and pass^k only for k > 1 (at k = 1 both equal the mean).

    Examples
    --------
    >>> [shown(m, 1, [1, 5]) for m in ("mean", "pass_at_k", "pass_hat_k")]
    [True, False, False]
    """
    return k == ks[0] if metric == "mean" else k != 1


def population_row(summary: pd.DataFrame, system: str, metric: str, k: int) -> pd.Series | None:
    """The population-scope row of a model summary for (system, metric, k), if any.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"system": ["a"], "metric": ["mean"], "k": [1],
    ...                   "scope": ["population"], "mean": [0.5]})
    >>> float(population_row(t, "a", "mean", 1)["mean"]), population_row(t, "b", "mean", 1)
    (0.5, None)
    """
    m = summary[
        (summary["system"] == system)
        & (summary["metric"] == metric)
        & (summary["k"] == k)
        & (summary["scope"] == "population")
    ]
    return m.iloc[0] if len(m) else None


def interval_lookup(table: pd.DataFrame) -> dict[tuple[str, int, str, str], dict[str, Any]]:
    """(system, k, metric, scope) → lower, upper and method, from an estimate's tidy table.

    Empty when the estimate has no intervals (``ci=None``).

    Examples
    --------
    >>> import passhat as ph
    >>> est = ph.estimate(ph.load_example("abcd"), k=2, ci=0.95, n_boot=200, seed=0)
    >>> sorted({scope for (_, _, _, scope) in interval_lookup(est.table)})
    ['benchmark', 'population']
    """
    out: dict[tuple[str, int, str, str], dict[str, Any]] = {}
    if "scope" not in table.columns:
        return out
    for r in table.itertuples():
        out[(str(r.system), int(r.k), str(r.metric), str(r.scope))] = {
            "lower": float(r.lower),
            "upper": float(r.upper),
            "method": str(r.method),
        }
    return out


def _number(x: Any) -> float:
    """A float, or NaN when missing or not a number."""
    try:
        return float(x) if x is not None else math.nan
    except (TypeError, ValueError):
        return math.nan


def outside(value: Any, lower: Any, upper: Any) -> bool:
    """Whether a value lies outside its interval; never when the value or an end is missing or
    not finite (the rule of :func:`passhat.intervals.outside_mask`, for one row).

    Examples
    --------
    >>> outside(1.0, 0.4, 0.99), outside(0.5, 0.4, 0.6), outside(0.2, None, 0.3)
    (True, False, False)
    """
    v, lo, hi = _number(value), _number(lower), _number(upper)
    if not (math.isfinite(v) and math.isfinite(lo) and math.isfinite(hi)):
        return False
    return v < lo or v > hi


def scope_columns(level: str, fmt: Fmt) -> list[Column]:
    """The two interval columns of a table of estimates: the benchmark scope's, then the
    population scope's, each headed with its level and what it covers.

    Examples
    --------
    >>> [c.key for c in scope_columns("95%", "interval")]
    ['benchmark', 'population']
    """
    return [
        Column("benchmark", f"{level} interval, benchmark scope (these tasks)", fmt),
        Column(
            "population",
            f"{level} interval, population scope (expected value over tasks like these)",
            fmt,
        ),
    ]


def methods_note(methods: Mapping[str, Sequence[str]], *, none: str) -> str:
    """The note under a table of estimates: each scope's interval methods, or ``none``.

    Examples
    --------
    >>> methods_note({"population": ["a", "b"], "benchmark": ["c"]}, none="-")
    'Benchmark scope: c. Population scope: a; b.'
    >>> methods_note({}, none="No intervals.")
    'No intervals.'
    """
    return (
        " ".join(f"{s.capitalize()} scope: {'; '.join(m)}." for s, m in sorted(methods.items()))
        or none
    )


def weighted(label: Any) -> bool:
    """Whether a recorded weights label (equal, declared, category, mapping) means unequal task
    weights.

    Examples
    --------
    >>> weighted(None), weighted("equal"), weighted("category"), weighted("mapping")
    (False, False, True, True)
    """
    return label is not None and str(label) != "equal"
