"""Inspect AI evaluation logs (``.eval`` and ``.json``).

Read through :func:`inspect_ai.log.read_eval_log` (the optional extra:
``pip install 'passhat[inspect]'``). Each sample of the log is one run: the
sample ``id`` is the task, its 1-based ``epoch`` is the trial, and the chosen
scorer's value decides success.

**Success rule.** A score value is turned into a number the way Inspect's
own reducers do (``value_to_float``): ``C`` = 1, ``I`` = 0, ``P`` (partial) =
0.5, ``N`` (no answer) = 0, booleans and yes/no/true/false as 1/0, numbers
as themselves. The run succeeds when that number is ≥ ``threshold``
(default 1.0, the ``value`` default of Inspect's ``pass_k`` / ``pass_at``
reducers). So by default a partial answer is a failure (``threshold=0.5``
counts it as a success) and no answer (``N``) is a failure of the system,
not an unscored run. A NaN score is Inspect's "unscored" sentinel and stays
unscored. Dict- or list-valued scores are refused (name a scalar scorer).

**Errored samples** (``sample.error`` set, e.g. a solver or model error kept
with ``fail_on_error=False``) are **unscored**: status ``error``, the message
in the ``error`` column, excluded from n, exactly as Inspect leaves them out
of its epoch reducers. ``errors="failure"`` counts them as failures instead.
A sample with no score from the scorer and no error is unscored too
(status ``unscored``).

The system name is the log's model (``log.eval.model``). A **directory** of
logs (e.g. one ``.eval`` per model on the same task) reads as one trial table
with one system per model: every ``.eval`` file and every ``.json`` log directly
inside it is read this way and the tables are stacked (tidy data files there are
refused, other JSON files named in a note, two logs repeating a model's sample
epochs refused naming both). A log whose evaluation did not finish (status
``cancelled``, ``error``, ``started``) is read with a note. With several
scorers in the log, ``scorer=`` picks one (an error lists them when it is
missing). Each sample's ``input`` and ``target`` are fingerprinted into
``scenario_hash``.

Traces (:func:`read_inspect_traces`, for :func:`passhat.read_traces`): each
sample epoch's assistant tool calls, with the ``tool`` messages answering
them; outcomes are the trial reader's.

Examples
--------
>>> import passhat as ph
>>> trials = ph.read_trials("logs/my-task.eval", scorer="match")  # doctest: +SKIP
"""

from __future__ import annotations

import math
import zipfile
import zlib
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from passhat._numbers import safe_float, show_value
from passhat.errors import DependencyError, FormatError, OptionError
from passhat.io import _sniff
from passhat.io._inspect_dir import (
    log_files,
    looks_like_log,
    nested_logs,
    other_files,
    refuse_repeated_runs,
    shown_dirs,
)
from passhat.io._json import scenario_fingerprint
from passhat.io._registry import register_reader
from passhat.io._zip_guard import check_zip_sizes, unreadable_eval
from passhat.io.traces import (
    ToolAnswers,
    finish_traces,
    message_text,
    outcome_frame,
    outcome_positions,
)
from passhat.traces import Traces, canonical_args
from passhat.trials import Trials

__all__ = [
    "check_zip_sizes",
    "inspect_value_to_float",
    "read_inspect_log",
    "read_inspect_traces",
    "unreadable_eval",
]

_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}


def inspect_value_to_float(value: Any) -> float | None:
    """A scalar Inspect score value as a number (Inspect's default mapping).

    Returns ``None`` for values that have no numeric meaning (dicts, lists,
    free text), ``nan`` for Inspect's unscored sentinel.

    Examples
    --------
    >>> [inspect_value_to_float(v) for v in ("C", "I", "P", "N", True, 0.25, "0.5")]
    [1.0, 0.0, 0.5, 0.0, 1.0, 0.25, 0.5]
    """
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return safe_float(value)
    if isinstance(value, str):
        key = value.strip()
        if key in _LETTERS:
            return _LETTERS[key]
        if key.lower() in _WORDS:
            return _WORDS[key.lower()]
        try:
            return float(key)
        except ValueError:
            return None
    return None


def _import_read_eval_log(what: str = "logs") -> Any:
    try:
        from inspect_ai.log import read_eval_log
    except ImportError as err:
        raise DependencyError(
            f"reading Inspect AI {what} needs the inspect_ai package: "
            "pip install 'passhat[inspect]'"
        ) from err
    return read_eval_log


def _load_log(path: Path, *, messages: bool = False) -> Any:
    """The log, read by Inspect (``messages``: with each sample's messages, for traces)."""
    if path.is_dir():
        raise FormatError(f"{path}: a directory, not an Inspect AI log file (.eval or .json)")
    # the content decides (an .eval log is a zip archive, a .json log is JSON text), so a log
    # saved under the other extension is read; a damaged .eval is refused as one
    with open(path, "rb") as fh:
        start = fh.read(64)
    if start[:2] == b"\x1f\x8b":
        raise FormatError(
            f"{path}: a gzip-compressed Inspect AI log; Inspect reads logs uncompressed: "
            "gunzip it first (an .eval log is compressed already)"
        )
    json_text = start.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{")
    if zipfile.is_zipfile(path):
        fmt = "eval"
    else:
        fmt = "json" if json_text or path.suffix.lower() != ".eval" else "eval"
    if fmt == "eval":
        check_zip_sizes(path)  # a damaged archive is refused with or without inspect_ai
    read_eval_log = _import_read_eval_log()
    options: dict[str, Any] = {"format": fmt}
    if fmt == "eval" and not messages:
        options["exclude_fields"] = {"messages", "events", "store", "attachments"}
    try:
        return read_eval_log(str(path), **options)
    except (zipfile.BadZipFile, EOFError, zlib.error) as err:  # a damaged member
        raise unreadable_eval(path, err) from err
    except Exception as err:  # pydantic, json errors: all mean "not a log"
        msg = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise FormatError(
            f"{path}: not an Inspect AI log ({type(err).__name__}: {msg[:200]})"
        ) from err


def _pick_scorer(path: Path, samples: list[Any], scorer: str | None) -> str:
    names: list[str] = []
    for s in samples:
        for name in s.scores or {}:
            if name not in names:
                names.append(name)
    if not names:
        errored = [s for s in samples if s.error is not None]
        why = (
            f"every one of its {len(samples)} samples errored (e.g. sample {errored[0].id!r} "
            f"epoch {errored[0].epoch}: {_first_line(errored[0].error.message)})"
            if len(errored) == len(samples)
            else f"{len(errored)} of its {len(samples)} samples errored and the others were "
            "never scored (run with --no-score? score the log with `inspect score`)"
            if errored
            else f"none of its {len(samples)} samples was scored (run with --no-score? score "
            "the log with `inspect score`)"
        )
        raise FormatError(f"{path}: no sample in the Inspect AI log has a score: {why}")
    if scorer is not None:
        if scorer not in names:
            raise OptionError(
                f"{path}: scorer {scorer!r} is not in the log; scorers: "
                f"{', '.join(names) or 'none'}"
            )
        return scorer
    if len(names) > 1:
        raise OptionError(
            f"{path}: the log has several scorers ({', '.join(names)}); choose one with "
            "scorer= (--map scorer=NAME)"
        )
    return names[0]


def _first_line(text: Any) -> str:
    line = str(text).strip().splitlines()[0] if str(text).strip() else "no message"
    return line if len(line) <= 120 else line[:117] + "..."


def _fingerprint(sample: Any) -> str:
    def plain(x: Any) -> Any:
        if isinstance(x, list):
            return [plain(v) for v in x]
        dump = getattr(x, "model_dump", None)
        return dump(exclude={"id"}) if callable(dump) else x

    return scenario_fingerprint({"input": plain(sample.input), "target": plain(sample.target)})


def read_inspect_log(
    path: Path,
    *,
    scorer: str | None = None,
    threshold: float = 1.0,
    system_name: str | None = None,
    errors: Literal["unscored", "failure"] = "unscored",
) -> Trials:
    """Read an Inspect AI log (``.eval`` or ``.json``) into trials.

    Parameters
    ----------
    path : Path
        The log file.
    scorer : str, optional
        Which scorer decides success (needed when the log has several).
    threshold : float
        Success is ``value_to_float(score) >= threshold`` (default 1.0: only
        ``C`` / 1 / true passes; ``P`` = 0.5 and ``N`` = 0 fail).
    system_name : str, optional
        Overrides ``log.eval.model``.
    errors : {"unscored", "failure"}
        Errored samples are unscored (default) or failures.

    Returns
    -------
    Trials
        Columns ``task_id`` (sample id), ``trial`` (epoch), ``success``,
        ``status`` (``ok``, ``no_answer``, ``error``, ``unscored``),
        ``score``, ``error``, ``scenario_hash``, ``duration_s``.

    Raises
    ------
    DependencyError
        inspect_ai is not installed.
    FormatError
        The file is not an Inspect AI log, or has no samples.
    OptionError
        Several scorers and none chosen, or an unknown scorer.

    Examples
    --------
    >>> import passhat as ph
    >>> ph.read_trials("logs/run.eval", format="inspect", threshold=0.5)  # doctest: +SKIP
    """
    if errors not in ("unscored", "failure"):
        raise OptionError(f"errors must be 'unscored' or 'failure' (got {errors!r})")
    try:
        threshold = float(threshold)
    except (TypeError, ValueError) as err:
        raise OptionError(f"threshold must be a number (got {threshold!r})") from err
    if not math.isfinite(threshold):
        raise OptionError(
            f"{path}: threshold must be a finite number, e.g. 0.5 (got {threshold!r})"
        )
    path = Path(path)
    if path.is_dir():
        return _read_log_dir(
            path, scorer=scorer, threshold=threshold, system_name=system_name, errors=errors
        )
    log = _load_log(path)
    samples = list(log.samples or [])
    if not samples:
        raise FormatError(
            f"{path}: the Inspect AI log has no samples (status {getattr(log, 'status', '?')}); "
            "was it written with samples?"
        )
    name = _pick_scorer(path, samples, scorer)
    rows = []
    for s in samples:
        if s.epoch < 1:  # Inspect numbers epochs 1, 2, …: an epoch 0 is no Inspect run
            raise FormatError(
                f"{path}: sample {s.id!r} epoch {s.epoch}: Inspect AI epochs are 1-based "
                "(1, 2, …), so this log was not written as Inspect writes it; fix the log"
            )
        score = (s.scores or {}).get(name)
        row: dict[str, Any] = {
            "task_id": s.id,  # as written: sample 1 and sample "1" are refused
            "trial": s.epoch,
            "success": None,
            "status": "unscored",
            "score": math.nan,
            "error": s.error.message if s.error is not None else None,
            "scenario_hash": _fingerprint(s),
            "duration_s": s.total_time,
        }
        if s.error is not None:
            row["status"] = "error"
            row["success"] = None if errors == "unscored" else False
        elif score is not None:
            value = inspect_value_to_float(score.value)
            if value is None:
                shown = repr(score.value)
                hint = (
                    "; a dict-valued score holds several values and passhat will not pick one:"
                    " score the log with a scorer whose value is one of these"
                    if isinstance(score.value, dict)
                    else ""
                )
                raise FormatError(
                    f"{path}: sample {s.id!r} epoch {s.epoch}: scorer {name!r} value "
                    f"{shown[:200]} is not a scalar success value (C/I/P/N, bool or number)"
                    f"{hint}"
                )
            if math.isinf(value):
                raise FormatError(
                    f"{path}: sample {s.id!r} epoch {s.epoch}: scorer {name!r} value "
                    f"{show_value(score.value)} is not a finite number"
                )
            if not math.isnan(value):
                row["score"] = value
                row["success"] = value >= threshold
                no_answer = isinstance(score.value, str) and score.value.strip() == "N"
                row["status"] = "no_answer" if no_answer else "ok"
        rows.append(row)
    df = pd.DataFrame(rows)
    df["success"] = df["success"].astype("boolean")
    if df["duration_s"].isna().all():
        df = df.drop(columns="duration_s")
    model = getattr(getattr(log, "eval", None), "model", None)
    df["system"] = system_name or (str(model) if model else path.stem)
    task_name = getattr(getattr(log, "eval", None), "task", None)
    source = {
        "system_from": "option" if system_name else "log.eval.model" if model else "file name",
        "scorer": name,
        "threshold": threshold,
        "errored_samples": int(df["error"].notna().sum()),
    }
    if task_name:
        source["inspect_task"] = str(task_name)
    status = getattr(log, "status", None)
    source["log_status"] = str(status)
    trials = Trials.from_frame(df, where=str(path), source=source)
    if status in ("cancelled", "error", "started"):
        trials.notes.append(_status_note(path, log, status, len(samples)))
    return trials


def _status_note(path: Path, log: Any, status: str, n_samples: int) -> str:
    """The note for a log whose evaluation did not finish: what was read is not the plan."""
    cfg = getattr(getattr(log, "eval", None), "config", None)
    epochs = getattr(cfg, "epochs", None) or 1
    planned = getattr(getattr(log, "eval", None), "dataset", None)
    n_planned = getattr(planned, "samples", None)
    limit = getattr(cfg, "limit", None)  # --limit N or --limit START,END
    if isinstance(limit, int) and n_planned:
        n_planned = min(n_planned, limit)
    elif isinstance(limit, list | tuple) and len(limit) == 2 and n_planned:
        n_planned = min(n_planned, int(limit[1]) - int(limit[0]))
    total = n_planned * epochs if isinstance(n_planned, int) else None
    what = {
        "cancelled": "was cancelled",
        "error": "stopped on an error",
        "started": "had not finished when the log was written",
    }[status]
    held = (
        f"it holds all {total} planned sample epoch(s)"
        if total is not None and n_samples >= total
        else f"read the {n_samples} sample epoch(s) it holds"
        + (f" of the {total} planned" if total is not None else "")
        + "; the estimates cover only those"
    )
    return f"{path}: the Inspect AI evaluation {what} (log status {status!r}); {held}"


def _read_log_dir(
    path: Path,
    *,
    scorer: str | None,
    threshold: float,
    system_name: str | None,
    errors: Literal["unscored", "failure"],
) -> Trials:
    """Every log of a directory, stacked: one system per model."""
    if system_name is not None:
        raise OptionError(
            f"{path}: a directory of logs names its systems from each log's model; "
            "--system-name applies to one log file"
        )
    files = log_files(path)
    nested = nested_logs(path)
    if not files:
        with_logs = [(n, k) for n, k in nested if k]
        below = (
            f"; its subdirectories hold logs ({shown_dirs(with_logs)}): give each directory as "
            "an input"
            if with_logs
            else ""
        )
        raise FormatError(f"{path}: a directory without Inspect AI logs (.eval or .json){below}")
    data, skipped = other_files(path, files)
    if data:
        raise FormatError(
            f"{path}: the directory mixes Inspect AI logs with data files "
            f"({', '.join(data[:5])}{' ...' if len(data) > 5 else ''}); one dataset is one "
            "format: move them apart"
        )
    parts = [read_inspect_log(f, scorer=scorer, threshold=threshold, errors=errors) for f in files]
    frame = pd.concat([t.frame for t in parts], ignore_index=True)
    refuse_repeated_runs(path, frame, [f.name for f in files], [len(t) for t in parts])
    source = {
        "system_from": "log.eval.model",
        "logs": [
            {"file": f.name, "system": t.systems[0], "scorer": t.source.get("scorer")}
            for f, t in zip(files, parts, strict=True)
        ],
        "threshold": threshold,
        "errored_samples": sum(int(t.source.get("errored_samples", 0)) for t in parts),
    }
    trials = Trials.from_frame(frame, where=str(path), source=source)
    trials.notes.extend(note for t in parts for note in t.notes)
    if skipped:
        trials.notes.append(
            f"{path}: not read, not Inspect AI logs: {', '.join(skipped[:5])}"
            + (f" and {len(skipped) - 5} more" if len(skipped) > 5 else "")
        )
    if nested:
        trials.notes.append(
            f"{path}: subdirectories are not read ({shown_dirs(nested)}): only the logs directly "
            "in the directory are; give another directory of logs as an input of its own"
        )
    return trials


def _has_logs(path: Path) -> bool:
    """Logs in the directory, or only in its subdirectories (claimed, to be refused with their
    names)."""
    return bool(log_files(path)) or any(k for _, k in nested_logs(path))


register_reader(
    "inspect",
    read_inspect_log,
    sniff=_sniff.with_directories(looks_like_log, _has_logs),
    priority=15,
)


# ----------------------------------------------------------------- traces
def read_inspect_traces(
    path: Path, *, system_name: str | None = None, scorer: str | None = None
) -> Traces:
    """Read the tool calls of an Inspect AI log (outcomes from :func:`read_inspect_log`).

    Each sample epoch's assistant ``tool_calls`` are steps, with the ``tool``
    messages answering them (status ``error`` when the tool message has an
    error). Termination is the trial reader's status. A sample without
    messages is excluded, with the reason.

    Examples
    --------
    >>> import passhat as ph
    >>> ph.read_traces("logs/run.eval", scorer="match")  # doctest: +SKIP
    """
    _import_read_eval_log("traces")
    outcome = read_inspect_log(path, system_name=system_name, scorer=scorer)  # sizes checked
    tf = outcome_frame(outcome)
    tf["termination"] = outcome.frame["status"].to_numpy()
    log = _load_log(Path(path), messages=True)  # the same form as the trial reader's
    system = str(tf["system"].iloc[0])
    index = outcome_positions(tf)
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
        obs = ToolAnswers(
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
                text = message_text(ans.content) if ans is not None else ""
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
    return finish_traces(steps, tf[keep].copy(), excluded, path=path, fmt="inspect")


def _sniff_traces(path: Path, head: str) -> bool:
    if path.is_file() and looks_like_log(path, head):  # as the trial reader's sniffer
        return True
    text = head.lstrip()
    return text.startswith("{") and '"eval"' in head and '"samples"' in head


register_reader("inspect", read_inspect_traces, sniff=_sniff_traces, kind="traces", priority=30)
