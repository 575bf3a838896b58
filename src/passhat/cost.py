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
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat._frames import to_numbers
from passhat.cost_of import COLUMN
from passhat.cost_result import COST_COLUMNS, CostEstimate
from passhat.errors import ValidationError
from passhat.trials import Trials

__all__ = ["IV_COLUMNS", "CostCells", "cost_cells", "cost_estimate", "ratio_bootstrap"]


@dataclass(frozen=True, eq=False)
class CostCells:
    """Per (system, task) cell: the total cost of its runs, its runs, the runs without a cost
    and with a negative one, and the first such run (for the error)."""

    total: NDArray[np.float64]
    runs: NDArray[np.int64]
    missing: NDArray[np.int64]
    negative: NDArray[np.int64]
    where: str


def cost_cells(data: Trials | xr.Dataset, ds: xr.Dataset) -> dict[str, CostCells]:
    """The cost sums per cell of ``ds`` (a count table of ``data``) from each column the
    runs carry, by what it measures (``"cost"``: ``cost``; ``"duration"``: ``duration_s``);
    empty without runs or without either column. The runs are matched to cells once."""
    if not isinstance(data, Trials):
        return {}
    df = data.frame
    present = [(of, col) for of, col in COLUMN.items() if col in df.columns]
    if not present:
        return {}
    tasks = pd.Index(ds["task"].values)
    s_idx = pd.Index(ds["system"].values).get_indexer(df["system"])
    t_idx = tasks.get_indexer(df["task_id"])
    keep = (s_idx >= 0) & (t_idx >= 0)
    cell = (s_idx * len(tasks) + t_idx)[keep]
    return {of: _cells_of(df, col, keep, cell, ds["n"].shape) for of, col in present}


def _cells_of(
    df: pd.DataFrame,
    column: str,
    keep: NDArray[np.bool_],
    cell: NDArray[np.int64],
    shape: tuple[int, ...],
) -> CostCells:
    """One column's sums per cell (``cell``: the flat cell of each kept run)."""
    xs = to_numbers(df[column]).to_numpy(dtype=float, na_value=np.nan)[keep]
    size = int(np.prod(shape))
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


def _checked(cells: CostCells, include: NDArray[np.bool_], path: str, cost_of: str) -> None:
    """Every run of an included task has a cost (or duration) ≥ 0, or an error naming the
    first one."""
    word = "cost" if cost_of == "cost" else "duration_s"
    for count, rule in ((cells.missing, f"no {word}"), (cells.negative, f"a negative {word}")):
        bad = int((count * include).sum())
        if bad:
            raise ValidationError(
                f"{path}{bad} run(s) of the estimated tasks have {rule} (first: {cells.where}); "
                f"{cost_of} per success needs a {word} ≥ 0 for every run"
            )


#: The interval columns, with ``ci``.
IV_COLUMNS = (
    "cost_per_success_lower",
    "cost_per_success_upper",
    "cost_per_all_k_pass_lower",
    "cost_per_all_k_pass_upper",
    "pass_hat_k_per_cost_lower",
    "pass_hat_k_per_cost_upper",
)

#: Most resampled task values held at once (resamples × tasks) in the bootstrap.
_CHUNK = 4_000_000


def ratio_bootstrap(
    num: NDArray[np.float64],
    den: NDArray[np.float64],
    weights: NDArray[np.float64],
    *,
    ci: float,
    n_boot: int,
    rng: np.random.Generator,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Percentile task-bootstrap interval of Σ wᵢ numᵢ / Σ wᵢ denᵢⱼ per column j of ``den``
    (tasks × columns): the tasks are drawn with replacement, each with its weight and values.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> lo, hi = ratio_bootstrap(np.ones(50), rng.uniform(size=(50, 1)), np.ones(50), ci=0.9,
    ...                          n_boot=500, rng=rng)
    >>> bool(lo[0] < 1 / 0.5 < hi[0])
    True
    """
    t = len(num)
    wn, wd = weights * num, weights[:, None] * den
    out = np.empty((n_boot, den.shape[1]))
    step = max(1, _CHUNK // max(t, 1))
    for start in range(0, n_boot, step):
        idx = rng.integers(0, t, size=(min(step, n_boot - start), t))
        top = wn[idx].sum(axis=1)
        bottom = np.stack([wd[:, j][idx].sum(axis=1) for j in range(den.shape[1])], axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start : start + len(idx)] = np.where(bottom > 0, top[:, None] / bottom, np.inf)
    with np.errstate(invalid="ignore"):  # between two ∞ numpy interpolates ∞ - ∞ = NaN
        q = np.quantile(out, [(1 - ci) / 2, (1 + ci) / 2], axis=0)
    q = np.where(np.isnan(q), np.inf, q)  # out holds no NaN: a NaN quantile lies among ∞
    return q[0], q[1]


def _intervals(
    per_run: NDArray[np.float64],
    rates: NDArray[np.float64],
    weights: NDArray[np.float64],
    ks: Sequence[int],
    *,
    boot: dict[str, Any],
    name: str,
) -> dict[str, tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """Population intervals of cost / success and cost / all-k-pass for one system's tasks
    (``rates``: tasks × (mean, pass^k for each k))."""
    from passhat._validate import named_rng, root_seed

    rng = named_rng(root_seed(boot["seed"]), name, "cost")
    lo, hi = ratio_bootstrap(per_run, rates, weights, ci=boot["ci"], n_boot=boot["n_boot"],
                             rng=rng)  # fmt: skip
    kk = np.asarray([1.0, *ks])
    return {"success": (lo[:1], hi[:1]), "all_k": (kk[1:] * lo[1:], kk[1:] * hi[1:])}


def _inverse(lo: float, hi: float) -> tuple[float, float]:
    """The interval of pass^k per unit cost from that of its inverse, the cost per all-k-pass
    (1/x is decreasing on (0, ∞], so the ends swap: 1/∞ = 0, and 1/0 = ∞).

    Examples
    --------
    >>> _inverse(0.5, float("inf"))
    (0.0, 2.0)
    """
    with np.errstate(divide="ignore"):
        return float(np.float64(1.0) / hi), float(np.float64(1.0) / lo)


def cost_estimate(
    cells: CostCells,
    wide: pd.DataFrame,
    include: NDArray[np.bool_],
    weights: NDArray[np.float64],
    ks: Sequence[int],
    *,
    systems: Sequence[str],
    source: dict[str, str] | None = None,
    rates: NDArray[np.float64] | None = None,
    boot: dict[str, Any] | None = None,
    cost_of: str = "cost",
) -> CostEstimate:
    """The cost ratios per (system, k) from ``cells``, the estimate's ``wide()`` table (mean
    and pass^k per system and k), its included tasks and normalised ``weights``. With
    ``rates`` (system × task × (mean, pass^k per k)) and ``boot`` (ci, n_boot, seed): the
    population scope's percentile task-bootstrap intervals of cost / success and cost /
    all-k-pass. ``cost_of`` names what ``cells`` hold (``"cost"`` or ``"duration"``, for the
    result's words)."""
    src = dict(source or {})
    _checked(cells, include, f"{src['path']}: " if "path" in src else "", cost_of)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_run = np.where(include & (cells.runs > 0), cells.total / cells.runs, 0.0)
    cpr = (weights * per_run).sum(axis=1)
    vals = wide.set_index(["system", "k"])
    rows = []
    ivs = []
    for s, name in enumerate(systems):
        if not include[s].any():
            continue
        if rates is not None and boot is not None:
            on = include[s]
            iv = _intervals(per_run[s, on], rates[s, on], weights[s, on], ks, boot=boot,
                            name=name)  # fmt: skip
            ivs += [(iv["success"][0][0], iv["success"][1][0], iv["all_k"][0][i],
                     iv["all_k"][1][i], *_inverse(iv["all_k"][0][i], iv["all_k"][1][i]))
                    for i in range(len(ks))]  # fmt: skip
        for kv in ks:
            mean, hat = (float(vals.loc[(name, kv), m]) for m in ("mean", "pass_hat_k"))
            spend = kv * cpr[s]
            rows.append(
                (name, int(kv), int(include[s].sum()), int((cells.runs[s] * include[s]).sum()),
                 float((cells.total[s] * include[s]).sum()), float(cpr[s]), mean,
                 cpr[s] / mean if mean > 0 else np.nan, hat,
                 spend / hat if hat > 0 else np.nan, hat / spend if spend > 0 else np.nan)
            )  # fmt: skip
    table = pd.DataFrame(rows, columns=["system", "k", *COST_COLUMNS])
    if ivs:
        arr = np.asarray(ivs, dtype=float)
        for j, col in enumerate(IV_COLUMNS):
            table[col] = arr[:, j]
    method = (
        f"population scope (tasks like these): percentile task bootstrap of the ratio, "
        f"{boot['n_boot']} resamples, seed {boot['seed']}"
        if ivs and boot
        else ""
    )
    return CostEstimate(
        table=table, source=src, ci=boot["ci"] if ivs and boot else None, method=method,
        cost_of=cost_of,
    )  # fmt: skip
