"""Harbor job directories (Terminal-Bench 2 and the other Harbor datasets).

The shapes read here are Harbor's own (laude-institute/harbor, read through a fork's copy:
``src/harbor/models/job/result.py`` ``JobResult``/``JobStats``,
``src/harbor/models/trial/result.py`` ``TrialResult``, ``src/harbor/models/trial/paths.py``
``TrialPaths``, ``src/harbor/verifier/verifier.py``):

* ``<job>/result.json``: ``id``, ``started_at``, ``n_total_trials``, ``stats`` (``evals``
  keyed ``<agent>__<model>__<dataset>`` with ``metrics`` and ``pass_at_k``);
* ``<job>/<task[:32]>__<7 chars>/result.json`` per trial: ``task_name``, ``trial_name``,
  ``source`` (the dataset), ``task_checksum``, ``agent_info`` (``name``,
  ``model_info.name``), ``verifier_result.rewards`` (from the verifier's
  ``verifier/reward.txt``, a float, or ``verifier/reward.json``, named floats),
  ``exception_info`` (``exception_type``, ``exception_message``), ``started_at``,
  ``finished_at``, ``agent_result.cost_usd``.

Mapping: the **task** is ``task_name`` (``<source>/<task_name>`` when the jobs hold several
datasets; the dataset is the ``category``); the **trial** numbers a task's trials 0, 1, ... by
``started_at`` (then trial name); the **system** is Harbor's own key without the dataset,
``<agent>__<model>`` (or the agent's name alone when no model is recorded).

Success: the ``reward`` (``reward=`` picks another key of ``reward.json``) when rewards are
0/1; fractional rewards need ``threshold=``. When ``result.json`` has no verifier result the
verifier's reward file is read. Status: ``ok``; ``timeout`` for Harbor's ``AgentTimeoutError``
(the verifier still runs after it, so the reward decides; with no reward it is a failure);
otherwise the exception type (``NonZeroAgentExitCodeError``, ``RewardFileNotFoundError``,
``VerifierTimeoutError``, ``CancelledError``, ...). A trial with an exception and no reward
is **unscored** (``errors="failure"`` counts it as a failure, as Harbor's own ``mean`` and
``pass_at_k`` do); a trial directory without ``result.json`` never finished and is counted in
a note, as are trials the job planned (``n_total_trials``) but never started.

Examples
--------
>>> import json, os, tempfile
>>> import passhat as ph
>>> job = tempfile.mkdtemp()
>>> _ = open(os.path.join(job, "result.json"), "w").write(json.dumps(
...     {"id": "0", "started_at": "2025-01-01T00:00:00", "n_total_trials": 2, "stats": {}}))
>>> for i, r in enumerate([1.0, 0.0]):
...     d = os.path.join(job, f"hello-world__abc{i}"); os.mkdir(d)
...     res = {"task_name": "hello-world", "trial_name": f"hello-world__abc{i}",
...            "agent_info": {"name": "oracle", "version": "1.0"},
...            "verifier_result": {"rewards": {"reward": r}},
...            "started_at": f"2025-01-01T00:0{i}:00"}
...     _ = open(os.path.join(d, "result.json"), "w").write(json.dumps(res))
>>> t = ph.read_trials(job)
>>> t.systems, t.frame["success"].tolist()
(['oracle'], [True, False])
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from passhat.errors import FormatError, OptionError
from passhat.io import _sniff
from passhat.io._json import load_json, records_frame, scenario_fingerprint
from passhat.io._registry import file_head, register_reader
from passhat.io._scan import unread_note
from passhat.io._scores import as_dict, check_threshold, json_score, one_line, verdicts
from passhat.io._sniff import harbor_job as _is_job
from passhat.trials import Trials

__all__ = ["job_dirs", "read_harbor"]

_WHAT = "Harbor trial result.json"
#: Harbor's exception types renamed to passhat's status words.
_STATUS = {"AgentTimeoutError": "timeout"}


@dataclass
class _Job:
    path: Path
    result: dict[str, Any]
    trials: list[tuple[Path, dict[str, Any]]] = field(default_factory=list)
    unfinished: list[str] = field(default_factory=list)


def job_dirs(path: Path) -> list[Path]:
    """The job directories a path names: a job (or its ``result.json``), or a directory of jobs
    (Harbor's ``jobs/``)."""
    if path.is_file():
        return [path.parent] if path.name == "result.json" and _is_job(path.parent) else []
    if _is_job(path):
        return [path]
    return sorted(q for q in path.iterdir() if q.is_dir() and _is_job(q))


def _load_job(path: Path) -> _Job:
    result = load_json(path / "result.json", expected="Harbor job result.json")
    if not isinstance(result, dict) or "n_total_trials" not in result:
        raise FormatError(f"{path / 'result.json'}: not a Harbor job result (no n_total_trials)")
    planned = result.get("n_total_trials")
    if isinstance(planned, bool) or not isinstance(planned, int) or planned < 0:
        raise FormatError(
            f"{path / 'result.json'}: n_total_trials {planned!r} is not a whole number ≥ 0"
        )
    job = _Job(path, result)
    for sub in sorted(q for q in path.iterdir() if q.is_dir()):
        f = sub / "result.json"
        if f.is_file():
            job.trials.append((f, load_json(f, expected=_WHAT)))
        elif (sub / "config.json").is_file() or (sub / "trial.log").is_file():
            job.unfinished.append(sub.name)
    return job


def _as_dict(x: Any, where: str, what: str) -> dict[str, Any]:
    if x is None:
        return {}
    if not isinstance(x, dict):
        raise FormatError(f"{where}: {what} must be an object, got {type(x).__name__}")
    return x


def _rewards(f: Path, trial: dict[str, Any]) -> dict[str, Any] | None:
    """The trial's rewards: the verifier result's, else the verifier's reward file."""
    where = str(f)
    verifier = _as_dict(trial.get("verifier_result"), where, "verifier_result")
    rewards = verifier.get("rewards")
    if rewards is not None:
        return _as_dict(rewards, where, "verifier_result.rewards")
    vdir = f.parent / "verifier"
    if (vdir / "reward.json").is_file():
        return _as_dict(
            load_json(vdir / "reward.json", expected="Harbor reward.json"),
            str(vdir / "reward.json"),
            "reward.json",
        )
    txt = vdir / "reward.txt"
    if txt.is_file():
        text = txt.read_text(encoding="utf-8", errors="replace").strip()
        try:
            return {"reward": float(text)}
        except ValueError as err:
            raise FormatError(f"{txt}: reward {text[:40]!r} is not a number") from err
    return None


def _reward(f: Path, rewards: dict[str, Any] | None, key: str | None) -> float | None:
    if rewards is None:
        return None
    if key is None:
        if "reward" in rewards or not rewards:
            key = "reward"
        elif len(rewards) == 1:
            key = next(iter(rewards))
        else:
            raise OptionError(
                f"{f}: the verifier wrote several rewards ({', '.join(map(str, rewards))}) and "
                "none is named 'reward'; choose one with --map reward=NAME"
            )
    if key not in rewards:
        return None
    return json_score(rewards[key], str(f), f"reward {key!r}")


def _trial_row(f: Path, t: Any, reward_key: str | None) -> dict[str, Any]:
    if not isinstance(t, dict):
        raise FormatError(f"{f}: not a {_WHAT} (a JSON {type(t).__name__}, not an object)")
    if not isinstance(t.get("task_name"), str) or not t["task_name"]:
        keys = ", ".join(map(str, list(t)[:8]))
        raise FormatError(f"{f}: not a {_WHAT} (no task_name; keys: {keys})")
    agent = _as_dict(t.get("agent_info"), str(f), "agent_info")
    if not isinstance(agent.get("name"), str):
        raise FormatError(f"{f}: agent_info.name is missing: which agent ran the trial?")
    model = _as_dict(agent.get("model_info"), str(f), "agent_info.model_info").get("name")
    if model is not None and not isinstance(model, str):
        raise FormatError(f"{f}: agent_info.model_info.name {model!r} is not a model name")
    for key in ("source", "trial_name"):
        if t.get(key) is not None and not isinstance(t[key], str):
            raise FormatError(f"{f}: {key} {t[key]!r} is not text")
    exc = _as_dict(t.get("exception_info"), str(f), "exception_info")
    etype = exc.get("exception_type")
    if etype is not None and not (isinstance(etype, str) and etype):
        raise FormatError(f"{f}: exception_info.exception_type {etype!r} is not an exception name")
    rewards = _rewards(f, t)
    vdir = f.parent / "verifier"  # where the rewards came from, when not from result.json
    source = (
        next((q for q in (vdir / "reward.json", vdir / "reward.txt") if q.is_file()), f)
        if as_dict(t.get("verifier_result")).get("rewards") is None
        else f
    )
    score = _reward(source, rewards, reward_key)
    return {
        "task_name": t["task_name"],
        "source": t.get("source"),
        "trial_name": str(t.get("trial_name") or f.parent.name),
        "system": f"{agent['name']}__{model}" if model else agent["name"],
        "score": score,
        "exception": str(etype) if etype else None,
        "no_key": rewards is not None and score is None,
        "error": one_line(exc.get("exception_message", "")) if etype else None,
        "started_at": t.get("started_at"),
        "duration_s": _seconds(f, t.get("started_at"), t.get("finished_at")),
        "cost": json_score(
            _as_dict(t.get("agent_result"), str(f), "agent_result").get("cost_usd"),
            str(f),
            "agent_result.cost_usd",
            bools=False,
        ),
        "scenario_hash": _checksum(t.get("task_checksum")),
    }


def _seconds(f: Path, start: Any, end: Any) -> float | None:
    """Seconds from ``started_at`` to ``finished_at`` (ISO times; either may be missing)."""
    times = []
    for key, value in (("started_at", start), ("finished_at", end)):
        if value is None:
            return None
        try:
            times.append(dt.datetime.fromisoformat(value))
        except (TypeError, ValueError) as err:
            raise FormatError(f"{f}: {key} {value!r} is not an ISO date and time") from err
    try:
        return (times[1] - times[0]).total_seconds()
    except TypeError as err:  # one with a time zone, one without
        raise FormatError(f"{f}: started_at and finished_at mix time zones") from err


def _checksum(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else scenario_fingerprint(value)


def read_harbor(
    path: Path,
    *,
    reward: str | None = None,
    threshold: float | None = None,
    errors: Literal["unscored", "failure"] = "unscored",
    system_name: str | None = None,
) -> Trials:
    """Read Harbor job directories into trials.

    Parameters
    ----------
    path : Path
        A job directory (``jobs/<job>``, or its ``result.json``), or a directory of jobs.
    reward : str, optional
        The key of ``reward.json`` that decides success (default ``reward``).
    threshold : float, optional
        Success is ``reward ≥ threshold``; needed for fractional rewards.
    errors : {"unscored", "failure"}
        Trials with an exception and no reward are unscored (default) or failures.
    system_name : str, optional
        Overrides ``<agent>__<model>`` (only for jobs of one agent and model).

    Returns
    -------
    Trials
        ``task_id``, ``trial``, ``score`` (the reward), ``status``, ``error`` (the exception's
        first line), ``trial_name``, ``duration_s``, ``cost``, ``scenario_hash``.
    """
    path = Path(path)
    threshold = check_threshold(threshold, str(path))
    if errors not in ("unscored", "failure"):
        raise OptionError(f"{path}: errors must be 'unscored' or 'failure' (got {errors!r})")
    dirs = job_dirs(path)
    trial = path if path.is_file() else path / "result.json"
    if not dirs and trial.name == "result.json" and _is_trial(trial):
        raise FormatError(
            f"{path}: one Harbor trial's result; passhat reads a job's trials together: give the "
            f"job directory ({trial.parent.parent})"
        )
    if not dirs:
        raise FormatError(
            f"{path}: not a Harbor job directory (no result.json with n_total_trials in it or in "
            "its subdirectories); give jobs/<job-name>"
        )
    jobs = [_load_job(d) for d in dirs]
    rows = [_trial_row(f, t, reward) for j in jobs for f, t in j.trials]
    if not rows:
        raise FormatError(f"{path}: the Harbor job holds no finished trial (no trial result.json)")
    df = records_frame(rows)
    if system_name is not None:
        if df["system"].nunique() > 1:
            raise OptionError(
                f"{path}: the jobs hold several agents/models "
                f"({', '.join(pd.unique(df['system']))}); --system-name names one"
            )
        df["system"] = system_name
    _ids(df)
    scores = df["score"].to_numpy(dtype=float, na_value=np.nan)
    df["success"] = pd.array(
        verdicts(scores, threshold=threshold, where=str(path), what="reward"), dtype="boolean"
    )
    status = df["exception"].map(lambda e: _STATUS.get(e, e) if isinstance(e, str) else "ok")
    no_reward = np.isnan(scores)
    status[no_reward & (status == "ok")] = "unscored"
    status[df["no_key"].to_numpy(dtype=bool) & (status == "unscored")] = "reward_missing"
    df["status"] = status
    if errors == "failure":
        df.loc[no_reward & df["exception"].notna(), "success"] = False
    df = df.drop(columns=["task_name", "source", "exception", "started_at", "no_key"])
    for col in ("duration_s", "cost", "scenario_hash", "error", "category"):
        if col in df.columns and df[col].isna().all():
            df = df.drop(columns=col)
    source = {
        "system_from": "option" if system_name else "agent_info",
        "reward": reward or "reward",
        "threshold": threshold,
        "errors": errors,
        "jobs": [_job_source(j) for j in jobs],
    }
    trials = Trials.from_frame(df, where=str(path), source=source)
    trials.notes.extend(_notes(jobs))
    for d in dict.fromkeys([path, *(j.path for j in jobs)]):
        unread = unread_note(d, [], tables_only=True, what="Harbor trials") if d.is_dir() else None
        trials.notes.extend([unread] if unread else [])
    return trials


def _ids(df: pd.DataFrame) -> None:
    """Task ids (with the dataset when several) and trial numbers by start time, in place."""
    sources = df["source"].dropna().unique()
    if len(sources) > 1:
        df["task_id"] = df["source"].fillna("adhoc").astype(str) + "/" + df["task_name"]
        df["category"] = df["source"].fillna("adhoc")
    else:
        df["task_id"] = df["task_name"]
    order = df.assign(_start=df["started_at"].astype(str)).sort_values(
        ["_start", "trial_name"], kind="stable"
    )
    df["trial"] = order.groupby(["system", "task_id"], sort=False).cumcount().reindex(df.index)


def _job_source(job: _Job) -> dict[str, Any]:
    """A job's provenance and Harbor's own summary numbers (``stats.evals``: the oracle)."""
    stats = as_dict(job.result.get("stats"))
    evals = as_dict(stats.get("evals"))
    return {
        "job": job.path.name,
        "id": str(job.result.get("id")),
        "n_total_trials": job.result.get("n_total_trials"),
        "evals": json.loads(json.dumps(evals, default=str)),
    }


def _notes(jobs: list[_Job]) -> list[str]:
    notes = []
    for j in jobs:
        planned = j.result.get("n_total_trials")
        done = len(j.trials)
        if j.unfinished:
            shown = ", ".join(j.unfinished[:3]) + (" ..." if len(j.unfinished) > 3 else "")
            notes.append(
                f"{j.path}: {len(j.unfinished)} trial "
                f"{'directory' if len(j.unfinished) == 1 else 'directories'} without result.json "
                f"(unfinished or cancelled: {shown}): not read"
            )
        if isinstance(planned, int) and planned > done + len(j.unfinished):
            notes.append(
                f"{j.path}: the job planned {planned} trials (n_total_trials) and {done} "
                f"finished; the other {planned - done - len(j.unfinished)} never started and "
                "are not read"
            )
    return notes


def _is_trial(f: Path) -> bool:
    """A trial's ``result.json`` (by its head: task_name, trial_name and agent_info)."""
    if not f.is_file():
        return False
    head = file_head(f)
    return '"task_name"' in head and '"trial_name"' in head and '"agent_info"' in head


def _job_dirs_in(path: Path) -> bool:
    """A job, a directory of jobs, or one trial (refused with the job to give)."""
    try:
        return bool(job_dirs(path)) or _is_trial(path / "result.json")
    except OSError:
        return False


register_reader(
    "harbor", read_harbor, sniff=_sniff.with_directories(_sniff.harbor, _job_dirs_in), priority=13
)
