"""Reading traces: :func:`read_traces` over the registered trace readers, and what they share.

A trace reader maps its source to :class:`passhat.traces.Traces`: a step table
(one row per tool call the agent made: tool name, canonical arguments,
observation, status ``ok``/``error``) and a trial table (success, status,
termination reason, scenario fingerprint). Each format's module registers its
trace reader in the reader registry (``kind="traces"``) beside its trial
reader, and says in its docstring how it reads the tool calls:

=============== =====================================
``tau-bench``   :mod:`passhat.io.tau_bench`
``tau2-bench``  :mod:`passhat.io.tau2_bench`
``inspect``     :mod:`passhat.io.inspect_log`
``steps-jsonl`` :mod:`passhat.io.steps_jsonl`
=============== =====================================

Outcomes come from the trial reader of the same format, so ``passhat traces``
and ``passhat estimate`` agree on which runs passed. Trajectories that are
empty (no messages at all) are excluded and listed in ``Traces.excluded`` with
the reason; trajectories with messages but no tool call are kept with zero
steps and counted in ``Traces.source``.

This module also holds the pieces the trace readers share (message text, tool
answers matched to calls, the outcome columns, the finished :class:`Traces`)
and :func:`load_stages` (a tool → stage mapping file for the analysis).
"""

from __future__ import annotations

import inspect
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pandas as pd

from passhat.errors import FormatError, OptionError
from passhat.io._guards import readable_input
from passhat.io._json import message_text, missing, not_utf8, refuse_wide
from passhat.io._registry import (
    Reader,
    file_head,
    file_sha256,
    find_reader,
    formats,
    readers,
    sniff,
)
from passhat.traces import Traces
from passhat.traces.container import STEP_COLUMNS
from passhat.trials import Trials

__all__ = [
    "EXCLUDED_COLUMNS",
    "ToolAnswers",
    "finish_traces",
    "load_stages",
    "message_text",
    "outcome_frame",
    "outcome_positions",
    "read_traces",
]

#: Columns of ``Traces.excluded``: the trials a reader could not use, and why.
EXCLUDED_COLUMNS = ["system", "task_id", "trial", "reason"]
_TRACES = ("traces",)


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
    with readable_input(Path(path)) as (p, spooled):  # a pipe: read once into a temporary file
        traces = _read_traces(p, format, system_name, outcomes, scorer)
    if spooled:
        traces.source = {**traces.source, "path": str(path)}
    return traces


def _read_traces(
    p: Path, format: str | None, system_name: str | None, outcomes: Any, scorer: str | None
) -> Traces:
    if not p.exists():
        raise FormatError(missing(p))
    if p.is_file() and p.stat().st_size == 0:
        raise FormatError(f"{p}: the file is empty")
    if p.is_file():
        refuse_wide(p)  # UTF-16 text: say so, not "cannot tell the format"
    reader = _trace_reader(p, format)
    if outcomes is not None and not _takes(reader.read, "outcomes"):
        step_logs = [r.name for r in readers(_TRACES) if _takes(r.read, "outcomes")]
        raise OptionError(f"outcomes= (--outcomes) is only for {', '.join(step_logs)} step logs")
    # each reader gets the options it takes (scorer= only matters to Inspect logs)
    options = {"system_name": system_name, "outcomes": outcomes, "scorer": scorer}
    taken = {k: v for k, v in options.items() if _takes(reader.read, k)}
    return cast(Traces, reader.read(p, **taken))


def _takes(read: Callable[..., Any], option: str) -> bool:
    return option in inspect.signature(read).parameters


def _trace_reader(path: Path, fmt: str | None) -> Reader:
    """The trace reader named by ``fmt``, else the one whose sniffer recognises the file."""
    if fmt:
        reader = find_reader(fmt, kinds=_TRACES)
        if reader is None:
            raise OptionError(
                f"{path}: unknown trace format {fmt!r}; trace formats: "
                f"{', '.join(formats(kind='traces'))}"
            )
        return reader
    head = file_head(path)
    reader = sniff(path, head, kinds=_TRACES)
    if reader is None:
        if not head.strip():
            raise FormatError(f"{path}: the file is empty")
        raise FormatError(
            f"{path}: cannot tell the trace format; pass format= (--format) with one of: "
            f"{', '.join(formats(kind='traces'))}"
        )
    return reader


# ----------------------------------------------------------------- shared by the readers
class ToolAnswers:
    """Tool messages matched to calls in order.

    Call ids are not always unique within a trajectory (τ-bench reuses them),
    so each call takes the first unused tool message with its id that comes
    after it.

    Examples
    --------
    >>> msgs = [{"role": "tool", "id": "a", "content": "old"}, {"role": "assistant"},
    ...         {"role": "tool", "id": "a", "content": "new"}]
    >>> answers = ToolAnswers(msgs, lambda m: m.get("id") if m["role"] == "tool" else None)
    >>> answers.take("a", 1)["content"], answers.take("a", 1)
    ('new', None)
    """

    def __init__(self, messages: list[Any], get_id: Callable[[Any], Any]) -> None:
        self._queues: dict[str, deque[tuple[int, Any]]] = {}
        for idx, m in enumerate(messages):
            cid = get_id(m)
            if cid is not None:
                self._queues.setdefault(str(cid), deque()).append((idx, m))

    def take(self, call_id: Any, position: int) -> Any:
        """The first unused answer to ``call_id`` after message ``position`` (None if none)."""
        q = self._queues.get(str(call_id))
        while q and q[0][0] < position:
            q.popleft()
        return q.popleft()[1] if q else None


def outcome_frame(trials: Trials) -> pd.DataFrame:
    """The outcome columns of a trial reader's table that a trace's trial table keeps.

    Examples
    --------
    >>> t = Trials.from_frame(pd.DataFrame({"task_id": ["a"], "success": [True], "score": [1.0]}))
    >>> list(outcome_frame(t).columns)
    ['system', 'task_id', 'trial', 'success', 'status']
    """
    cols = ["system", "task_id", "trial", "success", "status", "scenario_hash"]
    df = trials.frame
    return df[[c for c in cols if c in df.columns]].copy()


def outcome_positions(trials: pd.DataFrame) -> dict[tuple[str, int], int]:
    """Row position of each (task_id, trial) in an outcome frame, to match trajectories to it.

    Examples
    --------
    >>> outcome_positions(pd.DataFrame({"task_id": ["a", "a"], "trial": [0, 1]}))
    {('a', 0): 0, ('a', 1): 1}
    """
    pairs = zip(trials["task_id"], trials["trial"], strict=True)
    return {(str(t), int(n)): i for i, (t, n) in enumerate(pairs)}


def finish_traces(
    steps: list[dict[str, Any]],
    trials: pd.DataFrame,
    excluded: list[dict[str, Any]],
    *,
    path: Path,
    fmt: str,
    extra: dict[str, Any] | None = None,
) -> Traces:
    """Validate a reader's steps and trials into :class:`Traces`, with its provenance.

    Examples
    --------
    >>> import tempfile
    >>> f = Path(tempfile.mkdtemp()) / "log.json"
    >>> _ = f.write_text("{}")
    >>> steps = [{"system": "s", "task_id": "t", "trial": 0, "step": 0, "action": "pay",
    ...           "args": "{}", "observation": "", "status": "ok"}]
    >>> trials = pd.DataFrame({"system": ["s", "s"], "task_id": "t", "trial": [0, 1],
    ...                        "success": [True, False]})
    >>> tr = finish_traces(steps, trials, [], path=f, fmt="mine")
    >>> tr.source["format"], tr.source["trials_without_tool_calls"]
    ('mine', 1)
    """
    step_df = pd.DataFrame(steps, columns=list(STEP_COLUMNS))
    exc = pd.DataFrame(excluded, columns=EXCLUDED_COLUMNS)
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
