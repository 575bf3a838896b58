"""τ-bench result files.

A τ-bench run writes a JSON list of records ``{task_id, trial, reward, info,
traj}``. Success is ``reward`` within 1e-6 of 1 (τ-bench's own rule). A
record whose ``info`` has ``error`` is a run that raised an exception in the
harness; it is not decided (status ``infrastructure_error``) unless
``errors="failure"``. The task definition ``info.task`` is fingerprinted into
``scenario_hash``. The system name is the file's stem unless ``system_name``
is given (τ-bench files do not store the model name).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from passhat.errors import FormatError, OptionError
from passhat.io._json import load_json, scenario_fingerprint
from passhat.io._registry import register_reader
from passhat.trials import Trials

__all__ = ["read_tau_bench", "tau_bench_records"]


def tau_bench_records(path: Path) -> list[dict[str, Any]]:
    """Load and check the records of a τ-bench result file."""
    data = load_json(path, expected="τ-bench result file")
    if not isinstance(data, list):
        raise FormatError(
            f"{path}: not a τ-bench result file (expected a JSON list of records, "
            f"got {type(data).__name__})"
        )
    if not data:
        raise FormatError(f"{path}: the τ-bench result file has no records")
    for i, rec in enumerate(data):
        if not isinstance(rec, dict):
            raise FormatError(f"{path}: record {i}: expected an object, got {type(rec).__name__}")
        missing = [key for key in ("task_id", "reward") if key not in rec]
        if missing:
            raise FormatError(
                f"{path}: record {i}: not a τ-bench result (missing {', '.join(missing)}; "
                f"keys: {', '.join(map(str, rec))})"
            )
    return data


def read_tau_bench(
    path: Path,
    *,
    system_name: str | None = None,
    errors: Literal["unscored", "failure"] = "unscored",
) -> Trials:
    """Read a τ-bench result file into trials.

    Parameters
    ----------
    path : Path
        The JSON list written by τ-bench's ``run.py``.
    system_name : str, optional
        Defaults to the file's stem.
    errors : {"unscored", "failure"}
        How to count records with ``info.error``.
    """
    if errors not in ("unscored", "failure"):
        raise OptionError(f"errors must be 'unscored' or 'failure' (got {errors!r})")
    records = tau_bench_records(path)
    rows = []
    trial_seen: dict[Any, int] = {}
    for i, rec in enumerate(records):
        info = rec.get("info") or {}
        if not isinstance(info, dict):
            raise FormatError(f"{path}: record {i}: info must be an object")
        reward = rec["reward"]
        try:
            reward_f = float(reward)
        except (TypeError, ValueError) as err:
            raise FormatError(f"{path}: record {i}: reward {reward!r} is not a number") from err
        if math.isnan(reward_f):
            raise FormatError(f"{path}: record {i}: reward is NaN")
        if "trial" in rec:
            trial = rec["trial"]
        else:  # older τ-bench files: number trials in order of appearance
            trial = trial_seen.get(rec["task_id"], 0)
            trial_seen[rec["task_id"]] = trial + 1
        error = info.get("error")
        if error is not None:
            status = "infrastructure_error" if errors == "unscored" else "error"
            success: bool | None = None if errors == "unscored" else False
        else:
            status = "ok"
            success = abs(reward_f - 1.0) < 1e-6
        rows.append(
            {
                "task_id": rec["task_id"],
                "trial": trial,
                "success": success,
                "status": status,
                "score": reward_f,
                "scenario_hash": scenario_fingerprint(info["task"]) if "task" in info else None,
            }
        )
    df = pd.DataFrame(rows)
    df["success"] = df["success"].astype("boolean")
    df["system"] = system_name or path.stem
    return Trials.from_frame(df, where=str(path), source={"system_from": "file name"})


_SNIFF = re.compile(r"^\s*\[\s*\{")


def _sniff(path: Path, head: str) -> bool:
    if not _SNIFF.match(head):
        return False
    window = head[:65536]
    return (
        '"task_id"' in window
        and '"reward"' in window
        and ('"traj"' in window or '"info"' in window)
        and '"simulations"' not in window
    )


register_reader("tau-bench", read_tau_bench, sniff=_sniff, priority=30)
