"""τ-bench result files.

A τ-bench run writes a JSON list of records ``{task_id, trial, reward, info,
traj}``. Success is ``reward`` within 1e-6 of 1 (τ-bench's own rule). A
record whose ``info`` has ``error`` is a run that raised an exception in the
harness; it is not decided (status ``infrastructure_error``) unless
``errors="failure"``. Every other run's ``status`` says how the conversation
ended, read from ``info.source`` and the trajectory: ``ok`` (the simulated user
ended it with ``###STOP###``, or the file does not say), ``transfer_to_human``
(the agent called ``transfer_to_human_agents``: a decided run, sometimes the
right answer) or ``max_steps`` (τ-bench stopped the conversation at its step
limit). The task definition ``info.task`` is fingerprinted into
``scenario_hash``. The system name is the file's stem unless ``system_name``
is given (τ-bench files do not store the model name).

Traces (:func:`read_tau_bench_traces`, for :func:`passhat.read_traces`): every
``tool_calls`` entry of an assistant message in ``traj`` is a step, with the
``tool`` message answering it; outcomes are the trial reader's.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from passhat._numbers import safe_float, show_value
from passhat.errors import FormatError, OptionError
from passhat.io import _sniff
from passhat.io._json import (
    file_stem,
    load_json,
    message_text,
    records_frame,
    reward_success,
    scenario_fingerprint,
)
from passhat.io._registry import register_reader

if TYPE_CHECKING:
    from passhat.traces import Traces
    from passhat.trials import Trials

__all__ = ["read_tau_bench", "read_tau_bench_traces", "tau_bench_records", "tau_bench_runs"]


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


#: A run's status from how its conversation ended (``user_stop`` is the natural end: "ok").
_STATUS = {"transfer_to_human": "transfer_to_human", "max_steps": "max_steps"}


def _termination(rec: dict[str, Any], traj: Any) -> str | None:
    """How the conversation ended: error, transfer_to_human, user_stop, max_steps (None: unknown).

    τ-bench ends a conversation when the simulated user writes ``###STOP###``
    or the agent calls ``transfer_to_human_agents`` (``info.source`` names the
    last action); otherwise it stopped at its step limit. Without a trajectory
    only a transfer can be told.
    """
    info = rec.get("info") or {}
    if isinstance(info, dict) and info.get("error") is not None:
        return "error"
    if isinstance(info, dict) and info.get("source") == "transfer_to_human_agents":
        return "transfer_to_human"
    if not isinstance(traj, list) or not traj:
        return None
    last = traj[-1]
    if isinstance(last, dict) and last.get("role") == "user":
        if "###STOP###" in message_text(last.get("content")):
            return "user_stop"
    return "max_steps"


def tau_bench_runs(
    path: Path, *, errors: Literal["unscored", "failure"] = "unscored"
) -> list[dict[str, Any]]:
    """The runs of a τ-bench result file, one dict per record (task_id and trial as JSON wrote
    them, success, status, score, scenario_hash): what :func:`read_tau_bench` makes its trial
    table of, read without pandas. ``errors`` as there.
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
        try:  # a JSON number: text ("1.0") or a boolean is not read as one
            reward_f = safe_float(reward if not isinstance(reward, str | bool) else "x")
        except (TypeError, ValueError) as err:
            raise FormatError(f"{path}: record {i}: reward {reward!r} is not a number") from err
        if not math.isfinite(reward_f):
            raise FormatError(
                f"{path}: record {i}: reward is {show_value(reward)}, not a finite number"
            )
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
            ending = _termination(rec, rec.get("traj"))
            status = _STATUS.get(ending, "ok") if ending else "ok"
            success = reward_success(reward_f, f"{path}: record {i}")
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
    return rows


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
    from passhat.trials import Trials  # pandas: when the runs become a trial table

    rows = tau_bench_runs(path, errors=errors)
    df = records_frame(rows)  # ids as JSON wrote them: 7 and 7.0 are two tasks
    df["success"] = df["success"].astype("boolean")
    df["system"] = system_name or file_stem(path)
    return Trials.from_frame(df, where=str(path), source={"system_from": "file name"})


register_reader("tau-bench", read_tau_bench, sniff=_sniff.tau_bench, priority=30)


# ----------------------------------------------------------------- traces


def read_tau_bench_traces(path: Path, *, system_name: str | None = None) -> Traces:
    """Read the tool calls of a τ-bench result file (outcomes from :func:`read_tau_bench`).

    Every ``tool_calls`` entry of an assistant message in ``traj`` is a step;
    its observation is the ``tool`` message with the same ``tool_call_id``
    (status ``error`` when it starts with ``Error``). Termination:
    ``user_stop`` (the simulated user wrote ``###STOP###``),
    ``transfer_to_human`` (the agent called ``transfer_to_human_agents``),
    ``error`` (``info.error``), else ``max_steps`` (τ-bench stops an unfinished
    conversation after its step limit). A record with an empty ``traj`` is
    excluded, with the reason.

    Examples
    --------
    >>> import json, tempfile
    >>> call = {"id": "c", "function": {"name": "get_user", "arguments": '{"id": 1}'}}
    >>> traj = [{"role": "user", "content": "hi"},
    ...         {"role": "assistant", "content": None, "tool_calls": [call]},
    ...         {"role": "tool", "tool_call_id": "c", "content": "{}"},
    ...         {"role": "user", "content": "###STOP###"}]
    >>> f = Path(tempfile.mkdtemp()) / "run.json"
    >>> _ = f.write_text(json.dumps([{"task_id": 0, "trial": 0, "reward": 1.0, "info": {},
    ...                               "traj": traj}]))
    >>> tr = read_tau_bench_traces(f)
    >>> tr.steps[["action", "args"]].values.tolist(), tr.trials["termination"].tolist()
    ([['get_user', '{"id":1}']], ['user_stop'])
    """
    from passhat.io.traces import ToolAnswers, finish_traces, outcome_frame  # traces: when read
    from passhat.traces import canonical_args

    records = tau_bench_records(path)
    outcome = outcome_frame(read_tau_bench(path, system_name=system_name))
    if len(outcome) != len(records):  # pragma: no cover - the trial reader keeps every record
        raise FormatError(f"{path}: τ-bench reader returned {len(outcome)} rows for {len(records)}")
    steps: list[dict[str, Any]] = []
    excluded: list[dict[str, Any]] = []
    keep = []
    terms: list[str | None] = []
    for i, rec in enumerate(records):
        row = outcome.iloc[i]
        key = {"system": row["system"], "task_id": row["task_id"], "trial": int(row["trial"])}
        traj = rec.get("traj")
        if traj is None or (isinstance(traj, list) and len(traj) == 0):
            excluded.append({**key, "reason": "empty trajectory (no messages)"})
            keep.append(False)
            terms.append(None)
            continue
        if not isinstance(traj, list):
            raise FormatError(f"{path}: record {i}: traj must be a list of messages")
        keep.append(True)
        terms.append(_termination(rec, traj) or "max_steps")
        obs = ToolAnswers(
            traj,
            lambda m: (
                m.get("tool_call_id") if isinstance(m, dict) and m.get("role") == "tool" else None
            ),
        )
        n = 0
        for j, m in enumerate(traj):
            if not isinstance(m, dict):
                raise FormatError(f"{path}: record {i}: traj[{j}] is not a message object")
            for call in m.get("tool_calls") or []:
                fn = call.get("function") if isinstance(call, dict) else None
                if not isinstance(fn, dict) or "name" not in fn:
                    raise FormatError(
                        f"{path}: record {i}: traj[{j}]: a tool call without function.name"
                    )
                ans = obs.take(call.get("id"), j)
                text = message_text(ans.get("content")) if ans else ""
                try:
                    args = canonical_args(fn.get("arguments"))
                except (TypeError, ValueError) as err:
                    raise FormatError(
                        f"{path}: record {i}: traj[{j}]: arguments of {fn['name']} unreadable"
                    ) from err
                steps.append(
                    {
                        **key,
                        "step": n,
                        "action": str(fn["name"]),
                        "args": args,
                        "observation": text,
                        "status": "missing_observation"
                        if ans is None
                        else ("error" if text.lstrip().startswith("Error") else "ok"),
                    }
                )
                n += 1
    if records and not any(keep):  # else the container's bare "no trials" hides why
        raise FormatError(
            f"{path}: every one of the {len(records)} record(s) has an empty trajectory "
            "(traj: no messages), so there are no tool calls to read; outcomes alone are read "
            "by passhat estimate"
        )
    trials = outcome[keep].copy()
    trials["termination"] = [t for t, k in zip(terms, keep, strict=True) if k]
    return finish_traces(steps, trials, excluded, path=path, fmt="tau-bench")


def _sniff_traces(path: Path, head: str) -> bool:
    return path.suffix.lower() != ".eval" and head.lstrip().startswith("[") and '"traj"' in head


register_reader("tau-bench", read_tau_bench_traces, sniff=_sniff_traces, kind="traces", priority=10)
