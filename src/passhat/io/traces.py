"""Trace readers: per trial, the ordered tool calls and the outcome.

Each reader maps its source to :class:`passhat.traces.Traces`: a step table
(one row per tool call the agent made: tool name, canonical arguments,
observation, status ``ok``/``error``) and a trial table (success, status,
termination reason, scenario fingerprint). Outcomes come from the trial
reader of the same format, so ``passhat traces`` and ``passhat estimate``
agree on which runs passed.

Formats
-------
``tau-bench``
    A τ-bench result list: ``traj`` messages; every ``tool_calls`` entry of an
    assistant message is a step, its observation the ``tool`` message with the
    same ``tool_call_id`` (status ``error`` when the observation starts with
    ``Error``). Termination: ``user_stop`` (the simulated user wrote
    ``###STOP###``), ``transfer_to_human`` (the agent called
    ``transfer_to_human_agents``), else ``max_steps`` (τ-bench stops an
    unfinished conversation after its step limit).
``tau2-bench``
    τ²-bench results: each simulation's ``messages``; tool calls requested by
    the agent (``requestor`` ``assistant``) are steps, observations the
    ``tool`` messages with the same ``id`` (status ``error`` when the message
    says ``error: true``); termination is τ²-bench's ``termination_reason``.
``inspect``
    Inspect AI logs (``.eval`` / ``.json``) read with ``inspect_ai.log``:
    each sample epoch's assistant ``tool_calls`` with the ``tool`` messages
    answering them (status ``error`` when the tool message has an error).
``steps-jsonl``
    A generic JSONL step log, one row per step:
    ``task_id, trial, step, action, args, observation, status`` (``system``
    optional). Outcomes either as a ``success`` field on the rows (the same
    for every row of a trial; a row with an empty ``action`` records a trial
    that made no tool call) or in a separate trials file (``outcomes=``, any
    format :func:`passhat.read_trials` reads).

Trajectories that are empty (no messages at all) are excluded and listed in
``Traces.excluded`` with the reason; trajectories with messages but no tool
call are kept with zero steps and counted in ``Traces.source``.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Any

import pandas as pd

from passhat.errors import DependencyError, FormatError, OptionError
from passhat.io._json import jsonl_objects, not_utf8
from passhat.io._registry import file_sha256, read_trials
from passhat.io.tau_bench import read_tau_bench, tau_bench_records
from passhat.traces import Traces, canonical_args

__all__ = ["TRACE_FORMATS", "load_stages", "read_traces"]

TRACE_FORMATS = ("tau-bench", "tau2-bench", "inspect", "steps-jsonl")
_EXCLUDED_COLUMNS = ["system", "task_id", "trial", "reason"]


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        parts = []
        for c in content:
            t = getattr(c, "text", None)
            if t is None and isinstance(c, dict):
                t = c.get("text")
            parts.append(str(t) if t is not None else "")
        return "".join(parts)
    return str(content)


class _Answers:
    """Tool messages matched to calls in order.

    Call ids are not always unique within a trajectory (τ-bench reuses them),
    so each call takes the first unused tool message with its id that comes
    after it.
    """

    def __init__(self, messages: list[Any], get_id: Any) -> None:
        self._queues: dict[str, deque[tuple[int, Any]]] = {}
        for idx, m in enumerate(messages):
            cid = get_id(m)
            if cid is not None:
                self._queues.setdefault(str(cid), deque()).append((idx, m))

    def take(self, call_id: Any, position: int) -> Any:
        q = self._queues.get(str(call_id))
        while q and q[0][0] < position:
            q.popleft()
        return q.popleft()[1] if q else None


def _finish(
    steps: list[dict[str, Any]],
    trials: pd.DataFrame,
    excluded: list[dict[str, Any]],
    *,
    path: Path,
    fmt: str,
    extra: dict[str, Any] | None = None,
) -> Traces:
    step_df = pd.DataFrame(
        steps,
        columns=[
            "system",
            "task_id",
            "trial",
            "step",
            "action",
            "args",
            "observation",
            "status",
        ],
    )
    exc = pd.DataFrame(excluded, columns=_EXCLUDED_COLUMNS)
    tr = Traces.from_frames(step_df, trials, where=str(path), excluded=exc)
    no_calls = int((tr.trials["n_steps"] == 0).sum())
    tr.source = {
        "path": str(path),
        "format": fmt,
        "sha256": file_sha256(path),
        "trials_without_tool_calls": no_calls,
        "excluded_trials": len(exc),
        **(extra or {}),
    }
    return tr


def _trial_frame(trials: Any) -> pd.DataFrame:
    cols = ["system", "task_id", "trial", "success", "status", "scenario_hash"]
    df = trials.frame
    return df[[c for c in cols if c in df.columns]].copy()


# ----------------------------------------------------------------- τ-bench
def _tau_termination(rec: dict[str, Any], traj: list[Any]) -> str:
    info = rec.get("info") or {}
    if info.get("error") is not None:
        return "error"
    last_user = next(
        (m for m in reversed(traj) if isinstance(m, dict) and m.get("role") == "user"), None
    )
    if info.get("source") == "transfer_to_human_agents":
        return "transfer_to_human"
    if traj and isinstance(traj[-1], dict) and traj[-1].get("role") == "user":
        if last_user is not None and "###STOP###" in _text(last_user.get("content")):
            return "user_stop"
    return "max_steps"


def _read_tau_bench_traces(path: Path, *, system_name: str | None = None) -> Traces:
    records = tau_bench_records(path)
    outcome = _trial_frame(read_tau_bench(path, system_name=system_name))
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
        terms.append(_tau_termination(rec, traj))
        obs = _Answers(
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
                text = _text(ans.get("content")) if ans else ""
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
    trials = outcome[keep].copy()
    trials["termination"] = [t for t, k in zip(terms, keep, strict=True) if k]
    return _finish(steps, trials, excluded, path=path, fmt="tau-bench")


# ----------------------------------------------------------------- τ²-bench
def _read_tau2_traces(path: Path, *, system_name: str | None = None) -> Traces:
    from passhat.io.tau2_bench import _load_document

    outcome = read_trials(path, format="tau2-bench", system_name=system_name)
    tf = _trial_frame(outcome)
    extra_cols = [c for c in ("termination_reason",) if c in outcome.frame.columns]
    if extra_cols:
        tf["termination"] = outcome.frame["termination_reason"].to_numpy()
    _, sims = _load_document(path)
    system = str(tf["system"].iloc[0])
    index = {
        (str(t), int(n)): i for i, (t, n) in enumerate(zip(tf["task_id"], tf["trial"], strict=True))
    }
    steps: list[dict[str, Any]] = []
    excluded: list[dict[str, Any]] = []
    keep = [True] * len(tf)
    seen: dict[str, int] = {}
    for where, sim in sims:
        if not isinstance(sim, dict):
            raise FormatError(f"{where}: a simulation must be an object")
        task = str(sim.get("task_id"))
        trial = sim.get("trial")
        if trial is None:
            trial = seen.get(task, 0)
            seen[task] = trial + 1
        pos = index.get((task, int(trial)))
        if pos is None:
            raise FormatError(f"{where}: simulation of task {task!r} trial {trial} has no outcome")
        key = {"system": system, "task_id": task, "trial": int(trial)}
        msgs = sim.get("messages")
        if msgs is None or (isinstance(msgs, list) and len(msgs) == 0):
            excluded.append({**key, "reason": "empty trajectory (no messages)"})
            keep[pos] = False
            continue
        if not isinstance(msgs, list):
            raise FormatError(f"{where}: messages must be a list")
        flat: list[dict[str, Any]] = []
        for m in msgs:
            if isinstance(m, dict) and isinstance(m.get("tool_messages"), list):
                flat.extend(x for x in m["tool_messages"] if isinstance(x, dict))
            elif isinstance(m, dict):
                flat.append(m)
        obs = _Answers(flat, lambda m: m.get("id") if m.get("role") == "tool" else None)
        n = 0
        for j, m in enumerate(flat):
            if m.get("role") != "assistant":
                continue
            for call in m.get("tool_calls") or []:
                if not isinstance(call, dict) or "name" not in call:
                    raise FormatError(f"{where}: a tool call without a name")
                if call.get("requestor", "assistant") != "assistant":
                    continue
                ans = obs.take(call.get("id"), j)
                text = _text(ans.get("content")) if ans else ""
                status = (
                    "missing_observation"
                    if ans is None
                    else ("error" if ans.get("error") else "ok")
                )
                steps.append(
                    {
                        **key,
                        "step": n,
                        "action": str(call["name"]),
                        "args": canonical_args(call.get("arguments")),
                        "observation": text,
                        "status": status,
                    }
                )
                n += 1
    return _finish(steps, tf[keep].copy(), excluded, path=path, fmt="tau2-bench")


# ----------------------------------------------------------------- Inspect AI
def _read_inspect_traces(
    path: Path, *, system_name: str | None = None, scorer: str | None = None
) -> Traces:
    try:
        from inspect_ai.log import read_eval_log
    except ImportError as err:
        raise DependencyError(
            "reading Inspect AI traces needs the inspect_ai package: pip install 'passhat[inspect]'"
        ) from err
    options: dict[str, Any] = {}
    if system_name is not None:
        options["system_name"] = system_name
    if scorer is not None:
        options["scorer"] = scorer
    outcome = read_trials(path, format="inspect", **options)
    tf = _trial_frame(outcome)
    tf["termination"] = outcome.frame["status"].to_numpy()
    try:
        log = read_eval_log(str(path))
    except Exception as err:
        raise FormatError(f"{path}: not an Inspect AI log ({type(err).__name__})") from err
    system = str(tf["system"].iloc[0])
    index = {
        (str(t), int(n)): i for i, (t, n) in enumerate(zip(tf["task_id"], tf["trial"], strict=True))
    }
    steps: list[dict[str, Any]] = []
    excluded: list[dict[str, Any]] = []
    keep = [True] * len(tf)
    for s in log.samples or []:
        pos = index.get((str(s.id), int(s.epoch)))
        if pos is None:
            continue  # the trial reader left it out and says so in its own excluded list
        key = {"system": system, "task_id": str(s.id), "trial": int(s.epoch)}
        msgs = list(s.messages or [])
        if not msgs:
            excluded.append({**key, "reason": "empty trajectory (no messages)"})
            keep[pos] = False
            continue
        obs = _Answers(
            msgs,
            lambda m: (
                getattr(m, "tool_call_id", None) if getattr(m, "role", None) == "tool" else None
            ),
        )
        n = 0
        for j, m in enumerate(msgs):
            if getattr(m, "role", None) != "assistant":
                continue
            for call in getattr(m, "tool_calls", None) or []:
                ans = obs.take(call.id, j)
                text = _text(ans.content) if ans is not None else ""
                status = (
                    "missing_observation"
                    if ans is None
                    else ("error" if getattr(ans, "error", None) else "ok")
                )
                steps.append(
                    {
                        **key,
                        "step": n,
                        "action": str(call.function),
                        "args": canonical_args(call.arguments),
                        "observation": text,
                        "status": status,
                    }
                )
                n += 1
    return _finish(steps, tf[keep].copy(), excluded, path=path, fmt="inspect")


# ----------------------------------------------------------------- generic JSONL
_STEP_FIELDS = ("task_id", "trial", "step", "action")


def _read_steps_jsonl(
    path: Path, *, outcomes: str | Path | None = None, system_name: str | None = None
) -> Traces:
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
    df = pd.DataFrame(rows)
    if "system" not in df.columns:
        df["system"] = system_name or "system"
    elif system_name is not None:
        df["system"] = system_name
    df["system"] = df["system"].fillna(system_name or "system").astype(str)
    df["task_id"] = df["task_id"].astype(str)
    key = ["system", "task_id", "trial"]
    if "action" not in df.columns:
        df["action"] = None
    is_step = df["action"].notna() & (df["action"].astype(str).str.strip() != "")
    if outcomes is not None:
        if "success" in df.columns:
            raise OptionError(
                f"{path}: the step rows carry a success field and an outcomes file was given; "
                "use one source of outcomes"
            )
        ot = read_trials(outcomes, **({"system_name": system_name} if system_name else {}))
        trials = ot.frame.copy()
        if "system" in df.columns and set(trials["system"]) != set(df["system"]):
            if trials["system"].nunique() == 1 and df["system"].nunique() == 1:
                trials["system"] = df["system"].iloc[0]
        trials = trials[
            [
                c
                for c in trials.columns
                if c
                in (
                    "system",
                    "task_id",
                    "trial",
                    "success",
                    "status",
                    "scenario_hash",
                    "termination",
                )
            ]
        ]
    else:
        if "success" not in df.columns:
            raise FormatError(
                f"{path}: no outcomes: give each step row a success field, or a trials file "
                "with outcomes= (--outcomes)"
            )
        from passhat.trials import _coerce_success

        df["success"] = _coerce_success(df["success"], where=str(path))
        g = df.groupby(key, sort=False)["success"]
        incons = g.nunique(dropna=False) > 1
        if incons.any():
            s, t, n = incons[incons].index[0]
            raise FormatError(
                f"{path}: trial ({s}, {t}, {n}): rows disagree on success; a trial has one outcome"
            )
        first = df.groupby(key, sort=False).head(1)
        cols = [c for c in ("status", "scenario_hash", "termination") if c in df.columns]
        trials = first[[*key, "success"]].copy()
        for c in ("scenario_hash", "termination"):
            if c in cols:
                trials[c] = first[c].to_numpy()
        trials["status"] = pd.Series(
            ["ok" if v is not pd.NA and v is not None else "unscored" for v in trials["success"]],
            index=trials.index,
        )
    st = df[is_step].copy()
    if "step" not in st.columns:
        st["step"] = st.groupby(key, sort=False).cumcount()
    st["args"] = [canonical_args(a) for a in st["args"]] if "args" in st.columns else "{}"
    if "observation" in st.columns:
        st["observation"] = [_text(o) for o in st["observation"]]
    st["status"] = st["status"].fillna("ok").astype(str) if "status" in st.columns else "ok"
    st = st[
        ["system", "task_id", "trial", "step", "action", "args", "observation", "status"]
        if "observation" in st.columns
        else ["system", "task_id", "trial", "step", "action", "args", "status"]
    ]
    tr = Traces.from_frames(st, trials, where=str(path))
    tr.source = {
        "path": str(path),
        "format": "steps-jsonl",
        "sha256": file_sha256(path),
        "outcomes": str(outcomes) if outcomes is not None else "success field",
        "trials_without_tool_calls": int((tr.trials["n_steps"] == 0).sum()),
        "excluded_trials": 0,
    }
    return tr


# ----------------------------------------------------------------- entry point
def _sniff_trace_format(path: Path) -> str:
    if path.is_dir():
        return "tau2-bench"
    suffix = path.suffix.lower()
    if suffix == ".eval":
        return "inspect"
    with open(path, "rb") as fh:
        head = fh.read(65536).decode("utf-8", errors="replace")
    if not head.strip():
        raise FormatError(f"{path}: the file is empty")
    stripped = head.lstrip()
    if stripped.startswith("[") and '"traj"' in head:
        return "tau-bench"
    if '"simulations"' in head or '"simulation_index"' in head:
        return "tau2-bench"
    if stripped.startswith("{") and '"eval"' in head and '"samples"' in head:
        return "inspect"
    if stripped.startswith("{") and '"action"' in head.splitlines()[0]:
        return "steps-jsonl"
    raise FormatError(
        f"{path}: cannot tell the trace format; pass format= (--format) with one of: "
        f"{', '.join(TRACE_FORMATS)}"
    )


def read_traces(
    path: str | Path,
    *,
    format: str | None = None,
    system_name: str | None = None,
    outcomes: str | Path | None = None,
    scorer: str | None = None,
) -> Traces:
    """Read per-trial tool-call traces and outcomes.

    Parameters
    ----------
    path : str or Path
        A τ-bench result file, τ²-bench results (file or run directory), an
        Inspect AI log, or a JSONL step log.
    format : {"tau-bench", "tau2-bench", "inspect", "steps-jsonl"}, optional
        Sniffed from the content when omitted.
    system_name : str, optional
        Overrides the system name.
    outcomes : str or Path, optional
        ``steps-jsonl`` only: a trials file with the outcomes.
    scorer : str, optional
        ``inspect`` only: the scorer giving success.

    Returns
    -------
    passhat.traces.Traces

    Examples
    --------
    >>> import passhat as ph, tempfile, os, json
    >>> f = os.path.join(tempfile.mkdtemp(), "steps.jsonl")
    >>> rows = [{"task_id": "t", "trial": 0, "step": 0, "action": "lookup", "success": True},
    ...         {"task_id": "t", "trial": 1, "step": 0, "action": "refund", "success": False}]
    >>> _ = open(f, "w").write("\\n".join(json.dumps(r) for r in rows))
    >>> ph.read_traces(f)
    Traces(2 trials, 2 steps, 1 tasks, 0 excluded)
    """
    p = Path(path)
    if not p.exists():
        raise FormatError(f"{p}: no such file or directory")
    if p.is_file() and p.stat().st_size == 0:
        raise FormatError(f"{p}: the file is empty")
    fmt = (format or _sniff_trace_format(p)).lower().replace("_", "-")
    if fmt in ("jsonl", "steps"):
        fmt = "steps-jsonl"
    if fmt not in TRACE_FORMATS:
        raise OptionError(
            f"{p}: unknown trace format {format!r}; trace formats: {', '.join(TRACE_FORMATS)}"
        )
    if outcomes is not None and fmt != "steps-jsonl":
        raise OptionError("outcomes= (--outcomes) is only for steps-jsonl step logs")
    if fmt == "tau-bench":
        return _read_tau_bench_traces(p, system_name=system_name)
    if fmt == "tau2-bench":
        return _read_tau2_traces(p, system_name=system_name)
    if fmt == "inspect":
        return _read_inspect_traces(p, system_name=system_name, scorer=scorer)
    return _read_steps_jsonl(p, outcomes=outcomes, system_name=system_name)


def load_stages(path: str | Path) -> dict[str, str]:
    """Read a tool → stage mapping from a TOML file's ``[stages]`` table.

    Examples
    --------
    >>> import tempfile, os
    >>> f = os.path.join(tempfile.mkdtemp(), "stages.toml")
    >>> _ = open(f, "w").write('[stages]\\nget_user_details = "lookup"\\n')
    >>> load_stages(f)
    {'get_user_details': 'lookup'}
    """
    import tomllib

    p = Path(path)
    try:
        with open(p, "rb") as fh:
            doc = tomllib.load(fh)
    except FileNotFoundError as err:
        raise FormatError(f"{p}: no such file") from err
    except tomllib.TOMLDecodeError as err:
        raise FormatError(f"{p}: not valid TOML ({err})") from err
    except UnicodeDecodeError as err:
        raise not_utf8(p) from err
    stages = doc.get("stages")
    if not isinstance(stages, dict) or not stages:
        raise FormatError(f'{p}: needs a [stages] table, e.g. get_user_details = "lookup"')
    bad = [k for k, v in stages.items() if not isinstance(v, str) or not v.strip()]
    if bad:
        raise FormatError(f"{p}: [stages] {bad[0]} must map to a stage name (a non-empty string)")
    return {str(k): str(v) for k, v in stages.items()}
