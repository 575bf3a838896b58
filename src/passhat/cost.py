"""Cost per success: the runs' ``cost`` column per (system, task), and the cost ratios.

:func:`cost_cells` sums each (system, task) cell's run costs once, when an estimate is made
(a bincount; runs of every status, since an unscored run was paid for too);
:func:`cost_estimate` turns them and the estimate's benchmark values into a
:class:`~passhat.cost_result.CostEstimate` (definitions there). A run without a cost, or with
a negative one, is an error naming it when the cost is asked for, never a silent zero.

Examples
--------
>>> import pandas as pd
>>> import passhat as ph
>>> df = pd.DataFrame({"task_id": list("aabb"), "success": [True, False, True, True],
...                    "cost": [1.0, 1.0, 2.0, 2.0]})
>>> est = ph.estimate(ph.Trials.from_frame(df), k=[1, 2])
>>> cols = ["cost_per_run", "cost_per_success", "cost_per_all_k_pass"]
>>> est.cost.to_frame()[cols].values.tolist()  # k = 1, 2
[[1.5, 2.0, 2.0], [1.5, 2.0, 6.0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat.cost_result import COST_COLUMNS, CostEstimate
from passhat.errors import ValidationError
from passhat.trials import Trials

__all__ = ["CostCells", "cost_cells", "cost_estimate"]


@dataclass(frozen=True, eq=False)
class CostCells:
    """Per (system, task) cell: the total cost of its runs, its runs, the runs without a cost
    and with a negative one, and the first such run (for the error)."""

    total: NDArray[np.float64]
    runs: NDArray[np.int64]
    missing: NDArray[np.int64]
    negative: NDArray[np.int64]
    where: str


def cost_cells(data: Trials | xr.Dataset, ds: xr.Dataset) -> CostCells | None:
    """The cost sums per cell of ``ds`` (a count table of ``data``); None without runs or
    without a cost column."""
    if not isinstance(data, Trials) or "cost" not in data.frame.columns:
        return None
    df = data.frame
    x = pd.to_numeric(df["cost"], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    tasks = pd.Index(ds["task"].values)
    s_idx = pd.Index(ds["system"].values).get_indexer(df["system"])
    t_idx = tasks.get_indexer(df["task_id"])
    keep = (s_idx >= 0) & (t_idx >= 0)
    cell = (s_idx * len(tasks) + t_idx)[keep]
    xs = x[keep]
    size = ds["n"].size
    shape = ds["n"].shape
    gone, neg = np.isnan(xs), xs < 0
    first = np.flatnonzero(gone | neg)
    where = ""
    if first.size:
        row = df[keep].iloc[int(first[0])]
        where = f"task {row['task_id']!r} (system {row['system']!r}), trial {row['trial']}"
    return CostCells(
        total=np.bincount(cell, weights=np.where(gone, 0.0, xs), minlength=size)
        .astype(np.float64)
        .reshape(shape),
        runs=np.bincount(cell, minlength=size).astype(np.int64).reshape(shape),
        missing=np.bincount(cell, weights=gone, minlength=size).astype(np.int64).reshape(shape),
        negative=np.bincount(cell, weights=neg, minlength=size).astype(np.int64).reshape(shape),
        where=where,
    )


def _checked(cells: CostCells, include: NDArray[np.bool_], path: str) -> None:
    """Every run of an included task has a cost ≥ 0, or an error naming the first one."""
    for count, rule in ((cells.missing, "no cost"), (cells.negative, "a negative cost")):
        bad = int((count * include).sum())
        if bad:
            raise ValidationError(
                f"{path}{bad} run(s) of the estimated tasks have {rule} (first: {cells.where}); "
                "cost per success needs a cost ≥ 0 for every run"
            )


def cost_estimate(
    cells: CostCells,
    wide: pd.DataFrame,
    include: NDArray[np.bool_],
    weights: NDArray[np.float64],
    ks: Sequence[int],
    *,
    systems: Sequence[str],
    source: dict[str, str] | None = None,
) -> CostEstimate:
    """The cost ratios per (system, k) from ``cells``, the estimate's ``wide()`` table (mean
    and pass^k per system and k), its included tasks and normalised ``weights``."""
    src = dict(source or {})
    _checked(cells, include, f"{src['path']}: " if "path" in src else "")
    with np.errstate(invalid="ignore", divide="ignore"):
        per_run = np.where(include & (cells.runs > 0), cells.total / cells.runs, 0.0)
    cpr = (weights * per_run).sum(axis=1)
    vals = wide.set_index(["system", "k"])
    rows = []
    for s, name in enumerate(systems):
        if not include[s].any():
            continue
        for kv in ks:
            mean, hat = (float(vals.loc[(name, kv), m]) for m in ("mean", "pass_hat_k"))
            spend = kv * cpr[s]
            rows.append(
                (name, int(kv), int(include[s].sum()), int((cells.runs[s] * include[s]).sum()),
                 float((cells.total[s] * include[s]).sum()), float(cpr[s]), mean,
                 cpr[s] / mean if mean > 0 else np.nan, hat,
                 spend / hat if hat > 0 else np.nan, hat / spend if spend > 0 else np.nan)
            )  # fmt: skip
    return CostEstimate(
        table=pd.DataFrame(rows, columns=["system", "k", *COST_COLUMNS]), source=src
    )
