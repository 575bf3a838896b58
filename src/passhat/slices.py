"""Failure slices: where failing and unscored runs come from, by status and category.

Counts and rates per system. Unscored runs (the grader could not decide:
``grader_error``, ``infrastructure_error``, …) appear here with their
status and are never part of ``n`` (decided runs). Statuses the user calls
severe get their own rate over all runs, with a Wilson interval.

Examples
--------
>>> import passhat as ph
>>> sl = ph.slices(ph.load_example("agents"), by=["status"], severe=["tool_error"])
>>> sl.severe[["system", "status", "runs", "count"]].values.tolist()
[['baseline', 'tool_error', 853, 41], ['guided', 'tool_error', 851, 23]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from passhat._validate import check_ci
from passhat.errors import OptionError, ValidationError
from passhat.intervals import proportion_interval
from passhat.slices_result import SLICE_KEYS, Slices
from passhat.trials import Trials, provenance

__all__ = ["SLICE_KEYS", "Slices", "slices"]


def _table(df: pd.DataFrame, key: str) -> pd.DataFrame:
    decided = df["success"].notna()
    succ = df["success"].fillna(False).astype(bool) & decided
    work = pd.DataFrame(
        {
            "system": df["system"],
            key: df[key].astype(str),
            "runs": 1,
            "decided": decided.astype(int),
            "successes": succ.astype(int),
            "failures": (decided & ~succ).astype(int),
            "unscored": (~decided).astype(int),
        }
    )
    out = work.groupby(["system", key], sort=False, as_index=False).sum()
    tot = out.groupby("system", sort=False)[["runs", "failures"]].transform("sum")
    with np.errstate(invalid="ignore", divide="ignore"):
        out["share_of_runs"] = out["runs"] / tot["runs"]
        out["share_of_failures"] = np.where(
            tot["failures"] > 0,
            out["failures"] / tot["failures"].where(tot["failures"] > 0),
            np.nan,
        )
        out["success_rate"] = np.where(
            out["decided"] > 0, out["successes"] / out["decided"].where(out["decided"] > 0), np.nan
        )
    systems = list(pd.unique(df["system"]))
    out["_s"] = out["system"].map({s: i for i, s in enumerate(systems)})
    out = out.sort_values(["_s", "runs"], ascending=[True, False], kind="stable")
    return out.drop(columns="_s").reset_index(drop=True)


def slices(
    trials: Trials | xr.Dataset,
    *,
    by: Sequence[str] | None = None,
    severe: Sequence[str] = (),
    ci: float = 0.95,
) -> Slices:
    """Counts and rates of runs by status and by category, per system.

    Parameters
    ----------
    trials : Trials
        Trials (a count table has no statuses: it is refused, naming its file).
    by : sequence of {"status", "category"}, optional
        The slices to build; default: status, and category when the data have a category
        column (as the CLI).
    severe : sequence of str
        Statuses that get their own rate over all runs of a system, with a
        Wilson interval. Runs of one task are not independent, so the
        interval is optimistic when a status clusters in some tasks (the
        method says so).
    ci : float
        Level of the severe-status intervals.

    Returns
    -------
    Slices

    Raises
    ------
    ValidationError
        Not trials; no category column, tasks without a category, or a task
        whose runs declare different categories, when slicing by category; a
        severe status that no run has is allowed (rate 0), an empty name is not.
    """
    if not isinstance(trials, Trials):
        if isinstance(trials, xr.Dataset):
            where = provenance(trials).get("path", "the data")
            raise ValidationError(
                f"{where}: a count table has no per-run statuses; slices need trial-level input"
            )
        raise ValidationError(
            f"slices need trials with a status per run (got {type(trials).__name__})"
        )
    level = check_ci(ci)
    category_skipped = by is None and "category" not in trials.frame.columns
    keys = _slice_keys(trials, by)
    tables = {key: _table(trials.frame, key) for key in keys}
    sev = [str(s).strip() for s in ([severe] if isinstance(severe, str) else severe)]
    if any(not s for s in sev):
        raise OptionError("severe statuses must be non-empty names, e.g. tool_error")
    return Slices(
        tables=tables,
        severe=_severe(trials.frame, sev, level),
        by=tuple(keys),
        severe_statuses=tuple(sev),
        ci=level,
        statuses=tuple(sorted(str(x) for x in trials.frame["status"].dropna().unique())),
        category_skipped=category_skipped,
        source=provenance(trials),
    )


def _slice_keys(trials: Trials, by: Sequence[str] | None) -> list[str]:
    """The slice keys asked for (default: status, and category when the runs have one), each
    checked; slicing by category needs one category per task, on every run."""
    if by is None:
        by = [k for k in SLICE_KEYS if k != "category" or "category" in trials.frame.columns]
    keys = [by] if isinstance(by, str) else list(by)
    if not keys:
        raise OptionError("{param} must name at least one of status, category", param="by")
    for key in keys:
        if key not in SLICE_KEYS:
            raise OptionError(f"cannot slice by {key!r}; choose from {', '.join(SLICE_KEYS)}")
    if "category" in keys:
        _check_categories(trials)
    return keys


def _check_categories(trials: Trials) -> None:
    """Every run has a category, and the runs of a task declare the same one."""
    df = trials.frame
    where = trials.source.get("path", "trials")
    if "category" not in df.columns:
        raise ValidationError(
            f"{where}: no category column to slice by (map one with --map category=COLUMN)"
        )
    missing = df["category"].isna() | (df["category"].astype(str).str.strip() == "")
    if missing.any():
        bad_rows = np.flatnonzero(missing.to_numpy())
        tasks = pd.unique(df["task_id"].iloc[bad_rows])
        raise ValidationError(
            f"{where}: category is missing in {len(bad_rows)} row(s) "
            f"(first row {bad_rows[0] + 1}, "
            f"tasks {', '.join(map(str, tasks[:5]))}{' ...' if len(tasks) > 5 else ''}); "
            "every run needs a category to slice by category"
        )
    trials.counts()  # refuses a task whose runs declare different categories, as estimate


def _severe(df: pd.DataFrame, sev: list[str], level: float) -> pd.DataFrame:
    """Per (system, severe status): its count and rate over all runs, with a Wilson interval."""
    rows: list[dict[str, Any]] = []
    runs = df.groupby("system", sort=False).size()
    status = df["status"].astype(str)
    for s in pd.unique(df["system"]):
        is_s = df["system"] == s
        for st in dict.fromkeys(sev):
            count = int((is_s & (status == st)).sum())
            total = int(runs[s])
            lo, hi = proportion_interval(total, count, method="wilson", ci=level)
            rows.append(
                {
                    "system": s,
                    "status": st,
                    "runs": total,
                    "count": count,
                    "rate": count / total,
                    "lower": float(lo),
                    "upper": float(hi),
                    "method": f"wilson {level:g} over runs (runs of a task are not independent)",
                }
            )
    cols = ["system", "status", "runs", "count", "rate", "lower", "upper", "method"]
    return pd.DataFrame(rows, columns=cols)
