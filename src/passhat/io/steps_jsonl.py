"""JSONL step logs: a generic trace format, one row per tool call (``steps-jsonl``).

Each row is one step: ``task_id, trial, step, action, args, observation,
status`` (``system`` optional; ``step`` defaults to the row order within a
trial, ``args`` to ``{}``, ``status`` to ``ok``). Outcomes either as a
``success`` field on the rows (the same for every row of a trial; a row with
an empty ``action`` records a trial that made no tool call) or in a separate
trials file (``outcomes=``, any format :func:`passhat.read_trials` reads). A
trace format only: its trial outcomes are read by the trial readers.

Examples
--------
>>> import passhat as ph
>>> ph.read_traces("steps.jsonl", outcomes="runs.csv")  # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from passhat._ids import clean_ids
from passhat.errors import FormatError, OptionError
from passhat.io._json import jsonl_objects, records_frame
from passhat.io._registry import file_sha256, read_trials, register_reader
from passhat.io.traces import message_text
from passhat.traces import Traces, canonical_args
from passhat.trials import check_scalar_column, coerce_success

__all__ = ["read_steps_jsonl"]

_STEP_FIELDS = ("task_id", "trial", "step", "action")


def read_steps_jsonl(
    path: Path, *, outcomes: str | Path | None = None, system_name: str | None = None
) -> Traces:
    """Read a JSONL step log into traces.

    Parameters
    ----------
    path : Path
        The step log: one JSON object a line.
    outcomes : str or Path, optional
        A trials file holding the outcomes (any format
        :func:`passhat.read_trials` reads), when the rows carry no ``success``.
    system_name : str, optional
        The system name (overrides a ``system`` field; default ``"system"``).

    Returns
    -------
    passhat.traces.Traces

    Examples
    --------
    >>> import json, tempfile
    >>> f = Path(tempfile.mkdtemp()) / "steps.jsonl"
    >>> rows = [{"task_id": "t", "trial": 0, "action": "get_user", "args": {"id": 1},
    ...          "success": True},
    ...         {"task_id": "t", "trial": 0, "action": "refund", "success": True},
    ...         {"task_id": "t", "trial": 1, "action": None, "success": False}]
    >>> _ = f.write_text("\\n".join(json.dumps(r) for r in rows))
    >>> tr = read_steps_jsonl(f)
    >>> tr.trials[["trial", "success", "n_steps"]].values.tolist()
    [[0, True, 2], [1, False, 0]]
    """
    df = _step_rows(path, system_name=system_name)
    key = ["system", "task_id", "trial"]
    is_step = df["action"].notna() & (df["action"].astype(str).str.strip() != "")
    stray = ~is_step & is_step.groupby([df[k] for k in key], sort=False).transform("any")
    if stray.any():  # only a trial that made no tool call has a row without an action
        row = df[stray.to_numpy()].iloc[0]
        raise FormatError(
            f"{path}: line {row['_line']}: no action, in trial ({row['system']}, "
            f"{row['task_id']}, {row['trial']}) whose other rows are tool calls; a row without "
            "an action stands for a trial that made none"
        )
    if outcomes is not None:
        trials = _outcomes_file(df, path, outcomes, system_name=system_name)
    else:
        trials = _outcomes_of_rows(df, path)
    tr = Traces.from_frames(_steps(df[is_step].copy()), trials, where=str(path))
    tr.source = {
        "path": str(path),
        "format": "steps-jsonl",
        "sha256": file_sha256(path),
        "outcomes": str(outcomes) if outcomes is not None else "success field",
        "trials_without_tool_calls": int((tr.trials["n_steps"] == 0).sum()),
        "excluded_trials": 0,
    }
    return tr


def _step_rows(path: Path, *, system_name: str | None) -> pd.DataFrame:
    """The log's rows (``_line``: the line), with system, task and trial ids as the trial
    readers take them, and an ``action`` column."""
    rows: list[dict[str, Any]] = []
    for lineno, obj in jsonl_objects(path):
        missing = [f for f in ("task_id", "trial") if f not in obj]
        if missing:
            raise FormatError(
                f"{path}: line {lineno}: a step row needs {', '.join(missing)} "
                f"(fields: {', '.join(_STEP_FIELDS)}, args, observation, status)"
            )
        obj["_line"] = lineno
        rows.append(obj)
    if not rows:
        raise FormatError(f"{path}: the step log has no rows")
    df = records_frame(rows)  # ids as JSON wrote them: 7 and 7.0 are two tasks
    if "system" not in df.columns:
        df["system"] = system_name or "system"
    elif system_name is not None:
        df["system"] = system_name
    lines = df["_line"].to_numpy()
    for col in ("system", "task_id", "trial"):
        gone = df[col].isna().to_numpy()
        if gone.any():
            raise FormatError(f"{path}: line {lines[gone][0]}: {col} is missing")
    # ids as the trial readers take them: 7 and "7" refused (not merged), lists refused
    for col in ("system", "task_id"):
        check_scalar_column(df[col], col, where=str(path), rows=lines)
        df[col] = clean_ids(df[col], column=col, where=str(path), rows=lines)
    if "action" not in df.columns:
        df["action"] = None
    return df


#: Columns of an outcomes file that the traces keep.
_TRIAL_FIELDS = ("system", "task_id", "trial", "success", "status", "scenario_hash", "termination")


def _outcomes_file(
    df: pd.DataFrame, path: Path, outcomes: str | Path, *, system_name: str | None
) -> pd.DataFrame:
    """The trials of a separate outcomes file (the step rows carry no success field)."""
    if "success" in df.columns:
        raise OptionError(
            f"{path}: the step rows carry a success field and an outcomes file was given; "
            "use one source of outcomes"
        )
    trials = read_trials(outcomes).frame.copy()
    if system_name is not None and trials["system"].nunique() == 1:
        trials["system"] = system_name  # overrides the outcomes' one system, as the steps'
    if "system" in df.columns and set(trials["system"]) != set(df["system"]):
        if trials["system"].nunique() == 1 and df["system"].nunique() == 1:
            trials["system"] = df["system"].iloc[0]
    return trials[[c for c in trials.columns if c in _TRIAL_FIELDS]]


def _outcomes_of_rows(df: pd.DataFrame, path: Path) -> pd.DataFrame:
    """The trials of the rows' own success field (one outcome per trial)."""
    if "success" not in df.columns:
        raise FormatError(
            f"{path}: no outcomes: give each step row a success field, or a trials file "
            "with outcomes= (--outcomes)"
        )
    key = ["system", "task_id", "trial"]
    df["success"] = coerce_success(df["success"], where=str(path))
    g = df.groupby(key, sort=False)["success"]
    incons = g.nunique(dropna=False) > 1
    if incons.any():
        s, t, n = incons[incons].index[0]
        raise FormatError(
            f"{path}: trial ({s}, {t}, {n}): rows disagree on success; a trial has one outcome"
        )
    first = df.groupby(key, sort=False).head(1)
    trials = first[[*key, "success"]].copy()
    for c in ("scenario_hash", "termination"):
        if c in df.columns:
            trials[c] = first[c].to_numpy()
    trials["status"] = pd.Series(
        ["ok" if v is not pd.NA and v is not None else "unscored" for v in trials["success"]],
        index=trials.index,
    )
    return trials


def _steps(st: pd.DataFrame) -> pd.DataFrame:
    """The step table: step numbers (row order when absent), canonical arguments, observation
    text, status."""
    if "step" not in st.columns:
        st["step"] = st.groupby(["system", "task_id", "trial"], sort=False).cumcount()
    st["args"] = [canonical_args(a) for a in st["args"]] if "args" in st.columns else "{}"
    if "observation" in st.columns:
        st["observation"] = [message_text(o) for o in st["observation"]]
    st["status"] = st["status"].fillna("ok").astype(str) if "status" in st.columns else "ok"
    return st[
        ["system", "task_id", "trial", "step", "action", "args", "observation", "status"]
        if "observation" in st.columns
        else ["system", "task_id", "trial", "step", "action", "args", "status"]
    ]


def _sniff_traces(path: Path, head: str) -> bool:
    return head.lstrip().startswith("{") and '"action"' in head.splitlines()[0]


register_reader(
    "steps-jsonl",
    read_steps_jsonl,
    sniff=_sniff_traces,
    kind="traces",
    priority=40,
    aliases=("jsonl", "steps"),
)
