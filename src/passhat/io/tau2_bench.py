"""τ²-bench results (``tau2 run``), monolithic JSON or a run directory.

τ²-bench saves a run's ``Results`` in one of two layouts:

* **monolithic** (``--save-to results.json``, the default for text runs): one
  JSON object ``{timestamp, info, tasks, simulations}``;
* **directory** (voice runs, or ``format="dir"``): a folder with
  ``results.json`` (``info``, ``tasks`` and a ``simulation_index``) and a
  ``simulations/`` folder holding one JSON file per simulation.

Each simulation has ``task_id``, ``trial``, ``termination_reason`` and
``reward_info.reward``. Success is τ²-bench's own rule: reward within 1e-6
of 1. Terminations τ²-bench itself leaves out of its metrics
(``infrastructure_error`` and ``context_window_exceeded``, its
``NON_EVALUABLE_TERMINATION_REASONS``) are **unscored**: counted apart, not in
n. A simulation without ``reward_info`` (never evaluated) is unscored too.
Every other termination is a decided run: ``user_stop`` / ``agent_stop`` get
status ``ok`` (success decided by the reward), while ``max_steps``,
``too_many_errors``, ``timeout``, ``agent_error``, ``user_error``,
``unexpected_error``, … keep their name as ``status`` (τ²-bench scores these
runs, normally with reward 0).

The system name is the agent's model (``info.agent_info.llm``), else the
agent implementation, else the file/directory name. Each task definition in
``tasks`` is fingerprinted into ``scenario_hash``.

Traces (:func:`read_tau2_bench_traces`, for :func:`passhat.read_traces`): the
tool calls the agent requested in each simulation's ``messages``, with the
``tool`` messages answering them; outcomes are the trial reader's.

Examples
--------
>>> import json, os, tempfile
>>> import passhat as ph
>>> sims = [{"id": f"s{i}", "task_id": "0", "trial": i, "termination_reason": "user_stop",
...          "reward_info": {"reward": float(i < 2)}} for i in range(3)]
>>> doc = {"info": {"agent_info": {"implementation": "llm_agent", "llm": "gpt-4.1"}},
...        "tasks": [{"id": "0"}], "simulations": sims}
>>> f = os.path.join(tempfile.mkdtemp(), "results.json")
>>> _ = open(f, "w").write(json.dumps(doc))
>>> t = ph.read_trials(f)
>>> t.systems, int(t.counts()["c"].sum())
(['gpt-4.1'], 2)
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from passhat._numbers import safe_float, show_value
from passhat.errors import FormatError
from passhat.io import _sniff
from passhat.io._json import (
    file_stem,
    load_json,
    records_frame,
    reward_success,
    scenario_fingerprint,
)
from passhat.io._registry import file_head, register_reader
from passhat.io.traces import (
    ToolAnswers,
    finish_traces,
    message_text,
    outcome_frame,
    outcome_positions,
)
from passhat.traces import Traces, canonical_args
from passhat.trials import Trials

__all__ = ["NON_EVALUABLE", "read_tau2_bench", "read_tau2_bench_traces"]

#: Terminations τ²-bench excludes from its metric denominators (unscored here).
NON_EVALUABLE = ("infrastructure_error", "context_window_exceeded")
#: Terminations of a normally finished conversation.
_NATURAL = ("user_stop", "agent_stop")
_WHAT = "τ²-bench results file"


def _locate(path: Path) -> tuple[Path, Path | None]:
    """The metadata/monolithic JSON file and the simulations folder (if any)."""
    if path.is_dir():
        meta = path / "results.json"
        if not meta.is_file():
            raise FormatError(
                f"{path}: a directory, but not a τ²-bench run directory (no results.json)"
            )
        sims = path / "simulations"
        return meta, sims if sims.is_dir() else None
    sims = path.parent / "simulations"
    return path, sims if sims.is_dir() else None


def _load_document(path: Path) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
    """Return the results document and its simulations as (where, record) pairs."""
    meta_path, sims_dir = _locate(path)
    doc = load_json(meta_path, expected=_WHAT)
    if not isinstance(doc, dict):
        raise FormatError(
            f"{meta_path}: not a {_WHAT} (expected a JSON object with 'simulations', "
            f"got a JSON {type(doc).__name__})"
        )
    sims: list[tuple[str, Any]] = []
    files = sorted(sims_dir.glob("*.json")) if sims_dir is not None else []
    index = doc.get("simulation_index")
    if isinstance(doc.get("simulations"), list) and doc["simulations"]:
        sims = [(f"{meta_path}: simulations[{i}]", s) for i, s in enumerate(doc["simulations"])]
    elif files:
        sims = [(str(f), load_json(f, expected="τ²-bench simulation file")) for f in files]
    elif isinstance(index, list) and index:
        # dir form without its simulations/ folder: the index has reward and termination
        sims = [(f"{meta_path}: simulation_index[{i}]", e) for i, e in enumerate(index)]
    elif "simulations" not in doc and index is None and sims_dir is None:
        keys = ", ".join(map(str, list(doc)[:8])) or "none"
        hint = (
            "; it looks like the results.json of a τ²-bench run directory, whose simulations "
            "are files in simulations/ beside it: pass the directory"
            if "info" in doc and "tasks" in doc
            else ""
        )
        raise FormatError(
            f"{meta_path}: not a {_WHAT} (no 'simulations' list; top-level keys: {keys}){hint}"
        )
    if not sims:
        raise FormatError(f"{meta_path}: the {_WHAT} holds no simulations")
    return doc, sims


def _as_dict(x: Any) -> dict[str, Any]:
    return x if isinstance(x, dict) else {}


def _system_of(doc: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    info = _as_dict(doc.get("info"))
    agent = _as_dict(info.get("agent_info"))
    user = _as_dict(info.get("user_info"))
    env = _as_dict(info.get("environment_info"))
    extra = {
        k: v
        for k, v in {
            "agent_implementation": agent.get("implementation"),
            "user_llm": user.get("llm"),
            "domain": env.get("domain_name"),
            "tau2_git_commit": info.get("git_commit"),
        }.items()
        if v is not None
    }
    name = agent.get("llm") or agent.get("implementation")
    return (str(name) if name else None), extra


def read_tau2_bench(
    path: Path,
    *,
    system_name: str | None = None,
    non_evaluable: Iterable[str] = NON_EVALUABLE,
) -> Trials:
    """Read τ²-bench results (monolithic JSON, or a run directory) into trials.

    Parameters
    ----------
    path : Path
        A results JSON file, a dir-form ``results.json``, or the run directory.
    system_name : str, optional
        Overrides the agent model name recorded in the file.
    non_evaluable : iterable of str
        Termination reasons that leave a run unscored (τ²-bench's own set by
        default).

    Returns
    -------
    Trials
        ``status`` is ``ok`` for natural stops, else the termination reason;
        ``score`` is the reward; ``duration_s`` and ``cost`` (agent cost)
        when present.

    Examples
    --------
    See the module docstring.
    """
    path = Path(path)
    unscored_reasons = {str(r).lower() for r in non_evaluable}
    doc, sims = _load_document(path)
    found_name, extra = _system_of(doc)
    fingerprints: dict[str, str] = {}
    for task in doc.get("tasks") or []:
        if isinstance(task, dict) and "id" in task:
            fingerprints[str(task["id"])] = scenario_fingerprint(task)
    rows = []
    trial_seen: dict[str, int] = {}
    for where, sim in sims:
        if not isinstance(sim, dict):
            raise FormatError(f"{where}: expected a simulation object, got {type(sim).__name__}")
        missing = [key for key in ("task_id", "termination_reason") if key not in sim]
        if missing:
            raise FormatError(
                f"{where}: not a τ²-bench simulation (missing {', '.join(missing)}; "
                f"keys: {', '.join(map(str, list(sim)[:10]))})"
            )
        if not isinstance(sim["task_id"], str | int) or isinstance(sim["task_id"], bool):
            raise FormatError(
                f"{where}: task_id {sim['task_id']!r} is not a task id (text or a whole number)"
            )
        task_id = str(sim["task_id"])
        trial = sim.get("trial")
        if trial is None:  # τ²-bench leaves trial unset in some versions: order of appearance
            trial = trial_seen.get(task_id, 0)
            trial_seen[task_id] = trial + 1
        reason = str(sim["termination_reason"]).lower()
        if "." in reason:  # "TerminationReason.USER_STOP" written by str(enum)
            reason = reason.rsplit(".", 1)[1]
        reward_info = sim.get("reward_info")
        if "reward" in sim and reward_info is None:  # simulation_index entries
            reward = sim.get("reward")
        elif isinstance(reward_info, dict):
            reward = reward_info.get("reward")
        elif reward_info is None:
            reward = None
        else:
            raise FormatError(f"{where}: reward_info must be an object")
        if reward is not None:
            try:  # a JSON number: text ("1.0") or a boolean is not read as one
                raw, reward = (
                    reward,
                    safe_float(reward if not isinstance(reward, str | bool) else "x"),
                )
            except (TypeError, ValueError) as err:
                raise FormatError(
                    f"{where} (task {task_id!r}): reward {reward!r} is not a number"
                ) from err
            if math.isinf(reward):
                raise FormatError(
                    f"{where} (task {task_id!r}): reward is {show_value(raw)}, not a finite number"
                )
            if math.isnan(reward):
                reward = None
        success: bool | None
        if reason in unscored_reasons:
            success, status = None, reason
        elif reward is None:
            success, status = None, "unscored"
        else:
            success = reward_success(reward, f"{where} (task {task_id!r})")
            status = "ok" if reason in _NATURAL else reason
        rows.append(
            {
                "task_id": sim["task_id"],  # as written: task 0 and task "0" are refused
                "trial": trial,
                "success": success,
                "status": status,
                "score": reward,
                "termination_reason": reason,
                "scenario_hash": fingerprints.get(task_id),
                "duration_s": sim.get("duration"),
                "cost": sim.get("agent_cost"),
            }
        )
    df = records_frame(rows)  # ids as JSON wrote them: 7 and 7.0 are two tasks
    df["success"] = df["success"].astype("boolean")
    df["score"] = pd.to_numeric(df["score"], errors="coerce")
    for col in ("scenario_hash", "duration_s", "cost"):
        if df[col].isna().all():
            df = df.drop(columns=col)
    if system_name:
        system, system_from = system_name, "option"
    elif found_name:
        system, system_from = found_name, "info.agent_info"
    else:
        system, system_from = (path.name if path.is_dir() else file_stem(path)), "file name"
    df["system"] = system
    return Trials.from_frame(df, where=str(path), source={"system_from": system_from, **extra})


def _run_dir(path: Path) -> bool:
    """A run directory: its ``results.json`` is τ²-bench's (many tools use that name, promptfoo
    too: look inside)."""
    index = path / "results.json"
    return index.is_file() and _sniff.tau2_bench(index, file_head(index))


register_reader(
    "tau2-bench",
    read_tau2_bench,
    sniff=_sniff.with_directories(_sniff.tau2_bench, _run_dir),
    priority=25,
)


# ----------------------------------------------------------------- traces
def read_tau2_bench_traces(path: Path, *, system_name: str | None = None) -> Traces:
    """Read the tool calls of τ²-bench results (outcomes from :func:`read_tau2_bench`).

    In each simulation's ``messages`` (``tool_messages`` groups flattened), the
    tool calls requested by the agent (``requestor`` ``assistant``) are steps;
    their observations are the ``tool`` messages with the same ``id`` (status
    ``error`` when the message says ``error: true``). Termination is
    τ²-bench's ``termination_reason``. A simulation without messages is
    excluded, with the reason.

    Examples
    --------
    >>> import json, os, tempfile
    >>> call = {"id": "c", "name": "get_order", "arguments": {"id": 1}, "requestor": "assistant"}
    >>> msgs = [{"role": "assistant", "tool_calls": [call]},
    ...         {"role": "tool", "id": "c", "content": "ok", "requestor": "assistant"}]
    >>> sims = [{"task_id": "0", "trial": 0, "termination_reason": "user_stop",
    ...          "reward_info": {"reward": 1.0}, "messages": msgs}]
    >>> f = os.path.join(tempfile.mkdtemp(), "results.json")
    >>> _ = open(f, "w").write(json.dumps({"info": {}, "tasks": [], "simulations": sims}))
    >>> tr = read_tau2_bench_traces(Path(f))
    >>> tr.steps[["action", "args", "status"]].values.tolist()
    [['get_order', '{"id":1}', 'ok']]
    """
    outcome = read_tau2_bench(path, system_name=system_name)
    tf = outcome_frame(outcome)
    extra_cols = [c for c in ("termination_reason",) if c in outcome.frame.columns]
    if extra_cols:
        tf["termination"] = outcome.frame["termination_reason"].to_numpy()
    _, sims = _load_document(path)
    system = str(tf["system"].iloc[0])
    index = outcome_positions(tf)
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
        obs = ToolAnswers(flat, lambda m: m.get("id") if m.get("role") == "tool" else None)
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
                text = message_text(ans.get("content")) if ans else ""
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
    return finish_traces(steps, tf[keep].copy(), excluded, path=path, fmt="tau2-bench")


def _sniff_traces(path: Path, head: str) -> bool:
    if path.is_dir():
        return True
    named = '"simulations"' in head or '"simulation_index"' in head
    return named and path.suffix.lower() != ".eval"


register_reader(
    "tau2-bench", read_tau2_bench_traces, sniff=_sniff_traces, kind="traces", priority=20
)
